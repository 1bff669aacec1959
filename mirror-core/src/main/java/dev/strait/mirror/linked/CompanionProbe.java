package dev.strait.mirror.linked;

import dev.strait.settings.ConfigException;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.jspecify.annotations.Nullable;

/**
 * Tells a Strait companion cluster from any other Kafka-compatible target by asking it, without creating
 * anything, whether it would create a mirror topic (CreateTopics with validateOnly and the mirror configs): Apache
 * Kafka refuses configs it does not know, a companion cluster accepts them.
 */
public final class CompanionProbe {
    private static final long TIMEOUT_MS = 60_000;

    private CompanionProbe() {}

    /**
     * Returns when {@code target} is a companion cluster that accepts mirror topics of a source at
     * {@code sourceServers}; otherwise throws a {@link ConfigException} that says why (bad input: the wrong target),
     * or a {@link LinkException} when the target could not answer.
     */
    public static void requireCompanion(Admin target, String targetServers, String sourceServers) {
        requireCompanion(target, targetServers, MirrorSource.servers(sourceServers));
    }

    /** As above, for a source named by bootstrap servers or by a link. */
    public static void requireCompanion(Admin target, String targetServers, MirrorSource source) {
        String sourceServers = source.toString();
        NewTopic probe = new NewTopic(
                        "strait-offset-preserving-probe-" + Uuid.randomUuid(), Optional.of(1), Optional.empty())
                .configs(source.configs(""));
        try {
            target.createTopics(List.of(probe), new CreateTopicsOptions().validateOnly(true))
                    .all()
                    .get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            Throwable cause = e.getCause();
            if (cause instanceof InvalidConfigurationException && refusedAsUnknown(cause.getMessage())) {
                throw new ConfigException("--offset.preserving needs a Strait companion cluster as the target, and "
                        + targetServers + " is not one (it does not know mirror topics: " + cause.getMessage()
                        + "); mirror without --offset.preserving");
            }
            if (cause instanceof InvalidConfigurationException) {
                throw new ConfigException(
                        "the target refused mirror topics of source " + sourceServers + ": " + cause.getMessage()
                                + "; check --offset.preserving.source.bootstrap or --offset.preserving.link");
            }
            if (cause instanceof TopicAuthorizationException) {
                throw new ConfigException("the target refused to create topics for the --producer.config principal ("
                        + cause.getMessage() + "); --offset.preserving creates the mirror topics: grant it CREATE");
            }
            throw new LinkException(
                    "could not ask the target at " + targetServers + " whether it takes mirror topics: " + cause,
                    cause);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LinkException("interrupted while probing the target", e);
        } catch (TimeoutException e) {
            throw new LinkException(
                    "the target at " + targetServers + " did not answer within " + TIMEOUT_MS
                            + " ms whether it takes mirror topics",
                    e);
        }
    }

    /** Apache Kafka's refusal of a config it does not know. */
    static boolean refusedAsUnknown(@Nullable String message) {
        return message != null && message.toLowerCase(java.util.Locale.ROOT).contains("unknown");
    }
}
