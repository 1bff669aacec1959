package dev.strait.broker.txn;

import org.jspecify.annotations.Nullable;

/**
 * A transition the coordinator prepared and that waits for its record to be durable: the value to write to
 * {@code __transaction_state} ({@link TransactionRecords#key}, {@link TransactionRecords#value} of {@link #to()}),
 * the value it replaces, and what the requester is told once it is durable. Until then the transactional id has
 * this one transition pending, and other requests for it get CONCURRENT_TRANSACTIONS.
 *
 * @param from the current value, or null for a transactional id seen for the first time
 * @param to the value that becomes current once durable (Dead: the id is removed; its record is a tombstone)
 */
public record TxnTransition(
        String transactionalId, Kind kind, @Nullable TransactionMetadata from, TransactionMetadata to, TxnReply reply) {

    /** Why the transition was made. */
    public enum Kind {
        /** InitProducerId: a producer id and epoch handed out (new id, epoch bump, rotation, retry). */
        INIT_PRODUCER_ID,
        /** InitProducerId found a transaction ongoing: it is aborted with a bumped epoch; the caller retries. */
        FENCE,
        /** AddPartitionsToTxn or AddOffsetsToTxn. */
        ADD_PARTITIONS,
        /** EndTxn: PrepareCommit or PrepareAbort. */
        END_TXN,
        /** The coordinator aborts a transaction past its timeout, with a bumped epoch. */
        TIMEOUT_ABORT,
        /** Every marker was written: CompleteCommit or CompleteAbort. */
        COMPLETE,
        /** The transactional id was idle too long: a tombstone. */
        EXPIRE
    }

    public TxnTransition {
        if (!transactionalId.equals(to.transactionalId())) {
            throw new IllegalArgumentException("transition of " + transactionalId + " to " + to);
        }
    }
}
