package dev.strait.canary;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;

/**
 * One probe event: which canary sent it, its sequence number, the partition it was sent to and when.
 * The key is the canary id (so several canaries share a topic without confusing each other's probes);
 * the value is {@code u8 version=1, i64 seq, i32 partition, i64 sentMs}. Immutable.
 */
public record Probe(String canaryId, long seq, int partition, long sentMs) {
    private static final byte VERSION = 1;
    static final int VALUE_BYTES = 1 + 8 + 4 + 8;

    public byte[] key() {
        return canaryId.getBytes(StandardCharsets.UTF_8);
    }

    public byte[] value() {
        return ByteBuffer.allocate(VALUE_BYTES).put(VERSION).putLong(seq).putInt(partition).putLong(sentMs).array();
    }

    /** The probe in a record, or null when the record is not a probe of {@code canaryId}. */
    public static Probe decode(String canaryId, byte[] key, byte[] value) {
        if (key == null || value == null || value.length != VALUE_BYTES || value[0] != VERSION
            || !canaryId.equals(new String(key, StandardCharsets.UTF_8))) {
            return null;
        }
        ByteBuffer b = ByteBuffer.wrap(value, 1, VALUE_BYTES - 1);
        return new Probe(canaryId, b.getLong(), b.getInt(), b.getLong());
    }
}
