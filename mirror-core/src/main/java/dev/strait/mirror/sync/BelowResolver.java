package dev.strait.mirror.sync;

import java.util.Comparator;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
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
    private final TargetRecords reader;
    private final Map<TopicPartition, TargetHistory> histories = new HashMap<>();
    private final Map<String, Long> cache = new HashMap<>();

    public BelowResolver(TargetRecords reader) {
        this.reader = reader;
    }

    /** The offset map the translations came from (for positions below the window of interleaved partitions). */
    public BelowResolver from(OffsetMap map) {
        histories.clear();
        map.histories().forEach(h -> histories.put(h.target(), h));
        return this;
    }

    /** Records read back per attempt when several source partitions interleave below the offset map's window. */
    private static final long INTERLEAVED_READ = 200_000;

    /**
     * Several source partitions interleave (hash mode) and the group lies below the map's window, or a source
     * partition it has not consumed to the end has no copy in the window ({@code missing}: it was idle while the
     * window's records were copied): read the target below the window (at most {@value #INTERLEAVED_READ}
     * records), translate over what was read and the window together; if that still does not reach back far
     * enough, start at the partition's first record, which reads again but never skips.
     */
    private Translation resolveInterleaved(
            TopicPartition tp,
            PartitionIndex index,
            Map<TopicPartition, Long> committed,
            long start,
            Set<TopicPartition> missing) {
        TargetHistory history = histories.get(tp);
        if (history != null) {
            long from = Math.max(start, index.from() - INTERLEAVED_READ);
            TargetHistory wide = new TargetHistory(tp, Integer.MAX_VALUE / 4);
            wide.merge(history.snapshot());
            TargetReader.Range range = reader.read(tp, from, index.from());
            wide.merge(range.facts(), from, range.reachedTo());
            Map<TopicPartition, Long> mine = new HashMap<>();
            committed.forEach((source, c) -> {
                if (wide.index().sources().contains(source)) {
                    mine.put(source, c);
                }
            });
            Translation t = wide.index().translate(mine);
            // What was read must reach the first record (a read cut short by its timeout leaves a gap, and the
            // wide window then starts where the map's did), or else show every source the window had no copy
            // of: the copies of one that is still missing lie further down.
            boolean toStart = wide.index().from() >= 0 && wide.index().from() <= start;
            boolean found = wide.index().sources().containsAll(missing);
            if (t != null && (toStart || (!t.belowKnown() && found))) {
                return new Translation(t.target(), t.offset(), t.readAgain(), false, t.uncommittedSources());
            }
        }
        return new Translation(tp, start, -1, false, 0);
    }

    /** {@code in} with every {@link Translation#belowKnown()} entry resolved; the others are returned as they are. */
    public Map<TopicPartition, Translation> resolve(
            TranslationRound round,
            Map<TopicPartition, Translation> in,
            Map<TopicPartition, Long> committed,
            Map<TopicPartition, Long> starts) {
        Map<TopicPartition, Translation> out =
                new TreeMap<>(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
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
                out.put(
                        e.getKey(),
                        new Translation(t.target(), t.offset(), t.readAgain(), false, t.uncommittedSources()));
                continue;
            }
            Set<TopicPartition> missing = round.possiblyBelow(e.getKey(), committed);
            if (index.sources().size() != 1 || !missing.isEmpty()) {
                out.put(e.getKey(), resolveInterleaved(e.getKey(), index, committed, start, missing));
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
