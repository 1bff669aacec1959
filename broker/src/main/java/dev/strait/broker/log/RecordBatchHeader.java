package dev.strait.broker.log;

import java.nio.ByteBuffer;
import java.util.zip.CRC32C;

/**
 * A view over one Kafka v2 ("magic 2") record batch that starts at {@code offset} in a {@link ByteBuffer}.
 * All fields are big-endian; the layout is the one on the wire and on disk:
 *
 * <pre>
 * baseOffset int64 @0 | batchLength int32 @8 | partitionLeaderEpoch int32 @12 | magic int8 @16 | crc uint32 @17
 * attributes int16 @21 | lastOffsetDelta int32 @23 | baseTimestamp int64 @27 | maxTimestamp int64 @35
 * producerId int64 @43 | producerEpoch int16 @51 | baseSequence int32 @53 | recordsCount int32 @57 | records @61
 * </pre>
 *
 * <p>The CRC-32C covers the bytes from {@code attributes} to the end of the batch, so {@code baseOffset},
 * {@code batchLength} and {@code partitionLeaderEpoch} can be rewritten in place without touching it; this is how
 * the log assigns offsets and stamps the leader epoch. Anything else that is rewritten (LogAppendTime) needs a new
 * CRC.
 *
 * <p>Not thread-safe: it reads and writes the underlying buffer with absolute indexes, so it is as safe as the
 * buffer's owner makes it. It never changes the buffer's position or limit.
 */
public final class RecordBatchHeader {

    public static final int BASE_OFFSET_OFFSET = 0;
    public static final int BATCH_LENGTH_OFFSET = 8;
    public static final int PARTITION_LEADER_EPOCH_OFFSET = 12;
    public static final int MAGIC_OFFSET = 16;
    public static final int CRC_OFFSET = 17;
    public static final int ATTRIBUTES_OFFSET = 21;
    public static final int LAST_OFFSET_DELTA_OFFSET = 23;
    public static final int BASE_TIMESTAMP_OFFSET = 27;
    public static final int MAX_TIMESTAMP_OFFSET = 35;
    public static final int PRODUCER_ID_OFFSET = 43;
    public static final int PRODUCER_EPOCH_OFFSET = 51;
    public static final int BASE_SEQUENCE_OFFSET = 53;
    public static final int RECORDS_COUNT_OFFSET = 57;
    /** Size of the fixed header; the records follow. */
    public static final int HEADER_SIZE_BYTES = 61;
    /** baseOffset + batchLength: the part of the header that batchLength does not count. */
    public static final int LOG_OVERHEAD_BYTES = 12;
    /** Smallest legal batchLength: a header with no records. */
    public static final int MIN_BATCH_LENGTH = HEADER_SIZE_BYTES - LOG_OVERHEAD_BYTES;

    public static final byte MAGIC_V2 = 2;

    private static final int COMPRESSION_CODEC_MASK = 0x07;
    private static final int TIMESTAMP_TYPE_MASK = 0x08;
    private static final int TRANSACTIONAL_MASK = 0x10;
    private static final int CONTROL_MASK = 0x20;

    private final ByteBuffer buffer;
    private final int offset;

    /**
     * @param buffer the buffer holding the batch
     * @param offset absolute index of the batch's first byte in {@code buffer}
     */
    public RecordBatchHeader(ByteBuffer buffer, int offset) {
        this.buffer = buffer;
        this.offset = offset;
    }

    /** Absolute index of the batch's first byte in the underlying buffer. */
    public int indexInBuffer() {
        return offset;
    }

    public long baseOffset() {
        return buffer.getLong(offset + BASE_OFFSET_OFFSET);
    }

    public int batchLength() {
        return buffer.getInt(offset + BATCH_LENGTH_OFFSET);
    }

    /** Size of the whole batch in bytes, as stored on disk. */
    public int sizeInBytes() {
        return LOG_OVERHEAD_BYTES + batchLength();
    }

    public int partitionLeaderEpoch() {
        return buffer.getInt(offset + PARTITION_LEADER_EPOCH_OFFSET);
    }

    public byte magic() {
        return buffer.get(offset + MAGIC_OFFSET);
    }

    /** The stored CRC, as an unsigned 32-bit value. */
    public long crc() {
        return Integer.toUnsignedLong(buffer.getInt(offset + CRC_OFFSET));
    }

    public short attributes() {
        return buffer.getShort(offset + ATTRIBUTES_OFFSET);
    }

    /** 0 = none, 1 = gzip, 2 = snappy, 3 = lz4, 4 = zstd. */
    public int compressionCodec() {
        return attributes() & COMPRESSION_CODEC_MASK;
    }

    public TimestampType timestampType() {
        return (attributes() & TIMESTAMP_TYPE_MASK) != 0 ? TimestampType.LOG_APPEND_TIME : TimestampType.CREATE_TIME;
    }

    public boolean isTransactional() {
        return (attributes() & TRANSACTIONAL_MASK) != 0;
    }

    public boolean isControl() {
        return (attributes() & CONTROL_MASK) != 0;
    }

    public int lastOffsetDelta() {
        return buffer.getInt(offset + LAST_OFFSET_DELTA_OFFSET);
    }

    /** Offset of the last record: records inside a batch have offsets baseOffset + offsetDelta. */
    public long lastOffset() {
        return baseOffset() + lastOffsetDelta();
    }

