package dev.strait.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.raft.QuorumDescription.Replica;
import dev.strait.broker.raft.RaftMessage.FetchRequest;
import dev.strait.broker.raft.RaftMessage.VoteResponse;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;
import java.util.OptionalLong;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * What a leader reports for DescribeQuorum (Kafka's LeaderState.describeQuorum rules): the voters' and observers'
 * log ends and fetch times as its valid fetches confirmed them, "caught up" when a fetch reached the leader's end
 * or the end the leader had at the previous fetch, unknown (-1 / empty) until a replica fetched in this epoch.
 * Every message is built and delivered by hand, at chosen times.
 */
class RaftDescribeQuorumTest {

    private static final List<Integer> VOTERS = List.of(1, 2, 3);
    private static final long T = 10_000;

    private final Deque<RaftMessage> network = new ArrayDeque<>();

    private RaftNode node(int id, ElectionState state) {
        SimDisk disk = new SimDisk(false);
        disk.append(new LogEntry(1, 0, LogEntry.Kind.DATA, new byte[] {1}));
        disk.flush();
        disk.writeElectionState(state);
        return new RaftNode(id, VOTERS, RaftConfig.defaults(), disk, network::add, new Random(id), 0);
    }

    /** Node 1 leads epoch 3; its log is entry 0 (epoch 1) and its leader-change entry at 1. */
    private RaftNode leader() {
        RaftNode node = node(1, new ElectionState(2, -1, -1));
        node.tick(T);
        node.handle(new VoteResponse(2, 1, 2, true, true), T);
        node.handle(new VoteResponse(2, 1, 3, true, false), T);
        assertThat(node.isLeader()).isTrue();
        assertThat(node.epoch()).isEqualTo(3);
        assertThat(node.endOffset()).isEqualTo(2);
        network.clear();
        return node;
    }

    private static Replica replica(int id, long end, long fetchMs, long caughtUpMs) {
        return new Replica(
                id,
                end,
                fetchMs < 0 ? OptionalLong.empty() : OptionalLong.of(fetchMs),
                caughtUpMs < 0 ? OptionalLong.empty() : OptionalLong.of(caughtUpMs));
    }

    @Test
    void aNewLeaderKnowsOnlyItselfUntilTheOthersFetch() {
        // Given
        RaftNode leader = leader();
        // When
        QuorumDescription described = leader.describeQuorum(T + 5).orElseThrow();
        // Then: the leader reports itself as fetching and caught up now; the others unknown, no observers
        assertThat(described.leaderId()).isEqualTo(1);
        assertThat(described.leaderEpoch()).isEqualTo(3);
        assertThat(described.voters())
                .containsExactly(replica(1, 2, T + 5, T + 5), replica(2, -1, -1, -1), replica(3, -1, -1, -1));
        assertThat(described.observers()).isEmpty();
    }

    @Test
    void fetchesSetLogEndsFetchTimesAndCaughtUpTimes() {
        // Given
        RaftNode leader = leader();
        // When: node 2 fetches from 1 (behind), then from the leader's end 2
        leader.handle(new FetchRequest(2, 1, 3, 1, 1), T + 10);
        leader.handle(new FetchRequest(2, 1, 3, 2, 3), T + 20);
        // and node 3 fetches from 2 while the leader's log ends at 3, then from 3 once it ends at 4
        leader.propose(new byte[] {2}, T + 30);
        leader.handle(new FetchRequest(3, 1, 3, 2, 3), T + 40);
        leader.propose(new byte[] {3}, T + 45);
        leader.handle(new FetchRequest(3, 1, 3, 3, 3), T + 50);
        // and observer 7 (not a voter) fetches from 1
        leader.handle(new FetchRequest(7, 1, 3, 1, 1), T + 60);
        QuorumDescription described = leader.describeQuorum(T + 70).orElseThrow();
        // Then
        assertThat(described.voters())
                .containsExactly(
                        replica(1, 4, T + 70, T + 70),
                        // fetched from the leader's end at T + 20
                        replica(2, 2, T + 20, T + 20),
                        // at T + 50 it reached the end the leader had at its previous fetch (T + 40): caught up as of
                        // then
                        replica(3, 3, T + 50, T + 40));
        assertThat(described.observers()).containsExactly(replica(7, 1, T + 60, -1));
        assertThat(described.highWatermark()).isEqualTo(leader.highWatermark()).isEqualTo(3);
    }

    @Test
    void anObserverSilentForFiveMinutesIsForgotten() {
        // Given
        RaftNode leader = leader();
        leader.handle(new FetchRequest(7, 1, 3, 1, 1), T);
        // When / Then
        assertThat(leader.describeQuorum(T + QuorumDescription.OBSERVER_SESSION_MS - 1)
                        .orElseThrow()
                        .observers())
                .extracting(Replica::nodeId)
                .containsExactly(7);
        assertThat(leader.describeQuorum(T + QuorumDescription.OBSERVER_SESSION_MS)
                        .orElseThrow()
                        .observers())
                .isEmpty();
    }

    @Test
    void aFetchTheLeaderCannotValidateCountsForNothing() {
        // Given
        RaftNode leader = leader();
        // When: node 2 claims entries of epoch 2, which the leader's log does not have (a diverging fetch)
        leader.handle(new FetchRequest(2, 1, 3, 2, 2), T + 10);
        // Then
        assertThat(leader.describeQuorum(T + 20).orElseThrow().voters()).contains(replica(2, -1, -1, -1));
    }

    @Test
    void onlyTheLeaderDescribesTheQuorum() {
        // Given: a follower of node 1 and a node that knows no leader
        RaftNode follower = node(2, new ElectionState(3, 1, 1));
        RaftNode unattached = node(3, new ElectionState(3, -1, -1));
        // Then
        assertThat(follower.leaderId()).isEqualTo(1);
        assertThat(follower.describeQuorum(T)).isEmpty();
        assertThat(unattached.describeQuorum(T)).isEmpty();
    }

    @Test
    void aLeaderOfALaterEpochStartsWithNothingKnown() {
        // Given: node 1 led epoch 3 and node 2 fetched from it
        RaftNode leader = leader();
        leader.handle(new FetchRequest(2, 1, 3, 2, 3), T + 10);
        // When: a vote request of epoch 4 deposes it; it grants the vote, then wins epoch 5 itself
        leader.handle(new RaftMessage.VoteRequest(3, 1, 4, new OffsetAndEpoch(2, 3), false), T + 20);
        assertThat(leader.describeQuorum(T + 20)).isEmpty();
        leader.tick(T + 100_000);
        leader.handle(new VoteResponse(2, 1, 4, true, true), T + 100_000);
        leader.handle(new VoteResponse(2, 1, 5, true, false), T + 100_000);
        // Then
        QuorumDescription described = leader.describeQuorum(T + 100_001).orElseThrow();
        assertThat(described.leaderEpoch()).isEqualTo(5);
        assertThat(described.voters()).contains(replica(2, -1, -1, -1));
    }
}
