package dev.strait.mirror.sync;

import dev.strait.time.Time;
import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * Resolves translations the offset map alone cannot give:
 * <ul>
 *   <li>inside a partition's folded run ({@link FoldedRun}): the stretch of the target between the two checkpoints
 *       around the committed offset is read, and the translation is exact. Stretches read are kept (a bounded
 *       number of segments, least recently used dropped), so the groups at the same place and later rounds read
 *       nothing. A round may limit the reads (a number, a time): past it, the checkpoint below the committed
 *       offset plus one is used (reads again, never skips; {@code readAgain} -1), and a later round, reading
 *       more, moves the group forward to the exact offset;</li>
 *   <li>below everything the offset map knows of a partition when the map does not reach back to the partition's
 *       first record (the mirror was started on a target that already held copies, or hash mode dropped old
 *       segments): a binary search over the target's provenance finds the first copy at or after the committed
 *       offset. It assumes no re-copied range down there (a mirror crash long ago); in preserve mode a wrong guess
 *       can only read records again, never skip, because the search stops at the first copy at or after the
 *       committed offset. Results are cached per partition and offset.</li>
 * </ul>
 * Not thread-safe.
 */
public final class BelowResolver {
    /** Segments of read stretches kept (about 20 bytes each). */
    private static final int STRETCH_SEGMENTS = 400_000;
    /**
     * Segments a round reads at most: half of what is kept, so that what a round read for its groups is still kept
     * when they are resolved.
     */
    private static final int ROUND_SEGMENTS = STRETCH_SEGMENTS / 2;

    private static final int LOCATED = 100_000;

    private final TargetRecords reader;
    private final long readsPerRound;
    /** Null: no time limit on a round's reads. */
    private final @Nullable Time time;

