package dev.strait.broker.log;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32C;
import org.jspecify.annotations.Nullable;

/**
 * One compaction pass over the closed segments of a {@link PartitionLog} ({@code cleanup.policy=compact}), in three
 * steps so that the expensive part runs without the log's lock:
 *
 * <ol>
 *   <li>{@link PartitionLog#beginCompaction} (under the lock) snapshots the closed segments below the high
 *       watermark. The active segment is never touched.</li>
 *   <li>{@link #prepare} (no lock) builds a map key -&gt; last offset over the dirty segments (those at or after the
 *       cleaner checkpoint, as many as fit in {@code maxMapBytes}, at least one), then rewrites every snapshot segment
 *       up to the end of that range into {@code .cleaned} files, several small segments into one while the result
 *       stays within {@code segment.bytes}. A record survives if no later record in the map has its key, and, if it
 *       is a tombstone, if its timestamp is within {@code delete.retention.ms} of now. Closed segments never change,
 *       so reading them without the lock is safe; if retention or DeleteRecords deletes one meanwhile, the read fails
 *       and the pass is abandoned.</li>
 *   <li>{@link PartitionLog#completeCompaction} (under the lock) checks that the snapshot segments are all still in
 *       the log and swaps each group in: {@code .cleaned} is renamed to {@code .swap} (the commit point), the old
 *       segments are deleted, and {@code .swap} is renamed to the first old segment's {@code .log}. Open finishes a
 *       swap interrupted by a crash and deletes leftover {@code .cleaned} files.</li>
 * </ol>
 *
 * <p>Offsets are preserved: a rewritten batch keeps its base offset, last offset delta, leader epoch and producer
 * fields and only loses records, so readers see gaps, as in Kafka. Batches that keep no record are dropped. Records
 * with a null key, control batches and compressed batches (this package does not decompress) are kept as they are;
 * records of aborted transactions are dropped.
 *
 * <p>Not thread-safe: one thread (the cleaner) runs a task from begin to complete.
 */
public final class CompactionTask {

    /** Rough per-entry cost of the key map beyond the key bytes (HashMap node, boxed Long, ByteBuffer). */
    static final int MAP_ENTRY_OVERHEAD_BYTES = 96;

    /** Charged for bytes read and written, to bound the cleaner's I/O rate. */
    @FunctionalInterface
    public interface IoThrottle {
        IoThrottle NONE = bytes -> {};

        void acquire(long bytes) throws InterruptedException;
    }

    /** A run of adjacent old segments that becomes one cleaned segment named after the first. */
    record Group(List<LogSegment> sources, List<Integer> sourceSizes, Path cleanedFile) {
        long firstBaseOffset() {
            return sources.get(0).baseOffset();
        }

        long lastBaseOffset() {
            return sources.get(sources.size() - 1).baseOffset();
        }
    }

    private final Path dir;
    private final String logPrefix;
    private final List<LogSegment> segments;
    private final List<Integer> sizes;
    private final long firstDirtyOffset;
    private final long deleteHorizonMs;
    private final int maxSegmentBytes;
    private final long maxMapBytes;
    /** Null when the log's transactions are not known: transactional batches are then kept whole. */
    private final @Nullable AbortedTransactions aborted;

    private final List<Group> groups = new ArrayList<>();
    private long dirtyEndOffset;
    private long bytesRead;
    private long bytesWritten;
    private long oldestKeptTombstoneMs = Long.MAX_VALUE;
    private boolean prepared;

    CompactionTask(
            Path dir,
            String logPrefix,
            List<LogSegment> segments,
            List<Integer> sizes,
            long firstDirtyOffset,
            long deleteHorizonMs,
            int maxSegmentBytes,
            long maxMapBytes) {
        this(dir, logPrefix, segments, sizes, firstDirtyOffset, deleteHorizonMs, maxSegmentBytes, maxMapBytes, null);
    }

