package dev.strait.broker.protocol;

import java.nio.ByteBuffer;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MutableRecordBatch;

/** The records of a Fetch response partition as this broker's clients append them. */
final class FetchedBatches {
    private FetchedBatches() {}

    /** The complete batches at the start of a partition's records: the answering broker may cut the last one. */
    static ByteBuffer whole(FetchResponseData.PartitionData partition) {
        if (!(partition.records() instanceof MemoryRecords)) {
            return ByteBuffer.allocate(0);
        }
        MemoryRecords records = (MemoryRecords) partition.records();
        int size = 0;
        for (MutableRecordBatch batch : records.batches()) {
            size += batch.sizeInBytes();
        }
        ByteBuffer buffer = records.buffer().duplicate();
        buffer.limit(buffer.position() + size);
        return buffer.slice();
    }
}
