package dev.strait.broker.raft;

import dev.strait.broker.raft.RaftMessage.VoteRequest;
import dev.strait.broker.raft.RaftRole.Follower;
import dev.strait.broker.raft.RaftRole.Leader;
import dev.strait.broker.raft.RaftRole.Unattached;
import java.util.List;

/**
 * Whether a voter grants a vote or a pre-vote, as pure decisions (like {@link ResponsePreamble}); the node persists
 * the vote and answers. The rules: only voters vote, and only for voters; the election restriction (a candidate's
 * log must be at least as up to date as the voter's, or it could lack committed entries); one vote per epoch; and
 * KIP-996's pre-vote, refused by a leader and by a follower that still hears from its leader.
 */
final class VoteRules {

    private static final int NONE = ElectionState.NONE;

    private final boolean selfIsVoter;
    private final List<Integer> voters;

    VoteRules(boolean selfIsVoter, List<Integer> voters) {
        this.selfIsVoter = selfIsVoter;
        this.voters = voters;
    }

    /**
     * Whether a node in {@code role}, whose log ends at {@code ourLastEntry} and which
     * {@code leaderHeardRecently}, grants the pre-vote {@code request}.
     */
    boolean mayGrantPreVote(
            RaftRole role, VoteRequest request, OffsetAndEpoch ourLastEntry, boolean leaderHeardRecently) {
        if (!selfIsVoter
                || !voters.contains(request.source())
                || request.epoch() < role.epoch()
                || role instanceof Leader) {
            return false;
        }
        boolean leaderAlive = role instanceof Follower && leaderHeardRecently;
        return !leaderAlive && request.lastEntry().compareTo(ourLastEntry) >= 0;
    }

    /**
     * Whether a node in {@code role}, whose log ends at {@code ourLastEntry}, may vote for {@code request}'s
     * candidate in its own epoch.
     */
    boolean mayVoteFor(RaftRole role, VoteRequest request, OffsetAndEpoch ourLastEntry) {
        if (!selfIsVoter || !voters.contains(request.source())) {
            return false;
        }
        if (!(role instanceof Unattached unattached)) {
            return false; // a candidate voted for itself; a follower or leader knows the epoch's leader
        }
        boolean freeToVote = unattached.votedFor() == NONE || unattached.votedFor() == request.source();
        // Election restriction: only a candidate whose log holds everything we hold can hold every committed entry.
        return freeToVote && request.lastEntry().compareTo(ourLastEntry) >= 0;
    }
}
