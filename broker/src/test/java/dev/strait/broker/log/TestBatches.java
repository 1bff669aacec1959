package dev.strait.broker.log;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.zip.CRC32C;

/**
 * Builds valid, uncompressed v2 batches of simple records (no key, a UTF-8 value, no headers), and decodes them
 * back, for tests. The encoding is Kafka's; {@code KafkaFormatCompatibilityTest} checks it against kafka-clients.
 */
final class TestBatches {

    /** A decoded record. */
    record Rec(long offset, long timestampMs, String value) {}

    private TestBatches() {}

    /** One batch whose records have timestamps {@code timestampMs, timestampMs + 1, ...}. */
    static ByteBuffer batch(long timestampMs, String... values) {
        long[] timestamps = new long[values.length];
        for (int i = 0; i < values.length; i++) {
            timestamps[i] = timestampMs + i;
        }
        return batch(timestamps, values);
    }

    static ByteBuffer batch(long[] timestampsMs, String[] values) {
        List<ByteBuffer> records = new ArrayList<>();
        long baseTimestampMs = timestampsMs.length == 0 ? 0 : timestampsMs[0];
        long maxTimestampMs = -1;
        int recordsBytes = 0;
        for (int i = 0; i < values.length; i++) {
            maxTimestampMs = Math.max(maxTimestampMs, timestampsMs[i]);
            ByteBuffer record = record(i, timestampsMs[i] - baseTimestampMs, values[i]);
            records.add(record);
            recordsBytes += record.remaining();
        }
        int sizeBytes = RecordBatchHeader.HEADER_SIZE_BYTES + recordsBytes;
        ByteBuffer batch = ByteBuffer.allocate(sizeBytes);
        batch.putLong(0L)
                .putInt(sizeBytes - RecordBatchHeader.LOG_OVERHEAD_BYTES)
                .putInt(-1) // partitionLeaderEpoch: unknown until the log stamps it
                .put(RecordBatchHeader.MAGIC_V2)
                .putInt(0) // crc, filled below
                .putShort((short) 0) // attributes: no compression, CreateTime
                .putInt(Math.max(values.length - 1, 0))
                .putLong(baseTimestampMs)
                .putLong(maxTimestampMs)
                .putLong(-1L) // producerId
                .putShort((short) -1) // producerEpoch
                .putInt(-1) // baseSequence
                .putInt(values.length);
        for (ByteBuffer record : records) {
            batch.put(record);
        }
        batch.flip();
        CRC32C crc = new CRC32C();
        crc.update(batch.duplicate().position(RecordBatchHeader.ATTRIBUTES_OFFSET));
        batch.putInt(RecordBatchHeader.CRC_OFFSET, (int) crc.getValue());
        return batch;
    }

    private static ByteBuffer record(int offsetDelta, long timestampDeltaMs, String value) {
        byte[] valueBytes = value.getBytes(StandardCharsets.UTF_8);
        ByteBuffer body = ByteBuffer.allocate(32 + valueBytes.length);
        body.put((byte) 0);
        Varints.writeVarlong(timestampDeltaMs, body);
        Varints.writeVarint(offsetDelta, body);
        Varints.writeVarint(-1, body); // null key
        Varints.writeVarint(valueBytes.length, body);
        body.put(valueBytes);
        Varints.writeVarint(0, body); // no headers
        body.flip();
        ByteBuffer record = ByteBuffer.allocate(5 + body.remaining());
        Varints.writeVarint(body.remaining(), record);
        record.put(body);
        return record.flip();
    }

    static ByteBuffer concat(ByteBuffer... buffers) {
        int total = 0;
        for (ByteBuffer buffer : buffers) {
            total += buffer.remaining();
        }
        ByteBuffer all = ByteBuffer.allocate(total);
        for (ByteBuffer buffer : buffers) {
            all.put(buffer.duplicate());
        }
        return all.flip();
    }

    /** Decodes every complete batch in {@code buffer}; a trailing partial batch is ignored, as clients do. */
    static List<Rec> records(ByteBuffer buffer) {
        List<Rec> result = new ArrayList<>();
        int position = buffer.position();
        while (buffer.limit() - position >= RecordBatchHeader.LOG_OVERHEAD_BYTES) {
            RecordBatchHeader header = new RecordBatchHeader(buffer, position);
            if (buffer.limit() - position < header.sizeInBytes()) {
                break;
            }
            ByteBuffer records = buffer.duplicate();
            records.limit(position + header.sizeInBytes()).position(position + RecordBatchHeader.HEADER_SIZE_BYTES);
            boolean logAppendTime = header.timestampType() == TimestampType.LOG_APPEND_TIME;
            for (int i = 0; i < header.recordsCount(); i++) {
                int length = Varints.readVarint(records);
                int end = records.position() + length;
                records.get();
                long timestampMs = header.baseTimestampMs() + Varints.readVarlong(records);
                long offset = header.baseOffset() + Varints.readVarint(records);
                int keyLength = Varints.readVarint(records);
                records.position(records.position() + Math.max(keyLength, 0));
                byte[] value = new byte[Varints.readVarint(records)];
                records.get(value);
                result.add(new Rec(
                        offset,
                        logAppendTime ? header.maxTimestampMs() : timestampMs,
                        new String(value, StandardCharsets.UTF_8)));
                records.position(end);
            }
            position += header.sizeInBytes();
        }
        return result;
    }

    /** Reads the whole readable log from {@code fromOffset} to {@code maxOffsetExclusive}, batch slice by slice. */
    static List<Rec> readAll(PartitionLog log, long fromOffset, long maxOffsetExclusive) {
        List<Rec> result = new ArrayList<>();
        long next = fromOffset;
        for (int guard = 0; guard < 100_000 && next < maxOffsetExclusive; guard++) {
            FileSlice slice = log.read(next, 1024, maxOffsetExclusive, true).records();
            if (slice.isEmpty()) {
                break;
            }
            for (Rec rec : records(slice.readAll())) {
                if (rec.offset() >= next) {
                    result.add(rec);
                }
            }
            if (result.isEmpty() || result.get(result.size() - 1).offset() < next) {
                throw new AssertionError("read from " + next + " made no progress");
            }
            next = result.get(result.size() - 1).offset() + 1;
        }
        return result;
    }

    static List<Rec> readAll(PartitionLog log) {
        return readAll(log, log.logStartOffset(), log.logEndOffset());
    }

    static List<String> values(List<Rec> records) {
        List<String> values = new ArrayList<>();
        for (Rec rec : records) {
            values.add(rec.value());
        }
        return values;
    }
}
