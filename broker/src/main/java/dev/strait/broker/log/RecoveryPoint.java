package dev.strait.broker.log;

import java.io.IOException;
import java.util.List;

/**
 * How much of one partition's log is known to be on disk: the recovery point (everything below it is flushed, so
 * reopening checks it only cheaply) and the flushes that move it, the group-commit kind included. It also counts
 * truncations, because a flush begun before one must not vouch for records appended after it at the same offsets.
 *
 * <p>It exists so that the rules that move the recovery point sit together, apart from appends and reads; the log
 * checkpoints it in its {@link LogStateFile}. Not thread-safe: guarded by the owner's lock, as {@link PartitionLog}
 * is.
 */
final class RecoveryPoint {

    private final LogSegments segments;
    private long offset;
    /** Counts truncations, so that a flush begun before one does not vouch for records appended after it. */
    private long truncations;

    RecoveryPoint(LogSegments segments, long offset) {
        this.segments = segments;
        this.offset = offset;
    }

    long offset() {
        return offset;
    }

    /** Whether everything below {@code logEndOffset} is known to be on disk. */
    boolean covers(long logEndOffset) {
        return offset >= logEndOffset;
    }

    /** Everything below {@code logEndOffset} is on disk (the segments before it were flushed). */
    void advanceTo(long logEndOffset) {
        offset = logEndOffset;
    }

    /** Flushes what may lie at or above the recovery point, then moves it to {@code logEndOffset}. */
    void flushTo(long logEndOffset) throws IOException {
        segments.flushFrom(offset);
        offset = logEndOffset;
    }

    /** The segments to force so that everything below {@code logEndOffset} is durable; see {@link PendingFlush}. */
    PendingFlush begin(long logEndOffset) {
        return new PendingFlush(List.copyOf(segments.from(offset)), logEndOffset, truncations);
    }

    /**
     * Moves up to what {@code flush} made durable, at most {@code logEndOffset}; ignored if the log was truncated
     * since it began (offsets below its end may now hold records it never forced).
     */
    void complete(PendingFlush flush, long logEndOffset) {
        if (flush.truncations() == truncations) {
            offset = Math.max(offset, Math.min(flush.endOffset(), logEndOffset));
        }
    }

    /** A truncation begins; flushes begun before it no longer vouch for anything. */
    void onTruncationStarted() {
        truncations++;
    }

    /** The log was truncated to {@code logEndOffset}. */
    void onTruncated(long logEndOffset) {
        offset = Math.min(offset, logEndOffset);
    }

    /** The log restarted, empty, at {@code startOffset}. */
    void restartAt(long startOffset) {
        offset = startOffset;
    }
}
