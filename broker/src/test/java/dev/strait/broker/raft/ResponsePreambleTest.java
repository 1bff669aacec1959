package dev.strait.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.raft.RaftMessage.FetchError;
import dev.strait.broker.raft.RaftRole.Candidate;
import dev.strait.broker.raft.RaftRole.Follower;
import dev.strait.broker.raft.RaftRole.Leader;
import dev.strait.broker.raft.RaftRole.Prospective;
import dev.strait.broker.raft.RaftRole.Resigned;
import dev.strait.broker.raft.RaftRole.Unattached;
import dev.strait.broker.raft.ResponsePreamble.Verdict;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The preamble decision for answers to a follower's pulls, as seen by node 1 in epoch 5. */
class ResponsePreambleTest {

    private static final int SELF = 1;
    private static final int NONE = ElectionState.NONE;

    private static Verdict check(RaftRole role, int epoch, int source, FetchError error, int leaderId) {
        return ResponsePreamble.check(SELF, role, epoch, source, error, leaderId);
    }

    @Test
    void anAnswerFromAnOlderEpochIsStaleWhateverItSays() {
        assertThat(check(new Follower(5, 2), 4, 2, FetchError.NONE, 2)).isEqualTo(Verdict.STALE_EPOCH);
        assertThat(check(new Unattached(5, NONE), 4, 2, FetchError.NOT_LEADER, 3))
                .isEqualTo(Verdict.STALE_EPOCH);
    }

    @Test
    void aNodeThatKnowsNoLeaderFollowsTheOneAnAnswerNames() {
        // an answer without error comes from the leader itself
        assertThat(check(new Unattached(5, NONE), 5, 2, FetchError.NONE, 2)).isEqualTo(Verdict.FOLLOW_NAMED_LEADER);
        assertThat(ResponsePreamble.namedLeader(2, FetchError.NONE, NONE)).isEqualTo(2);
        // an error names the leader its sender knows, which the node then follows even from a refusal
        assertThat(check(new Prospective(5, SELF, NONE), 5, 3, FetchError.NOT_LEADER, 2))
                .isEqualTo(Verdict.FOLLOW_NAMED_LEADER);
        assertThat(ResponsePreamble.namedLeader(3, FetchError.NOT_LEADER, 2)).isEqualTo(2);
        assertThat(check(new Candidate(5, SELF), 5, 3, FetchError.FENCED_EPOCH, 2))
                .isEqualTo(Verdict.FOLLOW_NAMED_LEADER);
    }

    @Test
    void aRefusalThatNamesNoLeaderOrThisNodeIsDropped() {
        assertThat(check(new Unattached(5, NONE), 5, 3, FetchError.NOT_LEADER, NONE))
                .isEqualTo(Verdict.REFUSED);
        assertThat(check(new Unattached(5, NONE), 5, 3, FetchError.NOT_LEADER, SELF))
                .isEqualTo(Verdict.REFUSED);
        // a node that knows its leader learns nothing from another's refusal, even one naming someone else
        assertThat(check(new Follower(5, 2), 5, 2, FetchError.FENCED_EPOCH, 3)).isEqualTo(Verdict.REFUSED);
        assertThat(check(new Follower(5, 2), 5, 2, FetchError.NOT_LEADER, 2)).isEqualTo(Verdict.REFUSED);
    }

    @Test
    void onlyTheFollowedLeadersAnswersGoOnToTheHandler() {
        assertThat(check(new Follower(5, 2), 5, 2, FetchError.NONE, 2)).isEqualTo(Verdict.FROM_LEADER);
        // errors other than a refusal are the handler's to read (a snapshot gone or out of range)
        assertThat(check(new Follower(5, 2), 5, 2, FetchError.SNAPSHOT_NOT_FOUND, 2))
                .isEqualTo(Verdict.FROM_LEADER);
        assertThat(check(new Follower(5, 2), 5, 3, FetchError.NONE, 3)).isEqualTo(Verdict.NOT_FROM_LEADER);
        assertThat(check(new Resigned(5), 5, 2, FetchError.NONE, 2)).isEqualTo(Verdict.NOT_FROM_LEADER);
        Leader leader = new Leader(5, new LeaderProgress(SELF, List.of(1, 2, 3), 0));
        assertThat(check(leader, 5, 2, FetchError.NONE, 2)).isEqualTo(Verdict.NOT_FROM_LEADER);
        // an answer claiming to come from this node itself never makes it follow itself
        assertThat(check(new Unattached(5, NONE), 5, SELF, FetchError.NONE, SELF))
                .isEqualTo(Verdict.NOT_FROM_LEADER);
    }

    @Test
    void theKnownLeaderOfAnEpochIncludesThisNodeWhenItLedIt() {
        assertThat(ResponsePreamble.knownLeaderOfEpoch(new Resigned(5), SELF)).isEqualTo(SELF);
        Leader leader = new Leader(5, new LeaderProgress(SELF, List.of(1, 2, 3), 0));
        assertThat(ResponsePreamble.knownLeaderOfEpoch(leader, SELF)).isEqualTo(SELF);
        assertThat(ResponsePreamble.knownLeaderOfEpoch(new Follower(5, 2), SELF))
                .isEqualTo(2);
        // a prospective candidate still fetches from its old leader but no longer counts it as the epoch's
        assertThat(ResponsePreamble.knownLeaderOfEpoch(new Prospective(5, SELF, 2), SELF))
                .isEqualTo(NONE);
        assertThat(ResponsePreamble.knownLeaderOfEpoch(new Unattached(5, 2), SELF))
                .isEqualTo(NONE);
    }
}
