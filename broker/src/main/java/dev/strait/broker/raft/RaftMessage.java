package dev.strait.broker.raft;

import java.util.List;

/**
 * The messages nodes exchange, modelled on KRaft's Vote, BeginQuorumEpoch and Fetch (see PROTOCOL.md §3) but
 * reduced to the fields the algorithm needs. The broker's adapter maps them to and from the Kafka wire types;
 * this package never sees the wire. Every message carries the sender's current epoch, and a receiver that
 * learns of a higher epoch moves to it before doing anything else.
 */
public sealed interface RaftMessage {

    int source();

    int destination();

    int epoch();

    /** A candidate asks for a vote; {@code lastEntry} is the end of the candidate's log. */
    record VoteRequest(int source, int destination, int epoch, OffsetAndEpoch lastEntry) implements RaftMessage {
    }

    record VoteResponse(int source, int destination, int epoch, boolean granted) implements RaftMessage {
    }

    /** A new leader announces itself, so voters do not wait for their election timeout to find it. */
    record BeginQuorumEpoch(int source, int destination, int epoch) implements RaftMessage {
    }

    /**
     * A follower pulls from {@code fetchOffset}; {@code lastFetchedEpoch} is the epoch of its entry at
     * {@code fetchOffset - 1}, which the leader checks against its own log to find divergence.
     */
    record FetchRequest(int source, int destination, int epoch, long fetchOffset, int lastFetchedEpoch)
            implements RaftMessage {
    }

    /**
     * The answer to a fetch. Echoes the request's {@code fetchOffset} and {@code lastFetchedEpoch} so that a
     * follower applies a response only to the log it asked about (responses may arrive late, twice or out of
     * order). {@code divergingEpoch} is non-null when the follower's log diverges: it names the leader's end
     * offset for the largest epoch not above {@code lastFetchedEpoch}.
     */
    record FetchResponse(int source, int destination, int epoch, FetchError error, int leaderId, long fetchOffset,
            int lastFetchedEpoch, OffsetAndEpoch divergingEpoch, List<LogEntry> entries, long highWatermark)
            implements RaftMessage {

        public FetchResponse {
            entries = List.copyOf(entries);
        }
    }

    /** Why a fetch returned no data. */
    enum FetchError {
        NONE,
        /** The fetcher's epoch is older than the responder's; {@code leaderId}/{@code epoch} tell it the news. */
        FENCED_EPOCH,
        /** The responder is not the leader; {@code leaderId} is the leader it knows, or -1. */
        NOT_LEADER
    }
}
