package dev.strait.broker.raft;

/**
 * Timing and size settings of a {@link RaftNode}. All times are in milliseconds of the clock the driver passes
 * in.
 *
 * @param electionTimeoutMs how long a voter waits without hearing from a leader before it stands for election
 * @param electionJitterMs upper bound of the random extra wait added to each election timeout, so that
 *     candidates rarely split the vote forever
 * @param fetchTimeoutMs how long a follower waits for a fetch response before asking again
 * @param fetchBackoffMs how long an up-to-date follower waits before its next fetch (our stand-in for Kafka's
 *     long-poll {@code MaxWaitMs})
 * @param beginQuorumResendMs how often a leader repeats BeginQuorumEpoch to voters that have not fetched
 * @param checkQuorumMs a leader that has not heard from a majority for this long resigns
 * @param maxFetchEntries most entries returned by one fetch
 * @param maxRecordBytesBetweenSnapshots a snapshot is due once this many payload bytes were committed since the
 *     latest one (Kafka's {@code metadata.log.max.record.bytes.between.snapshots})
 * @param maxSnapshotIntervalMs a snapshot is also due this long after the latest one if anything was committed
 *     since; 0 turns the timer off (Kafka's {@code metadata.log.max.snapshot.interval.ms})
 * @param snapshotChunkBytes most snapshot bytes a follower asks for in one FetchSnapshot request
 * @param highWatermarkCheckpointMs how often a node that learned of a higher high watermark writes it to disk,
 *     so that a restart knows what was committed before it hears from a leader
 */
public record RaftConfig(
        long electionTimeoutMs,
        long electionJitterMs,
        long fetchTimeoutMs,
        long fetchBackoffMs,
        long beginQuorumResendMs,
        long checkQuorumMs,
        int maxFetchEntries,
        long maxRecordBytesBetweenSnapshots,
        long maxSnapshotIntervalMs,
        int snapshotChunkBytes,
        long highWatermarkCheckpointMs) {

    /** Kafka's default of {@code metadata.log.max.record.bytes.between.snapshots}: 20 MiB. */
    public static final long DEFAULT_MAX_RECORD_BYTES_BETWEEN_SNAPSHOTS = 20L * 1024 * 1024;
    /** Kafka's default of {@code metadata.log.max.snapshot.interval.ms}: one hour. */
    public static final long DEFAULT_MAX_SNAPSHOT_INTERVAL_MS = 3_600_000L;

    public static final int DEFAULT_SNAPSHOT_CHUNK_BYTES = 1024 * 1024;
    public static final long DEFAULT_HIGH_WATERMARK_CHECKPOINT_MS = 1_000L;

    public RaftConfig {
        if (electionTimeoutMs <= 0
                || electionJitterMs < 0
                || fetchTimeoutMs <= 0
                || fetchBackoffMs < 0
                || beginQuorumResendMs <= 0
                || checkQuorumMs <= 0
                || maxFetchEntries <= 0) {
            throw new IllegalArgumentException("invalid raft config " + this);
        }
        if (fetchTimeoutMs >= electionTimeoutMs) {
            throw new IllegalArgumentException("fetchTimeoutMs must be below electionTimeoutMs, or a single lost "
                    + "fetch starts an election: " + fetchTimeoutMs + " >= " + electionTimeoutMs);
        }
        if (maxRecordBytesBetweenSnapshots <= 0
                || maxSnapshotIntervalMs < 0
                || snapshotChunkBytes <= 0
                || highWatermarkCheckpointMs <= 0) {
            throw new IllegalArgumentException("invalid snapshot settings in raft config " + this);
        }
    }

    /** The timings alone; snapshot and checkpoint settings take their defaults. */
    public RaftConfig(
            long electionTimeoutMs,
            long electionJitterMs,
            long fetchTimeoutMs,
            long fetchBackoffMs,
            long beginQuorumResendMs,
            long checkQuorumMs,
            int maxFetchEntries) {
        this(
                electionTimeoutMs,
                electionJitterMs,
                fetchTimeoutMs,
                fetchBackoffMs,
                beginQuorumResendMs,
                checkQuorumMs,
                maxFetchEntries,
                DEFAULT_MAX_RECORD_BYTES_BETWEEN_SNAPSHOTS,
                DEFAULT_MAX_SNAPSHOT_INTERVAL_MS,
                DEFAULT_SNAPSHOT_CHUNK_BYTES,
                DEFAULT_HIGH_WATERMARK_CHECKPOINT_MS);
    }

    /** Defaults close to KRaft's (1 s election timeout, 2 s fetch timeout is Kafka's; ours is tighter). */
    public static RaftConfig defaults() {
        return new RaftConfig(1_000, 1_000, 500, 50, 500, 3_000, 500);
    }

    /** This config with other snapshot triggers (see the parameters of the same names). */
    public RaftConfig withSnapshots(long maxRecordBytesBetweenSnapshots, long maxSnapshotIntervalMs) {
        return new RaftConfig(
                electionTimeoutMs,
                electionJitterMs,
                fetchTimeoutMs,
                fetchBackoffMs,
                beginQuorumResendMs,
                checkQuorumMs,
                maxFetchEntries,
                maxRecordBytesBetweenSnapshots,
                maxSnapshotIntervalMs,
                snapshotChunkBytes,
                highWatermarkCheckpointMs);
    }

    /** This config with another FetchSnapshot chunk size and high-watermark checkpoint interval. */
    public RaftConfig withTransfer(int snapshotChunkBytes, long highWatermarkCheckpointMs) {
        return new RaftConfig(
                electionTimeoutMs,
                electionJitterMs,
                fetchTimeoutMs,
                fetchBackoffMs,
                beginQuorumResendMs,
                checkQuorumMs,
                maxFetchEntries,
                maxRecordBytesBetweenSnapshots,
                maxSnapshotIntervalMs,
                snapshotChunkBytes,
                highWatermarkCheckpointMs);
    }
}
