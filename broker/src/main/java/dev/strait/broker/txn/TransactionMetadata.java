package dev.strait.broker.txn;

import java.util.HashSet;
import java.util.Set;

/**
 * One transactional id's state at its coordinator, as written to {@code __transaction_state}: an immutable value.
 * The {@code prepareX} methods build the value a transition leads to, check it against {@link TransactionState}'s
 * table, and change nothing: the coordinator makes the value current only once its record is durable.
 *
 * @param transactionalId the producer's {@code transactional.id}
 * @param producerId the producer id in use
 * @param previousProducerId the producer id before the last rotation (epoch exhaustion), or -1: a producer that
 *     missed the answer to the rotation retries with it (KIP-360)
 * @param nextProducerId the producer id the next transaction will use (transaction version 2, KIP-890), or -1;
 *     kept so the record format need not change, always -1 in version 1 transitions
 * @param producerEpoch the epoch in use; 0 to {@code Short.MAX_VALUE}
 * @param lastProducerEpoch the epoch before the last bump that a KIP-360 producer asked for, or -1: a retry of that
 *     bump gets the current epoch again instead of being fenced
 * @param txnTimeoutMs the producer's {@code transaction.timeout.ms}
 * @param state the state
 * @param partitions the partitions in the current transaction (empty unless Ongoing or Prepare*)
 * @param txnStartTimestampMs when the current transaction began (its first AddPartitions), or -1
 * @param txnLastUpdateTimestampMs when this value was written
 */