    /** The offset after this batch. */
    public long nextOffset() {
        return lastOffset() + 1;
    }

    public long baseTimestampMs() {
        return buffer.getLong(offset + BASE_TIMESTAMP_OFFSET);
    }

    public long maxTimestampMs() {
        return buffer.getLong(offset + MAX_TIMESTAMP_OFFSET);
    }

    public long producerId() {
        return buffer.getLong(offset + PRODUCER_ID_OFFSET);
    }

    public short producerEpoch() {
        return buffer.getShort(offset + PRODUCER_EPOCH_OFFSET);
    }

    public int baseSequence() {
        return buffer.getInt(offset + BASE_SEQUENCE_OFFSET);
    }

    public int recordsCount() {
        return buffer.getInt(offset + RECORDS_COUNT_OFFSET);
    }

    /** A control batch's marker: {@link #CONTROL_ABORT}, {@link #CONTROL_COMMIT}, or another type Kafka defines. */
    public static final short CONTROL_ABORT = 0;

    public static final short CONTROL_COMMIT = 1;

    /**
     * The type of a control batch's record (its key is a version and a type, both int16), or -1 for a data batch
     * or a control batch without a readable record. Control batches are never compressed.
     */
    public short controlType() {
        if (!isControl() || recordsCount() < 1 || compressionCodec() != 0) {
            return -1;
        }
        ByteBuffer record = buffer.duplicate();
        record.limit(offset + sizeInBytes()).position(offset + HEADER_SIZE_BYTES);
        try {
            Varints.readVarint(record); // record length
            record.get(); // attributes
            Varints.readVarlong(record); // timestamp delta
            Varints.readVarint(record); // offset delta
            int keyLength = Varints.readVarint(record);
            if (keyLength < 4) {
                return -1;
            }
            record.getShort(); // key version
            return record.getShort();
        } catch (RuntimeException e) {
            return -1;
        }
    }

    /**
     * Checks the fixed fields and the CRC. The batch must lie entirely inside the buffer's limit.
     *
     * @throws CorruptRecordException naming the first problem found
     */
    public void validate() {
        int available = buffer.limit() - offset;
        if (available < HEADER_SIZE_BYTES) {
            throw new CorruptRecordException("batch at index " + offset + " has only " + available
                    + " bytes, less than the " + HEADER_SIZE_BYTES + "-byte header");
        }
        if (magic() != MAGIC_V2) {
            throw new CorruptRecordException("batch at offset " + baseOffset() + " has magic " + magic()
                    + "; only magic " + MAGIC_V2 + " is supported");
        }
        int batchLength = batchLength();
        if (batchLength < MIN_BATCH_LENGTH || batchLength > available - LOG_OVERHEAD_BYTES) {
            throw new CorruptRecordException("batch at offset " + baseOffset() + " has batchLength " + batchLength
                    + "; expected " + MIN_BATCH_LENGTH + ".." + (available - LOG_OVERHEAD_BYTES));
        }
        if (lastOffsetDelta() < 0) {
            throw new CorruptRecordException(
                    "batch at offset " + baseOffset() + " has negative lastOffsetDelta " + lastOffsetDelta());
        }
        if (recordsCount() < 0) {
            throw new CorruptRecordException(
                    "batch at offset " + baseOffset() + " has negative recordsCount " + recordsCount());
        }
        long computed = computeCrc();
        if (computed != crc()) {
            throw new CorruptRecordException(
                    "batch at offset " + baseOffset() + " has CRC " + crc() + " but its contents hash to " + computed);
        }
    }

    /** CRC-32C of attributes..end, i.e. what {@link #crc()} should hold. */
    public long computeCrc() {
        CRC32C crc = new CRC32C();
        ByteBuffer covered = buffer.duplicate();
        covered.limit(offset + sizeInBytes()).position(offset + ATTRIBUTES_OFFSET);
        crc.update(covered);
        return crc.getValue();
    }

    /** Rewrites baseOffset. Not covered by the CRC. */
    public void setBaseOffset(long baseOffset) {
        buffer.putLong(offset + BASE_OFFSET_OFFSET, baseOffset);
    }

    /** Rewrites partitionLeaderEpoch. Not covered by the CRC. */
    public void setPartitionLeaderEpoch(int leaderEpoch) {
        buffer.putInt(offset + PARTITION_LEADER_EPOCH_OFFSET, leaderEpoch);
    }

    /**
     * Switches the batch to LogAppendTime with the given time: sets the timestamp-type bit and maxTimestamp
     * (consumers then report maxTimestamp for every record). Both are covered by the CRC, so it is recomputed.
     */
    public void setLogAppendTime(long logAppendTimeMs) {
        short attributes = (short) (attributes() | TIMESTAMP_TYPE_MASK);
        buffer.putShort(offset + ATTRIBUTES_OFFSET, attributes);
        buffer.putLong(offset + MAX_TIMESTAMP_OFFSET, logAppendTimeMs);
        buffer.putInt(offset + CRC_OFFSET, (int) computeCrc());
    }

    @Override
    public String toString() {
        return "RecordBatchHeader(baseOffset=" + baseOffset() + ", lastOffset=" + lastOffset() + ", sizeInBytes="
                + sizeInBytes() + ", leaderEpoch=" + partitionLeaderEpoch() + ")";
    }
}
