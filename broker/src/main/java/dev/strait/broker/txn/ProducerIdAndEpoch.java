package dev.strait.broker.txn;

/**
 * A producer id and epoch; in InitProducerId, the pair a producer already holds and expects to bump (KIP-360), so
 * that a producer recovering from an abortable error keeps its transactional id without fencing itself.
 */
public record ProducerIdAndEpoch(long producerId, short epoch) {

    @Override
    public String toString() {
        return producerId + ":" + epoch;
    }
}
