package dev.strait.broker.replication;

import dev.strait.broker.log.EpochEndOffset;

/** The log operations replication needs; a partition's log on disk in the broker, an in-memory log in simulation. */
public interface ReplicaLog {

    long logEndOffset();

    /**
     * The end of what this replica may count toward the high watermark as leader: the log end offset, or, where
     * acks=all waits for fsync (flush.on.ack), the offset below which the log is flushed.
     */
    default long acknowledgeableEndOffset() {
        return logEndOffset();
    }

    long highWatermark();

    /** Raises the high watermark (never lowers it); returns whether it moved. */
    boolean updateHighWatermark(long highWatermark);

    /** The latest leader epoch recorded in the log's epoch cache, -1 if none. */
    int latestEpoch();

    /** OffsetForLeaderEpoch as answered from this log (see {@code LeaderEpochCache#endOffsetFor}). */
    EpochEndOffset endOffsetForEpoch(int epoch);

    /** Records that {@code epoch} starts at {@code startOffset} (a new leader's log end offset). */
    void assignEpoch(int epoch, long startOffset);

    /** Removes everything at and after {@code offset}; returns whether anything was removed. */
    boolean truncateTo(long offset);
}