    CompactionTask(
            Path dir,
            String logPrefix,
            List<LogSegment> segments,
            List<Integer> sizes,
            long firstDirtyOffset,
            long deleteHorizonMs,
            int maxSegmentBytes,
            long maxMapBytes,
            @Nullable AbortedTransactions aborted) {
        if (segments.isEmpty() || segments.size() != sizes.size()) {
            throw new IllegalArgumentException(logPrefix + "a compaction needs segments with their sizes");
        }
        this.dir = dir;
        this.logPrefix = logPrefix;
        this.segments = List.copyOf(segments);
        this.sizes = List.copyOf(sizes);
        this.firstDirtyOffset = firstDirtyOffset;
        this.deleteHorizonMs = deleteHorizonMs;
        this.maxSegmentBytes = maxSegmentBytes;
        this.maxMapBytes = maxMapBytes;
        this.aborted = aborted;
    }

    /**
     * Builds the key map and writes the cleaned files. On failure the cleaned files are removed and the log is
     * unchanged.
     *
     * @throws IOException if a segment was deleted meanwhile or a file cannot be written
     */
    public void prepare(IoThrottle throttle) throws IOException, InterruptedException {
        if (prepared) {
            throw new IllegalStateException(logPrefix + "compaction already prepared");
        }
        try {
            Map<ByteBuffer, Long> lastOffsets = buildKeyMap(throttle);
            int cleanCount = 0;
            while (cleanCount < segments.size() && segments.get(cleanCount).baseOffset() < dirtyEndOffset) {
                cleanCount++;
            }
            planGroups(cleanCount);
            for (Group group : groups) {
                writeCleaned(group, lastOffsets, throttle);
            }
            prepared = true;
        } catch (IOException | InterruptedException | RuntimeException e) {
            abort();
            throw e;
        }
    }

    /** Deletes any cleaned files written so far; the log is unchanged. */
    public void abort() {
        for (Group group : groups) {
            try {
                Files.deleteIfExists(group.cleanedFile());
            } catch (IOException e) {
                // Open deletes leftover .cleaned files anyway.
            }
        }
    }

    boolean isPrepared() {
        return prepared;
    }

    List<Group> groups() {
        return groups;
    }

    /** The offset after the last segment whose keys went into the map: the next pass's first dirty offset. */
    long dirtyEndOffset() {
        return dirtyEndOffset;
    }

    /** The smallest timestamp of a tombstone this pass kept, or Long.MAX_VALUE if it kept none. */
    long oldestKeptTombstoneMs() {
        return oldestKeptTombstoneMs;
    }

    public long bytesRead() {
        return bytesRead;
    }

    public long bytesWritten() {
        return bytesWritten;
    }

    private Map<ByteBuffer, Long> buildKeyMap(IoThrottle throttle) throws IOException, InterruptedException {
        Map<ByteBuffer, Long> lastOffsets = new HashMap<>();
        long mapBytes = 0;
        dirtyEndOffset = firstDirtyOffset;
        for (int i = 0; i < segments.size(); i++) {
            LogSegment segment = segments.get(i);
            long segmentEnd = i + 1 < segments.size() ? segments.get(i + 1).baseOffset() : Long.MAX_VALUE;
            if (segmentEnd <= firstDirtyOffset) {
                continue;
            }
            // The limit is checked between segments, so the map covers whole segments and may exceed it by one.
            if (mapBytes > maxMapBytes) {
                break;
            }
            int position = 0;
            while (position < sizes.get(i)) {
                ByteBuffer batch = segment.readBatchAt(position);
                throttle.acquire(batch.remaining());
                bytesRead += batch.remaining();
                RecordBatchHeader header = new RecordBatchHeader(batch, 0);
                if (isCompactable(header) && !isAborted(header)) {
                    for (KeyedRecord record : records(batch, header)) {
                        if (record.key() != null && lastOffsets.put(record.key(), record.offset()) == null) {
                            mapBytes += record.key().remaining() + MAP_ENTRY_OVERHEAD_BYTES;
                        }
                    }
                }
                position += header.sizeInBytes();
            }
            dirtyEndOffset = i + 1 < segments.size() ? segmentEnd : segment.nextOffset();
        }
        return lastOffsets;
    }

