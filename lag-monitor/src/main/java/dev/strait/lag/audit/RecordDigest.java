package dev.strait.lag.audit;

import dev.strait.mirror.provenance.Provenance;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.Header;

/**
 * What makes two records "the same" for the audit: key, value and headers other than the mirror's
 * provenance header ({@link #of}, a 64-bit fingerprint), and the timestamp, compared apart because it is
 * comparable only where both sides keep the producer's CreateTime: a LogAppendTime topic stamps its own.
 * {@link Sequence} is an order-sensitive SHA-256 over a run of fingerprints. Not thread-safe.
 */
final class RecordDigest {
    private RecordDigest() {}

    static long of(ConsumerRecord<byte[], byte[]> r) {
        return of(r.key(), r.value(), r.headers());
    }

    /** The fingerprint of what a message handler returned: what its copy on the target must hold. */
    static long of(ProducerRecord<byte[], byte[]> r) {
        return of(r.key(), r.value(), r.headers());
    }

    private static long of(byte[] key, byte[] value, Iterable<Header> headers) {
        MessageDigest md = sha256();
        field(md, key);
        field(md, value);
        if (headers != null) {
            for (Header h : headers) {
                if (!h.key().equals(Provenance.HEADER)) {
                    field(md, h.key().getBytes(StandardCharsets.UTF_8));
                    field(md, h.value());
                }
            }
        }
        return ByteBuffer.wrap(md.digest()).getLong();
    }

    /** True when the record's timestamp is its producer's (CreateTime), not one its topic stamped (LogAppendTime). */
    static boolean createTime(ConsumerRecord<byte[], byte[]> r) {
        // By name: the timestamp type's class sits in a package the lag monitor may not import.
        return "CreateTime".equals(r.timestampType().name);
    }

    /** An order-sensitive digest of a sequence of records. */
    static final class Sequence {
        private final MessageDigest md = sha256();

        void add(long fingerprint) {
            md.update(ByteBuffer.allocate(8).putLong(fingerprint).array());
        }

        byte[] finish() {
            return md.digest();
        }
    }

    private static void field(MessageDigest md, byte[] bytes) {
        md.update(
                ByteBuffer.allocate(4).putInt(bytes == null ? -1 : bytes.length).array());
        if (bytes != null) {
            md.update(bytes);
        }
    }

    private static MessageDigest sha256() {
        try {
            return MessageDigest.getInstance("SHA-256");
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }
}
