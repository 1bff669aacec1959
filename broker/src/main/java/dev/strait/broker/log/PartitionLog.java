package dev.strait.broker.log;

import dev.strait.time.Time;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;

/**
 * The log of one partition, in directory {@code <topic>-<partition>}: a sorted map of {@link LogSegment}s (only
 * the last, the active segment, takes appends), a {@link LeaderEpochCache}, and four offsets:
 *
 * <pre>
 * logStartOffset <= highWatermark <= logEndOffset        recoveryPoint <= logEndOffset
 * </pre>
 *
 * <ul>
 *   <li>{@code logEndOffset} (LEO): the next offset to assign.</li>
 *   <li>{@code highWatermark}: set by the replication layer; never above the LEO and never backwards, except when
 *       truncation lowers the LEO below it.</li>
 *   <li>{@code logStartOffset}: the first readable offset; moved up by retention and DeleteRecords only.</li>
 *   <li>{@code recoveryPoint}: everything below it is known to be flushed, so reopening checks it only cheaply.</li>
 * </ul>
 *
 * <p>Not thread-safe. The owner (the replica layer's partition object, or a single partition thread) must hold one
 * lock around every call, reads included, because appends, rolls and retention change the segment map. A returned
 * {@link FileSlice} may be used after the lock is released; if retention or truncation deletes its segment in the
 * meantime, the transfer fails with a ClosedChannelException and the fetch is retried.
 *
 * <p>Errors: bad input raises {@link CorruptRecordException}, {@link RecordBatchTooLargeException},
 * {@link OffsetOutOfRangeException} or {@link IllegalArgumentException} and changes nothing. An I/O error marks the
 * log offline and raises {@link LogStorageException}, as does every later call.
 */
public final class PartitionLog implements AutoCloseable {

    private final Path dir;
    private final String logPrefix;
    private final Time time;
    private final LogSegments segments;
    private final LeaderEpochCache epochCache;
    private LogConfig config;
    private long logStartOffset;
    private long logEndOffset;
    private long highWatermark;
    /** The recovery point and the flushes that move it. */
    private final RecoveryPoint recoveryPoint;
    /** The cleaner checkpoint and the choosing and swapping steps of a compaction pass. */
    private final LogCompaction compaction;

    /** Turns I/O errors into an offline log; knows whether the log is offline or closed. */
    private final IoBoundary ioBoundary;

    private PartitionLog(Path dir, LogConfig config, Time time, PartitionLogLoader.Loaded loaded) {
        this.dir = dir;
        this.logPrefix = logPrefix(dir);
        this.ioBoundary = new IoBoundary(logPrefix);
        this.config = config;
        this.time = time;
        this.segments = new LogSegments(dir, loaded.segments());
        this.epochCache = loaded.epochCache();
        this.logStartOffset = loaded.logStartOffset();
        this.logEndOffset = loaded.logEndOffset();
        this.highWatermark = loaded.highWatermark();
        this.recoveryPoint = new RecoveryPoint(segments, loaded.recoveryPoint());
        this.compaction = new LogCompaction(
                dir, logPrefix, time, segments, loaded.cleanerCheckpoint(), loaded.oldestKeptTombstoneMs());
    }

    /** Starts every log line of one partition's log, the loader's included. */
    static String logPrefix(Path dir) {
        return "[PartitionLog " + dir.getFileName() + "] ";
    }

    /**
     * Opens (creating if needed) the log in {@code dir} and recovers it. After a clean shutdown, or for segments
     * wholly below the recovery point, batch headers are scanned to rebuild the indexes (no CRC check; a header
     * that is clearly damaged still triggers full recovery of that segment). Every other segment is validated
     * batch by batch and its invalid tail truncated; segments after a truncated one are deleted, since they
     * follow a hole.
     *
     * @throws LogStorageException if the directory cannot be read or repaired
     */
    public static PartitionLog open(Path dir, LogConfig config, Time time) {
        try {
            return new PartitionLog(dir, config, time, PartitionLogLoader.load(dir, config, time));
        } catch (IOException e) {
            throw new LogStorageException(logPrefix(dir) + "opening " + dir + " failed", e);
        }
    }

