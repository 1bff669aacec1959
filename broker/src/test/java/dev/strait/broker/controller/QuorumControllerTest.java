package dev.strait.broker.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.controller.ControllerRequest.AlterPartition;
import dev.strait.broker.controller.ControllerRequest.CreateTopic;
import dev.strait.broker.controller.ControllerRequest.Heartbeat;
import dev.strait.broker.controller.ControllerRequest.RegisterBroker;
import dev.strait.broker.controller.ControllerResponse.Error;
import dev.strait.broker.raft.metadata.MetadataImage.PartitionState;
import dev.strait.broker.raft.metadata.MetadataImage.TopicImage;
import dev.strait.broker.raft.metadata.MetadataRecord;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The controller's rules without Raft or sockets: a fake proposer appends records to a list and commits each
 * one at once, and the test drives time by hand.
 */
class QuorumControllerTest {

    private static final long SESSION_MS = 1_000;

    private final List<MetadataRecord> log = new ArrayList<>();
    private long now = 10_000;
    private long nextTopic;
    private final QuorumController controller = new QuorumController(0, SESSION_MS, 1, ClusterImage.EMPTY,
            record -> {
                log.add(record);
                long offset = log.size() - 1;
                return new QuorumController.Proposal(offset, CompletableFuture.completedFuture(offset));
            }, () -> new UUID(7, ++nextTopic), now);
    private final long[] epochs = new long[4];

    private ControllerResponse call(ControllerRequest request) {
        return controller.handle(request, now).join();
    }

    private void registerAndUnfence(int... ids) {
        for (int id : ids) {
            ControllerResponse registered = call(new RegisterBroker(id, UUID.randomUUID(), "h", 9000 + id));
            assertThat(registered.error()).isEqualTo(Error.NONE);
            epochs[id] = registered.value();
            assertThat(call(new Heartbeat(id, epochs[id], registered.offset() + 1, false)).flag()).isFalse();
        }
    }

    private void heartbeat(int... ids) {
        for (int id : ids) {
            assertThat(call(new Heartbeat(id, epochs[id], Long.MAX_VALUE, false)).error()).isEqualTo(Error.NONE);
        }
    }

    private PartitionState partition(String topic, int partition) {
        return controller.projected().topic(topic).map(TopicImage::partitions).orElseThrow().get(partition);
    }

    private UUID topicId(String topic) {
        return controller.projected().topic(topic).orElseThrow().topicId();
    }

    @Test
    void placementIsRoundRobinOverUnfencedNodesAndTheFirstReplicaLeads() {
        // Given
        registerAndUnfence(1, 2, 3);

        // When
        assertThat(call(new CreateTopic("t", 3, 2, Map.of())).error()).isEqualTo(Error.NONE);

        // Then
        List<Integer> leaders = new ArrayList<>();
        for (int p = 0; p < 3; p++) {
            PartitionState state = partition("t", p);
            assertThat(state.replicas()).hasSize(2).doesNotHaveDuplicates();
            assertThat(state.isr()).isEqualTo(state.replicas());
            assertThat(state.leader()).isEqualTo(state.replicas().get(0));
            leaders.add(state.leader());
        }
        assertThat(leaders).containsExactlyInAnyOrder(1, 2, 3);
        assertThat(call(new CreateTopic("t", 1, 1, Map.of())).error()).isEqualTo(Error.TOPIC_EXISTS);
        assertThat(call(new CreateTopic("u", 1, 4, Map.of())).error()).isEqualTo(Error.INVALID_REPLICATION_FACTOR);
        assertThat(call(new CreateTopic("u", 0, 1, Map.of())).error()).isEqualTo(Error.INVALID_REQUEST);
    }

    @Test
    void aSilentNodeIsFencedAndItsLeadershipsGoToTheNextIsrMemberInANewEpoch() {
        // Given
        registerAndUnfence(1, 2, 3);
        call(new CreateTopic("t", 3, 3, Map.of()));
        int victim = partition("t", 0).leader();

        // When: everyone but the victim heartbeats past its session
        now += SESSION_MS / 2;
        heartbeat(java.util.stream.IntStream.of(1, 2, 3).filter(id -> id != victim).toArray());
        now += SESSION_MS / 2 + 1;
        controller.tick(now);

        // Then
        assertThat(controller.projected().isUnfenced(victim)).isFalse();
        for (int p = 0; p < 3; p++) {
            PartitionState state = partition("t", p);
            assertThat(state.isr()).doesNotContain(victim).hasSize(2);
            assertThat(state.leader()).isNotEqualTo(victim).isIn(state.isr());
        }
        assertThat(partition("t", 0).leaderEpoch()).isEqualTo(1);
    }

