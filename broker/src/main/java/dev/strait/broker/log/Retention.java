package dev.strait.broker.log;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which segments {@code retention.ms} and {@code retention.bytes} delete: a run of the oldest, each one expired
 * (its largest timestamp is older than retention.ms) or oversized (the log stays at least retention.bytes without
 * it). The run stops at the first segment that is neither, at the first that reaches above the high watermark
 * (uncommitted records are never lost) and before the active segment (it becomes eligible once it rolls).
 * {@link #select} only chooses; {@link #deleteSelected} also deletes, and the log then moves its start offset past
 * what went ({@link PartitionLog#deleteSegmentsForRetention}). Stateless.
 */
final class Retention {

    private static final Logger LOGGER = LoggerFactory.getLogger(Retention.class);

    /** A segment to delete, and why. */
    record Deletion(LogSegment segment, boolean expired, boolean oversized) {}

    private Retention() {}

    /**
     * @param segments      the log's segments by base offset; the last is the active segment
     * @param highWatermark segments holding offsets at or above it are kept
     * @return the segments to delete, oldest first
     */
    static List<Deletion> select(
            NavigableMap<Long, LogSegment> segments, LogConfig config, long highWatermark, long nowMs) {
        long excessBytes = 0;
        if (config.retentionBytes() >= 0) {
            long sizeBytes = 0;
            for (LogSegment segment : segments.values()) {
                sizeBytes += segment.sizeBytes();
            }
            excessBytes = sizeBytes - config.retentionBytes();
        }
        List<Deletion> deletions = new ArrayList<>();
        for (Map.Entry<Long, LogSegment> entry :
                segments.headMap(segments.lastKey(), false).entrySet()) {
            LogSegment segment = entry.getValue();
            long upperBoundOffset = segments.higherKey(entry.getKey());
            boolean expired = config.retentionMs() >= 0 && nowMs - segment.largestTimestampMs() > config.retentionMs();
            boolean oversized = excessBytes > 0 && excessBytes >= segment.sizeBytes();
            if (upperBoundOffset > highWatermark || !(expired || oversized)) {
                break;
            }
            excessBytes -= segment.sizeBytes();
            deletions.add(new Deletion(segment, expired, oversized));
        }
        return deletions;
    }

    /**
     * Deletes the segments {@link #select} chooses, oldest first, logging each with its reasons.
     *
     * @return how many were deleted
     */
    static int deleteSelected(LogSegments segments, LogConfig config, long highWatermark, long nowMs, String logPrefix)
            throws IOException {
        int deleted = 0;
        for (Deletion deletion : select(segments.view(), config, highWatermark, nowMs)) {
            LogSegment segment = deletion.segment();
            LOGGER.info(
                    "{}deleting segment {} for retention (expired={}, oversized={})",
                    logPrefix,
                    segment.baseOffset(),
                    deletion.expired(),
                    deletion.oversized());
            segments.delete(segment);
            deleted++;
        }
        return deleted;
    }
}
