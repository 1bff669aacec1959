package dev.strait.broker.raft;

import java.util.Map;
import java.util.TreeMap;

/**
 * The first offset of every epoch present in the log (Kafka's leader-epoch cache). It answers "where does my log
 * end for epoch E", which is how a leader tells a fetching follower where their logs diverge. Derived data:
 * rebuilt from the log when a node starts.
 *
 * <p>Not thread-safe; owned by the node's driver.
 */
final class EpochIndex {

    private final TreeMap<Integer, Long> startOffsets = new TreeMap<>();

    static EpochIndex rebuild(RaftStorage storage) {
        EpochIndex index = new EpochIndex();
        for (long offset = 0; offset < storage.endOffset(); offset++) {
            index.onAppend(storage.entry(offset));
        }
        return index;
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

    /** Epoch of the last entry, 0 for an empty log. */
    int lastEpoch() {
        return startOffsets.isEmpty() ? 0 : startOffsets.lastKey();
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
