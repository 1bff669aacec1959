package dev.strait.mirror.failover;

import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * What the copy back covers on each target partition: from where it starts to the target's end when it started
 * (records written later are not its job). Immutable.
 *
 * @param from per target partition, the first offset to copy back
 * @param ends per target partition, one past the last offset to copy back
 */
record CopyRange(Map<TopicPartition, Long> from, Map<TopicPartition, Long> ends) {
    CopyRange {
        from = Map.copyOf(from);
        ends = Map.copyOf(ends);
    }

    /** Offsets to copy in all. */
    long total() {
        return remaining(Map.of());
    }

    /** Offsets still to copy when the copy reached {@code reached} (a partition not in it is where it started). */
    long remaining(Map<TopicPartition, Long> reached) {
        long n = 0;
        for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
            long position = reached.getOrDefault(e.getKey(), from.getOrDefault(e.getKey(), e.getValue()));
            n += Math.max(0, e.getValue() - position);
        }
        return n;
    }

    /** Whether the copy reached every partition's end (a partition it has no position on is not done). */
    boolean done(Map<TopicPartition, Long> reached) {
        for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
            Long at = reached.get(e.getKey());
            if (at == null || at < e.getValue()) {
                return false;
            }
        }
        return true;
    }
}
