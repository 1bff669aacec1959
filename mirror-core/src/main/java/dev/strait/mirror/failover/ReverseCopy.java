package dev.strait.mirror.failover;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.config.PartitionMode;
import dev.strait.mirror.config.SyncConfig;
import dev.strait.mirror.config.TopicConfigFilter;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.mirror.config.TopicSyncConfig;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.progress.Progress;
import dev.strait.mirror.sync.Clusters;
import dev.strait.mirror.sync.OffsetMap;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The copy back of a failback: a reverse mirror (target to source, the source's topic names, loop prevention on,
 * partitions keep their numbers) that runs under the consumer group {@code group} on the target until its commits
 * reach the ends the copy started with. Not thread-safe.
 */
final class ReverseCopy {
    private static final Logger LOGGER = LoggerFactory.getLogger(ReverseCopy.class);
    private static final long POLL_MS = 500;

    private final FailoverConfig config;
    private final Time time;
    private final Admin targetAdmin;
    private final Map<String, String> sourceTopicOf;
    private final String group;

    /**
     * @param sourceTopicOf per target topic, the source topic it goes back to
     * @param group the reverse mirror's consumer group on the target, its start offsets already committed
     */
    ReverseCopy(FailoverConfig config, Time time, Admin targetAdmin, Map<String, String> sourceTopicOf, String group) {
        this.config = config;
        this.time = time;
        this.targetAdmin = targetAdmin;
        this.sourceTopicOf = Map.copyOf(sourceTopicOf);
        this.group = group;
    }

    /**
     * Runs the reverse mirror on {@code tps} from {@code range.from()} until its commits reach
     * {@code range.ends()} (at most {@code timeout}); {@code reverse} learns each copy it writes.
     */
    void run(Set<TopicPartition> tps, CopyRange range, Duration timeout, Progress progress, OffsetMap reverse)
            throws InterruptedException {
        MirrorEngine engine =
                new MirrorEngine(settings(tps), new MirrorMetrics(new MetricRegistry()), time, reverse::acknowledged);
        engine.start();
        long deadline = time.milliseconds() + timeout.toMillis();
        progress.start(range.total());
        try {
            while (true) {
                Map<TopicPartition, Long> reached = committed();
                progress.update(range.total() - range.remaining(reached));
                if (range.done(reached)) {
                    break;
                }
                if (engine.state() == MirrorEngine.State.FAILED) {
                    throw failed(Objects.requireNonNull(engine.failure(), "a failed engine holds its failure"));
                }
                if (time.milliseconds() > deadline) {
                    throw new FailoverException(
                            "the failback copy did not reach the target's end within " + timeout.toSeconds()
                                    + " s; run failback --execute again to go on (it resumes where it stopped)");
                }
                time.sleep(POLL_MS);
            }
        } finally {
            progress.finish();
            engine.requestStop();
            if (!engine.awaitTermination(Duration.ofMinutes(2))) {
                LOGGER.warn("The failback mirror did not stop within 2 minutes");
            }
        }
    }

    /** The reverse mirror's committed offsets on the target: how far its copy got. */
    private Map<TopicPartition, Long> committed() {
        Map<TopicPartition, Long> out = new HashMap<>();
        Clusters.committed(targetAdmin, List.of(group), Connections.TIMEOUT_MS)
                .getOrDefault(group, Map.of())
                .forEach((tp, c) -> out.put(tp, c.offset()));
        return out;
    }

    private MirrorConfig settings(Set<TopicPartition> tps) {
        Properties consumer = config.target();
        consumer.put("group.id", group);
        consumer.put("auto.offset.reset", "none");
        Properties producer = config.source();
        Set<String> topics = new TreeSet<>();
        tps.forEach(tp -> topics.add(tp.topic()));
        StringBuilder include = new StringBuilder();
        for (String t : topics) {
            include.append(include.length() == 0 ? "" : "|").append(Pattern.quote(t));
        }
        return MirrorConfig.builder()
                .consumerConfig(consumer)
                .producerConfig(producer)
                .include(include.toString())
                .offsetCommitIntervalMs(1000)
                .partitionMode(PartitionMode.PRESERVE)
                .renamer(TopicRenamer.explicit(sourceTopicOf))
                .sync(new SyncConfig(
                        null,
                        SyncConfig.DEFAULT_GROUP_OFFSETS_INTERVAL_MS,
                        false,
                        SyncConfig.DEFAULT_SYNC_TOPIC,
                        new TopicSyncConfig(false, true, false, 60_000, TopicConfigFilter.defaults())))
                .build();
    }

    /**
     * The reverse mirror's failure as one line. Its messages speak of the mirror's own flags (--producer.config);
     * here its producer is the source. settings and its consumer the target. settings, so a refusal says that.
     */
    private FailoverException failed(Throwable failure) {
        AuthorizationException denied = Denial.find(failure);
        if (denied == null) {
            return new FailoverException("the failback mirror failed: " + failure.getMessage(), failure);
        }
        Set<String> sourceNames = new TreeSet<>(sourceTopicOf.values());
        String line;
        if (denied instanceof GroupAuthorizationException) {
            line = Denial.line("target", denied, "READ", "group", Set.of(group));
        } else if (denied instanceof ClusterAuthorizationException) {
            // Kafka refuses the idempotent producer's InitProducerId with no WRITE on any topic; WRITE implies it.
            line = Denial.line("source", denied, "WRITE", "topic", sourceNames);
        } else if (failure.getMessage() != null && failure.getMessage().startsWith("send of source record")) {
            // The engine's send failures (MirrorStream.abortError) start so: the source refused the copy.
            line = Denial.line("source", denied, "WRITE", "topic", sourceNames);
        } else {
            line = Denial.line("target", denied, "READ", "topic", new TreeSet<>(sourceTopicOf.keySet()));
        }
        return new FailoverException(
                "the failback mirror stopped; nothing was copied past the refused record: " + line, failure);
    }
}
