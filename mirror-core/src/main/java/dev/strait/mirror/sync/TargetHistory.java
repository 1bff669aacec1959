package dev.strait.mirror.sync;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

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
     * Moves when this history knows something that the latest snapshot it saw in the sync topic does not (its own
     * acknowledgements and reads, or a snapshot that lacks them): -1 while everything it holds came from snapshots
     * that hold it all, so a process never writes back what it only merged.
     */
    private long version = -1;
    /** Moves on every change of what is held: the index is built again then. */
    private long changes;
    /** The id of the target topic whose records the facts describe (its incarnation); null while unknown. */
    private String topicId;
    /** {@link #topicId} was checked on the target (not only taken from a snapshot). */
    private boolean confirmed;
    /** Facts came from a snapshot that named no topic id (written before ids were kept): to check on the target. */
    private boolean unverified;
    /** Below this offset the cap dropped facts on purpose (-1: never): reading them back would only drop them again. */
    private long cappedBelow = -1;

    private PartitionIndex cached;
    private long cachedVersion = -1;

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
        }
        originals.clear();
        pendingOriginals = 0;
        changed();
        capSize();
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
        List<long[]> segs = cut(held(), List.<long[]>of(new long[] {from, to}));
        for (Fact fact : facts) {
            segs.add(new long[] {fact.targetOffset(), fact.sourceOffset(), 1, feederId(fact.source())});
        }
        rebuild(segs);
        known.add(from, to);
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
        boolean covered = covers(snapshot, heldKnown);
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
        changes++;
        if (!covered) {
            version++;
        }
        capSize();
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
     * Whether {@code snapshot} holds everything held here: every range known here is known there, and over those
     * ranges it holds the same copies (no more, no fewer).
     */
    private boolean covers(HistorySnapshot snapshot, List<long[]> heldKnown) {
        if (size == 0 && heldKnown.isEmpty()) {
            return true;
        }
        List<long[]> theirKnown = snapshot.known();
        for (long[] r : heldKnown) {
            int i = firstRangeEndingAfter(theirKnown, r[0]);
            if (i >= theirKnown.size()
                    || theirKnown.get(i)[0] > r[0]
                    || theirKnown.get(i)[1] < r[1]) {
                return false;
            }
        }
        long heldCopies = 0;
        for (int i = 0; i < size; i++) {
            heldCopies += len[i];
            if (!holds(snapshot, i)) {
                return false;
            }
        }
        long theirCopies = 0;
        for (int i = 0; i < snapshot.size(); i++) {
            long from = snapshot.t()[i];
            long end = from + snapshot.len()[i];
            for (int r = firstRangeEndingAfter(heldKnown, from); r < heldKnown.size(); r++) {
                long[] range = heldKnown.get(r);
                if (range[0] >= end) {
                    break;
                }
                theirCopies += Math.min(end, range[1]) - Math.max(from, range[0]);
            }
        }
        return heldCopies == theirCopies;
    }

    /** Whether {@code snapshot} holds every copy of segment {@code i}. */
    private boolean holds(HistorySnapshot snapshot, int i) {
        long at = t[i];
        long end = t[i] + len[i];
        long[] st = snapshot.t();
        while (at < end) {
            int j = Arrays.binarySearch(st, at);
            j = j >= 0 ? j : -j - 2;
            if (j < 0 || at >= st[j] + snapshot.len()[j]) {
                return false;
            }
            if (snapshot.s()[j] + (at - st[j]) != s[i] + (at - t[i])
                    || !snapshot.feeders().get(snapshot.feeder()[j]).equals(feeders.get(feeder[i]))) {
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
        known.dropBelow(offset);
        changed();
    }

    /**
     * Forgets everything: the target partition was truncated or its topic re-created; what is learnt from now on
     * belongs to target topic {@code topicId} (checked on the target).
     */
    public synchronized void reset(String topicId) {
        clear();
        this.topicId = topicId;
        confirmed = topicId != null;
        changed();
    }

    private void clear() {
        originals.clear();
        pendingOriginals = 0;
        size = 0;
        known.clear();
        tailFrom = -1;
        tailTo = -1;
        cappedBelow = -1;
        unverified = false;
        changes++;
    }

    /** The id of the target topic the facts belong to, or null while unknown. */
    public synchronized String topicId() {
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

    public synchronized int segments() {
        settleOriginals();
        return size;
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
        cached = PartitionIndex.build(target, List.copyOf(feeders), t, s, len, feeder, size, from, to);
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
                known.all(),
                topicId);
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
