package dev.strait.broker.raft;

/**
 * When a {@link RaftNode}'s driver should take its next snapshot: it counts the data entries committed since the
 * latest snapshot and their payload bytes, and remembers when that snapshot was taken or installed. The triggers
 * are {@link RaftConfig#maxRecordBytesBetweenSnapshots()} and {@link RaftConfig#maxSnapshotIntervalMs()}; nothing
 * is due while nothing new is committed. Not thread-safe; owned by the node.
 */
final class SnapshotSchedule {

    private final RaftConfig config;
    private long committedEntries;
    private long committedBytes;
    private long lastSnapshotMs;

    SnapshotSchedule(RaftConfig config) {
        this.config = config;
    }

    /**
     * Starts counting afresh at {@code nowMs}, when a snapshot was taken or installed (or the node started): what
     * is committed after the log start, below {@code highWatermark}, is what the latest snapshot does not hold.
     */
    void restart(RaftStorage storage, long highWatermark, long nowMs) {
        lastSnapshotMs = nowMs;
        committedEntries = 0;
        committedBytes = 0;
        for (long offset = storage.startOffset(); offset < highWatermark; offset++) {
            onCommitted(storage.entry(offset));
        }
    }

    /** Counts {@code entry}, just committed; only data entries count. */
    void onCommitted(LogEntry entry) {
        if (entry.kind() == LogEntry.Kind.DATA) {
            committedEntries++;
            committedBytes += entry.payloadSize();
        }
    }

    /**
     * Whether a snapshot is due at {@code nowMs}: something was committed since the latest one, and either its
     * payloads reach the byte trigger or the latest snapshot is as old as the interval (0: no interval).
     */
    boolean due(long nowMs) {
        if (committedEntries == 0) {
            return false;
        }
        if (committedBytes >= config.maxRecordBytesBetweenSnapshots()) {
            return true;
        }
        return config.maxSnapshotIntervalMs() > 0 && nowMs - lastSnapshotMs >= config.maxSnapshotIntervalMs();
    }
}
