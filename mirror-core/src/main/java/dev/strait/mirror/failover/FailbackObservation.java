package dev.strait.mirror.failover;

import dev.strait.mirror.sync.FailoverMarker;
import dev.strait.mirror.sync.GroupCheckpoint;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;

/**
 * What a failback read from both clusters, as plain values: everything {@link FailbackPlanner} decides from.
 * Immutable.
 *
 * @param sourceCluster the source (primary) cluster id
 * @param targetCluster the target (DR) cluster id
 * @param timeMs when the observation was made
 * @param scope the target topics that fail back and the source topic of each
 * @param markers per target topic, the failover point {@code failover --execute} recorded (may be empty)
 * @param partitionCounts per target topic, its partitions on the target
 * @param targetStarts per target partition, its log start offset
 * @param targetEnds per target partition, its log end offset
 * @param forward what the forward mirror had copied before the failover
 * @param sourceEnds per source partition that exists, its end offset before anything is copied back
 * @param divergence per source partition, its records after the forward mirror's frontier that never reached the
 *     target (a partition not listed has none)
 * @param checkpoints per group, its source positions as the forward mirror last read them
 * @param groups the matching groups on the target, in the order they are reported
 */
record FailbackObservation(
        String sourceCluster,
        String targetCluster,
        long timeMs,
        FailbackPlanner.Scope scope,
        Map<String, FailoverMarker> markers,
        Map<String, Integer> partitionCounts,
        Map<TopicPartition, Long> targetStarts,
        Map<TopicPartition, Long> targetEnds,
        ForwardCopies forward,
        Map<TopicPartition, Long> sourceEnds,
        Map<TopicPartition, SourceTail.Missing> divergence,
        Map<String, GroupCheckpoint> checkpoints,
        List<Group> groups) {

    FailbackObservation {
        markers = Map.copyOf(markers);
        partitionCounts = Map.copyOf(partitionCounts);
        targetStarts = Map.copyOf(targetStarts);
        targetEnds = Map.copyOf(targetEnds);
        sourceEnds = Map.copyOf(sourceEnds);
        divergence = Map.copyOf(divergence);
        checkpoints = Map.copyOf(checkpoints);
        groups = List.copyOf(groups);
    }

    /**
     * One consumer group on the target.
     *
     * @param committed its committed offsets on the target
     * @param membersOnTarget its active members on the target
     * @param membersOnSource its active members on the source
     */
    record Group(String group, Map<TopicPartition, Long> committed, int membersOnTarget, int membersOnSource) {
        Group {
            committed = Map.copyOf(committed);
        }
    }

    /** The same observation with the groups read again (after the copy back). */
    FailbackObservation withGroups(List<Group> now) {
        return new FailbackObservation(
                sourceCluster,
                targetCluster,
                timeMs,
                scope,
                markers,
                partitionCounts,
                targetStarts,
                targetEnds,
                forward,
                sourceEnds,
                divergence,
                checkpoints,
                now);
    }

    /** Every partition of the target topics that fail back, by topic and number. */
    Set<TopicPartition> targetPartitions() {
        Set<TopicPartition> out = new TreeSet<>(ORDER);
        partitionCounts.forEach((topic, n) -> {
            for (int p = 0; p < n; p++) {
                out.add(new TopicPartition(topic, p));
            }
        });
        return out;
    }

    /** The source partition a target partition goes back to (partitions keep their numbers). */
    TopicPartition sourceOf(TopicPartition target) {
        return new TopicPartition(scope.sourceTopicOf().get(target.topic()), target.partition());
    }

    static final Comparator<TopicPartition> ORDER =
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    /** The names of the source topics the target topics go back to, sorted. */
    Set<String> sourceTopics() {
        return new TreeSet<>(scope.sourceTopicOf().values());
    }
}
