package dev.strait.broker.txn;

import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The durable log behind one coordinator shard: a partition of {@code __transaction_state}, as its leader sees it.
 * Implemented by the protocol adapter (it builds Kafka record batches, as {@code OffsetsTopicLog} does for the group
 * coordinator); records are opaque key/value bytes encoded by {@link TransactionRecords}.
 *
 * <p>A record is durable once the partition's high watermark passed it in the leader epoch it was written in.
 */
public interface TransactionLog {

    /** Where an append ended: the offset after its record, in the leader epoch it was written in. */
    record Appended(long endOffset, int leaderEpoch) {}

    /** The partition as its leader sees it now. */
    record Position(long highWatermark, long logEndOffset, int leaderEpoch) {}

    /** Nothing was appended; {@link #error()} is what the requester is told. */
    final class AppendFailedException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final TxnError error;

        public AppendFailedException(TxnError error, @Nullable String message) {
            super(message);
            this.error = error;
        }

        public TxnError error() {
            return error;
        }
    }

    /**
     * Appends one record to the partition as its leader.
     *
     * @throws AppendFailedException if nothing was appended
     */
    Appended append(int partition, TransactionRecords.Entry record);

    /** The partition's high watermark, log end and leader epoch if this node leads it, else empty. */
    Optional<Position> position(int partition);

    /**
     * Runs {@code onChange} once, on any thread, when the partition's high watermark reaches
     * {@code appended.endOffset()}, this node stops leading it in that epoch, or a timeout passes; the caller reads
     * {@link #position} again to tell which. A log whose progress is reported otherwise (a simulation calling
     * {@link TransactionCoordinator#onReplicationProgress}) need not implement it.
     */
    default void awaitReplication(int partition, Appended appended, Runnable onChange) {}
}