    public Path dir() {
        return dir;
    }

    public LogConfig config() {
        return config;
    }

    public void updateConfig(LogConfig newConfig) {
        this.config = newConfig;
    }

    public long logStartOffset() {
        return logStartOffset;
    }

    public long logEndOffset() {
        return logEndOffset;
    }

    public long highWatermark() {
        return highWatermark;
    }

    public long recoveryPoint() {
        return recoveryPoint.offset();
    }

    public int segmentCount() {
        return segments.count();
    }

    /** Total size of all segments. */
    public long sizeBytes() {
        return segments.sizeBytes();
    }

    /** The segments, oldest first; for inspection only. */
    List<LogSegment> segments() {
        return segments.list();
    }

    public LeaderEpochCache leaderEpochCache() {
        return epochCache;
    }

    /** OffsetForLeaderEpoch for this log; see {@link LeaderEpochCache#endOffsetFor}. */
    public EpochEndOffset endOffsetForEpoch(int leaderEpoch) {
        return epochCache.endOffsetFor(leaderEpoch, logEndOffset);
    }

    /**
     * Appends batches from a produce request as leader. Every batch is validated first (structure, CRC,
     * {@code max.message.bytes}); then, in place in {@code batches}, each gets its base offset (consecutive from the
     * log end offset), the leader epoch, and under LogAppendTime the broker's time (with a new CRC).
     *
     * @param batches     whole v2 batches between position and limit; must be writable; modified in place
     * @param leaderEpoch the current leader epoch; not below the latest epoch in the log
     */
    public AppendResult append(ByteBuffer batches, int leaderEpoch) {
        ioBoundary.ensureUsable();
        PreparedAppend append = PreparedAppend.asLeader(
                batches, config, time, logEndOffset, epochCache.latestEpoch(), leaderEpoch, logPrefix);
        writeInEpoch("append", batches, leaderEpoch, append);
        return append.result(logStartOffset);
    }

    /**
     * Appends batches fetched from the leader, keeping their offsets and leader epochs. No batch may start below
     * the log end offset (a follower fetches from its LEO); offsets increase and may skip (compaction).
     */
    public AppendResult appendAsFollower(ByteBuffer batches) {
        ioBoundary.ensureUsable();
        PreparedAppend append =
                PreparedAppend.asFollower(batches, config, time, logEndOffset, epochCache.latestEpoch(), logPrefix);
        ioBoundary.run("append as follower", () -> {
            LogSegment active = maybeRoll(append);
            for (RecordBatchHeader batch : append.batches()) {
                if (batch.partitionLeaderEpoch() > epochCache.latestEpoch()) {
                    epochCache.assign(batch.partitionLeaderEpoch(), batch.baseOffset());
                }
            }
            active.append(append.lastOffset(), batches);
        });
        logEndOffset = append.lastOffset() + 1;
        return append.result(logStartOffset);
    }

    /**
     * Appends batches copied from another cluster's partition (a mirror topic), keeping each batch's offsets, producer
     * id, sequence, timestamps and compression: only the partition leader epoch field, which lies outside the CRC, is
     * set to this cluster's {@code leaderEpoch}, so the log's epoch lineage stays this cluster's own. The append must
     * happen at the log end ({@code requiredBaseOffset}), which makes a replayed copy fail instead of duplicating;
     * batches may start past it or skip offsets between them, as a compacted source does.
     *
     * @param batches            whole v2 batches between position and limit; must be writable; only their epoch field
     *                           is modified
     * @param requiredBaseOffset the offset the copy continues from; must equal the log end offset
     * @throws MirrorOffsetMismatchException if the log end offset is not {@code requiredBaseOffset}, or a batch holds
     *                                       offsets below it (nothing appended)
     */
    public AppendResult appendMirrored(ByteBuffer batches, long requiredBaseOffset, int leaderEpoch) {
        ioBoundary.ensureUsable();
        PreparedAppend append = PreparedAppend.mirrored(
                batches,
                config,
                time,
                logEndOffset,
                epochCache.latestEpoch(),
                requiredBaseOffset,
                leaderEpoch,
                logPrefix);
        writeInEpoch("append mirrored", batches, leaderEpoch, append);
        return append.result(logStartOffset);
    }

