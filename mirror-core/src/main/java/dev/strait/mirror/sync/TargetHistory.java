package dev.strait.mirror.sync;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * What is known about one target partition: which of its offsets hold copies of which source records, as
 * segments ({@code len} consecutive target offsets from {@code t} holding consecutive source offsets from
 * {@code s} of one source partition), and over which offset ranges that knowledge is complete.
 *
 * <p>Knowledge comes from three places that never disagree: the target's acknowledgements of the mirror's
 * sends, records read back from the target (their provenance header), and snapshots another mirror process
 * persisted. A plain mirror in preserve mode has one segment per target partition until it restarts, a
 * record is dropped on purpose or a transaction marker leaves a hole in the source offsets; hash mode has
 * about one segment per record (records of several source partitions interleave), so it is capped at
 * {@code maxSegments}: the oldest half is dropped and translations below it are resolved on the target.
 *
 * <p>Thread-safe: the producer's I/O thread appends, the sync thread reads and merges; every method holds the
 * instance lock, and the append path is a few field writes.
 */
public final class TargetHistory {
    private final TopicPartition target;
    private final int maxSegments;
    private final List<TopicPartition> feeders = new ArrayList<>();
    private final Map<TopicPartition, Integer> feederIds = new HashMap<>();
    private long[] t = new long[4];
    private long[] s = new long[4];
    private int[] len = new int[4];
    private int[] feeder = new int[4];
    private int size;
    /** Complete ranges, except the trailing one that acknowledgements extend, kept in the two fields below. */
    private final KnownRanges known = new KnownRanges();
    /** False once originals of dropped copies were learnt here: see {@link #settleOriginals}. */
    private boolean foldsAllowed = true;

    private long tailFrom = -1;
    private long tailTo = -1;
    /**
     * Originals of dropped copies not merged yet, as {@code [target, source, length, feeder]} runs: they arrive
     * below the acknowledged end, so each merge rebuilds the segments; batching keeps that to one rebuild per
     * {@link #ORIGINALS_BATCH} records or per read.
     */
    private final List<long[]> originals = new ArrayList<>();

    private int pendingOriginals;
    private static final int ORIGINALS_BATCH = 4_096;
    /**
     * Every original settled so far, as {@code [target, source, length, feeder]} runs (at most maxSegments; the
     * oldest go first). A read of the target merges as the truth over its range, but it cannot see an original (a
     * target record with no provenance): without these, a read that ran while the stream dropped copies would erase
     * the originals learnt meanwhile, and a group would be moved past the records they stand for.
     */
    private final List<long[]> originalRuns = new ArrayList<>();
    /**
     * Moves when this history knows something that the latest snapshot it saw in the sync topic does not (its own
     * acknowledgements and reads, or a snapshot that lacks them): -1 while everything it holds came from snapshots
     * that hold it all, so a process never writes back what it only merged.
     */
    private long version = -1;
    /** Moves on every change of what is held: the index is built again then. */
    private long changes;
    /** The id of the target topic whose records the facts describe (its incarnation); null while unknown. */
    private @Nullable String topicId;
    /** {@link #topicId} was checked on the target (not only taken from a snapshot). */
    private boolean confirmed;
    /** Facts came from a snapshot that named no topic id (written before ids were kept): to check on the target. */
    private boolean unverified;
    /** Below this offset the cap dropped facts on purpose (-1: never): reading them back would only drop them again. */
    private long cappedBelow = -1;

    private @Nullable PartitionIndex cached;
    private long cachedVersion = -1;

    /**
     * Folding (see {@link #fold}): exact segments kept at the end (0: never fold) and the most checkpoints kept of the
     * folded run.
     */
    private int foldWindow;

    private int foldCheckpoints;
    /** The folded run's source partition (a feeder id), or -1 when nothing is folded. */
    private int foldedFeeder = -1;

    private long[] cpT = new long[0];
    private long[] cpS = new long[0];
    private int cpSize;
    private long foldedLastT = -1;
    private long foldedLastS = -1;
    /** Target offsets between checkpoints taken; doubles each time the checkpoints are thinned. */
    private long cpSpacing = 1;

    public TargetHistory(TopicPartition target, int maxSegments) {
        if (maxSegments < 2) {
            throw new IllegalArgumentException("maxSegments must be at least 2");
        }
        this.target = target;
        this.maxSegments = maxSegments;
    }

