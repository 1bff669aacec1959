package dev.strait.mirror.sync;

import java.util.Collection;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/** What the offset map's upkeep reads of the target: which incarnation each topic is, and the copies in a range. */
public interface TargetRecords {
    /**
     * The id of each of {@code topics} that exists on the target (a topic deleted and created again has a new one);
     * topics missing there are left out.
     */
    Map<String, String> topicIds(Collection<String> topics);

    /**
     * Reads {@code [from, to)} of {@code tp} (stopping earlier at the partition's end or after a timeout) and
     * returns the copies of the source cluster's records in it.
     */
    TargetReader.Range read(TopicPartition tp, long from, long to);

    /**
     * Reads one range of each partition ({@code ranges}: partition to {@code {from, to}}), as {@link #read} does for
     * each; a reader of a real cluster fetches them together (one round trip for many partitions, not one each).
     */
    default Map<TopicPartition, TargetReader.Range> readEach(Map<TopicPartition, long[]> ranges) {
        Map<TopicPartition, TargetReader.Range> out = new java.util.HashMap<>();
        ranges.forEach((tp, r) -> out.put(tp, read(tp, r[0], r[1])));
        return out;
    }

    /**
     * The first record at or after {@code offset} that is a copy from {@code source}, reading at most
     * {@code maxRecords}; null when there is none.
     */
    default @Nullable Fact firstCopyAtOrAfter(
            TopicPartition tp, TopicPartition source, long offset, long end, int maxRecords) {
        TargetReader.Range range = read(tp, offset, Math.min(end, offset + maxRecords));
        for (Fact f : range.facts()) {
            if (f.source().equals(source)) {
                return f;
            }
        }
        return null;
    }

    /**
     * Binary search over {@code [lo, hi)} of {@code tp} for the first copy from {@code source} whose source offset is
     * at least {@code c}, assuming the source offsets do not go down in that range (no re-copied range). Reads about
     * log2(hi - lo) small ranges. Returns {@code hi} when every copy there is below {@code c}.
     */
    default long locate(TopicPartition tp, TopicPartition source, long c, long lo, long hi) {
        long a = lo;
        long b = hi;
        while (a < b) {
            long mid = a + (b - a) / 2;
            Fact f = firstCopyAtOrAfter(tp, source, mid, hi, 500);
            if (f == null || f.sourceOffset() >= c) {
                b = mid;
            } else {
                a = f.targetOffset() + 1;
            }
        }
        return a;
    }
}
