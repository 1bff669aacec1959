package dev.strait.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.raft.RaftMessage.FetchRequest;
import dev.strait.broker.raft.RaftMessage.FetchResponse;
import dev.strait.broker.raft.RaftMessage.VoteRequest;
import dev.strait.broker.raft.RaftMessage.VoteResponse;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/** Single exchanges between hand-built nodes, with every message delivered by hand in order. */
class RaftNodeTest {

    private static final RaftConfig CONFIG = RaftConfig.defaults();

    private final Deque<RaftMessage> network = new ArrayDeque<>();
    private final List<RaftMessage> delivered = new ArrayList<>();
    private final Map<Integer, RaftNode> nodes = new TreeMap<>();

    private static LogEntry data(int epoch, long offset) {
        return new LogEntry(epoch, offset, LogEntry.Kind.DATA, new byte[] {(byte) epoch, (byte) offset});
    }

    private RaftNode node(int id, List<Integer> voters, ElectionState state, LogEntry... log) {
        SimDisk disk = new SimDisk(false);
        for (LogEntry entry : log) {
            disk.append(entry);
        }
        disk.flush();
        disk.writeElectionState(state);
        RaftNode node = new RaftNode(id, voters, CONFIG, disk, network::add, new Random(id), 0);
        nodes.put(id, node);
        return node;
    }

    private void deliverAll(long nowMs) {
        for (int i = 0; i < 100 && !network.isEmpty(); i++) {
            RaftMessage message = network.poll();
            delivered.add(message);
            nodes.get(message.destination()).handle(message, nowMs);
        }
        assertThat(network).as("messages still in flight").isEmpty();
    }

    @Test
    void followerTruncatesItsDivergentSuffixAndCatchesUp() {
        // Given: node 2 kept two entries of epoch 2 that never committed; node 1 has epoch 3 at the same offsets
        List<Integer> voters = List.of(1, 2);
        RaftNode leader = node(1, voters, new ElectionState(3, 1, -1), data(1, 0), data(1, 1), data(3, 2));
        RaftNode follower =
                node(2, voters, new ElectionState(3, -1, -1), data(1, 0), data(1, 1), data(2, 2), data(2, 3));
        // When: node 1's election timeout fires and every message is delivered
        leader.tick(10_000);
        deliverAll(10_000);
        // Then
        assertThat(leader.isLeader()).isTrue();
        assertThat(leader.epoch()).isEqualTo(4);
        assertThat(delivered).filteredOn(VoteResponse.class::isInstance).allMatch(m -> ((VoteResponse) m).granted());
        assertThat(delivered)
                .filteredOn(FetchResponse.class::isInstance)
                .map(m -> (FetchResponse) m)
                .anyMatch(r -> new OffsetAndEpoch(2, 1).equals(r.divergingEpoch()));
        assertThat(follower.endOffset()).isEqualTo(leader.endOffset()).isEqualTo(4);
        for (long offset = 0; offset < 4; offset++) {
            assertThat(follower.entry(offset)).isEqualTo(leader.entry(offset));
        }
        assertThat(follower.entry(3).kind()).isEqualTo(LogEntry.Kind.LEADER_CHANGE);
        assertThat(leader.highWatermark()).isEqualTo(4);
    }

    @Test
    void voterRefusesACandidateWithAShorterLogOfTheSameEpoch() {
        // Given
        List<Integer> voters = List.of(1, 2, 3);
        RaftNode voter = node(2, voters, new ElectionState(2, -1, -1), data(1, 0), data(2, 1), data(2, 2));
        node(1, voters, new ElectionState(2, -1, -1), data(1, 0), data(2, 1));
        // When
        voter.handle(new VoteRequest(1, 2, 3, new OffsetAndEpoch(2, 2), false), 0);
        // Then
        assertThat(network).containsExactly(new VoteResponse(2, 1, 3, false, false));
        assertThat(voter.epoch()).isEqualTo(3);
    }

