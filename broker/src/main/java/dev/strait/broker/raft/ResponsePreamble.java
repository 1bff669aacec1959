package dev.strait.broker.raft;

import dev.strait.broker.raft.RaftMessage.FetchError;
import dev.strait.broker.raft.RaftRole.Follower;
import dev.strait.broker.raft.RaftRole.Leader;
import dev.strait.broker.raft.RaftRole.Resigned;

/**
 * The checks every answer to a follower's pull (Fetch and FetchSnapshot responses) goes through before its handler
 * reads the payload, as one pure decision. By then {@link RaftNode#handle} has already moved the node to the
 * answer's epoch if it was higher, so an answer is either from an older epoch or from the node's own.
 */
final class ResponsePreamble {

    /** What the node does with an answer before, or instead of, handling its payload. */
    enum Verdict {
        /** From an older epoch: drop it. */
        STALE_EPOCH,
        /**
         * The node knew no leader of its epoch and the answer names one ({@link #namedLeader}): follow that leader
         * and drop the answer, which was meant for a node in another role.
         */
        FOLLOW_NAMED_LEADER,
        /** The responder fenced the request or does not lead, and names no leader the node did not know: drop it. */
        REFUSED,
        /** Not from the leader the node follows (or the node follows no one): drop it. */
        NOT_FROM_LEADER,
        /** From the leader the node follows in its epoch: the handler goes on to the payload. */
        FROM_LEADER
    }

    private static final int NONE = ElectionState.NONE;

    private ResponsePreamble() {}

    /**
     * Decides what node {@code selfId}, in {@code role}, does with an answer from {@code source} sent in
     * {@code epoch} with {@code error} and naming {@code leaderId} as the leader it knows.
     */
    static Verdict check(int selfId, RaftRole role, int epoch, int source, FetchError error, int leaderId) {
        if (epoch < role.epoch()) {
            return Verdict.STALE_EPOCH;
        }
        int named = namedLeader(source, error, leaderId);
        if (knownLeaderOfEpoch(role, selfId) == NONE && named != NONE && named != selfId) {
            return Verdict.FOLLOW_NAMED_LEADER;
        }
        if (error == FetchError.FENCED_EPOCH || error == FetchError.NOT_LEADER) {
            return Verdict.REFUSED;
        }
        if (!(role instanceof Follower follower) || follower.leaderId() != source) {
            return Verdict.NOT_FROM_LEADER;
        }
        return Verdict.FROM_LEADER;
    }

    /**
     * The leader an answer names. Only the epoch's leader answers without error, so such an answer names its
     * sender as surely as an error naming a leader does.
     */
    static int namedLeader(int source, FetchError error, int leaderId) {
        return error == FetchError.NONE ? source : leaderId;
    }

    /** The leader of the current epoch as far as node {@code selfId} in {@code role} knows, including itself. */
    static int knownLeaderOfEpoch(RaftRole role, int selfId) {
        if (role instanceof Leader || role instanceof Resigned) {
            return selfId;
        }
        return role instanceof Follower follower ? follower.leaderId() : NONE;
    }
}
