package dev.strait.broker.log;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * A byte range of a segment file, served to a fetch without copying ({@link #transferTo}). It always starts
 * at a batch boundary; it may end inside a batch when it was cut at {@code maxBytes} (clients drop a trailing
 * partial batch).
 *
 * <p>The slice borrows the segment's channel: it is valid until that segment is truncated, deleted or closed.
 * A fetch that races with retention sees a {@link java.nio.channels.ClosedChannelException} and must retry.
 *
 * <p>Immutable, and safe to use from any thread: it only does positional reads, which leave the channel's position
 * alone.
 *
 * @param channel   the segment's channel; {@code null} only for an empty slice
 * @param position  byte position in the file
 * @param sizeBytes number of bytes
 */
public record FileSlice(@Nullable FileChannel channel, long position, int sizeBytes) {

    private static final FileSlice EMPTY = new FileSlice(null, 0, 0);

    public FileSlice {
        if (sizeBytes < 0 || position < 0) {
            throw new IllegalArgumentException(
                    "position " + position + " and sizeBytes " + sizeBytes + " must be >= 0");
        }
        if (channel == null && sizeBytes != 0) {
            throw new IllegalArgumentException("a non-empty slice needs a channel");
        }
    }

    public static FileSlice empty() {
        return EMPTY;
    }

    /** The channel of a slice with bytes in it (only the empty slice has none). */
    public FileChannel nonEmptyChannel() {
        return Objects.requireNonNull(channel, "only an empty slice has no channel");
    }

    public boolean isEmpty() {
        return sizeBytes == 0;
    }

    /** Copies the whole slice to {@code target}, zero-copy where the OS supports it. */
    public void transferTo(WritableByteChannel target) throws IOException {
        long done = 0;
        while (done < sizeBytes) {
            long sent = nonEmptyChannel().transferTo(position + done, sizeBytes - done, target);
            if (sent <= 0) {
                throw new IOException("transferTo made no progress at position " + (position + done));
            }
            done += sent;
        }
    }

    /** Reads the slice into a new heap buffer (tests, replication, small reads). */
    public ByteBuffer readAll() {
        ByteBuffer buffer = ByteBuffer.allocate(sizeBytes);
        if (sizeBytes == 0) {
            return buffer.flip();
        }
        try {
            FileIo.readFully(nonEmptyChannel(), buffer, position);
        } catch (IOException e) {
            throw new UncheckedIOException("reading " + sizeBytes + " bytes at position " + position, e);
        }
        return buffer.flip();
    }
}