    @Test
    void voteIsDurableAndNotGivenTwiceInAnEpochAcrossARestart() {
        // Given
        List<Integer> voters = List.of(1, 2, 3);
        SimDisk disk = new SimDisk(false);
        RaftNode voter = new RaftNode(2, voters, CONFIG, disk, network::add, new Random(1), 0);
        voter.handle(new VoteRequest(1, 2, 5, OffsetAndEpoch.START, false), 0);
        assertThat(network.poll()).isEqualTo(new VoteResponse(2, 1, 5, true, false));
        // When
        disk.crash(new Random(1));
        RaftNode restarted = new RaftNode(2, voters, CONFIG, disk, network::add, new Random(2), 0);
        restarted.handle(new VoteRequest(3, 2, 5, OffsetAndEpoch.START, false), 0);
        // Then
        assertThat(network.poll()).isEqualTo(new VoteResponse(2, 3, 5, false, false));
    }

    @Test
    void preVoteChangesNothingDurableAndIsRefusedWhileTheLeaderIsAlive() {
        // Given: node 2 follows node 1 in epoch 4 and has just heard from it
        List<Integer> voters = List.of(1, 2, 3);
        SimDisk disk = new SimDisk(false);
        disk.writeElectionState(new ElectionState(4, -1, 1));
        RaftNode follower = new RaftNode(2, voters, CONFIG, disk, network::add, new Random(1), 0);
        follower.handle(new RaftMessage.BeginQuorumEpoch(1, 2, 4), 10);
        network.clear();
        // When: node 3 asks for a pre-vote, now and again after the election timeout without leader contact
        follower.handle(new VoteRequest(3, 2, 4, new OffsetAndEpoch(10, 4), true), 10);
        RaftMessage whileAlive = network.poll();
        follower.handle(new VoteRequest(3, 2, 4, new OffsetAndEpoch(10, 4), true), 10 + CONFIG.electionTimeoutMs());
        RaftMessage afterTimeout = network.poll();
        // Then
        assertThat(whileAlive).isEqualTo(new VoteResponse(2, 3, 4, false, true));
        assertThat(afterTimeout).isEqualTo(new VoteResponse(2, 3, 4, true, true));
        assertThat(disk.electionState()).isEqualTo(new ElectionState(4, -1, 1));
        assertThat(follower.leaderId()).isEqualTo(1);
    }

    @Test
    void electionTimeoutStartsAPreVoteInTheCurrentEpoch() {
        // Given
        List<Integer> voters = List.of(1, 2, 3);
        RaftNode node = node(1, voters, new ElectionState(2, -1, -1), data(1, 0));
        network.clear();
        // When
        node.tick(10_000);
        // Then: pre-vote requests in epoch 2; the real election in epoch 3 waits for a majority of pre-votes
        assertThat(network).hasSize(2).allMatch(m -> m instanceof VoteRequest r && r.preVote() && r.epoch() == 2);
        network.clear();
        node.handle(new VoteResponse(2, 1, 2, true, true), 10_001);
        assertThat(node.epoch()).isEqualTo(3);
        assertThat(network).hasSize(2).allMatch(m -> m instanceof VoteRequest r && !r.preVote() && r.epoch() == 3);
    }

    @Test
    void lateFetchResponseForAnOlderLogIsIgnored() {
        // Given: node 2 follows node 1 and already holds entry 0
        List<Integer> voters = List.of(1, 2);
        RaftNode follower = node(2, voters, new ElectionState(1, 1, 1), data(1, 0));
        network.clear();
        // When: a duplicate of the answer to its fetch from offset 0 arrives
        follower.handle(
                new FetchResponse(1, 2, 1, RaftMessage.FetchError.NONE, 1, 0, 0, null, List.of(data(1, 0)), 1), 5);
        // Then: nothing appended twice, no new fetch triggered by it
        assertThat(follower.endOffset()).isEqualTo(1);
        assertThat(network).noneMatch(FetchRequest.class::isInstance);
    }
}
