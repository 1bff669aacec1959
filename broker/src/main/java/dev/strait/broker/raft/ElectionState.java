package dev.strait.broker.raft;

/**
 * The durable part of a node's quorum state: the latest epoch it knows, whom it voted for in that epoch and the
 * leader it knows for that epoch ({@link #NONE} when unknown). Written before any message that depends on it is
 * sent, so a restarted node can never vote twice in one epoch nor forget an epoch it acknowledged.
 */
public record ElectionState(int epoch, int votedFor, int leaderId) {

    public static final int NONE = -1;
    public static final ElectionState INITIAL = new ElectionState(0, NONE, NONE);

    public ElectionState {
        if (epoch < 0) {
            throw new IllegalArgumentException("negative epoch " + epoch);
        }
    }

    public boolean hasVoted() {
        return votedFor != NONE;
    }

    public boolean hasLeader() {
        return leaderId != NONE;
    }
}
