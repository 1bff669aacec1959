package dev.strait.mirror.linked;

import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * Which committed offsets of one group to write on the target. A mirror topic holds every record at its source
 * offset, so a group's offset is the same number on both clusters: it is copied verbatim, without translation.
 * Pure.
 */
public final class GroupPlan {
    private GroupPlan() {}

    /**
     * What to write, and how many partitions wait for the copy to catch up.
     *
     * @param writes  the offsets to commit on the target
     * @param heldBack partitions whose source offset is past what the target holds yet
     */
    public record Writes(Map<TopicPartition, Long> writes, int heldBack) {}

    /**
     * @param sourceCommitted the group's committed offsets on the source, for mirrored partitions only
     * @param targetEnds      the end offset of each mirrored partition on the target (absent: not there yet)
     * @param targetCommitted the group's committed offsets on the target
     */
    public static Writes plan(
            Map<TopicPartition, Long> sourceCommitted,
            Map<TopicPartition, Long> targetEnds,
            Map<TopicPartition, Long> targetCommitted) {
        Map<TopicPartition, Long> out = new HashMap<>();
        int heldBack = 0;
        for (Map.Entry<TopicPartition, Long> e : sourceCommitted.entrySet()) {
            TopicPartition tp = e.getKey();
            long offset = e.getValue();
            Long end = targetEnds.get(tp);
            // Only an offset the copy already reached: past the target's log end it is out of range there, and a
            // consumer started on the target then would be reset by auto.offset.reset (skipping to the end or
            // reading everything again) instead of resuming where the group stopped. It is written in a later
            // round, once the companion has copied that far.
            if (end == null || offset > end) {
                heldBack++;
                continue;
            }
            // Verbatim, also when it moves the group back: while the topic is a mirror the source's group is the
            // one that consumes, and a group idle on the target must resume exactly where the source's stopped.
            Long now = targetCommitted.get(tp);
            if (now == null || now != offset) {
                out.put(tp, offset);
            }
        }
        return new Writes(out, heldBack);
    }

    /**
     * Lag per partition, exact: the source's end offset minus the target's (0 for a partition not on the target
     * yet). Never negative: a target ahead of its source (the source lost records) is not behind.
     */
    public static Map<TopicPartition, Long> lag(
            Map<TopicPartition, Long> sourceEnds, Map<TopicPartition, Long> targetEnds) {
        Map<TopicPartition, Long> out = new HashMap<>();
        sourceEnds.forEach((tp, end) -> out.put(tp, Math.max(0, end - targetEnds.getOrDefault(tp, 0L))));
        return out;
    }
}
