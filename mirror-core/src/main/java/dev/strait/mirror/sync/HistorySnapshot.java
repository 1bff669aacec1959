package dev.strait.mirror.sync;

import java.util.List;
import org.apache.kafka.common.TopicPartition;

/**
 * A copy of a {@link TargetHistory}'s knowledge, as persisted in the sync topic: segments
 * ({@code t[i], s[i], len[i]}, source partition {@code feeders.get(feeder[i])}) in target-offset order and the
 * complete ranges {@code [from, to)}, of the target topic whose id is {@code topicId} (its incarnation: a topic
 * deleted and created again has a new id; null in snapshots written before ids were kept). The arrays are not
 * copied again: treat them as immutable.
 */
public record HistorySnapshot(
        TopicPartition target,
        List<TopicPartition> feeders,
        long[] t,
        long[] s,
        int[] len,
        int[] feeder,
        List<long[]> known,
        String topicId) {
    public int size() {
        return t.length;
    }
}
