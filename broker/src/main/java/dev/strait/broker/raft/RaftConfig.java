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
 */
public record RaftConfig(long electionTimeoutMs, long electionJitterMs, long fetchTimeoutMs, long fetchBackoffMs,
        long beginQuorumResendMs, long checkQuorumMs, int maxFetchEntries) {

    public RaftConfig {
        if (electionTimeoutMs <= 0 || electionJitterMs < 0 || fetchTimeoutMs <= 0 || fetchBackoffMs < 0
                || beginQuorumResendMs <= 0 || checkQuorumMs <= 0 || maxFetchEntries <= 0) {
            throw new IllegalArgumentException("invalid raft config " + this);
        }
        if (fetchTimeoutMs >= electionTimeoutMs) {
            throw new IllegalArgumentException("fetchTimeoutMs must be below electionTimeoutMs, or a single lost "
                    + "fetch starts an election: " + fetchTimeoutMs + " >= " + electionTimeoutMs);
        }
    }

    /** Defaults close to KRaft's (1 s election timeout, 2 s fetch timeout is Kafka's; ours is tighter). */
    public static RaftConfig defaults() {
        return new RaftConfig(1_000, 1_000, 500, 50, 500, 3_000, 500);
    }
}