    public TopicPartition target() {
        return target;
    }

    /** The target acknowledged the copy of {@code source}@{@code sourceOffset} at {@code targetOffset}. */
    public synchronized void acknowledged(TopicPartition source, long sourceOffset, long targetOffset) {
        int f = feederId(source);
        if (size > 0) {
            int last = size - 1;
            long lastEnd = t[last] + len[last];
            if (targetOffset == lastEnd
                    && feeder[last] == f
                    && sourceOffset == s[last] + len[last]
                    && len[last] < Integer.MAX_VALUE) {
                len[last]++;
                extendKnown(targetOffset);
                changed();
                return;
            }
            if (targetOffset < lastEnd) {
                // Out of order, or already learnt from a read of the target: merge it the slow way.
                merge(List.of(new Fact(targetOffset, source, sourceOffset)), targetOffset, targetOffset + 1);
                return;
            }
        }
        append(targetOffset, sourceOffset, 1, f);
        extendKnown(targetOffset);
        changed();
        if (foldedFeeder >= 0 && (f != foldedFeeder || targetOffset <= foldedLastT || sourceOffset <= foldedLastS)) {
            checkFolded();
        }
        capSize();
    }

    /**
     * Bounds the memory held whatever the source's shape: once {@code 2 * window} segments are held, the
     * oldest ones that form one run of one source partition (source offsets going strictly up, all below every later
     * copy's) are folded into a {@link FoldedRun} of at most {@code checkpoints} checkpoints; {@code window} exact
     * segments stay. A transactional or compacted source needs a segment per marker or gap, so without folding a
     * partition holds up to {@code maxSegments} of them. What folding cannot take (hash mode, re-copied ranges) stays
     * exact, up to {@code maxSegments}.
     */
    public synchronized void fold(int window, int checkpoints) {
        if (window < 1 || checkpoints < 2) {
            throw new IllegalArgumentException("folding needs a window of at least 1 and at least 2 checkpoints");
        }
        foldWindow = window;
        foldCheckpoints = checkpoints;
        capSize();
    }

    /**
     * Source record {@code source}@{@code sourceOffset} is itself a copy of this partition's record at {@code
     * targetOffset} (loop prevention dropped it: after a failback the forward mirror reads the records copied back,
     * and an active-active pair reads the other side's copies of its own records). That target record stands for
     * the source record: a group that committed past it on the source has consumed it, one that did not must be
     * put before it. Without this fact the translation of a group on the source would jump past the original.
     */
    public synchronized void original(TopicPartition source, long sourceOffset, long targetOffset) {
        int f = feederId(source);
        if (!originals.isEmpty()) {
            long[] last = originals.get(originals.size() - 1);
            if (last[3] == f
                    && targetOffset == last[0] + last[2]
                    && sourceOffset == last[1] + last[2]
                    && last[2] < Integer.MAX_VALUE) {
                last[2]++;
                pendingOriginals++;
                if (pendingOriginals >= ORIGINALS_BATCH) {
                    settleOriginals();
                }
                return;
            }
        }
        originals.add(new long[] {targetOffset, sourceOffset, 1, f});
        pendingOriginals++;
        if (pendingOriginals >= ORIGINALS_BATCH || originals.size() >= 64) {
            settleOriginals();
        }
    }

    /** Merges the pending originals into the segments: known facts over the ranges they cover. */
    private void settleOriginals() {
        if (originals.isEmpty()) {
            return;
        }
        flushTail();
        List<long[]> segs = new ArrayList<>(size + originals.size());
        for (int i = 0; i < size; i++) {
            segs.add(new long[] {t[i], s[i], len[i], feeder[i]});
        }
        segs.addAll(originals);
        rebuild(segs);
        for (long[] o : originals) {
            known.add(o[0], o[0] + o[2]);
            keepOriginalRun(o);
        }
        originals.clear();
        pendingOriginals = 0;
        // A read of the target cannot see originals (they are target records, not copies), and a folded stretch is
        // resolved by such reads: a partition whose copies loop prevention drops (a failback, active-active) is not
        // folded from now on, and what was folded is read back. Its memory is bounded by maxSegments, as before.
        foldsAllowed = false;
        if (foldedFeeder >= 0) {
            unfoldFrom(0);
        }
        changed();
        capSize();
    }

