package dev.strait.broker.raft;

import java.util.Map;
import java.util.TreeMap;

/**
 * The first offset of every epoch present in the log (Kafka's leader-epoch cache). It answers "where does my log
 * end for epoch E", which is how a leader tells a fetching follower where their logs diverge. Derived data:
 * rebuilt from the log when a node starts.
 *
 * <p>After the log was truncated behind a snapshot the index still holds the snapshot's epoch (the epoch of the
 * last entry the snapshot covers), recorded as starting at the snapshot's last offset: its true first offset is
 * gone with the log prefix, and nothing needs it, because no truncation goes below the high watermark and hence
 * below the snapshot. Epochs older than the snapshot's are dropped.
 *
 * <p>Not thread-safe; owned by the node's driver.
 */
final class EpochIndex {

    private final TreeMap<Integer, Long> startOffsets = new TreeMap<>();

    static EpochIndex rebuild(RaftStorage storage) {
        EpochIndex index = new EpochIndex();
        index.reset(storage);
        return index;
    }

    /** Forgets everything and indexes {@code storage}'s latest snapshot and log afresh. */
    void reset(RaftStorage storage) {
        startOffsets.clear();
        storage.latestSnapshot()
                .ifPresent(snapshot ->
                        startOffsets.put(snapshot.id().epoch(), snapshot.id().offset() - 1));
        for (long offset = storage.startOffset(); offset < storage.endOffset(); offset++) {
            onAppend(storage.entry(offset));
        }
    }

    void onAppend(LogEntry entry) {
        int last = lastEpoch();
        if (entry.epoch() < last) {
            throw new IllegalStateException("epoch went back in the log: " + entry + " after epoch " + last);
        }
        if (entry.epoch() > last) {
            startOffsets.put(entry.epoch(), entry.offset());
        }
    }

    void onTruncate(long endOffset) {
        while (!startOffsets.isEmpty() && startOffsets.lastEntry().getValue() >= endOffset) {
            startOffsets.pollLastEntry();
        }
    }

    /** The log was truncated behind {@code snapshotId}, whose last entry is still in this index. */
    void onPrefixTruncated(OffsetAndEpoch snapshotId) {
        startOffsets.headMap(snapshotId.epoch(), false).clear();
        startOffsets.merge(snapshotId.epoch(), snapshotId.offset() - 1, Math::min);
    }

    /** Epoch of the last entry (or of the snapshot when the log after it is empty), 0 for an empty log. */
    int lastEpoch() {
        return startOffsets.isEmpty() ? 0 : startOffsets.lastKey();
    }

    /** Oldest epoch the index knows: the snapshot's once there is one. */
    int firstEpoch() {
        return startOffsets.isEmpty() ? 0 : startOffsets.firstKey();
    }

    /**
     * The end of the log restricted to epochs up to {@code epoch}: the largest epoch present that is not above
     * {@code epoch}, with the offset after its last entry; {@link OffsetAndEpoch#START} if there is none.
     */
    OffsetAndEpoch endOffsetFor(int epoch, long logEndOffset) {
        Map.Entry<Integer, Long> floor = startOffsets.floorEntry(epoch);
        if (floor == null) {
            return OffsetAndEpoch.START;
        }
        Map.Entry<Integer, Long> next = startOffsets.higherEntry(floor.getKey());
        return new OffsetAndEpoch(next == null ? logEndOffset : next.getValue(), floor.getKey());
    }
}
