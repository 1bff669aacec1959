package dev.strait.mirror.linked;

import static dev.strait.mirror.linked.LinkedClusters.TIMEOUT_MS;

import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.linked.LinkedTopics.Linked;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.sync.Clusters;
import dev.strait.mirror.sync.SyncMetrics;
import dev.strait.time.Time;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupNotEmptyException;
import org.apache.kafka.common.errors.IllegalGenerationException;
import org.apache.kafka.common.errors.UnknownMemberIdException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The offset-preserving mirror's group round: measures the lag of every mirrored partition (source end minus target
 * end, into {@link MirrorMetrics}), then copies the committed offsets of the {@code --groups} that have no members
 * on the target, verbatim ({@link GroupPlan} decides which). The lag and the offsets share a round because both need
 * the target's end offsets: an offset is written only once the copy has reached it.
 *
 * <p>A failed round is counted ({@code strait.mirror.sync.group-offsets.*}) and tried again at the next interval.
 * Not thread-safe: runs on the loop thread only.
 */
final class GroupOffsetRound {
    /** The mirror's logger: its lines read as they did before the rounds left {@link LinkedMirror}. */
    private static final Logger LOGGER = LoggerFactory.getLogger(LinkedMirror.class);

    private final LinkConfig settings;
    private final LinkedClusters clusters;
    private final LinkedTopics topics;
    private final MirrorMetrics metrics;
    private final SyncMetrics groupMetrics;
    private final Time time;
    private long offsetsWritten;

    GroupOffsetRound(
            LinkConfig settings,
            LinkedClusters clusters,
            LinkedTopics topics,
            MirrorMetrics metrics,
            SyncMetrics groupMetrics,
            Time time) {
        this.settings = settings;
        this.clusters = clusters;
        this.topics = topics;
        this.metrics = metrics;
        this.groupMetrics = groupMetrics;
        this.time = time;
    }

    /** Group offsets written on the target since the mirror started, for the progress log. */
    long offsetsWritten() {
        return offsetsWritten;
    }

    /** Measures the lag of every mirrored partition, then copies the matching groups' offsets. */
    void run() {
        long now = time.milliseconds();
        Map<String, Linked> mirrored = topics.mirrored();
        try {
            Set<TopicPartition> sourceTps = new HashSet<>();
            Set<TopicPartition> targetTps = new HashSet<>();
            mirrored.forEach((topic, linked) -> {
                for (int p = 0; p < linked.sourcePartitions(); p++) {
                    sourceTps.add(new TopicPartition(topic, p));
                }
                for (int p = 0; p < linked.targetPartitions(); p++) {
                    targetTps.add(new TopicPartition(topic, p));
                }
            });
            Map<TopicPartition, Long> sourceEnds = Clusters.endOffsets(clusters.source(), sourceTps, TIMEOUT_MS);
            Map<TopicPartition, Long> targetEnds = Clusters.endOffsets(clusters.target(), targetTps, TIMEOUT_MS);
            metrics.linkedLag(GroupPlan.lag(sourceEnds, targetEnds), targetEnds);
            GroupFilter groups = settings.groups();
            if (groups == null) {
                return;
            }
            long written = copyGroups(mirrored.keySet(), targetEnds, groups);
            offsetsWritten += written;
            groupMetrics.succeeded(now, written);
        } catch (RuntimeException e) {
            long inARow = groupMetrics.failed();
            if (SyncMetrics.worthLogging(inARow)) {
                LOGGER.warn(
                        "Measuring the lag and copying group offsets failed ({} rounds in a row), tried again in {} ms:"
                                + " {}",
                        inARow,
                        settings.groupIntervalMs(),
                        e.getMessage());
            }
        }
    }

    private long copyGroups(Set<String> mirrorTopics, Map<TopicPartition, Long> targetEnds, GroupFilter groupFilter) {
        Admin sourceAdmin = clusters.source();
        Admin targetAdmin = clusters.target();
        List<String> groups = Clusters.consumerGroups(
                sourceAdmin, g -> !g.equals(settings.mirrorGroup()) && groupFilter.matches(g), TIMEOUT_MS);
        Map<String, Map<TopicPartition, Long>> sourceOffsets = new HashMap<>();
        Clusters.committed(sourceAdmin, groups, TIMEOUT_MS).forEach((g, offsets) -> {
            Map<TopicPartition, Long> ours = new HashMap<>();
            offsets.forEach((tp, om) -> {
                if (mirrorTopics.contains(tp.topic())) {
                    ours.put(tp, om.offset());
                }
            });
            if (!ours.isEmpty()) {
                sourceOffsets.put(g, ours);
            }
        });
        // A group with members on the target is consumed there: its consumers own its offsets.
        Map<String, Integer> members = Clusters.members(targetAdmin, sourceOffsets.keySet(), TIMEOUT_MS);
        List<String> idle = sourceOffsets.keySet().stream()
                .filter(g -> members.getOrDefault(g, 0) == 0)
                .sorted()
                .toList();
        Map<String, Map<TopicPartition, OffsetAndMetadata>> onTarget =
                Clusters.committed(targetAdmin, idle, TIMEOUT_MS);
        Map<String, KafkaFuture<Void>> writes = new HashMap<>();
        Map<String, Integer> sizes = new HashMap<>();
        for (String g : idle) {
            Map<TopicPartition, Long> current = new HashMap<>();
            onTarget.getOrDefault(g, Map.of()).forEach((tp, om) -> current.put(tp, om.offset()));
            GroupPlan.Writes plan = GroupPlan.plan(
                    Objects.requireNonNull(sourceOffsets.get(g), "an idle group is one of sourceOffsets'"),
                    targetEnds,
                    current);
            if (plan.writes().isEmpty()) {
                continue;
            }
            Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
            plan.writes().forEach((tp, o) -> out.put(tp, new OffsetAndMetadata(o)));
            writes.put(g, targetAdmin.alterConsumerGroupOffsets(g, out).all());
            sizes.put(g, out.size());
        }
        long written = 0;
        List<String> failures = new ArrayList<>();
        for (Map.Entry<String, KafkaFuture<Void>> w : writes.entrySet()) {
            try {
                w.getValue().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
                written += Objects.requireNonNull(sizes.get(w.getKey()), "sized as its write was sent");
            } catch (ExecutionException e) {
                Throwable cause = e.getCause();
                if (!(cause instanceof GroupNotEmptyException
                        || cause instanceof UnknownMemberIdException
                        || cause instanceof IllegalGenerationException)) {
                    failures.add(w.getKey() + ": " + cause);
                }
                // Otherwise a consumer joined on the target between the check and the write: the broker refused.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LinkException("interrupted", e);
            } catch (java.util.concurrent.TimeoutException e) {
                failures.add(w.getKey() + ": timed out");
            }
        }
        if (!failures.isEmpty()) {
            throw new LinkException("could not write the offsets of " + failures.size() + " groups on the target "
                    + "(first: " + failures.get(0) + "); written again next round");
        }
        return written;
    }
}
