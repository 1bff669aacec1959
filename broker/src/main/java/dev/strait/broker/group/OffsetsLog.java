package dev.strait.broker.group;

import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * The durable log behind the coordinator: the partitions of the internal offsets topic. Implemented by the protocol
 * adapter (it builds Kafka record batches); records are opaque key/value bytes encoded by {@link GroupRecords}.
 *
 * <p>A record is durable once the partition's high watermark passed it: it is then on every in-sync replica and
 * survives a change of leader. The coordinator serves nothing before that (issue 11, defect 6).
 */
public interface OffsetsLog {

    /** {@code value} null: a tombstone. */
    record Entry(byte[] key, byte @Nullable [] value) {}

    /** Where an append ended: the offset after its last record, in the leader epoch it was written in. */
    record Appended(long endOffset, int leaderEpoch) {}

    /** A partition as its leader sees it now. */
    record Position(long highWatermark, long logEndOffset, int leaderEpoch) {}

    /**
     * The records replayed from the log, in offset order, each with its offset: those of ordinary batches, those of
     * a producer's transactional batches (which count only once that producer's commit marker follows them), and
     * the control records that end a producer's transaction.
     */
    interface RecordConsumer {
        /** A record of a batch written outside any transaction. */
        void accept(long offset, byte[] key, byte @Nullable [] value);

        /** A record of a transactional batch of producer {@code producerId}. */
        void acceptTransactional(long offset, long producerId, byte[] key, byte @Nullable [] value);

        /** A control record: producer {@code producerId}'s transaction ends here, committed or aborted. */
        void acceptMarker(long offset, long producerId, boolean commit);
    }

    /** Nothing was appended; {@link #error()} is what the client is told (NOT_COORDINATOR, say). */
    final class AppendFailedException extends RuntimeException {
        private static final long serialVersionUID = 1L;
        private final GroupError error;

        public AppendFailedException(GroupError error, @Nullable String message, Throwable cause) {
            super(message, cause);
            this.error = error;
        }

        public GroupError error() {
            return error;
        }
    }

    /**
     * Appends the records to the partition as its leader, in one batch.
     *
     * @throws AppendFailedException if nothing was appended
     */
    Appended append(int partition, List<Entry> records);

    /**
     * Appends the records to the partition as its leader, in one transactional batch of the producer (TxnOffsetCommit):
     * the partition's producer state checks the epoch, as for any producer's batch, and picks the batch's sequence.
     * The records count only once a commit marker of the producer follows them in the log.
     *
     * @throws AppendFailedException if nothing was appended; INVALID_PRODUCER_EPOCH if a newer epoch of the producer
     *                               wrote to the partition (the producer is fenced)
     */
    Appended appendTransactional(int partition, long producerId, short producerEpoch, List<Entry> records);

    /** The partition's high watermark, log end and leader epoch if this node leads it, else empty. */
    Optional<Position> position(int partition);

    /**
     * Runs {@code onChange} once, on any thread, when the first of these happens: the partition's high watermark
     * reaches {@code appended.endOffset()}, this node stops leading it in {@code appended.leaderEpoch()}, or the
     * commit timeout passes. The callee tells which by reading {@link #position} again.
     */
    void awaitReplication(int partition, Appended appended, Runnable onChange);

    /**
     * Replays every record of the partition, up to its log end, in offset order (nothing if this node does not
     * lead it).
     *
     * @return the offset after the last record replayed
     */
    long replay(int partition, RecordConsumer consumer);

    /** Whether this node leads the partition, and so serves its shard. */
    default boolean isLeader(int partition) {
        return position(partition).isPresent();
    }
}
