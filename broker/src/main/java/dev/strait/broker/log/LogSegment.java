package dev.strait.broker.log;

import dev.strait.time.Time;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One segment of a partition log: the file {@code <baseOffset>.log} holding whole v2 batches back to back, with
 * an {@link OffsetIndex} and a {@link TimeIndex}. Every offset in the segment is at least {@code baseOffset} and
 * less than {@code baseOffset + 2^31} (indexes store int32 relative offsets); batch offsets strictly increase.
 *
 * <p>Only the bytes in {@code [0, sizeBytes)} are committed: after {@link #recover()} or
 * {@link #loadIndexes()} the file holds nothing else.
 *
 * <p>Not thread-safe: the owning {@link PartitionLog} (and whoever locks it) serializes all calls. Slices returned
 * by {@link #read} use positional reads only and stay valid until the segment is truncated, deleted or closed.
 */
public final class LogSegment {

    private static final Logger LOGGER = LoggerFactory.getLogger(LogSegment.class);
    private static final long NO_TIMESTAMP = -1;

    private final Path logFile;
    private final long baseOffset;
    private final int indexIntervalBytes;
    private final Time time;
    private final FileChannel channel;
    private final OffsetIndex offsetIndex;
    private final TimeIndex timeIndex;
    private final long createdMs;

    private int sizeBytes;
    private long nextOffset;
    private long maxTimestampMs = NO_TIMESTAMP;
    private long offsetOfMaxTimestamp = -1;
    /** maxTimestamp of the first batch; segment.ms counts from it (as Kafka does) so it survives restarts. */
    private long firstBatchTimestampMs = NO_TIMESTAMP;

    private long lastModifiedMs;
    private int bytesSinceLastIndexEntry;

    private LogSegment(Path dir, long baseOffset, int indexIntervalBytes, Time time, boolean create)
            throws IOException {
        this.logFile = LogFiles.logFile(dir, baseOffset);
        this.baseOffset = baseOffset;
        this.indexIntervalBytes = indexIntervalBytes;
        this.time = time;
        this.channel = create
                ? FileChannel.open(
                        logFile, StandardOpenOption.CREATE_NEW, StandardOpenOption.READ, StandardOpenOption.WRITE)
                : FileChannel.open(logFile, StandardOpenOption.READ, StandardOpenOption.WRITE);
        this.offsetIndex = new OffsetIndex(LogFiles.offsetIndexFile(dir, baseOffset), baseOffset);
        this.timeIndex = new TimeIndex(LogFiles.timeIndexFile(dir, baseOffset), baseOffset);
        this.createdMs = time.milliseconds();
        this.lastModifiedMs =
                create ? createdMs : Files.getLastModifiedTime(logFile).toMillis();
        this.nextOffset = baseOffset;
    }

    /** Creates a new, empty segment; fails if its log file already exists. */
    public static LogSegment create(Path dir, long baseOffset, int indexIntervalBytes, Time time) throws IOException {
        return new LogSegment(dir, baseOffset, indexIntervalBytes, time, true);
    }

    /**
     * Opens an existing segment file. It is not usable until {@link #recover()} or {@link #loadIndexes()} has
     * established which bytes are valid and rebuilt the indexes.
     */
    public static LogSegment open(Path dir, long baseOffset, int indexIntervalBytes, Time time) throws IOException {
        return new LogSegment(dir, baseOffset, indexIntervalBytes, time, false);
    }

    public long baseOffset() {
        return baseOffset;
    }

    /** One past the last offset in the segment; {@link #baseOffset()} when empty. */
    public long nextOffset() {
        return nextOffset;
    }

    public int sizeBytes() {
        return sizeBytes;
    }

    public boolean isEmpty() {
        return sizeBytes == 0;
    }

    public Path logFile() {
        return logFile;
    }

    public OffsetIndex offsetIndex() {
        return offsetIndex;
    }

    public TimeIndex timeIndex() {
        return timeIndex;
    }

    /** Largest record timestamp in the segment, or -1 if no batch carried one. */
    public long maxTimestampMs() {
        return maxTimestampMs;
    }

    public long lastModifiedMs() {
        return lastModifiedMs;
    }

    /**
     * The time retention.ms is measured from: the largest record timestamp, or, if no batch carried one, the last
     * write (the clock's time while open; the file's modification time for a segment loaded from disk).
     */
    public long largestTimestampMs() {
        return maxTimestampMs >= 0 ? maxTimestampMs : lastModifiedMs;
    }

    /**
     * How long this segment has been open for segment.ms: measured in record time from the first batch when
     * timestamps are available (so a restart does not reset it), else in wall-clock time since creation.
     */
    public long timeWaitedForRollMs(long nowMs, long incomingMaxTimestampMs) {
        if (firstBatchTimestampMs >= 0 && incomingMaxTimestampMs >= 0) {
            return incomingMaxTimestampMs - firstBatchTimestampMs;
        }
        return nowMs - createdMs;
    }

    /**
     * Appends batches whose offsets are already assigned and which were validated by the caller.
     *
     * @param largestOffset the last offset of the last batch in {@code batches}
     * @param batches       whole batches between position and limit; not modified
     */
    public void append(long largestOffset, ByteBuffer batches) throws IOException {
        List<RecordBatchHeader> views = RecordBatches.split(batches);
        if (views.isEmpty()) {
            return;
        }
        long firstOffset = views.get(0).baseOffset();
        long lastOffset = views.get(views.size() - 1).lastOffset();
        if (firstOffset < nextOffset || lastOffset != largestOffset) {
            throw new IllegalArgumentException("append of offsets " + firstOffset + ".." + lastOffset
                    + " (largestOffset " + largestOffset + ") to segment " + baseOffset + " whose next offset is "
                    + nextOffset);
        }
        if (largestOffset - baseOffset > Integer.MAX_VALUE
                || (long) sizeBytes + batches.remaining() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("append of offsets up to " + largestOffset + " and "
                    + batches.remaining() + " bytes does not fit segment " + baseOffset + " of " + sizeBytes
                    + " bytes");
        }
        int startPosition = sizeBytes;
        FileIo.writeFully(channel, batches.duplicate(), startPosition);
        for (RecordBatchHeader batch : views) {
            int position = startPosition + batch.indexInBuffer() - batches.position();
            onBatchAdded(batch, position);
        }
        sizeBytes = startPosition + batches.remaining();
        lastModifiedMs = time.milliseconds();
    }

    private void onBatchAdded(RecordBatchHeader batch, int position) {
        if (firstBatchTimestampMs == NO_TIMESTAMP && position == 0) {
            firstBatchTimestampMs = batch.maxTimestampMs();
        }
        if (batch.maxTimestampMs() > maxTimestampMs) {
            maxTimestampMs = batch.maxTimestampMs();
            // The batch's base offset: every record before it is older than this timestamp (see TimeIndex).
            offsetOfMaxTimestamp = batch.baseOffset();
        }
        if (bytesSinceLastIndexEntry > indexIntervalBytes) {
            offsetIndex.append(batch.lastOffset(), position);
            timeIndex.maybeAppend(maxTimestampMs, offsetOfMaxTimestamp);
            bytesSinceLastIndexEntry = 0;
        }
        bytesSinceLastIndexEntry += batch.sizeInBytes();
        nextOffset = batch.nextOffset();
    }

    /**
     * Bytes from the batch that contains {@code startOffset}, at most {@code maxBytes} and not past
     * {@code maxPositionExclusive}.
     *
     * @param minOneBatch if true, the first batch is returned whole even when it exceeds {@code maxBytes} (so a
     *                    consumer with a small fetch size still makes progress, as in KIP-74)
     * @return the slice (possibly empty), or empty if no batch in this segment reaches {@code startOffset}
     */
    public Optional<FileSlice> read(long startOffset, int maxBytes, long maxPositionExclusive, boolean minOneBatch)
            throws IOException {
        OffsetPosition found = positionOfBatchContaining(startOffset);
        if (found == null) {
            return Optional.empty();
        }
        long limit = Math.min(maxPositionExclusive, sizeBytes);
        if (found.position() >= limit) {
            return Optional.of(FileSlice.empty());
        }
        long available = limit - found.position();
        long sizeBytesToRead = Math.min(Math.max(maxBytes, 0), available);
        if (minOneBatch) {
            int firstBatchBytes = readHeader(found.position()).sizeInBytes();
            sizeBytesToRead = Math.min(Math.max(sizeBytesToRead, firstBatchBytes), available);
        }
        return Optional.of(new FileSlice(channel, found.position(), (int) sizeBytesToRead));
    }

    /** Same as {@link #read(long, int, long, boolean)} up to the end of the segment, without minOneBatch. */
    public Optional<FileSlice> read(long startOffset, int maxBytes) throws IOException {
        return read(startOffset, maxBytes, sizeBytes, false);
    }

    /**
     * The position of the first batch whose last offset is >= {@code offset} (paired with that last offset), or
     * {@code null} if the segment has none.
     */
    @Nullable
    OffsetPosition positionOfBatchContaining(long offset) throws IOException {
        if (offset >= nextOffset) {
            return null;
        }
        int position = offsetIndex.lookup(offset).position();
        while (position < sizeBytes) {
            RecordBatchHeader header = readHeader(position);
            if (header.lastOffset() >= offset) {
                return new OffsetPosition(header.lastOffset(), position);
            }
            position += header.sizeInBytes();
        }
        return null;
    }

    /** Byte position where the batch containing {@code offset} starts, or the segment size if none does. */
    public int positionLimitFor(long offset) throws IOException {
        OffsetPosition found = positionOfBatchContaining(offset);
        return found == null ? sizeBytes : found.position();
    }

    /**
     * The first record at or after {@code startingOffset} whose timestamp is >= {@code targetTimestampMs}.
     * Uncompressed CreateTime batches are decoded to find the exact record; for compressed batches (which this
     * package does not decompress) and LogAppendTime batches, the answer is the batch's first offset and its
     * maxTimestamp, so a consumer may see a few earlier records of that batch.
     */
    public Optional<TimestampAndOffset> findOffsetByTimestamp(long targetTimestampMs, long startingOffset)
            throws IOException {
        if (maxTimestampMs < targetTimestampMs) {
            return Optional.empty();
        }
        TimestampAndOffset indexed = timeIndex.lookupBefore(targetTimestampMs);
        int position =
                offsetIndex.lookup(Math.max(indexed.offset(), startingOffset)).position();
        while (position < sizeBytes) {
            RecordBatchHeader header = readHeader(position);
            if (header.lastOffset() >= startingOffset && header.maxTimestampMs() >= targetTimestampMs) {
                return Optional.of(findInBatch(header, position, targetTimestampMs, startingOffset));
            }
            position += header.sizeInBytes();
        }
        return Optional.empty();
    }

    private TimestampAndOffset findInBatch(
            RecordBatchHeader header, int position, long targetTimestampMs, long startingOffset) throws IOException {
        long batchStart = Math.max(header.baseOffset(), startingOffset);
        if (header.compressionCodec() != 0 || header.timestampType() == TimestampType.LOG_APPEND_TIME) {
            return new TimestampAndOffset(header.maxTimestampMs(), batchStart);
        }
        ByteBuffer batch = ByteBuffer.allocate(header.sizeInBytes());
        FileIo.readFully(channel, batch, position);
        batch.position(RecordBatchHeader.HEADER_SIZE_BYTES);
        for (int i = 0; i < header.recordsCount() && batch.hasRemaining(); i++) {
            int recordLength = Varints.readVarint(batch);
            int recordEnd = batch.position() + recordLength;
            batch.get(); // attributes
            long timestampMs = header.baseTimestampMs() + Varints.readVarlong(batch);
            long offset = header.baseOffset() + Varints.readVarint(batch);
            if (offset >= startingOffset && timestampMs >= targetTimestampMs) {
                return new TimestampAndOffset(timestampMs, offset);
            }
            batch.position(recordEnd);
        }
        // maxTimestamp promised a match; fall back to the batch rather than skip it.
        return new TimestampAndOffset(header.maxTimestampMs(), batchStart);
    }

    /**
     * Validates every batch (structure, offsets, CRC), truncates the file at the first invalid one, and rebuilds
     * both indexes. Used for segments that may hold unflushed data after a crash.
     *
     * @return the number of bytes truncated
     */
    public long recover() throws IOException {
        long fileSizeBytes = channel.size();
        int validBytes = rebuild(true);
        long truncatedBytes = fileSizeBytes - validBytes;
        if (truncatedBytes > 0) {
            LOGGER.warn(
                    "[Segment {}] truncating {} invalid bytes at position {} of {}",
                    logFile,
                    truncatedBytes,
                    validBytes,
                    fileSizeBytes);
            channel.truncate(validBytes);
        }
        return truncatedBytes;
    }

    /**
     * Rebuilds the indexes from the batch headers alone (no CRC check), for segments known to be flushed. If the
     * headers show damage anyway (a torn or overlong batch), falls back to {@link #recover()}.
     *
     * @return the number of bytes truncated
     */
    public long loadIndexes() throws IOException {
        long fileSizeBytes = channel.size();
        int validBytes = rebuild(false);
        if (validBytes < fileSizeBytes) {
            return recover();
        }
        return 0;
    }

    /** Scans from position 0, rebuilding all derived state; returns the length of the valid prefix. */
    private int rebuild(boolean verifyCrc) throws IOException {
        offsetIndex.clear();
        timeIndex.clear();
        nextOffset = baseOffset;
        maxTimestampMs = NO_TIMESTAMP;
        offsetOfMaxTimestamp = -1;
        firstBatchTimestampMs = NO_TIMESTAMP;
        bytesSinceLastIndexEntry = 0;
        long fileSizeBytes = channel.size();
        int position = 0;
        ByteBuffer header = ByteBuffer.allocate(RecordBatchHeader.HEADER_SIZE_BYTES);
        while (position < fileSizeBytes) {
            String problem = checkBatchAt(position, fileSizeBytes, header, verifyCrc);
            if (problem != null) {
                LOGGER.warn("[Segment {}] invalid batch at position {}: {}", logFile, position, problem);
                break;
            }
            RecordBatchHeader view = new RecordBatchHeader(header, 0);
            onBatchAdded(view, position);
            position += view.sizeInBytes();
        }
        sizeBytes = position;
        return position;
    }

    /** Reads the header at {@code position} into {@code header}; returns why the batch is invalid, or null. */
    private @Nullable String checkBatchAt(int position, long fileSizeBytes, ByteBuffer header, boolean verifyCrc)
            throws IOException {
        long remaining = fileSizeBytes - position;
        if (remaining < RecordBatchHeader.HEADER_SIZE_BYTES) {
            return "only " + remaining + " bytes left, less than a batch header (torn write)";
        }
        header.clear();
        FileIo.readFully(channel, header, position);
        RecordBatchHeader view = new RecordBatchHeader(header, 0);
        if (view.magic() != RecordBatchHeader.MAGIC_V2) {
            return "magic " + view.magic();
        }
        long batchLength = view.batchLength();
        if (batchLength < RecordBatchHeader.MIN_BATCH_LENGTH
                || batchLength > remaining - RecordBatchHeader.LOG_OVERHEAD_BYTES) {
            return "batchLength " + batchLength + " with " + remaining + " bytes left (torn write)";
        }
        if (view.lastOffsetDelta() < 0
                || view.baseOffset() < nextOffset
                || view.lastOffset() - baseOffset > Integer.MAX_VALUE) {
            return "offsets " + view.baseOffset() + ".." + view.lastOffset() + " do not follow " + (nextOffset - 1)
                    + " within segment " + baseOffset;
        }
        if (verifyCrc) {
            ByteBuffer batch = ByteBuffer.allocate(view.sizeInBytes());
            FileIo.readFully(channel, batch, position);
            try {
                new RecordBatchHeader(batch, 0).validate();
            } catch (CorruptRecordException e) {
                return e.getMessage();
            }
        }
        return null;
    }

    /**
     * The whole batch at {@code position}, read with a positional read. Safe to call without the log's lock on a
     * segment that no longer takes appends (the compactor does); fails with an IOException once it is closed.
     */
    ByteBuffer readBatchAt(int position) throws IOException {
        RecordBatchHeader header = readHeader(position);
        int sizeInBytes = header.sizeInBytes();
        if (sizeInBytes < RecordBatchHeader.HEADER_SIZE_BYTES) {
            throw new IOException("batch at position " + position + " of " + logFile + " has size " + sizeInBytes);
        }
        ByteBuffer batch = ByteBuffer.allocate(sizeInBytes);
        FileIo.readFully(channel, batch, position);
        batch.flip();
        return batch;
    }

    private RecordBatchHeader readHeader(int position) throws IOException {
        ByteBuffer header = ByteBuffer.allocate(RecordBatchHeader.HEADER_SIZE_BYTES);
        FileIo.readFully(channel, header, position);
        return new RecordBatchHeader(header, 0);
    }

    /**
     * Removes the batch containing {@code offset} and everything after it.
     *
     * @return the number of bytes removed
     */
    public long truncateTo(long offset) throws IOException {
        OffsetPosition found = positionOfBatchContaining(offset);
        if (found == null) {
            return 0;
        }
        int oldSizeBytes = sizeBytes;
        channel.truncate(found.position());
        // Durable before anything that follows: the leader epoch checkpoint is fsynced as the next leader's batches
        // arrive, so a truncation lost to a power cut would bring back the removed batches under the new epoch's
        // entry, and this replica would never find that its log diverges there (nemesis seed 4001).
        channel.force(true);
        // Truncation is rare (replication only): rebuilding from the remaining headers is simpler and obviously
        // right, compared with rolling back the index and timestamp state piece by piece.
        rebuild(false);
        lastModifiedMs = time.milliseconds();
        return oldSizeBytes - sizeBytes;
    }

    /**
     * Where each leader epoch starts in this segment, read from the batch headers: one entry per change of
     * {@code partitionLeaderEpoch}, batches without an epoch (negative) skipped.
     */
    public List<EpochEntry> epochStarts() throws IOException {
        List<EpochEntry> starts = new ArrayList<>();
        int position = 0;
        while (position < sizeBytes) {
            RecordBatchHeader header = readHeader(position);
            int epoch = header.partitionLeaderEpoch();
            if (epoch >= 0 && (starts.isEmpty() || starts.get(starts.size() - 1).epoch() != epoch)) {
                starts.add(new EpochEntry(epoch, header.baseOffset()));
            }
            position += header.sizeInBytes();
        }
        return starts;
    }

    /** Forces the records only; safe while appends continue (the channel is thread-safe). */
    public void forceRecords() throws IOException {
        channel.force(true);
    }

    public void flush() throws IOException {
        channel.force(true);
        offsetIndex.flush();
        timeIndex.flush();
    }

    public void close() throws IOException {
        offsetIndex.close();
        timeIndex.close();
        channel.close();
    }

    /** Closes the segment and removes its three files. Slices handed out earlier stop working. */
    public void delete() throws IOException {
        channel.close();
        offsetIndex.delete();
        timeIndex.delete();
        Files.deleteIfExists(logFile);
    }

    @Override
    public String toString() {
        return "LogSegment(baseOffset=" + baseOffset + ", nextOffset=" + nextOffset + ", sizeBytes=" + sizeBytes + ")";
    }
}
