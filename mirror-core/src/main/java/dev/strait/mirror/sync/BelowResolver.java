package dev.strait.mirror.sync;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

import org.apache.kafka.common.TopicPartition;

/**
 * Resolves translations that fall below everything the offset map knows of a partition when the map does not
 * reach back to the partition's first record (the mirror was started on a target that already held copies, or
 * hash mode dropped old segments): a binary search over the target's provenance finds the first copy at or
 * after the committed offset. It assumes no re-copied range down there (a mirror crash long ago); in preserve
 * mode a wrong guess can only read records again, never skip, because the search stops at the first copy at or
 * after the committed offset. Results are cached per partition and offset. Not thread-safe.
 */
public final class BelowResolver {
    private final TargetReader reader;
    private final Map<String, Long> cache = new HashMap<>();

    public BelowResolver(TargetReader reader) {
        this.reader = reader;
    }

    /** {@code in} with every {@link Translation#belowKnown()} entry resolved; the others are returned as they are. */
    public Map<TopicPartition, Translation> resolve(TranslationRound round, Map<TopicPartition, Translation> in,
                                                    Map<TopicPartition, Long> committed, Map<TopicPartition, Long> starts) {
        Map<TopicPartition, Translation> out = new TreeMap<>(
            Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
        for (Map.Entry<TopicPartition, Translation> e : in.entrySet()) {
            Translation t = e.getValue();
            PartitionIndex index = round.index(e.getKey());
            long start = starts.getOrDefault(e.getKey(), 0L);
            if (!t.belowKnown() || index == null) {
                out.put(e.getKey(), t);
                continue;
            }
            if (index.from() <= start) {
                // The map reaches back to the first record: nothing lies below it.
                out.put(e.getKey(), new Translation(t.target(), t.offset(), t.readAgain(), false, t.uncommittedSources()));
                continue;
            }
            if (index.sources().size() != 1) {
                out.put(e.getKey(), t);
                continue;
            }
            TopicPartition source = index.sources().iterator().next();
            long c = committed.get(source);
            String key = e.getKey() + "|" + source + "|" + c + "|" + index.from() + "|" + start;
            Long located = cache.get(key);
            if (located == null) {
                located = reader.locate(e.getKey(), source, c, start, index.from());
                cache.put(key, located);
            }
            out.put(e.getKey(), new Translation(t.target(), Math.min(located, t.offset()), 0, false, 0));
        }
        return out;
    }
}