    private void keepOriginalRun(long[] o) {
        if (!originalRuns.isEmpty()) {
            long[] last = originalRuns.get(originalRuns.size() - 1);
            if (last[3] == o[3]
                    && o[0] == last[0] + last[2]
                    && o[1] == last[1] + last[2]
                    && last[2] + o[2] <= Integer.MAX_VALUE) {
                last[2] += o[2];
                return;
            }
        }
        originalRuns.add(o.clone());
        if (originalRuns.size() > maxSegments) {
            originalRuns.sort((a, b) -> Long.compare(a[0], b[0]));
            originalRuns.subList(0, originalRuns.size() - maxSegments / 2).clear();
        }
    }

    /**
     * The originals held inside {@code [from, to)}, less the target offsets where {@code facts} found a copy: those
     * a read of that range keeps (it cannot see them; where it found a copy instead, the copy wins).
     */
    private List<long[]> originalsWithin(long from, long to, List<Fact> facts) {
        List<long[]> inside = new ArrayList<>();
        for (long[] o : originalRuns) {
            long a = Math.max(from, o[0]);
            long b = Math.min(to, o[0] + o[2]);
            if (a < b) {
                inside.add(new long[] {a, o[1] + (a - o[0]), b - a, o[3]});
            }
        }
        if (inside.isEmpty() || facts.isEmpty()) {
            return inside;
        }
        KnownRanges taken = new KnownRanges();
        for (Fact fact : facts) {
            taken.add(fact.targetOffset(), fact.targetOffset() + 1);
        }
        return cut(inside, taken.all());
    }

    /** What is held changed in a way the persisted snapshots do not know yet. */
    private void changed() {
        version++;
        changes++;
    }

    private void extendKnown(long targetOffset) {
        if (targetOffset == tailTo) {
            tailTo++;
            return;
        }
        if (tailFrom >= 0 && targetOffset >= tailFrom && targetOffset < tailTo) {
            return;
        }
        flushTail();
        tailFrom = targetOffset;
        tailTo = targetOffset + 1;
    }

    private void flushTail() {
        if (tailFrom >= 0) {
            known.add(tailFrom, tailTo);
        }
        tailFrom = -1;
        tailTo = -1;
    }

    /**
     * Learns {@code facts}, all the copies held in the target range {@code [from, to)}: every other record
     * of the range is known not to be a copy. This is fresh knowledge of the target (an acknowledgement or a
     * read): where it disagrees with what is held (a snapshot of a topic since re-created, or truncated), it wins.
     */
    public synchronized void merge(List<Fact> facts, long from, long to) {
        settleOriginals();
        flushTail();
        if (foldedFeeder >= 0 && from <= foldedLastT && to > cpT[0]) {
            // Read again inside the folded run (not done by the upkeep, which reads only what is unknown): the read
            // is the truth there, so the run keeps only what lies below it.
            unfoldFrom(keptBelow(Long.MAX_VALUE, from));
        }
        List<long[]> segs = cut(held(), List.<long[]>of(new long[] {from, to}));
        segs.addAll(originalsWithin(from, to, facts));
        for (Fact fact : facts) {
            segs.add(new long[] {fact.targetOffset(), fact.sourceOffset(), 1, feederId(fact.source())});
        }
        rebuild(segs);
        known.add(from, to);
        checkFolded();
        changed();
        capSize();
    }

