package dev.strait.mirror.engine;

import java.util.Locale;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.CompressionType;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;

/**
 * Tells whether a record can fit the target topic's {@code max.message.bytes} at all. The Kafka producer
 * answers MESSAGE_TOO_LARGE by splitting the batch by {@code batch.size} and retrying, which for a record
 * that can never fit repeats until {@code delivery.timeout.ms}, failing its neighbours too. Checking the
 * rare large record here fails exactly that record, at once.
 *
 * <p>The only class of the mirror that uses kafka-clients' record classes (not public API). Thread-safe.
 */
final class RecordSizer {
    /** Records whose key and value leave this much room under the limit fit whatever their headers and framing. */
    private static final int HEADROOM_BYTES = 4096;

    private final Compression compression;

    RecordSizer(String compressionType) {
        this.compression = Compression.of(
                        CompressionType.forName(compressionType.trim().toLowerCase(Locale.ROOT)))
                .build();
    }

    /** The size of a batch holding just this record, compressed as the producer will, or -1 if it surely fits. */
    int oversizeBytes(ProducerRecord<byte[], byte[]> record, int maxMessageBytes) {
        long keyValue = (record.key() == null ? 0 : record.key().length)
                + (record.value() == null ? 0 : (long) record.value().length);
        if (maxMessageBytes == Integer.MAX_VALUE || keyValue + HEADROOM_BYTES < maxMessageBytes) {
            return -1;
        }
        long ts = record.timestamp() == null ? 0 : record.timestamp();
        int size = MemoryRecords.withRecords(
                        compression,
                        new SimpleRecord(
                                ts,
                                record.key(),
                                record.value(),
                                record.headers().toArray()))
                .sizeInBytes();
        return size > maxMessageBytes ? size : -1;
    }
}
