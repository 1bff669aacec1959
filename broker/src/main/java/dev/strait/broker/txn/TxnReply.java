package dev.strait.broker.txn;

/**
 * What the requester of an operation is told: an error, or NONE with the producer id and epoch (InitProducerId's
 * answer; the transaction's own pair for the other operations).
 */
public record TxnReply(TxnError error, long producerId, short producerEpoch) {

    public static TxnReply error(TxnError error) {
        return new TxnReply(error, TransactionMetadata.NO_PRODUCER_ID, TransactionMetadata.NO_PRODUCER_EPOCH);
    }

    public static TxnReply ok(long producerId, short producerEpoch) {
        return new TxnReply(TxnError.NONE, producerId, producerEpoch);
    }
}