    /**
     * Learns a persisted snapshot (another process's knowledge, or this one's from before a restart). What is held
     * wins where the two disagree; a snapshot of another incarnation of the target topic is ignored (once the
     * topic's id was checked on the target; before that, a later snapshot replaces what an earlier one taught).
     * The version moves only when the snapshot lacks something held here, so that merging what another process
     * persisted is not written back.
     */
    public synchronized void merge(HistorySnapshot snapshot) {
        settleOriginals();
        flushTail();
        String theirs = snapshot.topicId();
        if (confirmed && !java.util.Objects.equals(topicId, theirs)) {
            if (size > 0 || !known.isEmpty()) {
                // The sync topic's latest word on this partition is of another incarnation: ours replaces it.
                version++;
            }
            return;
        }
        if (!confirmed && topicId != null && theirs != null && !topicId.equals(theirs)) {
            // Two snapshots of two incarnations, neither checked yet: the later one written is the newer.
            clear();
        }
        if (topicId == null) {
            topicId = theirs;
        }
        if (theirs == null) {
            unverified = true;
        }
        List<long[]> mine = held();
        List<long[]> heldKnown = known.all();
        boolean covered = covers(snapshot);
        FoldedRun theirFolded = snapshot.folded();
        // Their folded run, when it takes over here; null otherwise.
        FoldedRun adopted = theirFolded != null && takesOver(theirFolded, mine) ? theirFolded : null;
        if (adopted != null) {
            // The copies held here inside their run are described by it.
            mine = cut(mine, List.<long[]>of(new long[] {adopted.firstT(), adopted.lastT() + 1}));
        }
        List<long[]> theirSegs = new ArrayList<>(snapshot.size());
        for (int i = 0; i < snapshot.size(); i++) {
            theirSegs.add(new long[] {
                snapshot.t()[i],
                snapshot.s()[i],
                snapshot.len()[i],
                feederId(snapshot.feeders().get(snapshot.feeder()[i]))
            });
        }
        List<long[]> segs = cut(theirSegs, heldKnown);
        segs.addAll(mine);
        rebuild(segs);
        for (long[] r : snapshot.known()) {
            known.add(r[0], r[1]);
        }
        if (adopted != null) {
            foldedFeeder = feederId(adopted.source());
            cpT = adopted.t().clone();
            cpS = adopted.s().clone();
            cpSize = cpT.length;
            foldedLastT = adopted.lastT();
            foldedLastS = adopted.lastS();
            cpSpacing = Math.max(1, Long.highestOneBit(Math.max(1, (foldedLastT - cpT[0]) / cpSize)));
            known.add(adopted.firstT(), adopted.lastT() + 1);
        }
        checkFolded();
        changes++;
        if (!covered) {
            version++;
        }
        capSize();
    }

    /**
     * Whether {@code run} (from a snapshot) reaches further than what is folded here and agrees with every copy held
     * inside its range: then it replaces the folded run held here, so that processes that exchange snapshots end up
     * holding the same run (and see that they hold the same knowledge). Otherwise what is held wins.
     */
    private boolean takesOver(FoldedRun run, List<long[]> segs) {
        if (foldedFeeder >= 0
                && (!feeders.get(foldedFeeder).equals(run.source())
                        || run.firstT() > cpT[0]
                        || run.lastT() <= foldedLastT)) {
            return false;
        }
        for (long[] seg : segs) {
            if (seg[0] > run.lastT()) {
                continue;
            }
            // a copy before the run (it must be the oldest stretch), of another source, or not where the run says
            long inside = Math.min(seg[2], run.lastT() - seg[0] + 1);
            if (seg[0] < run.firstT()
                    || !feeders.get((int) seg[3]).equals(run.source())
                    || !agrees(run, seg[0], seg[1], inside)) {
                return false;
            }
        }
        return true;
    }

    /** Whether the copies {@code [at, at + n)} of source offsets from {@code source} fit inside {@code run}. */
    private static boolean agrees(FoldedRun run, long at, long source, long n) {
        long end = at + n - 1;
        if (at < run.firstT() || end > run.lastT()) {
            return false;
        }
        long[] ct = run.t();
        long[] cs = run.s();
        int i = Arrays.binarySearch(ct, at);
        i = i >= 0 ? i : -i - 2;
        // below: the checkpoint at or before the first copy
        if (ct[i] == at ? cs[i] != source : cs[i] >= source) {
            return false;
        }
        for (int j = i + 1; j < ct.length && ct[j] <= end; j++) {
            if (cs[j] != source + (ct[j] - at)) {
                return false;
            }
            i = j;
        }
        // above: the next checkpoint (or the last copy) after the segment
        long nextT = i + 1 < ct.length ? ct[i + 1] : run.lastT();
        long nextS = i + 1 < ct.length ? cs[i + 1] : run.lastS();
        long lastS = source + n - 1;
        return end == nextT ? lastS == nextS : end > nextT || lastS < nextS;
    }

    /** The complete ranges, less the folded run's (a snapshot lists that one with the run). */
    private List<long[]> knownOutsideFolded() {
        return foldedFeeder >= 0 ? known.allExcept(cpT[0], foldedLastT + 1) : known.all();
    }

    /** The folded run, or null when nothing is folded. */
    private @Nullable FoldedRun folded() {
        if (foldedFeeder < 0) {
            return null;
        }
        return new FoldedRun(
                feeders.get(foldedFeeder),
                Arrays.copyOf(cpT, cpSize),
                Arrays.copyOf(cpS, cpSize),
                foldedLastT,
                foldedLastS);
    }

