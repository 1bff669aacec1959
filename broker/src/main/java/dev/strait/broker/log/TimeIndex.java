package dev.strait.broker.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Arrays;

/**
 * Sparse timestamp → offset index of one segment, in file {@code <baseOffset>.timeindex}. Each 12-byte entry is
 * (timestampMs int64, offset - baseOffset as int32). Entries are added next to offset index entries, holding the
 * largest timestamp seen so far and the base offset of the batch that first reached it; timestamps and offsets
 * are both strictly increasing. Hence every record before an entry's offset has a timestamp below the entry's.
 *
 * <p>Derived data like {@link OffsetIndex}, held in memory and written on {@link #flush}. Not thread-safe; owned by
 * its {@link LogSegment}.
 */
public final class TimeIndex {

    static final int ENTRY_SIZE_BYTES = 12;

    private final Path file;
    private final long baseOffset;
    private final FileChannel channel;
    private long[] timestampsMs = new long[16];
    private int[] relativeOffsets = new int[16];
    private int entries;
    private int flushedEntries;

    /** Opens (creating if needed) the index file and empties it: the owner rebuilds the entries. */
    public TimeIndex(Path file, long baseOffset) throws IOException {
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

    /**
     * Adds an entry if {@code timestampMs} is above the last entry's timestamp (and the offset above its offset);
     * otherwise the existing entries already describe it.
     */
    public void maybeAppend(long timestampMs, long offset) {
        long relative = offset - baseOffset;
        if (relative < 0 || relative > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("offset " + offset + " is out of range for index base " + baseOffset);
        }
        if (entries > 0 && (timestampMs <= timestampsMs[entries - 1] || relative <= relativeOffsets[entries - 1])) {
            return;
        }
        if (entries == timestampsMs.length) {
            timestampsMs = Arrays.copyOf(timestampsMs, entries * 2);
            relativeOffsets = Arrays.copyOf(relativeOffsets, entries * 2);
        }
        timestampsMs[entries] = timestampMs;
        relativeOffsets[entries] = (int) relative;
        entries++;
    }

    /**
     * The largest entry whose timestamp is strictly below {@code targetTimestampMs}, or (-1, baseOffset) if none.
     * Every record before the returned offset has a timestamp below the target, so a search may start there.
     */
    public TimestampAndOffset lookupBefore(long targetTimestampMs) {
        int low = 0;
        int high = entries - 1;
        int found = -1;
        while (low <= high) {
            int mid = (low + high) >>> 1;
            if (timestampsMs[mid] < targetTimestampMs) {
                found = mid;
                low = mid + 1;
            } else {
                high = mid - 1;
            }
        }
        return found < 0 ? new TimestampAndOffset(-1, baseOffset) : entry(found);
    }

    public TimestampAndOffset entry(int index) {
        return new TimestampAndOffset(timestampsMs[index], baseOffset + relativeOffsets[index]);
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

    public void flush() throws IOException {
        if (flushedEntries < entries) {
            ByteBuffer buffer = ByteBuffer.allocate((entries - flushedEntries) * ENTRY_SIZE_BYTES);
            for (int i = flushedEntries; i < entries; i++) {
                buffer.putLong(timestampsMs[i]).putInt(relativeOffsets[i]);
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

    public void delete() throws IOException {
        channel.close();
        Files.deleteIfExists(file);
    }
}
