package dev.strait.broker.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * What the offset and time indexes share: fixed-size entries keyed by an offset relative to the segment's base
 * offset, held in memory, appended to the file on {@link #flush}, truncated from the end. The file is derived data:
 * opening empties it and the owner rebuilds the entries. Subclasses add their own column and lookups.
 *
 * <p>Not thread-safe; owned by its {@link LogSegment}.
 */
abstract class SparseIndexFile {
    private final Path file;
    final long baseOffset;
    private final FileChannel channel;
    private final int entrySizeBytes;
    int[] relativeOffsets = new int[16];
    int entries;
    /** Entries [0, flushedEntries) are in the file. */
    private int flushedEntries;

    SparseIndexFile(Path file, long baseOffset, int entrySizeBytes) throws IOException {
        this.file = file;
        this.baseOffset = baseOffset;
        this.entrySizeBytes = entrySizeBytes;
        this.channel =
                FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ, StandardOpenOption.WRITE);
        channel.truncate(0);
    }

    /** Grows the subclass's own columns to {@code capacity} entries. */
    abstract void growColumns(int capacity);

    /** Writes entry {@code index} in its on-disk form. */
    abstract void writeEntry(ByteBuffer buffer, int index);

    public Path file() {
        return file;
    }

    public int entries() {
        return entries;
    }

    /** {@code offset} relative to the base offset, checked to fit an int32. */
    final int relative(long offset) {
        long relative = offset - baseOffset;
        if (relative < 0 || relative > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("offset " + offset + " is out of range for index base " + baseOffset);
        }
        return (int) relative;
    }

    /** Makes room for one more entry. */
    final void ensureRoom() {
        if (entries == relativeOffsets.length) {
            relativeOffsets = Arrays.copyOf(relativeOffsets, entries * 2);
            growColumns(entries * 2);
        }
    }

    /** Removes every entry with offset >= {@code offset}. */
    public void truncateTo(long offset) throws IOException {
        int keep = entries;
        while (keep > 0 && baseOffset + relativeOffsets[keep - 1] >= offset) {
            keep--;
        }
        truncateToEntries(keep);
    }

    public void clear() throws IOException {
        truncateToEntries(0);
    }

    private void truncateToEntries(int keep) throws IOException {
        entries = keep;
        if (flushedEntries > keep) {
            flushedEntries = keep;
            channel.truncate((long) keep * entrySizeBytes);
        }
    }

    /** Writes entries not yet in the file and forces them to disk. */
    public void flush() throws IOException {
        if (flushedEntries < entries) {
            ByteBuffer buffer = ByteBuffer.allocate((entries - flushedEntries) * entrySizeBytes);
            for (int i = flushedEntries; i < entries; i++) {
                writeEntry(buffer, i);
            }
            FileIo.writeFully(channel, buffer.flip(), (long) flushedEntries * entrySizeBytes);
            flushedEntries = entries;
        }
        channel.force(true);
    }

    public void close() throws IOException {
        flush();
        channel.close();
    }

    /** Closes without flushing and removes the file. */
    public void delete() throws IOException {
        channel.close();
        Files.deleteIfExists(file);
    }
}