    /**
     * Folds the oldest segments into the folded run while they continue it: one source partition, source offsets
     * going strictly up, each segment's below every later segment's, and inside the last complete range (the index
     * looks at nothing below it). Keeps {@link #foldWindow} segments exact.
     */
    private void foldOldest() {
        if (!foldsAllowed || !originals.isEmpty() || feeders.size() != 1) {
            return;
        }
        flushTail();
        long rangeStart = known.lastRangeStart();
        if (foldedFeeder >= 0 && cpT[0] < rangeStart) {
            return; // an unknown stretch lies above the folded run: it is read back first
        }
        int limit = size - foldWindow;
        long[] minAfter = new long[size + 1];
        minAfter[size] = Long.MAX_VALUE;
        for (int i = size - 1; i >= 0; i--) {
            minAfter[i] = Math.min(s[i], minAfter[i + 1]);
        }
        long next = foldedFeeder >= 0 ? foldedLastS + 1 : Long.MIN_VALUE;
        int k = 0;
        while (k < limit
                && t[k] >= rangeStart
                && (foldedFeeder < 0 || feeder[k] == foldedFeeder)
                && s[k] >= next
                && s[k] + len[k] - 1 < minAfter[k + 1]) {
            next = s[k] + len[k];
            k++;
        }
        if (k == 0) {
            return;
        }
        for (int j = 0; j < k; j++) {
            if (foldedFeeder < 0) {
                foldedFeeder = feeder[j];
                addCheckpoint(t[j], s[j]);
            } else if (t[j] - cpT[cpSize - 1] >= cpSpacing) {
                addCheckpoint(t[j], s[j]);
            }
            foldedLastT = t[j] + len[j] - 1;
            foldedLastS = s[j] + len[j] - 1;
        }
        System.arraycopy(t, k, t, 0, size - k);
        System.arraycopy(s, k, s, 0, size - k);
        System.arraycopy(len, k, len, 0, size - k);
        System.arraycopy(feeder, k, feeder, 0, size - k);
        size -= k;
        // Same knowledge, held differently: the index is built again, nothing new to persist.
        changes++;
    }

    private void addCheckpoint(long at, long source) {
        if (cpSize == cpT.length) {
            int cap = Math.max(8, cpSize * 2);
            cpT = Arrays.copyOf(cpT, cap);
            cpS = Arrays.copyOf(cpS, cap);
        }
        cpT[cpSize] = at;
        cpS[cpSize] = source;
        cpSize++;
        if (cpSize >= foldCheckpoints) {
            // Every other checkpoint goes (the first stays): the reads between two of them double.
            int n = 0;
            for (int i = 0; i < cpSize; i += 2) {
                cpT[n] = cpT[i];
                cpS[n] = cpS[i];
                n++;
            }
            cpSize = n;
            cpSpacing *= 2;
        }
    }

    /**
     * Keeps the folded run true to what else is held: every exact segment must be of its source partition and lie
     * after it in both target and source offsets. Where one does not (a restart re-copied records the run holds, or a
     * fact arrived inside it), the run is cut back to its checkpoints below it and the stretch after them becomes
     * unknown, to be read back from the target; another source partition (hash mode) unfolds it all.
     */
    private void checkFolded() {
        if (foldedFeeder < 0) {
            return;
        }
        long minS = Long.MAX_VALUE;
        long minT = Long.MAX_VALUE;
        for (int i = 0; i < size; i++) {
            if (feeder[i] != foldedFeeder) {
                unfoldFrom(0);
                return;
            }
            minS = Math.min(minS, s[i]);
            minT = Math.min(minT, t[i]);
        }
        if (minS > foldedLastS && minT > foldedLastT) {
            return;
        }
        unfoldFrom(keptBelow(minS, minT));
    }

    /** How many checkpoints lie below source offset {@code source} and target offset {@code at}. */
    private int keptBelow(long source, long at) {
        int keep = 0;
        while (keep < cpSize && cpS[keep] < source && cpT[keep] < at) {
            keep++;
        }
        return keep;
    }

