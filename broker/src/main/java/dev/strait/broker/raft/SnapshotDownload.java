package dev.strait.broker.raft;

import java.util.Arrays;
import java.util.zip.CRC32C;

/**
 * A snapshot a follower is downloading from its leader, chunk by chunk in order. The first chunk fixes the
 * content's size and CRC; a chunk that disagrees with them, overruns the size, or a content that fails the CRC
 * once complete, throws away what was received (the leader's snapshot is immutable under its id, so a
 * disagreement means a corrupt chunk, and the download starts over from byte 0).
 *
 * <p>Not thread-safe; owned by the {@link SnapshotTransfer}.
 */
final class SnapshotDownload {

    /** What one chunk did to the download. */
    enum Progress {
        /** Accepted; more to fetch from {@link #position()}. */
        MORE,
        /** Accepted and the content is whole and checked: {@link #content()} may be installed. */
        COMPLETE,
        /** Rejected; everything received was dropped and the download starts again from 0. */
        RESTARTED
    }

    /** Metadata snapshots are megabytes; a size beyond this is a corrupt or hostile answer, not a snapshot. */
    static final long MAX_SNAPSHOT_BYTES = 1L << 30;

    private final OffsetAndEpoch id;
    private long size = -1;
    private int crc32c;
    private byte[] buffer = new byte[0];
    private int received;

    SnapshotDownload(OffsetAndEpoch id) {
        this.id = id;
    }

    OffsetAndEpoch id() {
        return id;
    }

    /** Where the next chunk must start. */
    long position() {
        return received;
    }

    /** Takes the chunk {@code bytes} that starts at {@link #position()} of a content of {@code size} bytes. */
    Progress accept(long chunkSize, int chunkCrc, byte[] bytes) {
        if (size < 0) {
            if (chunkSize <= 0 || chunkSize > MAX_SNAPSHOT_BYTES) {
                return restart();
            }
            size = chunkSize;
            crc32c = chunkCrc;
        } else if (chunkSize != size || chunkCrc != crc32c) {
            return restart();
        }
        if (bytes.length == 0 || received + (long) bytes.length > size) {
            return restart();
        }
        if (received + bytes.length > buffer.length) {
            long grown = Math.max((long) received + bytes.length, Math.min(size, 2L * buffer.length));
            buffer = Arrays.copyOf(buffer, (int) grown);
        }
        System.arraycopy(bytes, 0, buffer, received, bytes.length);
        received += bytes.length;
        if (received < size) {
            return Progress.MORE;
        }
        CRC32C crc = new CRC32C();
        crc.update(buffer, 0, received);
        return (int) crc.getValue() == crc32c ? Progress.COMPLETE : restart();
    }

    /** The whole content; only after {@link Progress#COMPLETE}. */
    byte[] content() {
        if (received != size) {
            throw new IllegalStateException("snapshot " + id + " incomplete: " + received + " of " + size + " bytes");
        }
        return buffer.length == received ? buffer : Arrays.copyOf(buffer, received);
    }

    private Progress restart() {
        size = -1;
        crc32c = 0;
        buffer = new byte[0];
        received = 0;
        return Progress.RESTARTED;
    }

    @Override
    public String toString() {
        return "SnapshotDownload(" + id + " " + received + "/" + size + ")";
    }
}
