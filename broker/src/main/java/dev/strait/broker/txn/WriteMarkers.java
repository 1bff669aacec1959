package dev.strait.broker.txn;

import java.util.Set;

/**
 * A follow-up the coordinator owes once a PrepareCommit or PrepareAbort is durable: write a commit or abort marker
 * for the producer to each of the transaction's partitions (WriteTxnMarkers to their leaders), then report it with
 * {@link TransactionCoordinatorCore#markersWritten}.
 *
 * @param coordinatorEpoch the leader epoch of the {@code __transaction_state} partition: partitions refuse markers
 *     from an older coordinator
 */
public record WriteMarkers(
        String transactionalId,
        long producerId,
        short producerEpoch,
        boolean commit,
        Set<TxnPartition> partitions,
        int coordinatorEpoch) {

    public WriteMarkers {
        partitions = Set.copyOf(partitions);
    }

    static WriteMarkers of(TransactionMetadata prepared, int coordinatorEpoch) {
        if (!prepared.state().isPrepared()) {
            throw new IllegalStateException(
                    prepared.transactionalId() + ": no markers are owed in state " + prepared.state());
        }
        return new WriteMarkers(
                prepared.transactionalId(),
                prepared.producerId(),
                prepared.producerEpoch(),
                prepared.state() == TransactionState.PREPARE_COMMIT,
                prepared.partitions(),
                coordinatorEpoch);
    }
}
