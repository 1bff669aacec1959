package dev.strait.broker.metadata;

/** No node answered as leader of the metadata quorum in time (an election is under way); retry shortly. */
public final class QuorumLeaderUnknownException extends RuntimeException {
    public QuorumLeaderUnknownException(String message) {
        super(message);
    }
}
