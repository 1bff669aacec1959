package dev.strait.broker.log;

import dev.strait.time.Time;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import java.util.Optional;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The segments of one partition's log by base offset, in its directory. The last is the active segment, the only one
 * that takes appends, and there is always at least one once the log is loaded. This holds what is true of the segment
 * files as a set: which one holds an offset, their total size, which ones to flush, deleting a run of them (and making
 * the directory forget them before anything else changes). {@link PartitionLog} keeps the offsets and the rules
 * between them; {@link PartitionLogLoader} builds the map this wraps.
 *
 * <p>Not thread-safe: guarded by the owner's lock, as {@link PartitionLog} is.
 */
final class LogSegments {

    private static final Logger LOGGER = LoggerFactory.getLogger(LogSegments.class);

    private final Path dir;
    private final TreeMap<Long, LogSegment> segments;

    /** Wraps {@code segments} (not a copy) of the log in {@code dir}. */
    LogSegments(Path dir, TreeMap<Long, LogSegment> segments) {
        this.dir = dir;
        this.segments = segments;
    }

    LogSegment active() {
        return segments.lastEntry().getValue();
    }

    void add(LogSegment segment) {
        segments.put(segment.baseOffset(), segment);
    }

    /** The segment starting at {@code baseOffset}, or null. */
    @Nullable
    LogSegment get(long baseOffset) {
        return segments.get(baseOffset);
    }

    int count() {
        return segments.size();
    }

    long firstBaseOffset() {
        return segments.firstKey();
    }

    /** The base offset of the segment after the one at {@code baseOffset}, or null if that one is the active one. */
    Long nextBaseOffset(long baseOffset) {
        return segments.higherKey(baseOffset);
    }

    /** The segments, oldest first; a copy. */
    List<LogSegment> list() {
        return List.copyOf(segments.values());
    }

    /** A read-only view by base offset, for choosers such as {@link Retention#select}. */
    NavigableMap<Long, LogSegment> view() {
        return Collections.unmodifiableNavigableMap(segments);
    }

    /** Total size of all segments. */
    long sizeBytes() {
        long total = 0;
        for (LogSegment segment : segments.values()) {
            total += segment.sizeBytes();
        }
        return total;
    }

    /**
     * Whether the active segment must roll before {@code append} is written: it would pass segment.bytes, it is
     * older than segment.ms, or the append's offsets would overflow its indexes. An empty one never rolls.
     */
    boolean rollDue(PreparedAppend append, LogConfig config, String logPrefix) {
        LogSegment active = active();
        if (active.isEmpty()) {
            return false;
        }
        boolean full = (long) active.sizeBytes() + append.sizeBytes() > config.segmentBytes();
        boolean old = active.timeWaitedForRollMs(append.nowMs(), append.maxTimestampMs()) >= config.rollMs();
        // Index entries hold offsets relative to the base offset as int32.
        boolean offsetsOverflow = append.lastOffset() - active.baseOffset() > Integer.MAX_VALUE;
        if (full || old || offsetsOverflow) {
            LOGGER.debug(
                    "{}rolling segment {} (full={}, old={}, offsetsOverflow={})",
                    logPrefix,
                    active.baseOffset(),
                    full,
                    old,
                    offsetsOverflow);
            return true;
        }
        return false;
    }

    /** See {@link PartitionLog#read(long, int, long, boolean)}; {@code limitOffset} is within the log. */
    FileSlice read(long startOffset, int maxBytes, long limitOffset, boolean minOneBatch) throws IOException {
        Map.Entry<Long, LogSegment> entry = segments.floorEntry(startOffset);
        while (entry != null) {
            LogSegment segment = entry.getValue();
            int maxPosition = segment.positionLimitFor(limitOffset);
            Optional<FileSlice> slice = segment.read(startOffset, maxBytes, maxPosition, minOneBatch);
            if (slice.isPresent()) {
                return slice.get();
            }
            entry = segments.higherEntry(entry.getKey());
        }
        return FileSlice.empty();
    }

    /** See {@link PartitionLog#findOffsetByTimestamp}. */
    Optional<TimestampAndOffset> findOffsetByTimestamp(long targetTimestampMs, long logStartOffset) throws IOException {
        for (LogSegment segment : segments.values()) {
            if (segment.nextOffset() > logStartOffset && segment.maxTimestampMs() >= targetTimestampMs) {
                Optional<TimestampAndOffset> found = segment.findOffsetByTimestamp(targetTimestampMs, logStartOffset);
                if (found.isPresent()) {
                    return found;
                }
            }
        }
        return Optional.empty();
    }

    /** Removes {@code segment} from the log and deletes its files. */
    void delete(LogSegment segment) throws IOException {
        segments.remove(segment.baseOffset());
        segment.delete();
    }

    /** Deletes the segments that lie wholly below {@code logStartOffset}, never the active one. */
    int deleteBelow(long logStartOffset) throws IOException {
        int deleted = 0;
        while (segments.size() > 1) {
            Map.Entry<Long, LogSegment> oldest = segments.firstEntry();
            if (segments.higherKey(oldest.getKey()) > logStartOffset) {
                break;
            }
            segments.remove(oldest.getKey());
            oldest.getValue().delete();
            deleted++;
        }
        return deleted;
    }

    /**
     * Deletes the segments starting at or after {@code offset} (never the first) and truncates what is then the
     * active segment to {@code offset}.
     *
     * @return the log end offset afterwards
     */
    long truncateTo(long offset) throws IOException {
        long firstBaseOffset = segments.firstKey();
        boolean deleted = false;
        for (LogSegment segment : new ArrayList<>(segments.tailMap(offset, true).values())) {
            if (segment.baseOffset() != firstBaseOffset) {
                segments.remove(segment.baseOffset());
                segment.delete();
                deleted = true;
            }
        }
        if (deleted) {
            // A deleted segment that a power cut brings back would be recovered as this replica's log.
            CheckpointFile.fsyncDirectory(dir);
        }
        active().truncateTo(offset);
        return active().nextOffset();
    }

    /** Deletes every segment and leaves one empty segment at {@code offset}. */
    void replaceWithEmpty(long offset, LogConfig config, Time time) throws IOException {
        for (LogSegment segment : segments.values()) {
            segment.delete();
        }
        segments.clear();
        segments.put(offset, LogSegment.create(dir, offset, config.indexIntervalBytes(), time));
        // The old segments must not come back after a power cut beside the new empty one.
        CheckpointFile.fsyncDirectory(dir);
    }

    /** The segments that may hold records at or after {@code offset}, and the active one. */
    List<LogSegment> from(long offset) {
        LogSegment active = active();
        List<LogSegment> found = new ArrayList<>();
        for (LogSegment segment : segments.values()) {
            if (segment.nextOffset() > offset || segment == active) {
                found.add(segment);
            }
        }
        return found;
    }

    /** Flushes the segments holding offsets at or after {@code offset}, and the active one. */
    void flushFrom(long offset) throws IOException {
        for (LogSegment segment : from(offset)) {
            segment.flush();
        }
    }

    void closeAll() throws IOException {
        for (LogSegment segment : segments.values()) {
            segment.close();
        }
    }

    /** Closes every segment, logging (under {@code logPrefix}) instead of throwing what fails. */
    void closeQuietly(String logPrefix) {
        for (LogSegment segment : segments.values()) {
            try {
                segment.close();
            } catch (IOException e) {
                LOGGER.warn("{}closing segment {} failed", logPrefix, segment.baseOffset(), e);
            }
        }
    }
}
