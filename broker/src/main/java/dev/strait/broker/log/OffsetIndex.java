package dev.strait.broker.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
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
public final class OffsetIndex extends SparseIndexFile {

    static final int ENTRY_SIZE_BYTES = 8;

    private int[] positions = new int[16];

    /** Opens (creating if needed) the index file and empties it: the owner rebuilds the entries. */
    public OffsetIndex(Path file, long baseOffset) throws IOException {
        super(file, baseOffset, ENTRY_SIZE_BYTES);
    }

    @Override
    void growColumns(int capacity) {
        positions = Arrays.copyOf(positions, capacity);
    }

    @Override
    void writeEntry(ByteBuffer buffer, int index) {
        buffer.putInt(relativeOffsets[index]).putInt(positions[index]);
    }

    /** Adds an entry; offsets must increase and fit in an int32 relative to the base offset. */
    public void append(long offset, int position) {
        int relative = relative(offset);
        if (entries > 0 && relative <= relativeOffsets[entries - 1]) {
            throw new IllegalArgumentException("offset " + offset + " is not above the last indexed offset "
                    + (baseOffset + relativeOffsets[entries - 1]));
        }
        ensureRoom();
        relativeOffsets[entries] = relative;
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
}
