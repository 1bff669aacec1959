package dev.strait.broker.log;

import java.nio.ByteBuffer;

/**
 * Zig-zag variable-length integers as used inside Kafka v2 records (protobuf encoding). Stateless and
 * thread-safe.
 */
public final class Varints {

    private Varints() {}

    public static int readVarint(ByteBuffer buffer) {
        int raw = 0;
        int shift = 0;
        byte b;
        do {
            if (shift > 28) {
                throw new CorruptRecordException("varint is longer than 5 bytes");
            }
            b = buffer.get();
            raw |= (b & 0x7f) << shift;
            shift += 7;
        } while ((b & 0x80) != 0);
        return (raw >>> 1) ^ -(raw & 1);
    }

    public static long readVarlong(ByteBuffer buffer) {
        long raw = 0;
        int shift = 0;
        byte b;
        do {
            if (shift > 63) {
                throw new CorruptRecordException("varlong is longer than 10 bytes");
            }
            b = buffer.get();
            raw |= (long) (b & 0x7f) << shift;
            shift += 7;
        } while ((b & 0x80) != 0);
        return (raw >>> 1) ^ -(raw & 1);
    }

    public static void writeVarint(int value, ByteBuffer buffer) {
        writeUnsigned(((long) value << 1 ^ (value >> 31)) & 0xffffffffL, buffer);
    }

    public static void writeVarlong(long value, ByteBuffer buffer) {
        long raw = (value << 1) ^ (value >> 63);
        while ((raw & ~0x7fL) != 0) {
            buffer.put((byte) ((raw & 0x7f) | 0x80));
            raw >>>= 7;
        }
        buffer.put((byte) raw);
    }

    private static void writeUnsigned(long raw, ByteBuffer buffer) {
        while ((raw & ~0x7fL) != 0) {
            buffer.put((byte) ((raw & 0x7f) | 0x80));
            raw >>>= 7;
        }
        buffer.put((byte) raw);
    }
}
