package dev.strait.mirror.provenance;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Objects;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.header.Headers;
import org.jspecify.annotations.Nullable;

/**
 * Where a mirrored record came from, carried in the {@value #HEADER} header of every record the mirror
 * writes: the cluster the record was first produced on (origin), the cluster this hop read it from
 * (source), and its source topic, partition and offset.
 *
 * <p>The lag monitor reads the last record's source offset for exact lag; an active-active pair drops
 * records whose origin is the cluster they would be written to (loop prevention).
 *
 * <p>Wire format, version 1 (big-endian): {@code u8 version, u8 len + origin, u8 len + source (0 = same as
 * origin), u8 len + topic, i32 partition, i64 offset}. Cluster ids are 22 characters and topic names at most
 * 249, so one length byte suffices.
 */
public record Provenance(String originCluster, String sourceCluster, String topic, int partition, long offset) {
    public static final String HEADER = "strait.src";
    private static final byte VERSION = 1;

    public Provenance {
        Objects.requireNonNull(originCluster);
        Objects.requireNonNull(sourceCluster);
        Objects.requireNonNull(topic);
    }

    /** The provenance in a record's headers, or null if it has none or it cannot be read. */
    public static @Nullable Provenance from(Headers headers) {
        Header header = headers.lastHeader(HEADER);
        return header == null ? null : decode(header.value());
    }

    /** Decodes a header value; null when it is not a provenance this version understands. */
    public static @Nullable Provenance decode(byte @Nullable [] value) {
        if (value == null || value.length < 1 + 3 + 12 || value[0] != VERSION) {
            return null;
        }
        try {
            ByteBuffer buf = ByteBuffer.wrap(value, 1, value.length - 1);
            String origin = readString(buf);
            String source = readString(buf);
            String topic = readString(buf);
            int partition = buf.getInt();
            long offset = buf.getLong();
            return new Provenance(origin, source.isEmpty() ? origin : source, topic, partition, offset);
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The origin cluster id of a header value without decoding the rest; null if unreadable. */
    public static @Nullable String originOf(byte @Nullable [] value) {
        if (value == null || value.length < 2 || value[0] != VERSION) {
            return null;
        }
        int len = value[1] & 0xff;
        return value.length < 2 + len ? null : new String(value, 2, len, StandardCharsets.UTF_8);
    }

    public byte[] encode() {
        return prefix(originCluster, sourceCluster, topic, partition).withOffset(offset);
    }

    /**
     * The bytes shared by every record of one source partition, so the per-record work is one array copy
     * and eight bytes of offset.
     */
    public static Prefix prefix(String originCluster, String sourceCluster, String topic, int partition) {
        byte[] origin = bytes(originCluster);
        byte[] source = originCluster.equals(sourceCluster) ? new byte[0] : bytes(sourceCluster);
        byte[] topicBytes = bytes(topic);
        ByteBuffer buf = ByteBuffer.allocate(1 + 3 + origin.length + source.length + topicBytes.length + 4);
        buf.put(VERSION);
        buf.put((byte) origin.length).put(origin);
        buf.put((byte) source.length).put(source);
        buf.put((byte) topicBytes.length).put(topicBytes);
        buf.putInt(partition);
        return new Prefix(buf.array());
    }

    /** The fixed part of a header value; immutable once built. */
    public static final class Prefix {
        private final byte[] bytes;

        private Prefix(byte[] bytes) {
            this.bytes = bytes;
        }

        public byte[] withOffset(long offset) {
            byte[] out = new byte[bytes.length + 8];
            System.arraycopy(bytes, 0, out, 0, bytes.length);
            int i = bytes.length;
            for (int shift = 56; shift >= 0; shift -= 8) {
                out[i++] = (byte) (offset >>> shift);
            }
            return out;
        }
    }

    private static byte[] bytes(String s) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        if (b.length > 255) {
            throw new IllegalArgumentException("name too long for a provenance header: " + s);
        }
        return b;
    }

    private static String readString(ByteBuffer buf) {
        int len = buf.get() & 0xff;
        byte[] b = new byte[len];
        buf.get(b);
        return new String(b, StandardCharsets.UTF_8);
    }
}