    private final long readMillisPerRound;
    private long roundStartMs;
    private final Map<TopicPartition, TargetHistory> histories = new HashMap<>();
    private final Map<String, Long> cache = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Long> eldest) {
            return size() > LOCATED;
        }
    };
    private final LinkedHashMap<Stretch, Copies> stretches = new LinkedHashMap<>(16, 0.75f, true);
    private long stretchSegments;
    private long roundSegments;
    private long readsLeft;
    private long reads;
    private long recordsRead;

    /** Reads whatever a translation needs. */
    public BelowResolver(TargetRecords reader) {
        this(reader, Long.MAX_VALUE);
    }

    /** Reads at most {@code readsPerRound} stretches of folded runs per {@link #from} (a sync round). */
    public BelowResolver(TargetRecords reader, long readsPerRound) {
        this(reader, readsPerRound, null, Long.MAX_VALUE);
    }

    /**
     * Reads at most {@code readsPerRound} stretches of folded runs per {@link #from} (a sync round), and starts none
     * once {@code readMillisPerRound} passed since the round's first read (a read is a fetch from the target: the
     * round stays short).
     */
    public BelowResolver(TargetRecords reader, long readsPerRound, @Nullable Time time, long readMillisPerRound) {
        this.reader = reader;
        this.readsPerRound = readsPerRound;
        this.readsLeft = readsPerRound;
        this.time = time;
        this.readMillisPerRound = readMillisPerRound;
    }

    /**
     * The offset map the translations came from (for positions below the window of interleaved partitions); starts
     * a round: the reads of folded stretches start again from {@code readsPerRound}.
     */
    public BelowResolver from(OffsetMap map) {
        histories.clear();
        map.histories().forEach(h -> histories.put(h.target(), h));
        readsLeft = readsPerRound;
        roundSegments = 0;
        roundStartMs = -1;
        return this;
    }

    /** Stretches of folded runs read from the target so far. */
    public long reads() {
        return reads;
    }

    /** Records of folded runs read from the target so far. */
    public long recordsRead() {
        return recordsRead;
    }

    /** A stretch of a folded run: target offsets {@code [from, to)}, the copy at {@code from} being of {@code s}. */
    private record Stretch(TopicPartition target, long from, long to, long s) {}

    /** The copies of one source partition in a stretch, as segments with source offsets going up. */
    private record Copies(long[] t, long[] s, int[] len) {
        /** The target offset of the last copy whose source offset is below c, or -1. */
        long lastBelow(long c) {
            int a = 0;
            int b = s.length - 1;
            int found = -1;
            while (a <= b) {
                int mid = (a + b) >>> 1;
                if (s[mid] < c) {
                    found = mid;
                    a = mid + 1;
                } else {
                    b = mid - 1;
                }
            }
            return found < 0 ? -1 : t[found] + Math.min(len[found] - 1, c - 1 - s[found]);
        }
    }

    /** The exact translation of {@code c} inside a folded run: one past the last copy below it, read from the target. */
    private Translation inFolded(TopicPartition tp, TopicPartition source, long c, long[] bracket) {
        Stretch key = new Stretch(tp, bracket[0], bracket[1], bracket[2]);
        Translation fallback = new Translation(tp, bracket[0] + 1, -1, false, 0);
        Copies copies = stretches.get(key);
        if (copies == null) {
            if (!mayRead()) {
                return fallback;
            }
            readsLeft--;
            copies = read(key, source);
            if (copies == null) {
                return fallback;
            }
            keep(key, copies);
        }
        long last = copies.lastBelow(c);
        return last < 0 ? fallback : new Translation(tp, last + 1, 0, false, 0);
    }

    private void keep(Stretch key, Copies copies) {
        stretches.put(key, copies);
        stretchSegments += copies.t().length;
        roundSegments += copies.t().length;
        var eldest = stretches.entrySet().iterator();
        while (stretchSegments > STRETCH_SEGMENTS && eldest.hasNext()) {
            stretchSegments -= eldest.next().getValue().t().length;
            eldest.remove();
        }
    }

    /** Partitions whose stretches are read together in one {@link TargetRecords#readEach}. */
    private static final int READ_TOGETHER = 100;

    /**
     * Reads the stretches of folded runs that the translations of a round ({@code translated}, each group's as
     * {@link TranslationRound#translate} gave them for its {@code committed} offsets, in the same order) need and
     * that are not kept yet, a stretch of each of up to {@value #READ_TOGETHER} partitions at a time (one fetch for
     * them all, not one each), within the round's reads; {@link #resolve} then finds them kept.
     */
    public void prefetch(
            TranslationRound round,
            List<Map<TopicPartition, Translation>> translated,
            List<Map<TopicPartition, Long>> committed) {
        Map<Stretch, TopicPartition> needed = new LinkedHashMap<>();
        for (int g = 0; g < translated.size(); g++) {
            for (Map.Entry<TopicPartition, Translation> e : translated.get(g).entrySet()) {
                PartitionIndex index = e.getValue().belowKnown() ? round.index(e.getKey()) : null;
                TopicPartition only = index == null ? null : index.onlySource();
                Long c = only == null ? null : committed.get(g).get(only);
                long[] bracket = index == null || only == null || c == null ? null : index.foldedBracket(only, c);
                if (bracket != null) {
                    Stretch key = new Stretch(e.getKey(), bracket[0], bracket[1], bracket[2]);
                    if (!stretches.containsKey(key)) {
                        needed.put(key, only);
                    }
                }
            }
        }
        // Per partition, its stretches in the order the groups need them: a fetch takes one of each of the first
        // partitions.
        Map<TopicPartition, ArrayDeque<Stretch>> left = new LinkedHashMap<>();
        needed.keySet()
                .forEach(st -> left.computeIfAbsent(st.target(), k -> new ArrayDeque<>())
                        .add(st));
        while (!left.isEmpty() && mayRead()) {
            Map<TopicPartition, long[]> ranges = new HashMap<>();
            Map<TopicPartition, Stretch> batch = new HashMap<>();
            var it = left.entrySet().iterator();
            while (it.hasNext() && batch.size() < Math.min(READ_TOGETHER, readsLeft)) {
                Map.Entry<TopicPartition, ArrayDeque<Stretch>> e = it.next();
                Stretch st = e.getValue().poll();
                batch.put(e.getKey(), st);
                ranges.put(e.getKey(), new long[] {st.from(), st.to()});
                if (e.getValue().isEmpty()) {
                    it.remove();
                }
            }
            readsLeft -= batch.size();
            Map<TopicPartition, TargetReader.Range> read = reader.readEach(ranges);
            batch.forEach((tp, st) -> {
                TargetReader.Range range = read.get(tp);
                Copies copies = range == null
                        ? null
                        : decode(st, Objects.requireNonNull(needed.get(st), "a stretch read is a needed one"), range);
                if (copies != null) {
                    keep(st, copies);
                }
            });
        }
    }

    /** Whether this round may still read: stretches and time left (counted from its first read). */
    private boolean mayRead() {
        if (readsLeft <= 0 || roundSegments >= ROUND_SEGMENTS) {
            return false;
        }
        if (time == null) {
            return true;
        }
        long now = time.milliseconds();
        if (roundStartMs < 0) {
            roundStartMs = now;
        }
        return now - roundStartMs < readMillisPerRound;
    }

    /**
     * Reads a stretch; null when what is there is not what the folded run says (a read cut short, or the partition
     * changed under the map): the caller then falls back to the checkpoint.
     */
    private @Nullable Copies read(Stretch stretch, TopicPartition source) {
        return decode(stretch, source, reader.read(stretch.target(), stretch.from(), stretch.to()));
    }

    private @Nullable Copies decode(Stretch stretch, TopicPartition source, TargetReader.Range range) {
        reads++;
        recordsRead += range.reachedTo() - range.from();
        if (range.reachedTo() < stretch.to()) {
            return null;
        }
        List<Fact> facts = range.facts();
        if (facts.isEmpty()
                || facts.get(0).targetOffset() != stretch.from()
                || facts.get(0).sourceOffset() != stretch.s()) {
            return null;
        }
        long[] t = new long[facts.size()];
        long[] s = new long[facts.size()];
        int[] len = new int[facts.size()];
        int n = 0;
        long previous = Long.MIN_VALUE;
        for (Fact f : facts) {
            if (!f.source().equals(source) || f.sourceOffset() <= previous) {
                return null;
            }
            previous = f.sourceOffset();
            if (n > 0 && f.targetOffset() == t[n - 1] + len[n - 1] && f.sourceOffset() == s[n - 1] + len[n - 1]) {
                len[n - 1]++;
            } else {
                t[n] = f.targetOffset();
                s[n] = f.sourceOffset();
                len[n] = 1;
                n++;
            }
        }
        return new Copies(Arrays.copyOf(t, n), Arrays.copyOf(s, n), Arrays.copyOf(len, n));
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
            TopicPartition only = index.onlySource();
            Long onlyCommitted = only == null ? null : committed.get(only);
            long[] bracket = only == null || onlyCommitted == null ? null : index.foldedBracket(only, onlyCommitted);
            if (only != null && onlyCommitted != null && bracket != null) {
                out.put(e.getKey(), inFolded(e.getKey(), only, onlyCommitted, bracket));
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
            long c = Objects.requireNonNull(committed.get(source), "the group committed on the index's one source");
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