    /**
     * Writes {@code append}'s batches, all in {@code leaderEpoch} (starting that epoch here if it is new), rolling
     * the segment first if due, and moves the log end past them.
     */
    private void writeInEpoch(String action, ByteBuffer batches, int leaderEpoch, PreparedAppend append) {
        ioBoundary.run(action, () -> {
            LogSegment active = maybeRoll(append);
            if (leaderEpoch > epochCache.latestEpoch()) {
                epochCache.assign(leaderEpoch, append.firstOffset());
            }
            active.append(append.lastOffset(), batches);
        });
        logEndOffset = append.lastOffset() + 1;
    }

    /** Rolls first if the active segment is due to ({@link LogSegments#rollDue}). */
    private LogSegment maybeRoll(PreparedAppend append) throws IOException {
        return segments.rollDue(append, config, logPrefix) ? roll() : segments.active();
    }

    /** Starts a new active segment at the log end offset, flushing the old one. */
    private LogSegment roll() throws IOException {
        LogSegment previous = segments.active();
        if (previous.isEmpty()) {
            return previous;
        }
        previous.flush();
        // Older segments were flushed when they rolled (or at open), so everything below the LEO is on disk now.
        // The checkpoint keeps the older, lower value until the next flush(), which is safe: it only means more
        // recovery work after a crash.
        recoveryPoint.advanceTo(logEndOffset);
        LogSegment next = LogSegment.create(dir, logEndOffset, config.indexIntervalBytes(), time);
        segments.add(next);
        return next;
    }

    /**
     * Reads from {@code startOffset}, without going past {@code maxOffsetExclusive} (the high watermark for
     * consumers, the log end offset for followers). The slice starts at the batch that contains
     * {@code startOffset} and holds at most {@code maxBytes}, so it may end in a partial batch.
     *
     * @throws OffsetOutOfRangeException if {@code startOffset} is below the log start offset or above the LEO
     */
    public LogReadResult read(long startOffset, int maxBytes, long maxOffsetExclusive) {
        return read(startOffset, maxBytes, maxOffsetExclusive, false);
    }

    /**
     * As {@link #read(long, int, long)}; with {@code minOneBatch} the first batch is returned whole even if it is
     * larger than {@code maxBytes}, so that a consumer with a small fetch size still makes progress (KIP-74).
     */
    public LogReadResult read(long startOffset, int maxBytes, long maxOffsetExclusive, boolean minOneBatch) {
        ioBoundary.ensureUsable();
        if (startOffset < logStartOffset || startOffset > logEndOffset) {
            throw new OffsetOutOfRangeException(
                    logPrefix + "offset " + startOffset + " is outside [" + logStartOffset + ", " + logEndOffset + "]");
        }
        long limitOffset = Math.min(maxOffsetExclusive, logEndOffset);
        FileSlice slice = FileSlice.empty();
        if (startOffset < limitOffset) {
            slice = ioBoundary.run("read", () -> segments.read(startOffset, maxBytes, limitOffset, minOneBatch));
        }
        return new LogReadResult(slice, highWatermark, logStartOffset, logEndOffset);
    }

