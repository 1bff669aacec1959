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

    /**
     * A transaction marker as a transaction coordinator writes it: a control batch of one record whose key holds
     * the marker type and whose value the coordinator epoch, for the producer's current epoch. Its base offset and
     * leader epoch are set when it is appended.
     *
     * @param type {@link RecordBatchHeader#CONTROL_ABORT} or {@link RecordBatchHeader#CONTROL_COMMIT}
     */
    public static ByteBuffer transactionMarker(
            long producerId, short producerEpoch, short type, int coordinatorEpoch, long timestampMs) {
        ByteBuffer body = ByteBuffer.allocate(32);
        body.put((byte) 0); // record attributes
        Varints.writeVarlong(0, body); // timestamp delta
        Varints.writeVarint(0, body); // offset delta
        Varints.writeVarint(4, body); // key: version, type
        body.putShort((short) 0).putShort(type);
        Varints.writeVarint(6, body); // value: version, coordinator epoch
        body.putShort((short) 0).putInt(coordinatorEpoch);
        Varints.writeVarint(0, body); // no headers
        body.flip();
        ByteBuffer record = ByteBuffer.allocate(5 + body.remaining());
        Varints.writeVarint(body.remaining(), record);
        record.put(body).flip();
        ByteBuffer batch = ByteBuffer.allocate(RecordBatchHeader.HEADER_SIZE_BYTES + record.remaining());
        batch.putLong(0L) // base offset
                .putInt(batch.capacity() - RecordBatchHeader.LOG_OVERHEAD_BYTES)
                .putInt(-1) // partition leader epoch
                .put(RecordBatchHeader.MAGIC_V2)
                .putInt(0) // CRC, below
                .putShort((short) (CONTROL_ATTRIBUTE | TRANSACTIONAL_ATTRIBUTE))
                .putInt(0) // last offset delta
                .putLong(timestampMs)
                .putLong(timestampMs)
                .putLong(producerId)
                .putShort(producerEpoch)
                .putInt(-1) // base sequence: markers have none
                .putInt(1)
                .put(record)
                .flip();
        RecordBatchHeader header = new RecordBatchHeader(batch, 0);
        batch.putInt(RecordBatchHeader.CRC_OFFSET, (int) header.computeCrc());
        return batch;
    }

    private static final int TRANSACTIONAL_ATTRIBUTE = 0x10;
    private static final int CONTROL_ATTRIBUTE = 0x20;
}
