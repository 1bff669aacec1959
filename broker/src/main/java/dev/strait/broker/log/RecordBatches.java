package dev.strait.broker.log;

import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/** Splitting a buffer of concatenated batches into {@link RecordBatchHeader} views. Stateless. */
public final class RecordBatches {

    private RecordBatches() {}

    /**
     * Views of every batch between the buffer's position and limit. The split is strict: the buffer must hold
     * whole batches only (a produce request may not end with a partial batch). Batches are not CRC-checked here;
     * call {@link RecordBatchHeader#validate()}.
     *
     * @throws CorruptRecordException if a length field is out of range or the last batch is incomplete
     */
    public static List<RecordBatchHeader> split(ByteBuffer buffer) {
        List<RecordBatchHeader> batches = new ArrayList<>();
        int position = buffer.position();
        while (position < buffer.limit()) {
            int remaining = buffer.limit() - position;
            if (remaining < RecordBatchHeader.LOG_OVERHEAD_BYTES) {
                throw new CorruptRecordException("trailing " + remaining + " bytes do not hold a batch header");
            }
            int batchLength = buffer.getInt(position + RecordBatchHeader.BATCH_LENGTH_OFFSET);
            if (batchLength < RecordBatchHeader.MIN_BATCH_LENGTH
                    || batchLength > remaining - RecordBatchHeader.LOG_OVERHEAD_BYTES) {
                throw new CorruptRecordException("batch at index " + position + " has batchLength " + batchLength
                        + " but " + (remaining - RecordBatchHeader.LOG_OVERHEAD_BYTES) + " bytes follow");
            }
            batches.add(new RecordBatchHeader(buffer, position));
            position += RecordBatchHeader.LOG_OVERHEAD_BYTES + batchLength;
        }
        return batches;
    }
}