    /**
     * ListOffsets by timestamp: the first record at or after the log start offset with a timestamp >=
     * {@code targetTimestampMs} (see {@link LogSegment#findOffsetByTimestamp} for compressed batches).
     */
    public Optional<TimestampAndOffset> findOffsetByTimestamp(long targetTimestampMs) {
        ioBoundary.ensureUsable();
        return ioBoundary.run(
                "find offset by timestamp", () -> segments.findOffsetByTimestamp(targetTimestampMs, logStartOffset));
    }

    /**
     * Raises the high watermark. A lower value is ignored (it never moves backwards, except through
     * {@link #truncateTo}).
     *
     * @return true if it moved
     * @throws IllegalArgumentException if {@code newHighWatermark} is above the log end offset
     */
    public boolean updateHighWatermark(long newHighWatermark) {
        ioBoundary.ensureUsable();
        if (newHighWatermark > logEndOffset) {
            throw new IllegalArgumentException(logPrefix + "high watermark " + newHighWatermark
                    + " would pass the log end offset " + logEndOffset);
        }
        if (newHighWatermark <= highWatermark) {
            return false;
        }
        highWatermark = newHighWatermark;
        return true;
    }

    /**
     * Removes the batch containing {@code offset} and everything after it (follower truncation). Afterwards the
     * log end offset is at most {@code offset}; the high watermark and recovery point follow it down, and epochs
     * starting at or after it are dropped. Below the log start offset the log is emptied and restarts at
     * {@code offset}.
     *
     * <p>At or beyond the log end no record is removed, but an epoch entry starting at the log end is: a replica
     * that became leader recorded (its epoch, its log end) and may have lost leadership before appending anything.
     * Left in place, that entry is newer than the epochs of the batches the next leader sends from that offset, so
     * the follower could never append them (issue 11, defect 3; Kafka truncates its epoch cache here too).
     *
     * @return true if any record was removed
     */
    public boolean truncateTo(long offset) {
        ioBoundary.ensureUsable();
        if (offset < 0) {
            throw new IllegalArgumentException(logPrefix + "cannot truncate to negative offset " + offset);
        }
        if (offset >= logEndOffset) {
            if (epochCache.latestStartOffset() >= logEndOffset) {
                ioBoundary.run("truncate epochs", () -> {
                    epochCache.truncateFromEnd(logEndOffset);
                });
            }
            return false;
        }
        recoveryPoint.onTruncationStarted();
        ioBoundary.run("truncate", () -> {
            if (offset < logStartOffset) {
                truncateFullyAndStartAtUnchecked(offset);
            } else {
                truncateSegmentsTo(offset);
            }
            writeLogState();
        });
        return true;
    }

    /**
     * Deletes everything and restarts the log, empty, at {@code offset}: a follower whose log end is below the
     * leader's log start offset (the leader deleted what the follower would fetch next) starts over there.
     */
    public void truncateFullyAndStartAt(long offset) {
        ioBoundary.ensureUsable();
        if (offset < 0) {
            throw new IllegalArgumentException(logPrefix + "cannot restart at negative offset " + offset);
        }
        recoveryPoint.onTruncationStarted();
        ioBoundary.run("truncate fully", () -> {
            truncateFullyAndStartAtUnchecked(offset);
            writeLogState();
        });
    }

    private void truncateSegmentsTo(long offset) throws IOException {
        logEndOffset = segments.truncateTo(offset);
        if (logEndOffset < logStartOffset) {
            // The batch holding the log start offset was removed; nothing readable is left.
            truncateFullyAndStartAtUnchecked(logStartOffset);
            return;
        }
        highWatermark = Math.min(highWatermark, logEndOffset);
        recoveryPoint.onTruncated(logEndOffset);
        compaction.onTruncate(logEndOffset);
        epochCache.truncateFromEnd(logEndOffset);
    }

    /** Deletes every segment and restarts the log, empty, at {@code offset}. */
    private void truncateFullyAndStartAtUnchecked(long offset) throws IOException {
        segments.replaceWithEmpty(offset, config, time);
        logStartOffset = offset;
        logEndOffset = offset;
        highWatermark = offset;
        recoveryPoint.restartAt(offset);
        compaction.restartAt(offset);
        epochCache.clear();
    }

