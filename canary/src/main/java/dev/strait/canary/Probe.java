package dev.strait.canary;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import org.jspecify.annotations.Nullable;

/**
 * One probe event: which canary sent it, in which run, its sequence number, the partition it was sent to
 * and when. The key is the canary id (so several canaries share a topic without confusing each other's
 * probes); the value is {@code u8 version=2, i64 runId, i64 seq, i32 partition, i64 sentMs}. The run id is
 * new every time a canary starts, so a canary restarted with a fixed {@code canary.id} never takes a probe
 * of its previous run (whose sequence numbers started at 1 too) for one of its own. Immutable.
 */
public record Probe(String canaryId, long runId, long seq, int partition, long sentMs) {
    private static final byte VERSION = 2;
    private static final byte VERSION_WITHOUT_RUN = 1;
    static final int VALUE_BYTES = 1 + 8 + 8 + 4 + 8;
    private static final int V1_VALUE_BYTES = 1 + 8 + 4 + 8;
    /** The run id of probes written by canaries before run ids existed. */
    public static final long UNKNOWN_RUN = 0;

    public byte[] key() {
        return canaryId.getBytes(StandardCharsets.UTF_8);
    }

    public byte[] value() {
        return ByteBuffer.allocate(VALUE_BYTES)
                .put(VERSION)
                .putLong(runId)
                .putLong(seq)
                .putInt(partition)
                .putLong(sentMs)
                .array();
    }

    /** The probe in a record, of any run of {@code canaryId}, or null when the record is not one of its probes. */
    public static @Nullable Probe decode(String canaryId, byte[] key, byte[] value) {
        if (key == null || value == null || !canaryId.equals(new String(key, StandardCharsets.UTF_8))) {
            return null;
        }
        if (value.length == VALUE_BYTES && value[0] == VERSION) {
            ByteBuffer b = ByteBuffer.wrap(value, 1, VALUE_BYTES - 1);
            return new Probe(canaryId, b.getLong(), b.getLong(), b.getInt(), b.getLong());
        }
        if (value.length == V1_VALUE_BYTES && value[0] == VERSION_WITHOUT_RUN) {
            ByteBuffer b = ByteBuffer.wrap(value, 1, V1_VALUE_BYTES - 1);
            return new Probe(canaryId, UNKNOWN_RUN, b.getLong(), b.getInt(), b.getLong());
        }
        return null;
    }
}