    /** Cuts the folded run back to its first {@code keep} checkpoints; what it held after them becomes unknown. */
    private void unfoldFrom(int keep) {
        flushTail();
        long from = keep == 0 ? cpT[0] : cpT[keep - 1] + 1;
        long to = foldedLastT + 1;
        known.remove(from, to);
        for (int i = 0; i < size; i++) {
            long end = t[i] + len[i];
            if (end > from && t[i] < to) {
                known.add(Math.max(from, t[i]), Math.min(to, end));
            }
        }
        if (keep == 0) {
            clearFolded();
        } else {
            cpSize = keep;
            foldedLastT = cpT[keep - 1];
            foldedLastS = cpS[keep - 1];
        }
        changes++;
    }

    private void clearFolded() {
        foldedFeeder = -1;
        cpT = new long[0];
        cpS = new long[0];
        cpSize = 0;
        foldedLastT = -1;
        foldedLastS = -1;
        cpSpacing = 1;
    }

    /** The segments held, as {@code {t, s, len, feeder}}. */
    private List<long[]> held() {
        List<long[]> segs = new ArrayList<>(size);
        for (int i = 0; i < size; i++) {
            segs.add(new long[] {t[i], s[i], len[i], feeder[i]});
        }
        return segs;
    }

    /** {@code segs} less their parts inside {@code ranges} (sorted, disjoint {@code [from, to)}). */
    private static List<long[]> cut(List<long[]> segs, List<long[]> ranges) {
        List<long[]> out = new ArrayList<>(segs.size());
        for (long[] seg : segs) {
            long from = seg[0];
            long end = seg[0] + seg[2];
            int r = firstRangeEndingAfter(ranges, from);
            while (from < end) {
                if (r >= ranges.size() || ranges.get(r)[0] >= end) {
                    out.add(new long[] {from, seg[1] + (from - seg[0]), end - from, seg[3]});
                    break;
                }
                long[] range = ranges.get(r);
                if (range[0] > from) {
                    out.add(new long[] {from, seg[1] + (from - seg[0]), range[0] - from, seg[3]});
                }
                from = Math.max(from, range[1]);
                r++;
            }
        }
        return out;
    }

    private static int firstRangeEndingAfter(List<long[]> ranges, long offset) {
        int a = 0;
        int b = ranges.size();
        while (a < b) {
            int mid = (a + b) >>> 1;
            if (ranges.get(mid)[1] <= offset) {
                a = mid + 1;
            } else {
                b = mid;
            }
        }
        return a;
    }

    /**
     * Whether {@code snapshot} holds everything held here: every range known here is known there (by its ranges or
     * its folded run), and where neither side folded it holds the same copies (no more, no fewer). Two folded runs,
     * or a folded run and copies, of one target describe the same records (facts never disagree): they cover each
     * other.
     */
    private boolean covers(HistorySnapshot snapshot) {
        List<long[]> heldKnown = known.all();
        if (size == 0 && heldKnown.isEmpty()) {
            return true;
        }
        FoldedRun theirFolded = snapshot.folded();
        KnownRanges theirs = new KnownRanges();
        snapshot.known().forEach(r -> theirs.add(r[0], r[1]));
        if (theirFolded != null) {
            theirs.add(theirFolded.firstT(), theirFolded.lastT() + 1);
        }
        List<long[]> theirKnown = theirs.all();
        for (long[] r : heldKnown) {
            int i = firstRangeEndingAfter(theirKnown, r[0]);
            if (i >= theirKnown.size()
                    || theirKnown.get(i)[0] > r[0]
                    || theirKnown.get(i)[1] < r[1]) {
                return false;
            }
        }
        // Where the copies are compared: known here, folded on neither side.
        KnownRanges compared = new KnownRanges();
        knownOutsideFolded().forEach(r -> compared.add(r[0], r[1]));
        if (theirFolded != null) {
            compared.remove(theirFolded.firstT(), theirFolded.lastT() + 1);
        }
        List<long[]> ranges = compared.all();
        long heldCopies = 0;
        for (int i = 0; i < size; i++) {
            for (long[] piece : within(ranges, t[i], t[i] + len[i])) {
                heldCopies += piece[1] - piece[0];
                if (!holds(snapshot, piece[0], piece[1], s[i] + (piece[0] - t[i]), feeders.get(feeder[i]))) {
                    return false;
                }
            }
        }
        long theirCopies = 0;
        for (int i = 0; i < snapshot.size(); i++) {
            for (long[] piece : within(ranges, snapshot.t()[i], snapshot.t()[i] + snapshot.len()[i])) {
                theirCopies += piece[1] - piece[0];
            }
        }
        return heldCopies == theirCopies;
    }