    /**
     * DeleteRecords: makes offsets below {@code offset} unreadable and deletes segments that lie wholly below it.
     *
     * @return the new log start offset
     * @throws OffsetOutOfRangeException if {@code offset} is above the high watermark
     */
    public long deleteRecordsBefore(long offset) {
        ioBoundary.ensureUsable();
        if (offset > highWatermark) {
            throw new OffsetOutOfRangeException(logPrefix + "cannot delete records before " + offset
                    + ", above the high watermark " + highWatermark);
        }
        if (offset <= logStartOffset) {
            return logStartOffset;
        }
        ioBoundary.run("delete records", () -> {
            logStartOffset = offset;
            // Persist the new start first: after a crash, deleted records must not come back.
            writeLogState();
            epochCache.truncateFromStart(offset);
            if (offset >= logEndOffset) {
                roll();
            }
            segments.deleteBelow(logStartOffset);
        });
        return logStartOffset;
    }

    /**
     * Applies retention.ms (measured from each segment's largest timestamp) and retention.bytes, oldest segment
     * first. Only segments wholly below the high watermark are deleted, so uncommitted records are never lost,
     * and the active segment is never deleted (it becomes eligible once segment.ms or segment.bytes rolls it).
     *
     * @return the number of segments deleted
     */
    public int deleteSegmentsForRetention() {
        ioBoundary.ensureUsable();
        if (!config.cleanupPolicy().delete()) {
            return 0;
        }
        long nowMs = time.milliseconds();
        return ioBoundary.run("retention", () -> {
            int deleted = Retention.deleteSelected(segments, config, highWatermark, nowMs, logPrefix);
            if (deleted > 0 && segments.firstBaseOffset() > logStartOffset) {
                logStartOffset = segments.firstBaseOffset();
                epochCache.truncateFromStart(logStartOffset);
                writeLogState();
            }
            return deleted;
        });
    }

    /**
     * Starts a compaction pass if {@code cleanup.policy} includes compact and closed segments below the high
     * watermark hold data after the cleaner checkpoint, or the last pass kept a tombstone that has expired since;
     * see {@link CompactionTask}. Changes nothing by itself.
     *
     * @param maxMapBytes the memory budget of the key map
     */
    public Optional<CompactionTask> beginCompaction(long maxMapBytes) {
        ioBoundary.ensureUsable();
        if (!config.cleanupPolicy().compact()) {
            return Optional.empty();
        }
        // Transactions unknown here: transactional batches are kept whole.
        return compaction.begin(config, highWatermark, logStartOffset, maxMapBytes, null);
    }

    /**
     * As {@link #beginCompaction(long)} for a log with transactions: only segments below {@code lastStableOffset}
     * (where every transaction has ended) are compacted, records of aborted transactions are dropped, and committed
     * transactional records are compacted as any other.
     */
    public Optional<CompactionTask> beginCompaction(
            long maxMapBytes, long lastStableOffset, AbortedTransactions aborted) {
        ioBoundary.ensureUsable();
        if (!config.cleanupPolicy().compact()) {
            return Optional.empty();
        }
        return compaction.begin(
                config, Math.min(highWatermark, lastStableOffset), logStartOffset, maxMapBytes, aborted);
    }

    /**
     * Swaps in the segments a prepared {@link CompactionTask} wrote, unless any segment it read has left the log
     * meanwhile (retention, DeleteRecords, truncation); then its files are deleted and nothing changes.
     *
     * @return true if the compacted segments replaced the old ones
     */
    public boolean completeCompaction(CompactionTask task) {
        ioBoundary.ensureUsable();
        if (!task.isPrepared()) {
            throw new IllegalStateException(logPrefix + "compaction completed before it was prepared");
        }
        if (!compaction.stillApplies(task)) {
            return false;
        }
        ioBoundary.run("compaction swap", () -> {
            compaction.complete(task, config);
            writeLogState();
        });
        return true;
    }