    private void planGroups(int cleanCount) {
        int i = 0;
        while (i < cleanCount) {
            List<LogSegment> sources = new ArrayList<>();
            List<Integer> sourceSizes = new ArrayList<>();
            long groupBytes = 0;
            long groupBase = segments.get(i).baseOffset();
            while (i < cleanCount) {
                LogSegment next = segments.get(i);
                boolean fits = groupBytes + sizes.get(i) <= maxSegmentBytes
                        && next.nextOffset() - groupBase <= Integer.MAX_VALUE;
                if (!sources.isEmpty() && !fits) {
                    break;
                }
                sources.add(next);
                sourceSizes.add(sizes.get(i));
                groupBytes += sizes.get(i);
                i++;
            }
            groups.add(new Group(
                    List.copyOf(sources),
                    List.copyOf(sourceSizes),
                    LogFiles.cleanedFile(
                            dir,
                            sources.get(0).baseOffset(),
                            sources.get(sources.size() - 1).baseOffset())));
        }
    }

    private void writeCleaned(Group group, Map<ByteBuffer, Long> lastOffsets, IoThrottle throttle)
            throws IOException, InterruptedException {
        try (FileChannel out = FileChannel.open(
                group.cleanedFile(),
                StandardOpenOption.CREATE,
                StandardOpenOption.TRUNCATE_EXISTING,
                StandardOpenOption.WRITE)) {
            long outPosition = 0;
            for (int s = 0; s < group.sources().size(); s++) {
                LogSegment source = group.sources().get(s);
                int position = 0;
                while (position < group.sourceSizes().get(s)) {
                    ByteBuffer batch = source.readBatchAt(position);
                    throttle.acquire(batch.remaining());
                    bytesRead += batch.remaining();
                    position += batch.remaining();
                    ByteBuffer retained = filter(batch, lastOffsets);
                    if (retained != null) {
                        throttle.acquire(retained.remaining());
                        bytesWritten += retained.remaining();
                        int size = retained.remaining();
                        FileIo.writeFully(out, retained, outPosition);
                        outPosition += size;
                    }
                }
            }
            // The rename to .swap commits the swap, so the data must be durable before it.
            out.force(true);
        }
    }

    /** The batch with only its surviving records (the same buffer if all survive), or null if none does. */
    private @Nullable ByteBuffer filter(ByteBuffer batch, Map<ByteBuffer, Long> lastOffsets) {
        RecordBatchHeader header = new RecordBatchHeader(batch, 0);
        if (!isCompactable(header)) {
            return batch;
        }
        if (isAborted(header)) {
            return null; // no reader at read_committed ever sees it, and it must not come back as a key's value
        }
        List<KeyedRecord> records = records(batch, header);
        List<KeyedRecord> kept = new ArrayList<>(records.size());
        for (KeyedRecord record : records) {
            if (survives(record, lastOffsets)) {
                kept.add(record);
                if (record.tombstone() && record.key() != null) {
                    oldestKeptTombstoneMs = Math.min(oldestKeptTombstoneMs, record.timestampMs());
                }
            }
        }
        if (kept.size() == records.size()) {
            return batch;
        }
        if (kept.isEmpty()) {
            return null;
        }
        int recordsBytes = 0;
        for (KeyedRecord record : kept) {
            recordsBytes += record.sizeInBytes();
        }
        ByteBuffer rebuilt = ByteBuffer.allocate(RecordBatchHeader.HEADER_SIZE_BYTES + recordsBytes);
        rebuilt.put(batch.duplicate().position(0).limit(RecordBatchHeader.HEADER_SIZE_BYTES));
        for (KeyedRecord record : kept) {
            rebuilt.put(batch.duplicate().position(record.position()).limit(record.position() + record.sizeInBytes()));
        }
        rebuilt.flip();
        // baseOffset, lastOffsetDelta and the timestamps stay: record deltas are relative to them, and keeping the
        // batch's offset span keeps the producer's last sequence where it was, as Kafka's cleaner does.
        rebuilt.putInt(
                RecordBatchHeader.BATCH_LENGTH_OFFSET, rebuilt.remaining() - RecordBatchHeader.LOG_OVERHEAD_BYTES);
        rebuilt.putInt(RecordBatchHeader.RECORDS_COUNT_OFFSET, kept.size());
        CRC32C crc = new CRC32C();
        crc.update(rebuilt.duplicate().position(RecordBatchHeader.ATTRIBUTES_OFFSET));
        rebuilt.putInt(RecordBatchHeader.CRC_OFFSET, (int) crc.getValue());
        return rebuilt;
    }