    /** The parts of {@code [from, end)} inside {@code ranges} (sorted, disjoint). */
    private static List<long[]> within(List<long[]> ranges, long from, long end) {
        List<long[]> out = new ArrayList<>(1);
        for (int r = firstRangeEndingAfter(ranges, from); r < ranges.size(); r++) {
            long[] range = ranges.get(r);
            if (range[0] >= end) {
                break;
            }
            out.add(new long[] {Math.max(from, range[0]), Math.min(end, range[1])});
        }
        return out;
    }

    /** Whether {@code snapshot} holds the copies {@code [at, end)} of {@code source} from source offset {@code sAt}. */
    private static boolean holds(HistorySnapshot snapshot, long at, long end, long sAt, TopicPartition source) {
        long[] st = snapshot.t();
        long from = at;
        while (at < end) {
            int j = Arrays.binarySearch(st, at);
            j = j >= 0 ? j : -j - 2;
            if (j < 0 || at >= st[j] + snapshot.len()[j]) {
                return false;
            }
            if (snapshot.s()[j] + (at - st[j]) != sAt + (at - from)
                    || !snapshot.feeders().get(snapshot.feeder()[j]).equals(source)) {
                return false;
            }
            at = Math.min(end, st[j] + snapshot.len()[j]);
        }
        return true;
    }

    private void rebuild(List<long[]> segs) {
        segs.sort((a, b) -> Long.compare(a[0], b[0]));
        size = 0;
        for (long[] seg : segs) {
            long from = seg[0];
            long sFrom = seg[1];
            long n = seg[2];
            int f = (int) seg[3];
            if (size > 0) {
                int last = size - 1;
                long lastEnd = t[last] + len[last];
                if (from < lastEnd) {
                    // Overlaps a fact taken already (the same one, learnt twice): keep only the new part.
                    long skip = lastEnd - from;
                    if (skip >= n) {
                        continue;
                    }
                    from += skip;
                    sFrom += skip;
                    n -= skip;
                }
                if (from == lastEnd
                        && feeder[last] == f
                        && sFrom == s[last] + len[last]
                        && len[last] + n <= Integer.MAX_VALUE) {
                    len[last] += (int) n;
                    continue;
                }
            }
            append(from, sFrom, (int) n, f);
        }
    }

    private void append(long tFrom, long sFrom, int n, int f) {
        if (size == t.length) {
            int cap = size * 2;
            t = Arrays.copyOf(t, cap);
            s = Arrays.copyOf(s, cap);
            len = Arrays.copyOf(len, cap);
            feeder = Arrays.copyOf(feeder, cap);
        }
        t[size] = tFrom;
        s[size] = sFrom;
        len[size] = n;
        feeder[size] = f;
        size++;
    }

    /** Keeps memory bounded: drops the older half of the segments once there are more than maxSegments. */
    private void capSize() {
        // At 2 x window, before the arrays grow past it: they stay at that capacity.
        if (foldWindow > 0 && size >= 2 * foldWindow) {
            foldOldest();
        }
        if (size > maxSegments) {
            long below = t[size - maxSegments / 2];
            dropBelowLocked(below);
            cappedBelow = Math.max(cappedBelow, below);
        }
    }

    /** The offset below which the cap dropped facts, or -1 when it never did. */
    public synchronized long cappedBelow() {
        return cappedBelow;
    }

    /** Forgets every target offset below {@code offset} (retention deleted them, or memory is short). */
    public synchronized void dropBelow(long offset) {
        dropBelowLocked(offset);
    }

