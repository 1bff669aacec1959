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
    private long version;
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
                version++;
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
        version++;
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
        version++;
        capSize();
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
     * of the range is known not to be a copy.
     */
    public synchronized void merge(List<Fact> facts, long from, long to) {
        settleOriginals();
        flushTail();
        List<long[]> segs = new ArrayList<>(size + facts.size());
        for (int i = 0; i < size; i++) {
            segs.add(new long[] {t[i], s[i], len[i], feeder[i]});
        }
        for (Fact fact : facts) {
            segs.add(new long[] {fact.targetOffset(), fact.sourceOffset(), 1, feederId(fact.source())});
        }
        rebuild(segs);
        known.add(from, to);
        version++;
        capSize();
    }

    /** Learns a persisted snapshot (another process's knowledge, or this one's from before a restart). */
    public synchronized void merge(HistorySnapshot snapshot) {
        settleOriginals();
        flushTail();
        List<long[]> segs = new ArrayList<>(size + snapshot.size());
        for (int i = 0; i < size; i++) {
            segs.add(new long[] {t[i], s[i], len[i], feeder[i]});
        }
        for (int i = 0; i < snapshot.size(); i++) {
            segs.add(new long[] {
                snapshot.t()[i],
                snapshot.s()[i],
                snapshot.len()[i],
                feederId(snapshot.feeders().get(snapshot.feeder()[i]))
            });
        }
        rebuild(segs);
        for (long[] r : snapshot.known()) {
            known.add(r[0], r[1]);
        }
        version++;
        capSize();
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
                    // Overlaps what is already held (the same facts, learnt twice): keep only the new part.
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
            dropBelowLocked(t[size - maxSegments / 2]);
        }
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
        version++;
    }

    /** Forgets everything: the target partition was truncated or its topic re-created. */
    public synchronized void reset() {
        originals.clear();
        pendingOriginals = 0;
        size = 0;
        known.clear();
        tailFrom = -1;
        tailTo = -1;
        version++;
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
        if (cached != null && cachedVersion == version) {
            return cached;
        }
        flushTail();
        long from = known.lastRangeStart();
        long to = known.end();
        cached = PartitionIndex.build(target, List.copyOf(feeders), t, s, len, feeder, size, from, to);
        cachedVersion = version;
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
                known.all());
    }

    /** Changes since {@code version}; callers persist a snapshot when this moved. */
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
