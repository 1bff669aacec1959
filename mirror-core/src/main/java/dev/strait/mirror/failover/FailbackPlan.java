package dev.strait.mirror.failover;

import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * What {@code strait failback} would do (and, after {@code --execute}, did): per failed-over topic, the records
 * written on the target after the failover that go back to the source, and the source records that never
 * reached the target (divergence: kept where they are, and named); per group, where it resumes on the source.
 *
 * @param sourceCluster the source (primary) cluster id
 * @param targetCluster the target (DR) cluster id
 * @param timeMs when the plan was made
 * @param topics per failed-over target topic
 * @param groups per matching group on the target
 * @param warnings things the operator should know
 */
public record FailbackPlan(
        String sourceCluster,
        String targetCluster,
        long timeMs,
        List<TopicBack> topics,
        List<GroupBack> groups,
        List<String> warnings) {

    /**
     * One target topic and the source topic it goes back to.
     *
     * @param failoverTimeMs when failover --execute recorded the failover point, or -1 when it was found from the
     *     records' provenance (after the last copy from the source)
     */
    public record TopicBack(
            String targetTopic, String sourceTopic, long failoverTimeMs, List<PartitionBack> partitions) {}

    /**
     * One partition (same number on both sides).
     *
     * @param failoverOffset target offset where records written after the failover start
     * @param targetEnd the target's end offset: {@code targetEnd - failoverOffset} offsets to copy back
     * @param copied records copied back by --execute (-1 before)
     * @param copiedFrom source offset of the first copy written back, -1 when none
     * @param copiedTo one past the source offset of the last copy written back, -1 when none
     * @param sourceFrontier one past the last source offset that reached the target before the failover
     * @param sourceEnd the source's end offset before anything is copied back
     * @param divergent source records in {@code [sourceFrontier, sourceEnd)} that never reached the target: kept
     *     on the source, before the records copied back
     * @param divergentAgeSeconds age of the oldest of them, -1 when there are none
     */
    public record PartitionBack(
            int partition,
            long failoverOffset,
            long targetEnd,
            long copied,
            long copiedFrom,
            long copiedTo,
            long sourceFrontier,
            long sourceEnd,
            long divergent,
            double divergentAgeSeconds) {}

    /**
     * One group.
     *
     * @param activeOnTarget members on the target (stop the applications there first)
     * @param activeOnSource members on the source (the group is not moved while it has any, unless --force)
     * @param partitions per source partition
     * @param outcome after --execute: moved, refused, failed, or null before
     */
    public record GroupBack(
            String group,
            int activeOnTarget,
            int activeOnSource,
            List<PartitionGroupBack> partitions,
            @Nullable String outcome) {}

    /**
     * Where a group resumes on one source partition.
     *
     * @param targetOffset the group's committed offset on the target
     * @param sourceOffset where it resumes on the source; -1 while it depends on records not copied back yet
     * @param how "from the failover copy" (it had not read past the failover point), "after the copies written
     *     back" (it read records written on the target) or "at the divergent records it never read" (it read records
     *     written on the target, but source records that never reached the target come before their copies)
     * @param readAgain records at or after {@code sourceOffset} that the group had already consumed (on the target:
     *     their copies written back come after the divergent records it must not skip); 0 when the position is exact
     */
    public record PartitionGroupBack(
            TopicPartition target,
            TopicPartition source,
            long targetOffset,
            long sourceOffset,
            String how,
            long readAgain) {}
}