    private void dropBelowLocked(long offset) {
        settleOriginals();
        flushTail();
        int first = 0;
        while (first < size && t[first] + len[first] <= offset) {
            first++;
        }
        if (first > 0) {
            System.arraycopy(t, first, t, 0, size - first);
            System.arraycopy(s, first, s, 0, size - first);
            System.arraycopy(len, first, len, 0, size - first);
            System.arraycopy(feeder, first, feeder, 0, size - first);
            size -= first;
        }
        if (size > 0 && t[0] < offset) {
            int cut = (int) (offset - t[0]);
            t[0] += cut;
            s[0] += cut;
            len[0] -= cut;
        }
        long knownFrom = offset;
        if (foldedFeeder >= 0 && offset > cpT[0]) {
            if (offset > foldedLastT) {
                clearFolded();
            } else {
                // The run starts again at its first checkpoint at or after the offset (or its last copy): what lies
                // before that is no longer described.
                int kept = 0;
                while (kept < cpSize && cpT[kept] < offset) {
                    kept++;
                }
                if (kept == cpSize) {
                    cpT[0] = foldedLastT;
                    cpS[0] = foldedLastS;
                    cpSize = 1;
                } else {
                    System.arraycopy(cpT, kept, cpT, 0, cpSize - kept);
                    System.arraycopy(cpS, kept, cpS, 0, cpSize - kept);
                    cpSize -= kept;
                }
                knownFrom = cpT[0];
            }
        }
        known.dropBelow(knownFrom);
        List<long[]> keptRuns = cut(originalRuns, List.<long[]>of(new long[] {Long.MIN_VALUE, offset}));
        originalRuns.clear();
        originalRuns.addAll(keptRuns);
        changed();
    }

    /**
     * Forgets everything: the target partition was truncated or its topic re-created; what is learnt from now on
     * belongs to target topic {@code topicId} (checked on the target).
     */
    public synchronized void reset(@Nullable String topicId) {
        clear();
        this.topicId = topicId;
        confirmed = topicId != null;
        changed();
    }

    private void clear() {
        originals.clear();
        originalRuns.clear();
        pendingOriginals = 0;
        size = 0;
        known.clear();
        tailFrom = -1;
        tailTo = -1;
        cappedBelow = -1;
        unverified = false;
        clearFolded();
        changes++;
    }

    /** The id of the target topic the facts belong to, or null while unknown. */
    public synchronized @Nullable String topicId() {
        return topicId;
    }

    /** Whether facts came from a snapshot that named no topic id and have not been checked on the target yet. */
    public synchronized boolean unverified() {
        return unverified;
    }

    /** The facts held were checked on the target: they describe target topic {@code topicId}. */
    public synchronized void confirm(String topicId) {
        boolean news = !topicId.equals(this.topicId) || unverified;
        this.topicId = topicId;
        confirmed = true;
        unverified = false;
        if (news) {
            // persisted again, so that other processes and a restart know the incarnation without checking
            changed();
        }
    }

    /** One past the highest offset known, or -1 when nothing is known yet. */
    public synchronized long knownEnd() {
        settleOriginals();
        return tailFrom >= 0 ? Math.max(tailTo, known.end()) : known.end();
    }

    /** The unknown ranges between known ones, lowest first: to be read from the target. */
    public synchronized List<long[]> holes() {
        settleOriginals();
        flushTail();
        return known.holes();
    }

    /** Exact segments held (the folded run's checkpoints not counted). */
    public synchronized int segments() {
        settleOriginals();
        return size;
    }

    /** Checkpoints of the folded run (0 when nothing is folded). */
    public synchronized int checkpoints() {
        return cpSize;
    }

    /** A read-only view for translation, built once per change (a round translates every group on it). */
    public synchronized PartitionIndex index() {
        settleOriginals();
        if (cached != null && cachedVersion == changes) {
            return cached;
        }
        flushTail();
        long from = known.lastRangeStart();
        long to = known.end();
        cached = PartitionIndex.build(target, List.copyOf(feeders), t, s, len, feeder, size, from, to, folded());
        cachedVersion = changes;
        return cached;
    }

    /** Everything known, for persisting. */
    public synchronized HistorySnapshot snapshot() {
        settleOriginals();
        flushTail();
        return new HistorySnapshot(
                target,
                List.copyOf(feeders),
                Arrays.copyOf(t, size),
                Arrays.copyOf(s, size),
                Arrays.copyOf(len, size),
                Arrays.copyOf(feeder, size),
                knownOutsideFolded(),
                topicId,
                folded());
    }

    /**
     * Moves when this history knows something its latest persisted snapshot does not; callers persist a snapshot
     * when this moved. It is -1 while everything held came from snapshots that hold it all (nothing to write back).
     */
    public synchronized long version() {
        settleOriginals();
        return version;
    }

    private int feederId(TopicPartition source) {
        Integer id = feederIds.get(source);
        if (id == null) {
            id = feeders.size();
            feeders.add(source);
            feederIds.put(source, id);
        }
        return id;
    }
}
