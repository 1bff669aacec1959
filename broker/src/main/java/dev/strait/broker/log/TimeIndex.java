package dev.strait.broker.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
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
public final class TimeIndex extends SparseIndexFile {

    static final int ENTRY_SIZE_BYTES = 12;

    private long[] timestampsMs = new long[16];

    /** Opens (creating if needed) the index file and empties it: the owner rebuilds the entries. */
    public TimeIndex(Path file, long baseOffset) throws IOException {
        super(file, baseOffset, ENTRY_SIZE_BYTES);
    }

    @Override
    void growColumns(int capacity) {
        timestampsMs = Arrays.copyOf(timestampsMs, capacity);
    }

    @Override
    void writeEntry(ByteBuffer buffer, int index) {
        buffer.putLong(timestampsMs[index]).putInt(relativeOffsets[index]);
    }

    /**
     * Adds an entry if {@code timestampMs} is above the last entry's timestamp (and the offset above its offset);
     * otherwise the existing entries already describe it.
     */
    public void maybeAppend(long timestampMs, long offset) {
        int relative = relative(offset);
        if (entries > 0 && (timestampMs <= timestampsMs[entries - 1] || relative <= relativeOffsets[entries - 1])) {
            return;
        }
        ensureRoom();
        timestampsMs[entries] = timestampMs;
        relativeOffsets[entries] = relative;
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
}