    public long cleanerCheckpoint() {
        return compaction.cleanerCheckpoint();
    }

    /**
     * Forces the records below the log end offset to disk without rewriting the log state checkpoint (the
     * checkpointed recovery point may lag; that only means more recovery work after a crash). For a follower that
     * must report only flushed records as fetched (flush.on.ack).
     */
    public void flushRecords() {
        ioBoundary.ensureUsable();
        if (recoveryPoint.covers(logEndOffset)) {
            return;
        }
        ioBoundary.run("flush", () -> {
            recoveryPoint.flushTo(logEndOffset);
        });
    }

    /**
     * The first step of a flush that forces files without the owner's lock, so that appends go on meanwhile and
     * the next flush takes all of them at once (group commit): what to force to make everything below the
     * current log end offset durable; empty if it is already. Then {@link PendingFlush#force} without the lock,
     * and {@link #completeFlush} (or {@link #failFlush}) with it.
     */
    public Optional<PendingFlush> beginFlush() {
        ioBoundary.ensureUsable();
        if (recoveryPoint.covers(logEndOffset)) {
            return Optional.empty();
        }
        return Optional.of(recoveryPoint.begin(logEndOffset));
    }

    /**
     * Moves the recovery point up to what {@code flush} made durable; ignored if the log was truncated since it
     * began (offsets below its end may now hold records it never forced).
     *
     * @return the flushed offset (the recovery point)
     */
    public long completeFlush(PendingFlush flush) {
        if (!ioBoundary.offline() && !ioBoundary.closed()) {
            recoveryPoint.complete(flush, logEndOffset);
        }
        return recoveryPoint.offset();
    }

    /** A {@link PendingFlush} failed to force: the log goes offline, as after any I/O error. */
    public void failFlush(IOException error) {
        ioBoundary.run("flush", () -> {
            throw error;
        });
    }

    /** Forces all unflushed segments to disk and advances the recovery point to the log end offset. */
    public void flush() {
        ioBoundary.ensureUsable();
        ioBoundary.run("flush", () -> {
            recoveryPoint.flushTo(logEndOffset);
            writeLogState();
        });
    }

    /** Flushes, closes all files and leaves the clean-shutdown marker, so the next open skips CRC validation. */
    @Override
    public void close() {
        if (ioBoundary.closed()) {
            return;
        }
        if (ioBoundary.offline()) {
            closeQuietly();
            return;
        }
        ioBoundary.run("close", () -> {
            recoveryPoint.flushTo(logEndOffset);
            writeLogState();
            segments.closeAll();
            Path marker = dir.resolve(LogFiles.CLEAN_SHUTDOWN_MARKER);
            if (!Files.exists(marker)) {
                Files.createFile(marker);
            }
            CheckpointFile.fsyncDirectory(dir);
        });
        ioBoundary.markClosed();
    }

    /**
     * Releases file handles as a process crash would: nothing is flushed and no marker is written, so the next
     * open runs recovery. For crash tests and for giving up on an offline log.
     */
    void closeQuietly() {
        segments.closeQuietly(logPrefix);
        ioBoundary.markClosed();
    }

    private void writeLogState() throws IOException {
        LogStateFile.write(
                dir,
                new LogStateFile.State(
                        logStartOffset,
                        recoveryPoint.offset(),
                        highWatermark,
                        compaction.cleanerCheckpoint(),
                        compaction.oldestKeptTombstoneMs()));
    }

    @Override
    public String toString() {
        return "PartitionLog(" + dir.getFileName() + ", logStartOffset=" + logStartOffset + ", logEndOffset="
                + logEndOffset + ", highWatermark=" + highWatermark + ", segments=" + segments.count() + ")";
    }
}