    private boolean survives(KeyedRecord record, Map<ByteBuffer, Long> lastOffsets) {
        if (record.key() == null) {
            return true;
        }
        Long last = lastOffsets.get(record.key());
        if (last != null && last > record.offset()) {
            return false;
        }
        return !record.tombstone() || record.timestampMs() >= deleteHorizonMs;
    }

    /**
     * Control batches (transaction markers) are kept as they are. Transactional data batches are compacted like any
     * other once their transaction committed; which transactions aborted is the partition's knowledge, handed in as
     * {@link AbortedTransactions}, and the task only reads segments below the last stable offset, where every
     * transaction has ended. Keeping transactional batches whole instead would let a later tombstone of their key
     * expire and the committed value come back. Without that knowledge (no {@link AbortedTransactions}) they are
     * kept whole and give no key: an aborted record must never hide a committed value.
     */
    private boolean isCompactable(RecordBatchHeader header) {
        return header.magic() == RecordBatchHeader.MAGIC_V2
                && header.compressionCodec() == 0
                && !header.isControl()
                && (aborted != null || !header.isTransactional());
    }

    private boolean isAborted(RecordBatchHeader header) {
        AbortedTransactions known = aborted;
        return known != null && header.isTransactional() && known.contains(header.producerId(), header.baseOffset());
    }

    /** A record inside an uncompressed batch: where its bytes are, its key (null for none), and what it holds. */
    record KeyedRecord(
            int position,
            int sizeInBytes,
            long offset,
            long timestampMs,
            @Nullable ByteBuffer key,
            boolean tombstone) {}

    /**
     * Decodes the records of an uncompressed v2 batch held alone in {@code batch}: length varint, attributes int8,
     * timestampDelta varlong, offsetDelta varint, key length varint (-1: null) and key, value length (-1: null).
     *
     * @throws CorruptRecordException if a record does not fit the batch
     */
    static List<KeyedRecord> records(ByteBuffer batch, RecordBatchHeader header) {
        List<KeyedRecord> result = new ArrayList<>(Math.max(0, Math.min(header.recordsCount(), 1 << 16)));
        ByteBuffer in = batch.duplicate();
        in.limit(header.sizeInBytes()).position(RecordBatchHeader.HEADER_SIZE_BYTES);
        for (int i = 0; i < header.recordsCount(); i++) {
            int start = in.position();
            int length = Varints.readVarint(in);
            int end = in.position() + length;
            if (length < 0 || end > in.limit()) {
                throw new CorruptRecordException(
                        "record " + i + " of the batch at offset " + header.baseOffset() + " does not fit the batch");
            }
            in.get(); // attributes
            long timestampDeltaMs = Varints.readVarlong(in);
            long timestampMs = header.timestampType() == TimestampType.LOG_APPEND_TIME
                    ? header.maxTimestampMs()
                    : header.baseTimestampMs() + timestampDeltaMs;
            long offset = header.baseOffset() + Varints.readVarint(in);
            int keyLength = Varints.readVarint(in);
            ByteBuffer key = null;
            if (keyLength >= 0) {
                byte[] keyBytes = new byte[keyLength];
                in.get(keyBytes);
                key = ByteBuffer.wrap(keyBytes);
            }
            int valueLength = Varints.readVarint(in);
            result.add(new KeyedRecord(start, end - start, offset, timestampMs, key, valueLength < 0));
            in.position(end);
        }
        return result;
    }
}
