package dev.strait.broker.log;

import dev.strait.time.Time;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Compaction's side of one partition's log: how far compaction has got, and the two steps of a pass that run under
 * the log's lock. It holds the cleaner checkpoint (offsets below it were deduplicated by an earlier pass) and the
 * oldest tombstone the last pass kept, both of which the log checkpoints in its {@link LogStateFile}. It chooses the
 * closed segments a pass may read and, once the pass has written its output without the lock
 * ({@link CompactionTask}), swaps that output in through a {@code .swap} file that a crash cannot half-apply.
 *
 * <p>It exists so that {@link PartitionLog} keeps to appends, reads and its offsets. Not thread-safe: guarded by the
 * owner's lock, as the log is.
 */
final class LogCompaction {

    private static final Logger LOGGER = LoggerFactory.getLogger(LogCompaction.class);

    private final Path dir;
    private final String logPrefix;
    private final Time time;
    private final LogSegments segments;
    /** Offsets below this were deduplicated by an earlier pass (Kafka's cleaner checkpoint). */
    private long cleanerCheckpoint;
    /**
     * The oldest tombstone the last compaction kept (Long.MAX_VALUE: none). Once it is past delete.retention.ms, a
     * pass runs even without new data so that idle logs drop their tombstones too.
     */
    private long oldestKeptTombstoneMs;

    LogCompaction(
            Path dir,
            String logPrefix,
            Time time,
            LogSegments segments,
            long cleanerCheckpoint,
            long oldestKeptTombstoneMs) {
        this.dir = dir;
        this.logPrefix = logPrefix;
        this.time = time;
        this.segments = segments;
        this.cleanerCheckpoint = cleanerCheckpoint;
        this.oldestKeptTombstoneMs = oldestKeptTombstoneMs;
    }

    long cleanerCheckpoint() {
        return cleanerCheckpoint;
    }

    long oldestKeptTombstoneMs() {
        return oldestKeptTombstoneMs;
    }

    /**
     * A pass over the closed segments below {@code highWatermark}, if they hold data after the cleaner checkpoint or
     * the last pass kept a tombstone that has expired since; see {@link PartitionLog#beginCompaction}.
     *
     * @param highWatermark where compaction stops: the high watermark, or the last stable offset if lower
     * @param aborted the log's aborted transactions, or null if unknown (transactional batches are then kept whole)
     */
    Optional<CompactionTask> begin(
            LogConfig config,
            long highWatermark,
            long logStartOffset,
            long maxMapBytes,
            @org.jspecify.annotations.Nullable AbortedTransactions aborted) {
        List<LogSegment> closed = new ArrayList<>();
        List<Integer> sizes = new ArrayList<>();
        LogSegment active = segments.active();
        long firstDirtyOffset = Math.max(cleanerCheckpoint, logStartOffset);
        long nowMs = time.milliseconds();
        for (LogSegment segment : segments.list()) {
            if (segment == active || segment.nextOffset() > highWatermark) {
                break;
            }
            // As Kafka: the first dirty segment holding a record younger than min.compaction.lag.ms, and all after
            // it, wait for a later pass.
            if (config.minCompactionLagMs() > 0
                    && segment.nextOffset() > firstDirtyOffset
                    && segment.largestTimestampMs() > nowMs - config.minCompactionLagMs()) {
                break;
            }
            closed.add(segment);
            sizes.add(segment.sizeBytes());
        }
        if (closed.isEmpty()) {
            return Optional.empty();
        }
        long closedEndOffset =
                segments.nextBaseOffset(closed.get(closed.size() - 1).baseOffset());
        long deleteHorizonMs = nowMs - config.deleteRetentionMs();
        if (closedEndOffset <= firstDirtyOffset && oldestKeptTombstoneMs >= deleteHorizonMs) {
            return Optional.empty();
        }
        return Optional.of(new CompactionTask(
                dir,
                logPrefix,
                closed,
                sizes,
                firstDirtyOffset,
                deleteHorizonMs,
                config.segmentBytes(),
                maxMapBytes,
                aborted));
    }

    /**
     * Whether every segment {@code task} read is still in the log; if one has left it meanwhile (retention,
     * DeleteRecords, truncation), the task is aborted, which deletes its files.
     */
    boolean stillApplies(CompactionTask task) {
        for (CompactionTask.Group group : task.groups()) {
            for (LogSegment source : group.sources()) {
                if (segments.get(source.baseOffset()) != source) {
                    LOGGER.info(
                            "{}segment {} changed during compaction; discarding the pass",
                            logPrefix,
                            source.baseOffset());
                    task.abort();
                    return false;
                }
            }
        }
        return true;
    }

    /** Swaps in what {@code task} wrote and moves the checkpoint past it; the caller then writes the log state. */
    void complete(CompactionTask task, LogConfig config) throws IOException {
        for (CompactionTask.Group group : task.groups()) {
            swapIn(group, config);
        }
        cleanerCheckpoint = Math.max(cleanerCheckpoint, task.dirtyEndOffset());
        oldestKeptTombstoneMs = task.oldestKeptTombstoneMs();
    }

    /** The log was truncated to {@code logEndOffset}: nothing at or above it has been compacted. */
    void onTruncate(long logEndOffset) {
        cleanerCheckpoint = Math.min(cleanerCheckpoint, logEndOffset);
    }

    /** The log restarted, empty, at {@code offset}. */
    void restartAt(long offset) {
        cleanerCheckpoint = offset;
    }

    private void swapIn(CompactionTask.Group group, LogConfig config) throws IOException {
        Path swap = LogFiles.swapFile(dir, group.firstBaseOffset(), group.lastBaseOffset());
        // The commit point: from here on, open completes this swap instead of keeping the old segments.
        Files.move(group.cleanedFile(), swap, StandardCopyOption.ATOMIC_MOVE);
        CheckpointFile.fsyncDirectory(dir);
        for (LogSegment source : group.sources()) {
            segments.delete(source);
        }
        Files.move(swap, LogFiles.logFile(dir, group.firstBaseOffset()), StandardCopyOption.ATOMIC_MOVE);
        CheckpointFile.fsyncDirectory(dir);
        LogSegment compacted = LogSegment.open(dir, group.firstBaseOffset(), config.indexIntervalBytes(), time);
        compacted.loadIndexes();
        segments.add(compacted);
    }
}