public record TransactionMetadata(
        String transactionalId,
        long producerId,
        long previousProducerId,
        long nextProducerId,
        short producerEpoch,
        short lastProducerEpoch,
        int txnTimeoutMs,
        TransactionState state,
        Set<TxnPartition> partitions,
        long txnStartTimestampMs,
        long txnLastUpdateTimestampMs) {

    public static final long NO_PRODUCER_ID = -1L;
    public static final short NO_PRODUCER_EPOCH = -1;

    public TransactionMetadata {
        partitions = Set.copyOf(partitions);
        if (transactionalId.isEmpty()) {
            throw new IllegalArgumentException("empty transactional id");
        }
        if (producerId < 0 || previousProducerId < NO_PRODUCER_ID || nextProducerId < NO_PRODUCER_ID) {
            throw new IllegalArgumentException(transactionalId + ": invalid producer id " + producerId + " (previous "
                    + previousProducerId + ", next " + nextProducerId + ")");
        }
        if (producerEpoch < 0 || lastProducerEpoch < NO_PRODUCER_EPOCH) {
            throw new IllegalArgumentException(transactionalId + ": invalid producer epoch " + producerEpoch + " (last "
                    + lastProducerEpoch + ")");
        }
        if (txnTimeoutMs <= 0) {
            throw new IllegalArgumentException(transactionalId + ": invalid transaction timeout " + txnTimeoutMs);
        }
    }

    /** Whether no further epoch may be handed out for this producer id (Kafka keeps one spare for fencing). */
    public static boolean isEpochExhausted(short epoch) {
        return epoch >= Short.MAX_VALUE - 1;
    }

    public boolean isProducerEpochExhausted() {
        return isEpochExhausted(producerEpoch);
    }

    /** A transactional id seen for the first time: a new producer id at epoch 0, no transaction. */
    public static TransactionMetadata fresh(String transactionalId, long producerId, int txnTimeoutMs, long nowMs) {
        return new TransactionMetadata(
                transactionalId,
                producerId,
                NO_PRODUCER_ID,
                NO_PRODUCER_ID,
                (short) 0,
                NO_PRODUCER_EPOCH,
                txnTimeoutMs,
                TransactionState.EMPTY,
                Set.of(),
                -1L,
                nowMs);
    }

    /**
     * InitProducerId with the same producer id: Empty at {@code newEpoch}, no partitions.
     *
     * @param newEpoch the epoch handed out: the current one plus one, or the current one again for a retry
     * @param newLastEpoch what a retry of this call may expect, or -1
     */
    public TransactionMetadata prepareEpoch(short newEpoch, short newLastEpoch, int newTxnTimeoutMs, long nowMs) {
        if (newEpoch != producerEpoch && (newEpoch != producerEpoch + 1 || isProducerEpochExhausted())) {
            throw new IllegalStateException(
                    transactionalId + ": cannot move epoch " + producerEpoch + " to " + newEpoch);
        }
        return transitionTo(
                TransactionState.EMPTY,
                producerId,
                previousProducerId,
                newEpoch,
                newLastEpoch,
                newTxnTimeoutMs,
                Set.of(),
                -1L,
                nowMs);
    }

    /**
     * InitProducerId once the epoch is exhausted: a new producer id at epoch 0; the old id is kept as the previous
     * one, and its epoch as the last one if the producer told us what it held, so that a retry is recognised.
     */
    public TransactionMetadata prepareProducerIdRotation(
            long newProducerId, int newTxnTimeoutMs, boolean recordLastEpoch, long nowMs) {
        return transitionTo(
                TransactionState.EMPTY,
                newProducerId,
                producerId,
                (short) 0,
                recordLastEpoch ? producerEpoch : NO_PRODUCER_EPOCH,
                newTxnTimeoutMs,
                Set.of(),
                -1L,
                nowMs);
    }

    /** AddPartitionsToTxn / AddOffsetsToTxn: Ongoing with these partitions added; a new transaction starts now. */
    public TransactionMetadata prepareAddPartitions(Set<TxnPartition> added, long nowMs) {
        Set<TxnPartition> all = new HashSet<>(partitions);
        all.addAll(added);
        long startMs = state == TransactionState.ONGOING ? txnStartTimestampMs : nowMs;
        return transitionTo(
                TransactionState.ONGOING,
                producerId,
                previousProducerId,
                producerEpoch,
                lastProducerEpoch,
                txnTimeoutMs,
                all,
                startMs,
                nowMs);
    }

    /** EndTxn: PrepareCommit or PrepareAbort with the transaction's partitions. */
    public TransactionMetadata prepareEnd(boolean commit, long nowMs) {
        return transitionTo(
                commit ? TransactionState.PREPARE_COMMIT : TransactionState.PREPARE_ABORT,
                producerId,
                previousProducerId,
                producerEpoch,
                lastProducerEpoch,
                txnTimeoutMs,
                partitions,
                txnStartTimestampMs,
                nowMs);
    }

    /**
     * The coordinator aborts an ongoing transaction itself (another producer's InitProducerId, the transaction's
     * timeout): Ongoing &rarr; PrepareEpochFence &rarr; PrepareAbort with the epoch bumped, so the producer that ran
     * it is fenced and its markers carry an epoch it never held. The last epoch is cleared: the fenced producer may
     * not come back through a KIP-360 retry.
     */
    public TransactionMetadata prepareFenceAndAbort(long nowMs) {
        TransactionState.checkTransition(transactionalId, state, TransactionState.PREPARE_EPOCH_FENCE);
        if (producerEpoch == Short.MAX_VALUE) {
            throw new IllegalStateException(transactionalId + ": cannot fence epoch " + producerEpoch);
        }
        TransactionState.checkTransition(
                transactionalId, TransactionState.PREPARE_EPOCH_FENCE, TransactionState.PREPARE_ABORT);
        return new TransactionMetadata(
                transactionalId,
                producerId,
                previousProducerId,
                nextProducerId,
                (short) (producerEpoch + 1),
                NO_PRODUCER_EPOCH,
                txnTimeoutMs,
                TransactionState.PREPARE_ABORT,
                partitions,
                txnStartTimestampMs,
                nowMs);
    }

    /** Every marker is written: CompleteCommit or CompleteAbort, no partitions. */
    public TransactionMetadata prepareComplete(long nowMs) {
        TransactionState next = state == TransactionState.PREPARE_COMMIT
                ? TransactionState.COMPLETE_COMMIT
                : TransactionState.COMPLETE_ABORT;
        return transitionTo(
                next,
                producerId,
                previousProducerId,
                producerEpoch,
                lastProducerEpoch,
                txnTimeoutMs,
                Set.of(),
                txnStartTimestampMs,
                nowMs);
    }

    /** The transactional id expires: Dead, written as a tombstone. */
    public TransactionMetadata prepareDead(long nowMs) {
        return transitionTo(
                TransactionState.DEAD,
                producerId,
                previousProducerId,
                producerEpoch,
                lastProducerEpoch,
                txnTimeoutMs,
                Set.of(),
                txnStartTimestampMs,
                nowMs);
    }

    private TransactionMetadata transitionTo(
            TransactionState next,
            long newProducerId,
            long newPreviousProducerId,
            short newEpoch,
            short newLastEpoch,
            int newTxnTimeoutMs,
            Set<TxnPartition> newPartitions,
            long newStartMs,
            long nowMs) {
        TransactionState.checkTransition(transactionalId, state, next);
        return new TransactionMetadata(
                transactionalId,
                newProducerId,
                newPreviousProducerId,
                nextProducerId,
                newEpoch,
                newLastEpoch,
                newTxnTimeoutMs,
                next,
                newPartitions,
                newStartMs,
                nowMs);
    }
}
