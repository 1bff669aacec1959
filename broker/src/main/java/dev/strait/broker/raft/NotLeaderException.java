package dev.strait.broker.raft;

/**
 * A proposal was made to, or was pending on, a node that is not (or is no longer) the leader. For a pending
 * proposal the outcome is unknown: the entry may still be committed by a later leader.
 */
public final class NotLeaderException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final int leaderId;
    private final int epoch;

    public NotLeaderException(String message, int leaderId, int epoch) {
        super(message + " (known leader " + leaderId + " in epoch " + epoch + ")");
        this.leaderId = leaderId;
        this.epoch = epoch;
    }

    /** Leader the node knows of, or -1. */
    public int leaderId() {
        return leaderId;
    }

    public int epoch() {
        return epoch;
    }
}
