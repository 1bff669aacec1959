package dev.strait.mirror.failover;

import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * What {@code strait failover} would do (and, with {@code --execute}, does): per group and target partition, the
 * offset the group resumes at on the target and what that costs. Immutable.
 *
 * @param sourceReachable whether the source answered; if not, the groups' positions are the last the mirror saved
 * @param sourceCluster the source cluster id
 * @param targetCluster the target cluster id
 * @param timeMs when the plan was made
 * @param groups one entry per matching group, by name
 * @param warnings things the operator should know (a topic that is not mirrored, a map that was read back)
 */
public record FailoverPlan(
        boolean sourceReachable,
        String sourceCluster,
        String targetCluster,
        long timeMs,
        List<GroupPlan> groups,
        List<String> warnings) {

    /**
     * One group.
     *
     * @param group the consumer group id
     * @param activeMembers members the group has on the target now (a group with members is not moved without --force)
     * @param positionsTimeMs when its source positions were read: now when the source is reachable, else the time of
     *     the mirror's last checkpoint of the group
     * @param partitions one entry per target partition the group has a position for, by topic and partition
     * @param problem why the group cannot be moved, or null
     */
    public record GroupPlan(
            String group,
            int activeMembers,
            long positionsTimeMs,
            List<PartitionPlan> partitions,
            @Nullable String problem) {
        public long readAgain() {
            return partitions.stream()
                    .mapToLong(p -> Math.max(0, p.readAgain()))
                    .sum();
        }
    }

    /**
     * One target partition of a group.
     *
     * @param target the target partition
     * @param offset the offset the group resumes at
     * @param currentOffset the group's committed offset on the target now, or -1
     * @param readAgain records at or after {@code offset} the group had already consumed on the source (0 when exact,
     *     -1 when unknown)
     * @param exact whether the translation is exact
     * @param sources the source partitions feeding this target partition (one, except in hash mode)
     */
    public record PartitionPlan(
            TopicPartition target,
            long offset,
            long currentOffset,
            long readAgain,
            boolean exact,
            List<SourceState> sources) {}

    /**
     * One source partition feeding a target partition.
     *
     * @param source the source partition
     * @param committed the group's committed offset there (-1 when it has none: hash mode, treated as its start)
     * @param sourceEnd the source log end offset (as of {@link GroupPlan#positionsTimeMs()} when the source is
     *     unreachable), or -1 when unknown
     * @param notOnTarget source records of this partition that are not on the target: the loss a failover accepts
     *     (-1 when unknown)
     * @param notOnTargetAtLeast whether {@code notOnTarget} is a lower bound (source unreachable, or too many to count)
     * @param notOnTargetAgeSeconds age of the oldest of them, or -1 when there are none or it is unknown
     */
    public record SourceState(
            TopicPartition source,
            long committed,
            long sourceEnd,
            long notOnTarget,
            boolean notOnTargetAtLeast,
            double notOnTargetAgeSeconds) {}
}
