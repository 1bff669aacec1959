package dev.strait.broker.log;

import dev.strait.time.Time;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;
import java.util.TreeSet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Opens a partition directory for {@link PartitionLog#open}: finishes an interrupted compaction swap, removes stray
 * files, opens the segments (recovering those that may hold unflushed data), and reconciles the offsets from the
 * {@link LogStateFile} and the leader epochs with what survived. Recovered data is flushed before the new state
 * checkpoint is written, and the clean-shutdown marker is removed last: until then a crash leaves the directory as
 * the previous shutdown did. One use.
 */
final class PartitionLogLoader {

    private static final Logger LOGGER = LoggerFactory.getLogger(PartitionLogLoader.class);
    private static final long NOT_RECOVERED = -1;

    /**
     * What a {@link PartitionLog} starts from: its segments by base offset (at least one; the last is the active
     * segment), its epoch cache, and its offsets; see {@link LogStateFile.State} for the compaction fields.
     */
    record Loaded(
            TreeMap<Long, LogSegment> segments,
            LeaderEpochCache epochCache,
            long logStartOffset,
            long logEndOffset,
            long highWatermark,
            long recoveryPoint,
            long cleanerCheckpoint,
            long oldestKeptTombstoneMs) {}

    private final Path dir;
    private final LogConfig config;
    private final Time time;
    private final String logPrefix;
    private final LeaderEpochCache epochCache;
    private final TreeMap<Long, LogSegment> segments = new TreeMap<>();

    private PartitionLogLoader(Path dir, LogConfig config, Time time, LeaderEpochCache epochCache) {
        this.dir = dir;
        this.config = config;
        this.time = time;
        this.logPrefix = PartitionLog.logPrefix(dir);
        this.epochCache = epochCache;
    }

    /** Creates {@code dir} if needed, then loads and recovers it; see {@link PartitionLog#open}. */
    static Loaded load(Path dir, LogConfig config, Time time) throws IOException {
        Files.createDirectories(dir);
        LeaderEpochCache epochCache = LeaderEpochCache.load(dir.resolve(LogFiles.LEADER_EPOCH_CHECKPOINT));
        return new PartitionLogLoader(dir, config, time, epochCache).load();
    }

    private Loaded load() throws IOException {
        Path marker = dir.resolve(LogFiles.CLEAN_SHUTDOWN_MARKER);
        boolean cleanShutdown = Files.exists(marker);
        LogStateFile.State state = LogStateFile.read(dir);
        finishInterruptedCompaction();
        TreeSet<Long> baseOffsets = listFilesAndRemoveStrays();
        long firstRecoveredBase = loadSegments(baseOffsets, cleanShutdown, state.recoveryPoint());
        boolean recovered = firstRecoveredBase != NOT_RECOVERED;
        long checkpointedStartOffset = state.logStartOffset();
        if (segments.isEmpty()) {
            addNewSegment(checkpointedStartOffset);
        }
        long logEndOffset = activeSegment().nextOffset();
        long logStartOffset = Math.max(checkpointedStartOffset, segments.firstKey());
        if (logStartOffset > logEndOffset) {
            LOGGER.warn(
                    "{}log start offset {} is above the recovered log end offset {}; starting empty there",
                    logPrefix,
                    logStartOffset,
                    logEndOffset);
            startEmptyAt(logStartOffset);
            logEndOffset = logStartOffset;
        }
        long highWatermark = Math.min(Math.max(state.highWatermark(), logStartOffset), logEndOffset);
        long recoveryPoint = cleanShutdown ? logEndOffset : Math.min(state.recoveryPoint(), logEndOffset);
        long cleanerCheckpoint = Math.min(state.cleanerCheckpoint(), logEndOffset);
        epochCache.truncateFromEnd(logEndOffset);
        epochCache.truncateFromStart(logStartOffset);
        if (recovered) {
            reconcileEpochsFrom(firstRecoveredBase, logStartOffset);
            // Recovered bytes may live only in the page cache; make them durable before trusting them.
            flushSegmentsFrom(recoveryPoint);
            recoveryPoint = logEndOffset;
        }
        Loaded loaded = new Loaded(
                segments,
                epochCache,
                logStartOffset,
                logEndOffset,
                highWatermark,
                recoveryPoint,
                cleanerCheckpoint,
                state.oldestKeptTombstoneMs());
        LogStateFile.write(
                dir,
                new LogStateFile.State(
                        logStartOffset,
                        recoveryPoint,
                        highWatermark,
                        cleanerCheckpoint,
                        state.oldestKeptTombstoneMs()));
        // From now on a crash is unclean again.
        if (Files.deleteIfExists(marker)) {
            CheckpointFile.fsyncDirectory(dir);
        }
        LOGGER.info(
                "{}opened: {} segments, logStartOffset={}, logEndOffset={}, highWatermark={}, cleanShutdown={}",
                logPrefix,
                segments.size(),
                logStartOffset,
                logEndOffset,
                highWatermark,
                cleanShutdown);
        return loaded;
    }

    private LogSegment activeSegment() {
        return segments.lastEntry().getValue();
    }

    private void addNewSegment(long baseOffset) throws IOException {
        segments.put(baseOffset, LogSegment.create(dir, baseOffset, config.indexIntervalBytes(), time));
    }

    /**
     * Deletes every segment and starts empty at {@code offset}, as {@link PartitionLog#truncateFullyAndStartAt} does
     * (the caller sets the offsets).
     */
    private void startEmptyAt(long offset) throws IOException {
        new LogSegments(dir, segments).replaceWithEmpty(offset, config, time);
        epochCache.clear();
    }

    private void flushSegmentsFrom(long offset) throws IOException {
        new LogSegments(dir, segments).flushFrom(offset);
    }

    /**
     * Completes swaps that a crash interrupted after their commit point (a {@code .swap} file exists: the compacted
     * data is complete and durable) by deleting the segments it replaces and renaming it to a {@code .log}; deletes
     * {@code .cleaned} files, whose swap never started (the old segments are intact).
     */
    private void finishInterruptedCompaction() throws IOException {
        List<Path> swaps = new ArrayList<>();
        TreeSet<Long> logBaseOffsets = new TreeSet<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                if (name.endsWith(LogFiles.CLEANED_SUFFIX)) {
                    LOGGER.info("{}deleting incomplete compaction output {}", logPrefix, name);
                    Files.delete(file);
                } else if (LogFiles.rangeOfSwapFile(name) != null) {
                    swaps.add(file);
                } else if (LogFiles.baseOffsetOfLogFile(name) >= 0) {
                    logBaseOffsets.add(LogFiles.baseOffsetOfLogFile(name));
                }
            }
        }
        for (Path swap : swaps) {
            // Listed above as a swap file, so its name holds a range.
            long[] range = Objects.requireNonNull(
                    LogFiles.rangeOfSwapFile(swap.getFileName().toString()), "a swap file's range");
            LOGGER.warn("{}finishing a compaction swap interrupted by a crash: {}", logPrefix, swap.getFileName());
            for (long baseOffset : logBaseOffsets.subSet(range[0], true, range[1], true)) {
                deleteSegmentFiles(baseOffset);
            }
            Files.move(swap, LogFiles.logFile(dir, range[0]), StandardCopyOption.ATOMIC_MOVE);
            CheckpointFile.fsyncDirectory(dir);
        }
    }

    private void deleteSegmentFiles(long baseOffset) throws IOException {
        Files.deleteIfExists(LogFiles.logFile(dir, baseOffset));
        Files.deleteIfExists(LogFiles.offsetIndexFile(dir, baseOffset));
        Files.deleteIfExists(LogFiles.timeIndexFile(dir, baseOffset));
    }

    /** Base offsets of the segment files; deletes temp files and index files without a log file. */
    private TreeSet<Long> listFilesAndRemoveStrays() throws IOException {
        TreeSet<Long> baseOffsets = new TreeSet<>();
        List<Path> indexFiles = new ArrayList<>();
        try (DirectoryStream<Path> files = Files.newDirectoryStream(dir)) {
            for (Path file : files) {
                String name = file.getFileName().toString();
                long baseOffset = LogFiles.baseOffsetOfLogFile(name);
                if (baseOffset >= 0) {
                    baseOffsets.add(baseOffset);
                } else if (name.endsWith(LogFiles.TEMP_SUFFIX)) {
                    Files.delete(file);
                } else if (name.endsWith(LogFiles.OFFSET_INDEX_SUFFIX) || name.endsWith(LogFiles.TIME_INDEX_SUFFIX)) {
                    indexFiles.add(file);
                }
            }
        }
        for (Path indexFile : indexFiles) {
            String name = indexFile.getFileName().toString();
            String prefix = name.substring(0, name.indexOf('.'));
            if (!Files.exists(dir.resolve(prefix + LogFiles.LOG_SUFFIX))) {
                Files.delete(indexFile);
            }
        }
        return baseOffsets;
    }

    /**
     * After a crash the batches are the truth about epochs, not the checkpoint: the checkpoint is fsynced when a
     * new epoch's first batch arrives, but those batches, and a truncation before them, may be lost to a power
     * cut, bringing back older batches under the newer entry. Entries from the first recovered segment on are
     * rebuilt from the batch headers there.
     */
    private void reconcileEpochsFrom(long firstRecoveredBase, long logStartOffset) throws IOException {
        List<EpochEntry> fromBatches = new ArrayList<>();
        for (LogSegment segment : segments.tailMap(firstRecoveredBase, true).values()) {
            fromBatches.addAll(segment.epochStarts());
        }
        List<EpochEntry> before = epochCache.entries();
        epochCache.truncateFromEnd(firstRecoveredBase);
        for (EpochEntry entry : fromBatches) {
            if (entry.startOffset() < logStartOffset) {
                continue;
            }
            if (entry.epoch() < epochCache.latestEpoch()) {
                LOGGER.warn(
                        "{}batch at offset {} has epoch {} below the epoch {} before it; keeping the checkpoint's",
                        logPrefix,
                        entry.startOffset(),
                        entry.epoch(),
                        epochCache.latestEpoch());
                continue;
            }
            epochCache.assign(entry.epoch(), entry.startOffset());
        }
        if (!before.equals(epochCache.entries())) {
            LOGGER.warn(
                    "{}leader epochs rebuilt from the batches after an unclean shutdown: checkpoint {}, batches {}",
                    logPrefix,
                    before,
                    epochCache.entries());
        }
    }

    /**
     * Opens every segment; returns the base offset of the first segment that went through full recovery, or
     * {@link #NOT_RECOVERED}.
     */
    private long loadSegments(TreeSet<Long> baseOffsets, boolean cleanShutdown, long checkpointedRecoveryPoint)
            throws IOException {
        long firstRecovered = NOT_RECOVERED;
        Long[] ordered = baseOffsets.toArray(new Long[0]);
        for (int i = 0; i < ordered.length; i++) {
            long baseOffset = ordered[i];
            if (!segments.isEmpty() && baseOffset < activeSegment().nextOffset()) {
                LOGGER.warn(
                        "{}segment {} overlaps the previous segment ending at {}; dropping it and later ones",
                        logPrefix,
                        baseOffset,
                        activeSegment().nextOffset());
                deleteSegmentFiles(ordered, i);
                return firstRecovered == NOT_RECOVERED ? activeSegment().baseOffset() : firstRecovered;
            }
            LogSegment segment = LogSegment.open(dir, baseOffset, config.indexIntervalBytes(), time);
            boolean flushed = cleanShutdown || (i + 1 < ordered.length && ordered[i + 1] <= checkpointedRecoveryPoint);
            long truncatedBytes = flushed ? segment.loadIndexes() : segment.recover();
            if ((!flushed || truncatedBytes > 0) && firstRecovered == NOT_RECOVERED) {
                firstRecovered = baseOffset;
            }
            segments.put(baseOffset, segment);
            if (truncatedBytes > 0 && i + 1 < ordered.length) {
                LOGGER.warn(
                        "{}segment {} lost {} bytes; deleting the {} segments after it",
                        logPrefix,
                        baseOffset,
                        truncatedBytes,
                        ordered.length - i - 1);
                deleteSegmentFiles(ordered, i + 1);
                return firstRecovered;
            }
        }
        return firstRecovered;
    }

    private void deleteSegmentFiles(Long[] ordered, int from) throws IOException {
        for (int j = from; j < ordered.length; j++) {
            deleteSegmentFiles(ordered[j]);
        }
    }
}
