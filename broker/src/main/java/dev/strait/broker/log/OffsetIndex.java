package dev.strait.broker.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * Sparse offset → file position index of one segment, in file {@code <baseOffset>.index}. Each 8-byte entry is
 * (offset - baseOffset as int32, position int32), big-endian, offsets strictly increasing. An entry is added
 * roughly every {@code index.interval.bytes}; it maps the last offset of a batch to the position where that batch
 * starts, so {@link #lookup} gives a position from which a forward scan finds any larger offset.
 *
 * <p>The index is derived data: the segment rebuilds it when the log is opened. Entries live in memory (8 bytes
 * per entry, about 2 MiB for a 1 GiB segment at the default interval) and reach the file on {@link #flush}.
 *
 * <p>Not thread-safe; owned by its {@link LogSegment}.
 */
public final class OffsetIndex {

    static final int ENTRY_SIZE_BYTES = 8;

    private final Path file;
    private final long baseOffset;
    private final FileChannel channel;
    private int[] relativeOffsets = new int[16];
    private int[] positions = new int[16];
    private int entries;
    /** Entries [0, flushedEntries) are in the file. */
    private int flushedEntries;

    /** Opens (creating if needed) the index file and empties it: the owner rebuilds the entries. */
    public OffsetIndex(Path file, long baseOffset) throws IOException {
        this.file = file;
        this.baseOffset = baseOffset;
        this.channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.READ,
                StandardOpenOption.WRITE);
        channel.truncate(0);
    }

    public Path file() {
        return file;
    }

    public int entries() {
        return entries;
    }

    /** Adds an entry; offsets must increase and fit in an int32 relative to the base offset. */
    public void append(long offset, int position) {
        long relative = offset - baseOffset;
        if (relative < 0 || relative > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("offset " + offset + " is out of range for index base " + baseOffset);
        }
        if (entries > 0 && relative <= relativeOffsets[entries - 1]) {
            throw new IllegalArgumentException("offset " + offset + " is not above the last indexed offset "
                    + (baseOffset + relativeOffsets[entries - 1]));
        }
        if (entries == relativeOffsets.length) {
            relativeOffsets = Arrays.copyOf(relativeOffsets, entries * 2);
            positions = Arrays.copyOf(positions, entries * 2);
        }
        relativeOffsets[entries] = (int) relative;
        positions[entries] = position;
        entries++;
    }

    /** The largest entry with offset <= {@code targetOffset}, or (baseOffset, 0) if there is none. */
    public OffsetPosition lookup(long targetOffset) {
        long relative = targetOffset - baseOffset;
        int low = 0;
        int high = entries - 1;
        int found = -1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (relativeOffsets[mid] <= relative) {
                found = mid;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return found < 0 ? new OffsetPosition(baseOffset, 0) : entry(found);
    }

    public OffsetPosition entry(int index) {
        return new OffsetPosition(baseOffset + relativeOffsets[index], positions[index]);
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
            channel.truncate((long) keep * ENTRY_SIZE_BYTES);
        }
    }

    /** Writes entries not yet in the file and forces them to disk. */
    public void flush() throws IOException {
        if (flushedEntries < entries) {
            ByteBuffer buffer = ByteBuffer.allocate((entries - flushedEntries) * ENTRY_SIZE_BYTES);
            for (int i = flushedEntries; i < entries; i++) {
                buffer.putInt(relativeOffsets[i]).putInt(positions[i]);
            }
            FileIo.writeFully(channel, buffer.flip(), (long) flushedEntries * ENTRY_SIZE_BYTES);
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
