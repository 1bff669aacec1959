package dev.strait.broker.log;

import java.io.IOException;
import java.util.List;

/**
 * The segments one group-commit flush forces: taken under the log owner's lock by {@link PartitionLog#beginFlush},
 * forced without it ({@link #force}), and handed back to {@link PartitionLog#completeFlush} under the lock again.
 * Immutable.
 */
public final class PendingFlush {

    private final List<LogSegment> segments;
    private final long endOffset;
    private final long truncations;

    PendingFlush(List<LogSegment> segments, long endOffset, long truncations) {
        this.segments = segments;
        this.endOffset = endOffset;
        this.truncations = truncations;
    }

    /** The offset below which everything is durable once {@link #force} returned. */
    public long endOffset() {
        return endOffset;
    }

    /** How many truncations the log had seen when this flush began; see {@link RecoveryPoint#complete}. */
    long truncations() {
        return truncations;
    }

    /**
     * Forces the segments' records (not their indexes, which opening rebuilds below the recovery point).
     *
     * @throws java.nio.channels.ClosedChannelException if truncation, retention or close removed a segment
     *                                                  meanwhile; begin again
     */
    public void force() throws IOException {
        for (LogSegment segment : segments) {
            segment.forceRecords();
        }
    }
}
