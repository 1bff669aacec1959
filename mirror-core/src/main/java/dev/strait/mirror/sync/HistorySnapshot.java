package dev.strait.mirror.sync;

import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * A copy of a {@link TargetHistory}'s knowledge, as persisted in the sync topic: segments
 * ({@code t[i], s[i], len[i]}, source partition {@code feeders.get(feeder[i])}) in target-offset order and the
 * complete ranges {@code [from, to)}, of the target topic whose id is {@code topicId} (its incarnation: a topic
 * deleted and created again has a new id; null in snapshots written before ids were kept), and the folded oldest
 * stretch ({@code folded}, null when nothing is folded): its target range {@code [folded.firstT(), folded.lastT()]}
 * is complete too but is not listed in {@code known}, so that a reader that does not know folded runs sees a
 * stretch it must read again rather than one without copies. The arrays are not copied again: treat them as
 * immutable.
 */
public record HistorySnapshot(
        TopicPartition target,
        List<TopicPartition> feeders,
        long[] t,
        long[] s,
        int[] len,
        int[] feeder,
        List<long[]> known,
        @Nullable String topicId,
        @Nullable FoldedRun folded) {
    public HistorySnapshot(
            TopicPartition target,
            List<TopicPartition> feeders,
            long[] t,
            long[] s,
            int[] len,
            int[] feeder,
            List<long[]> known,
            @Nullable String topicId) {
        this(target, feeders, t, s, len, feeder, known, topicId, null);
    }

    public int size() {
        return t.length;
    }
}
