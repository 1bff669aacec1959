package dev.strait.broker.raft;

import dev.strait.broker.raft.RaftMessage.FetchError;
import dev.strait.broker.raft.RaftRole.Leader;

/**
 * The check every pull (Fetch and FetchSnapshot requests) goes through on the node it asks, before that node serves
 * it: only the leader of the request's epoch serves. The request-side twin of {@link ResponsePreamble}; one decision,
 * so that both requests are refused alike. By then {@link RaftNode#handle} has already moved the node to the
 * request's epoch if it was higher.
 */
final class RequestPreamble {

    private RequestPreamble() {}

    /**
     * {@link FetchError#NONE} if {@code role} leads {@code requestEpoch}; otherwise the refusal to answer with:
     * {@link FetchError#FENCED_EPOCH} for a request from an older epoch, {@link FetchError#NOT_LEADER} for one from
     * the node's own epoch, which it does not lead.
     */
    static FetchError check(RaftRole role, int requestEpoch) {
        if (role instanceof Leader leader && requestEpoch == leader.epoch()) {
            return FetchError.NONE;
        }
        return requestEpoch < role.epoch() ? FetchError.FENCED_EPOCH : FetchError.NOT_LEADER;
    }
}
