package dev.strait.mirror.linked;

import dev.strait.mirror.config.ClientConfigs;
import java.time.Duration;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.jspecify.annotations.Nullable;

/**
 * The offset-preserving mirror's admin clients of the source and the target, opened and checked in one step: both
 * clusters answer, they are two clusters, and the target is a companion cluster. {@link LinkedMirror#start()} opens
 * it before the loop exists, so that a refusal starts nothing and leaves no client open; the loop closes it when it
 * ends. Immutable; the admin clients are thread-safe.
 *
 * @param sourceId the source's cluster id
 * @param targetId the target's cluster id
 */
record LinkedClusters(Admin source, Admin target, String sourceId, String targetId) implements AutoCloseable {
    /** How long one admin call of a round may take before the round counts as failed. */
    static final long TIMEOUT_MS = 30_000;

    /**
     * Connects to both clusters and checks them. Throws {@link dev.strait.settings.ConfigException} (a target
     * that is not a companion cluster) or {@link LinkException} (a cluster unreachable, or the same cluster twice),
     * after closing what it opened.
     */
    static LinkedClusters connect(LinkConfig settings) {
        Admin source = null;
        Admin target = null;
        try {
            source = Admin.create(ClientConfigs.admin(settings.sourceClient(), "strait-mirror-source-admin"));
            target = Admin.create(ClientConfigs.admin(settings.targetClient(), "strait-mirror-target-admin"));
            String targetServers = settings.targetClient().getProperty("bootstrap.servers");
            String sourceId = clusterId(source, "source", settings.sourceClient());
            String targetId = clusterId(target, "target", settings.targetClient());
            if (sourceId.equals(targetId)) {
                throw new LinkException(
                        "source and target are the same cluster (" + sourceId + "); "
                                + "check bootstrap.servers in --consumer.config and --producer.config",
                        null);
            }
            CompanionProbe.requireCompanion(target, targetServers, settings.source());
            return new LinkedClusters(source, target, sourceId, targetId);
        } catch (RuntimeException e) {
            close(source, target);
            throw e;
        }
    }

    @Override
    public void close() {
        close(source, target);
    }

    private static void close(@Nullable Admin... admins) {
        for (Admin admin : admins) {
            if (admin != null) {
                admin.close(Duration.ofSeconds(5));
            }
        }
    }

    private static String clusterId(Admin admin, String which, Properties props) {
        try {
            return admin.describeCluster().clusterId().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new LinkException(
                    "cannot reach the " + which + " cluster at " + props.getProperty("bootstrap.servers") + ": "
                            + cause.getMessage() + "; check bootstrap.servers and security settings",
                    cause);
        }
    }
}