    @Test
    void theLastIsrMemberStaysInTheIsrWhenFencedSoNoOutOfSyncReplicaCanLead() {
        // Given: a single-replica partition on node 1, and node 2 alive
        registerAndUnfence(1, 2);
        call(new CreateTopic("solo", 2, 1, Map.of()));
        int p = partition("solo", 0).leader() == 1 ? 0 : 1;

        // When: node 1 goes silent
        now += SESSION_MS / 2;
        heartbeat(2);
        now += SESSION_MS / 2 + 1;
        controller.tick(now);

        // Then: leaderless, ISR kept; back when node 1 is
        PartitionState fenced = partition("solo", p);
        assertThat(fenced.leader()).isEqualTo(-1);
        assertThat(fenced.isr()).containsExactly(1);
        heartbeat(1);
        assertThat(partition("solo", p).leader()).isEqualTo(1);
        assertThat(partition("solo", p).leaderEpoch()).isEqualTo(fenced.leaderEpoch() + 1);
    }

    @Test
    void aRestartedNodeLeavesEveryIsrItIsNotTheLastMemberOf() {
        // Given
        registerAndUnfence(1, 2);
        call(new CreateTopic("t", 2, 2, Map.of()));
        int led = partition("t", 0).leader();

        // When: the leader of partition 0 registers a new incarnation
        ControllerResponse again = call(new RegisterBroker(led, UUID.randomUUID(), "h", 1));

        // Then
        assertThat(again.value()).isGreaterThan(epochs[led]);
        assertThat(controller.projected().isUnfenced(led)).isFalse();
        for (int p = 0; p < 2; p++) {
            assertThat(partition("t", p).isr()).doesNotContain(led);
            assertThat(partition("t", p).leader()).isNotEqualTo(led).isNotEqualTo(-1);
        }
        // And: a heartbeat with the old epoch is refused, so the node registers again
        assertThat(call(new Heartbeat(led, epochs[led], Long.MAX_VALUE, false)).error())
                .isEqualTo(Error.STALE_BROKER_EPOCH);
    }

    @Test
    void controlledShutdownMovesLeadershipsAwayThenFences() {
        // Given
        registerAndUnfence(1, 2);
        call(new CreateTopic("t", 2, 2, Map.of()));

        // When
        ControllerResponse done = call(new Heartbeat(1, epochs[1], Long.MAX_VALUE, true));

        // Then
        assertThat(done.flag()).isTrue();
        assertThat(controller.projected().isUnfenced(1)).isFalse();
        for (int p = 0; p < 2; p++) {
            assertThat(partition("t", p).leader()).isEqualTo(2);
            assertThat(partition("t", p).isr()).containsExactly(2);
        }
    }

    @Test
    void alterPartitionChecksLeaderLeaderEpochAndPartitionEpoch() {
        // Given
        registerAndUnfence(1, 2, 3);
        call(new CreateTopic("t", 1, 3, Map.of()));
        PartitionState state = partition("t", 0);
        int leader = state.leader();
        UUID id = topicId("t");
        List<Integer> shrunk = List.of(leader);

        // Then
        assertThat(call(new AlterPartition(leader, id, 0, 1, 0, shrunk)).error()).isEqualTo(Error.STALE_EPOCH);
        assertThat(call(new AlterPartition(leader, id, 0, 0, 1, shrunk)).error()).isEqualTo(Error.STALE_EPOCH);
        int follower = state.replicas().get(1);
        assertThat(call(new AlterPartition(follower, id, 0, 0, 0, List.of(follower))).error())
                .isEqualTo(Error.STALE_EPOCH);
        assertThat(call(new AlterPartition(leader, id, 0, 0, 0, List.of(follower))).error())
                .as("ISR without the leader").isEqualTo(Error.INVALID_REQUEST);
        assertThat(call(new AlterPartition(leader, id, 0, 0, 0, shrunk)).error()).isEqualTo(Error.NONE);
        assertThat(controller.projected().partitionEpoch(id, 0)).isEqualTo(1);
        assertThat(call(new AlterPartition(leader, id, 0, 0, 0, state.replicas())).error())
                .isEqualTo(Error.STALE_EPOCH);
        assertThat(call(new AlterPartition(leader, id, 0, 0, 1, state.replicas())).error()).isEqualTo(Error.NONE);
        assertThat(partition("t", 0).isr()).containsExactlyElementsOf(state.replicas());
    }
}
