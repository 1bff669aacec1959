package dev.strait.mirror.sync;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * An immutable view of one target partition's {@link TargetHistory} over its last complete range
 * {@code [from, to)}, arranged for translating committed source offsets into a target offset.
 *
 * <h2>The rule</h2>
 * For a group that committed source offset C (next record to read) on every source partition feeding this
 * target partition, the target offset X must satisfy two things:
 * <ul>
 *   <li><b>never read again</b>: every copy at or after X is of a source record at or after its partition's C;
 *       the lowest such X is R = 1 + the offset of the last copy below C;</li>
 *   <li><b>never skip</b>: every source record at or after C that the target holds has a copy at or after X. A
 *       source record can be held more than once: after a mirror crash the records since its last commit are
 *       copied again, so the target's source offsets run 0..100, 60..200. Only the last run holding a record
 *       counts, so the highest such X is L = the lowest position, over every source offset at or after C, of its
 *       first copy in the last run that holds it.</li>
 * </ul>
 * When R &lt;= L every X in [R, L] is exact; X starts at R and moves over copies that are held again later (a
 * duplicate the mirror wrote), never over a record that is not a copy. When L &lt; R (only when source partitions
 * interleave, i.e. hash mode, or while a re-copy has not yet caught up with the first copy) no X is exact and X =
 * L: nothing is skipped and {@link Translation#readAgain()} counts the copies read twice. With one source partition
 * per target partition and a finished re-copy, R &lt;= L always holds, so the translation is exact.
 *
 * <p>A run is a stretch of one source partition's copies whose source offsets do not go down; runs are few
 * (one per mirror restart that re-copied records), so a translation costs O(runs + log segments).
 *
 * <p>The oldest stretch may be folded ({@link FoldedRun}): one source partition's run whose copies are of source
 * offsets strictly going up, all below every later copy's. No record of it is held twice, so for C inside it R is
 * one past the last copy below C and L the first copy at or after C, with only records that are not copies between
 * them: X = R. That copy lies between two checkpoints and is found by reading that stretch of the target: the
 * translation is flagged {@link Translation#belowKnown()} with the offset of the checkpoint below C plus one (never
 * past R) and {@link #foldedBracket} names the stretch ({@link BelowResolver} reads it). For C above the run only its
 * last copy counts, and it is held as a segment.
 */
public final class PartitionIndex {
    private static final long NONE = -1;

    private final TopicPartition target;
    private final long from;
    private final long to;
    private final Map<TopicPartition, Feeder> feeders;
    /** Every segment of every source partition, in target-offset order (for moving X over duplicates). */
    private final long[] allT;

    private final long[] allEnd;
    /** The folded oldest stretch, when it lies inside {@code [from, to)}; null otherwise. */
    private final @Nullable FoldedRun folded;

    private PartitionIndex(
            TopicPartition target,
            long from,
            long to,
            Map<TopicPartition, Feeder> feeders,
            long[] allT,
            long[] allEnd,
            @Nullable FoldedRun folded) {
        this.target = target;
        this.from = from;
        this.to = to;
        this.feeders = feeders;
        this.allT = allT;
        this.allEnd = allEnd;
        this.folded = folded;
    }

    static PartitionIndex build(
            TopicPartition target,
            List<TopicPartition> feederList,
            long[] t,
            long[] s,
            int[] len,
            int[] feeder,
            int size,
            long from,
            long to,
            @Nullable FoldedRun folded) {
        if (from < 0) {
            return new PartitionIndex(target, -1, -1, Map.of(), new long[0], new long[0], null);
        }
        if (folded != null && from <= folded.firstT() && folded.lastT() < to) {
            // The run's last copy is the one fact of it that a translation above the run needs: a segment before the
            // others (which all come after it).
            int f = feederList.indexOf(folded.source());
            long[] ft = new long[size + 1];
            long[] fs = new long[size + 1];
            int[] flen = new int[size + 1];
            int[] ff = new int[size + 1];
            ft[0] = folded.lastT();
            fs[0] = folded.lastS();
            flen[0] = 1;
            ff[0] = f;
            System.arraycopy(t, 0, ft, 1, size);
            System.arraycopy(s, 0, fs, 1, size);
            System.arraycopy(len, 0, flen, 1, size);
            System.arraycopy(feeder, 0, ff, 1, size);
            t = ft;
            s = fs;
            len = flen;
            feeder = ff;
            size++;
        } else {
            folded = null;
        }
        int first = 0;
        while (first < size && t[first] + len[first] <= from) {
            first++;
        }
        int n = size - first;
        long[] allT = new long[n];
        long[] allEnd = new long[n];
        List<List<long[]>> bySource = new ArrayList<>();
        for (int i = 0; i < feederList.size(); i++) {
            bySource.add(new ArrayList<>());
        }
        for (int i = first; i < size; i++) {
            long segT = t[i];
            long segS = s[i];
            long segLen = len[i];
            if (segT < from) {
                long cut = from - segT;
                segT += cut;
                segS += cut;
                segLen -= cut;
            }
            allT[i - first] = segT;
            allEnd[i - first] = segT + segLen;
            bySource.get(feeder[i]).add(new long[] {segT, segS, segLen});
        }
        Map<TopicPartition, Feeder> feeders = new HashMap<>();
        for (int i = 0; i < feederList.size(); i++) {
            if (!bySource.get(i).isEmpty()) {
                feeders.put(feederList.get(i), new Feeder(bySource.get(i)));
            }
        }
        return new PartitionIndex(target, from, to, Collections.unmodifiableMap(feeders), allT, allEnd, folded);
    }

    /**
     * The target range {@code [from, to)} to read to translate {@code c} exactly, and the source offset of the copy at
     * {@code from}, as {@code {from, to, sourceAtFrom}}: when {@code c} lies inside the folded run of {@code source};
     * null otherwise (the translation needs no read).
     */
    public long @Nullable [] foldedBracket(TopicPartition source, long c) {
        return folded != null && folded.source().equals(source) ? folded.bracket(c) : null;
    }

    /** The translation of {@code c} at or below the folded run's last copy (see the class comment). */
    private Translation inFolded(FoldedRun run, long c) {
        if (c <= run.firstS()) {
            return new Translation(target, run.firstT(), 0, c < run.firstS(), 0);
        }
        // Above the run's first copy and at most its last (the callers' condition): c lies inside the run.
        long[] bracket = Objects.requireNonNull(run.bracket(c), "c lies inside the folded run");
        return new Translation(target, bracket[0] + 1, 0, true, 0);
    }

    public TopicPartition target() {
        return target;
    }

    /** The first offset of the complete range this index covers; -1 when nothing is known. */
    public long from() {
        return from;
    }

    /** One past the last offset of the complete range this index covers; -1 when nothing is known. */
    public long to() {
        return to;
    }

    /** The source partitions that have copies in this target partition. */
    public java.util.Set<TopicPartition> sources() {
        return feeders.keySet();
    }

    /** One past the highest source offset of {@code source} copied here, or -1 when none is. */
    public long frontier(TopicPartition source) {
        Feeder f = feeders.get(source);
        return f == null ? -1 : f.maxS + 1;
    }

    /** One past the highest target offset holding a copy, or -1 when none is known. */
    public long lastCopyEnd() {
        return allEnd.length == 0 ? -1 : allEnd[allEnd.length - 1];
    }

    /**
     * The source offset of the first copy of {@code source} at or after target offset {@code offset}, or -1 when
     * there is none in the known range (failback: where a group that stopped at {@code offset} on the target
     * resumes on the source).
     */
    public long sourceOffsetAtOrAfter(TopicPartition source, long offset) {
        if (folded != null && folded.source().equals(source) && offset < folded.lastT()) {
            if (offset <= folded.firstT()) {
                return folded.firstS();
            }
            int i = lastAtOrBelow(folded.t(), offset);
            // Between two checkpoints the copy's source offset is not held: one past the checkpoint's is at most it
            // (the group reads again on the source, never skips).
            return folded.t()[i] == offset ? folded.s()[i] : folded.s()[i] + 1;
        }
        Feeder f = feeders.get(source);
        return f == null ? -1 : f.sourceAtOrAfter(offset);
    }

    /** The lowest source offset of {@code source} copied in the known range, or -1 when none is. */
    public long lowestSource(TopicPartition source) {
        if (folded != null && folded.source().equals(source)) {
            return folded.firstS();
        }
        Feeder f = feeders.get(source);
        return f == null ? -1 : f.minS;
    }

    /** The only source partition feeding here, or null when there are several or none. */
    public @Nullable TopicPartition onlySource() {
        return feeders.size() == 1 ? feeders.keySet().iterator().next() : null;
    }

    /**
     * The translation when {@code source} is the only source partition feeding here (preserve mode): the same
     * answer as {@link #translate(Map)}, without building maps (a round translates every group this way).
     */
    public @Nullable Translation translateOnly(TopicPartition source, long c) {
        if (folded != null && folded.source().equals(source) && c <= folded.lastS()) {
            return inFolded(folded, c);
        }
        Feeder f = feeders.get(source);
        if (f == null || feeders.size() != 1) {
            return translate(Map.of(source, c));
        }
        long last = f.lastBelow(c);
        long r = last == NONE ? NONE : last + 1;
        boolean below = last == NONE && c < f.minS;
        long l = f.noSkipBound(c);
        long x;
        if (r == NONE) {
            x = l == Long.MAX_VALUE ? to : l;
        } else if (l == Long.MAX_VALUE) {
            x = r;
        } else if (r <= l) {
            x = overDuplicates(r, l);
        } else {
            x = l;
        }
        long again = r != NONE && x < r ? f.countBelow(c, x) : 0;
        return new Translation(target, x, again, below, 0);
    }

    /**
     * Translates a group's committed offsets ({@code committed}: source partition to next offset to read; other
     * partitions are ignored). Returns null when the group committed none of the source partitions feeding here.
     */
    public @Nullable Translation translate(Map<TopicPartition, Long> committed) {
        if (from < 0) {
            return null;
        }
        int uncommitted = 0;
        boolean any = false;
        for (TopicPartition source : feeders.keySet()) {
            if (committed.containsKey(source)) {
                any = true;
            } else {
                uncommitted++;
            }
        }
        if (!any) {
            return null;
        }
        if (folded != null) {
            // One source partition feeds a partition with a folded run.
            Long c = committed.get(folded.source());
            if (c != null && c <= folded.lastS()) {
                return inFolded(folded, c);
            }
        }
        long r = NONE;
        long l = Long.MAX_VALUE;
        boolean below = false;
        for (Map.Entry<TopicPartition, Feeder> e : feeders.entrySet()) {
            long c = committed.getOrDefault(e.getKey(), 0L);
            Feeder f = e.getValue();
            long last = f.lastBelow(c);
            if (last != NONE) {
                r = Math.max(r, last + 1);
            } else if (committed.containsKey(e.getKey()) && c < f.minS) {
                // Copies of records between C and the lowest known one may lie below the known range.
                below = true;
            }
            l = Math.min(l, f.noSkipBound(c));
        }
        long x;
        if (r == NONE) {
            x = l == Long.MAX_VALUE ? to : l;
        } else if (l == Long.MAX_VALUE) {
            x = r;
        } else if (r <= l) {
            x = overDuplicates(r, l);
        } else {
            x = l;
        }
        long again = 0;
        if (r != NONE && x < r) {
            for (Map.Entry<TopicPartition, Feeder> e : feeders.entrySet()) {
                again += e.getValue().countBelow(committed.getOrDefault(e.getKey(), 0L), x);
            }
        }
        return new Translation(target, x, again, below, committed.isEmpty() ? 0 : uncommitted);
    }

    /** From {@code r}, moves over contiguous copies (all held again later, by the rule above) up to {@code l}. */
    private long overDuplicates(long r, long l) {
        long x = r;
        int i = lastAtOrBelow(allT, x);
        while (x < l && i >= 0 && i < allT.length && allT[i] <= x && x < allEnd[i]) {
            x = Math.min(l, allEnd[i]);
            i++;
        }
        return x;
    }

    /** Index of the last element {@code <= key} of a sorted array, or -1. */
    private static int lastAtOrBelow(long[] sorted, long key) {
        int i = Arrays.binarySearch(sorted, key);
        return i >= 0 ? i : -i - 2;
    }

    /** The copies of one source partition in this target partition, in target-offset order, split into runs. */
    private static final class Feeder {
        final long[] t;
        final long[] s;
        final long[] len;
        /** Entries (records) before segment i. */
        final long[] before;
        /** Segment index where each run starts; runs end where the next starts. */
        final int[] runStart;

        final long[] runMin;
        final long[] runMax;
        final long minS;
        final long maxS;

        Feeder(List<long[]> segs) {
            int n = segs.size();
            t = new long[n];
            s = new long[n];
            len = new long[n];
            before = new long[n + 1];
            List<Integer> starts = new ArrayList<>();
            List<long[]> bounds = new ArrayList<>();
            long min = Long.MAX_VALUE;
            long max = Long.MIN_VALUE;
            long runLo = 0;
            long runHi = 0;
            for (int i = 0; i < n; i++) {
                long[] seg = segs.get(i);
                t[i] = seg[0];
                s[i] = seg[1];
                len[i] = seg[2];
                before[i + 1] = before[i] + len[i];
                long last = s[i] + len[i] - 1;
                boolean newRun = i == 0 || s[i] < s[i - 1] + len[i - 1] - 1;
                if (newRun) {
                    if (i > 0) {
                        bounds.add(new long[] {runLo, runHi});
                    }
                    starts.add(i);
                    runLo = s[i];
                    runHi = last;
                } else {
                    runHi = Math.max(runHi, last);
                }
                min = Math.min(min, s[i]);
                max = Math.max(max, last);
            }
            bounds.add(new long[] {runLo, runHi});
            runStart = starts.stream().mapToInt(Integer::intValue).toArray();
            runMin = bounds.stream().mapToLong(b -> b[0]).toArray();
            runMax = bounds.stream().mapToLong(b -> b[1]).toArray();
            minS = min;
            maxS = max;
        }

        private int runEnd(int run) {
            return run + 1 < runStart.length ? runStart[run + 1] : t.length;
        }

        /** Target offset of the last copy with source offset below {@code c}, or NONE. */
        long lastBelow(long c) {
            for (int run = runStart.length - 1; run >= 0; run--) {
                if (runMin[run] < c) {
                    int i = lastSegmentStartingBelow(runStart[run], runEnd(run), c);
                    return t[i] + Math.min(len[i] - 1, c - 1 - s[i]);
                }
            }
            return NONE;
        }

        /** In segments [lo, hi) of one run (source offsets not going down), the last whose first offset is below c. */
        private int lastSegmentStartingBelow(int lo, int hi, long c) {
            int a = lo;
            int b = hi - 1;
            while (a < b) {
                int mid = (a + b + 1) >>> 1;
                if (s[mid] < c) {
                    a = mid;
                } else {
                    b = mid - 1;
                }
            }
            return a;
        }

        /**
         * The lowest target offset X such that starting at X skips no source record at or after {@code c}
         * (judged by the last run holding each), or Long.MAX_VALUE when no such record is held.
         */
        long noSkipBound(long c) {
            if (runStart.length == 1) {
                long u = Math.max(c, runMin[0]);
                return u > runMax[0] ? Long.MAX_VALUE : positionOfFirstAtLeast(0, u);
            }
            return lastHolders().noSkipBound(c);
        }

        private @Nullable LastHolders lastHolders;

        /** Built on first use: an index answers many translations, and one run needs none of it. */
        private LastHolders lastHolders() {
            if (lastHolders == null) {
                lastHolders = LastHolders.of(this);
            }
            return lastHolders;
        }

        /** Target offset of the first copy with source offset >= u in run {@code run} (u at most the run's maximum). */
        private long positionOfFirstAtLeast(int run, long u) {
            int seg = firstSegmentEndingAtOrAfter(runStart[run], runEnd(run), u);
            return t[seg] + Math.max(0, u - s[seg]);
        }

        /** In segments [lo, hi) of a run, the first whose last source offset is >= u (hi - 1 if none is). */
        private int firstSegmentEndingAtOrAfter(int lo, int hi, long u) {
            int a = lo;
            int b = hi - 1;
            while (a < b) {
                int mid = (a + b) >>> 1;
                if (s[mid] + len[mid] - 1 >= u) {
                    b = mid;
                } else {
                    a = mid + 1;
                }
            }
            return a;
        }

        /** Source offset of the first copy at target offset {@code x} or later, or -1. */
        long sourceAtOrAfter(long x) {
            int i = lastAtOrBelow(t, x);
            if (i >= 0 && x < t[i] + len[i]) {
                return s[i] + (x - t[i]);
            }
            return i + 1 < t.length ? s[i + 1] : -1;
        }

        /** Copies at or after target offset x with source offset below c. */
        long countBelow(long c, long x) {
            long n = 0;
            for (int run = 0; run < runStart.length; run++) {
                if (runMin[run] >= c) {
                    continue;
                }
                int i = lastSegmentStartingBelow(runStart[run], runEnd(run), c);
                long endT = t[i] + Math.min(len[i] - 1, c - 1 - s[i]) + 1;
                long startT = Math.max(x, t[runStart[run]]);
                if (endT > startT) {
                    n += entriesBefore(endT) - entriesBefore(startT);
                }
            }
            return n;
        }

        /** Copies of this source partition at target offsets below {@code offset}. */
        private long entriesBefore(long offset) {
            int i = lastAtOrBelow(t, offset);
            if (i < 0) {
                return 0;
            }
            return before[i] + Math.min(len[i], offset - t[i]);
        }
    }

    /**
     * For each source offset held by a feeder, where its copies in the last run holding it are: the pieces of the
     * feeder's segments that no later run holds again. A later run does not hold every offset between its lowest
     * and highest: after a failback the forward mirror drops the copies written back (their originals, earlier on
     * the target, stand for them), so the records a run skipped are held only by an earlier run, and they must not
     * be skipped. Copies of one record within one run (a handler's several outputs) are all kept: the first counts.
     */
    private static final class LastHolders {
        /** Pieces sorted by first source offset: target offset, first and last source offset. */
        private final long[] t;

        private final long[] sFirst;
        private final long[] sLast;
        /** Lowest target offset of the pieces from i on. */
        private final long[] suffixMinT;
        /** Highest last source offset of the pieces up to i. */
        private final long[] prefixMaxLast;

        private LastHolders(long[] t, long[] sFirst, long[] sLast) {
            this.t = t;
            this.sFirst = sFirst;
            this.sLast = sLast;
            int n = t.length;
            suffixMinT = new long[n + 1];
            suffixMinT[n] = Long.MAX_VALUE;
            for (int i = n - 1; i >= 0; i--) {
                suffixMinT[i] = Math.min(t[i], suffixMinT[i + 1]);
            }
            prefixMaxLast = new long[n];
            for (int i = 0; i < n; i++) {
                prefixMaxLast[i] = Math.max(sLast[i], i == 0 ? Long.MIN_VALUE : prefixMaxLast[i - 1]);
            }
        }

        static LastHolders of(Feeder f) {
            java.util.TreeMap<Long, Long> covered = new java.util.TreeMap<>();
            List<long[]> pieces = new ArrayList<>();
            for (int run = f.runStart.length - 1; run >= 0; run--) {
                int end = f.runEnd(run);
                for (int i = f.runStart[run]; i < end; i++) {
                    uncovered(covered, f.t[i], f.s[i], f.s[i] + f.len[i] - 1, pieces);
                }
                for (int i = f.runStart[run]; i < end; i++) {
                    cover(covered, f.s[i], f.s[i] + f.len[i] - 1);
                }
            }
            pieces.sort((a, b) -> a[1] != b[1] ? Long.compare(a[1], b[1]) : Long.compare(a[0], b[0]));
            int n = pieces.size();
            long[] t = new long[n];
            long[] first = new long[n];
            long[] last = new long[n];
            for (int i = 0; i < n; i++) {
                t[i] = pieces.get(i)[0];
                first[i] = pieces.get(i)[1];
                last[i] = pieces.get(i)[2];
            }
            return new LastHolders(t, first, last);
        }

        /** The parts of source offsets [lo, hi] (copied from target offset segT on) that {@code covered} lacks. */
        private static void uncovered(
                java.util.TreeMap<Long, Long> covered, long segT, long lo, long hi, List<long[]> out) {
            long u = lo;
            Map.Entry<Long, Long> c = covered.floorEntry(u);
            if (c != null && c.getValue() >= u) {
                u = c.getValue() + 1;
            }
            while (u <= hi) {
                Map.Entry<Long, Long> next = covered.ceilingEntry(u);
                long pieceEnd = next == null ? hi : Math.min(hi, next.getKey() - 1);
                out.add(new long[] {segT + (u - lo), u, pieceEnd});
                if (next == null) {
                    break;
                }
                u = next.getValue() + 1;
            }
        }

        private static void cover(java.util.TreeMap<Long, Long> covered, long lo, long hi) {
            long a = lo;
            long b = hi;
            Map.Entry<Long, Long> below = covered.floorEntry(a);
            if (below != null && below.getValue() + 1 >= a) {
                a = below.getKey();
                b = Math.max(b, below.getValue());
                covered.remove(below.getKey());
            }
            Map.Entry<Long, Long> next = covered.ceilingEntry(a);
            while (next != null && next.getKey() <= b + 1) {
                b = Math.max(b, next.getValue());
                covered.remove(next.getKey());
                next = covered.ceilingEntry(a);
            }
            covered.put(a, b);
        }

        /** The lowest target offset of a last-run copy of a source offset at or after c; MAX_VALUE if none. */
        long noSkipBound(long c) {
            int lo = 0;
            int hi = t.length;
            while (lo < hi) {
                int mid = (lo + hi) >>> 1;
                if (sFirst[mid] < c) {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            long bound = suffixMinT[lo];
            for (int j = lo - 1; j >= 0 && prefixMaxLast[j] >= c; j--) {
                if (sLast[j] >= c) {
                    bound = Math.min(bound, t[j] + (c - sFirst[j]));
                }
            }
            return bound;
        }
    }
}
