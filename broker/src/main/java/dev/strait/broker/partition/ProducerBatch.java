package dev.strait.broker.partition;

/**
 * The idempotence fields of one record batch in a produce request, read by the protocol adapter.
 *
 * @param producerId    -1 for a non-idempotent producer
 * @param producerEpoch the producer's epoch
 * @param baseSequence  sequence number of the first record
 * @param lastSequence  sequence number of the last record
 * @param recordCount   number of offsets the batch spans (lastOffsetDelta + 1)
 */
public record ProducerBatch(long producerId, short producerEpoch, int baseSequence, int lastSequence, int recordCount) {

    public boolean isIdempotent() {
        return producerId >= 0;
    }
}
