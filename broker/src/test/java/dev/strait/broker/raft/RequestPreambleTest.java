package dev.strait.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.raft.RaftMessage.FetchError;
import dev.strait.broker.raft.RaftRole.Follower;
import dev.strait.broker.raft.RaftRole.Leader;
import dev.strait.broker.raft.RaftRole.Resigned;
import dev.strait.broker.raft.RaftRole.Unattached;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The preamble decision for a pull (Fetch or FetchSnapshot) on the node it asks, in epoch 5. */
class RequestPreambleTest {

    private static final Leader LEADER = new Leader(5, new LeaderProgress(1, List.of(1, 2, 3), 0));

    @Test
    void onlyTheLeaderOfTheRequestsEpochServesIt() {
        assertThat(RequestPreamble.check(LEADER, 5)).isEqualTo(FetchError.NONE);
    }

    @Test
    void aRequestFromAnOlderEpochIsFencedWhateverTheRole() {
        assertThat(RequestPreamble.check(LEADER, 4)).isEqualTo(FetchError.FENCED_EPOCH);
        assertThat(RequestPreamble.check(new Follower(5, 2), 4)).isEqualTo(FetchError.FENCED_EPOCH);
        assertThat(RequestPreamble.check(new Resigned(5), 3)).isEqualTo(FetchError.FENCED_EPOCH);
    }

    @Test
    void aNodeThatDoesNotLeadItsEpochIsNotTheLeader() {
        assertThat(RequestPreamble.check(new Follower(5, 2), 5)).isEqualTo(FetchError.NOT_LEADER);
        assertThat(RequestPreamble.check(new Resigned(5), 5)).isEqualTo(FetchError.NOT_LEADER);
        assertThat(RequestPreamble.check(new Unattached(5, ElectionState.NONE), 5))
                .isEqualTo(FetchError.NOT_LEADER);
    }
}
