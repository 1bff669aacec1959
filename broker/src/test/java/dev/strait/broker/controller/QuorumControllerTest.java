package dev.strait.broker.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.controller.ControllerRequest.AlterConfigs;
import dev.strait.broker.controller.ControllerRequest.AlterPartition;
import dev.strait.broker.controller.ControllerRequest.CreatePartitions;
import dev.strait.broker.controller.ControllerRequest.CreateTopic;
import dev.strait.broker.controller.ControllerRequest.Heartbeat;
import dev.strait.broker.controller.ControllerRequest.PatchConfigs;
import dev.strait.broker.controller.ControllerRequest.RegisterBroker;
import dev.strait.broker.controller.ControllerResponse.Error;
import dev.strait.broker.raft.metadata.MetadataImage.NodeRegistration;
import dev.strait.broker.raft.metadata.MetadataImage.PartitionState;
import dev.strait.broker.raft.metadata.MetadataImage.TopicImage;
import dev.strait.broker.raft.metadata.MetadataImageSerde;
import dev.strait.broker.raft.metadata.MetadataRecord;
import dev.strait.broker.raft.metadata.MetadataRecord.FenceNode;
import dev.strait.broker.raft.metadata.MetadataRecordSerde;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The controller's rules without Raft or sockets: a fake proposer appends each decision to a list of log entries
 * and commits it at once, and the test drives time by hand.
 */
class QuorumControllerTest {

    private static final long SESSION_MS = 1_000;

    /** The log: one entry per proposal. */
    private final List<List<MetadataRecord>> log = new ArrayList<>();

    private long now = 10_000;
    private long nextTopic;
    private final PeerLiveness liveness = new PeerLiveness(() -> now, new ControllerTransport.Receiver() {
        @Override
        public void onMessage(ControllerMessage message) {}

        @Override
        public void onPeerReachable(int peer) {}

        @Override
        public void onPeerUnreachable(int peer) {}
    });
    private QuorumController controller = newController(SESSION_MS, ClusterImage.EMPTY);
    private final long[] epochs = new long[4];

    private QuorumController newController(long sessionMs, ClusterImage image) {
        return new QuorumController(
                0,
                sessionMs,
                1,
                image,
                batch -> {
                    log.add(List.copyOf(batch));
                    long offset = log.size() - 1;
                    return new QuorumController.Proposal(offset, CompletableFuture.completedFuture(offset));
                },
                () -> new UUID(7, ++nextTopic),
                liveness,
                now);
    }

    /** The image a node replaying the first {@code entries} entries of the log has. */
    private ClusterImage replay(int entries) {
        ClusterImage image = ClusterImage.EMPTY;
        for (int offset = 0; offset < entries; offset++) {
            image = image.apply(offset, log.get(offset));
        }
        return image;
    }

    private ControllerResponse call(ControllerRequest request) {
        return controller.handle(request, now).join();
    }

    private void registerAndUnfence(int... ids) {
        for (int id : ids) {
            ControllerResponse registered = call(new RegisterBroker(id, UUID.randomUUID(), "h", 9000 + id));
            assertThat(registered.error()).isEqualTo(Error.NONE);
            epochs[id] = registered.value();
            assertThat(call(new Heartbeat(id, epochs[id], registered.offset() + 1, false))
                            .flag())
                    .isFalse();
        }
    }

    private void heartbeat(int... ids) {
        for (int id : ids) {
            assertThat(call(new Heartbeat(id, epochs[id], Long.MAX_VALUE, false))
                            .error())
                    .isEqualTo(Error.NONE);
        }
    }

    private PartitionState partition(String topic, int partition) {
        return controller
                .projected()
                .topic(topic)
                .map(TopicImage::partitions)
                .orElseThrow()
                .get(partition);
    }

    private UUID topicId(String topic) {
        return controller.projected().topic(topic).orElseThrow().topicId();
    }

    @Test
    void aConfigChangeReadBeforeAnotherNodesChangeKeepsThatChange() {
        // Given: a mirror topic, and a pause written by one node after another node read the configs
        registerAndUnfence(1, 2, 3);
        Map<String, String> read = Map.of("strait.mirror.state", "mirroring", "retention.ms", "1000");
        assertThat(call(new CreateTopic("t", 1, 3, read)).error()).isEqualTo(Error.NONE);
        Map<String, String> paused = new HashMap<>(read);
        paused.put("strait.mirror.state", "paused");
        assertThat(call(new PatchConfigs("t", read, paused)).error()).isEqualTo(Error.NONE);

        // When: the other node writes what it read plus its own key, and drops retention.ms
        Map<String, String> stale = new HashMap<>(read);
        stale.put("strait.mirror.source.lineage", "0:x");
        stale.remove("retention.ms");
        assertThat(call(new PatchConfigs("t", read, stale)).error()).isEqualTo(Error.NONE);

        // Then: the pause stays; only the keys the stale writer changed moved
        assertThat(controller.projected().topic("t").orElseThrow().configs())
                .isEqualTo(Map.of("strait.mirror.state", "paused", "strait.mirror.source.lineage", "0:x"));
        // And: the whole-set request still replaces every override (Kafka's AlterConfigs)
        assertThat(call(new AlterConfigs("t", read)).error()).isEqualTo(Error.NONE);
        assertThat(controller.projected().topic("t").orElseThrow().configs()).isEqualTo(read);
        assertThat(call(new PatchConfigs("u", Map.of(), Map.of())).error()).isEqualTo(Error.UNKNOWN_TOPIC);
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
    void assignedReplicasAreKeptAsGivenWithTheUnfencedOnesInTheIsrAndTheFirstOfThemLeading() {
        // Given: nodes 1-3, and 3 fenced (registered, then silent past its session)
        registerAndUnfence(1, 2, 3);
        now += SESSION_MS / 2;
        heartbeat(1, 2);
        now += SESSION_MS / 2 + 1;
        controller.tick(now);
        assertThat(controller.projected().isUnfenced(3)).isFalse();

        // When
        ControllerResponse created =
                call(new CreateTopic("placed", 2, -1, Map.of(), List.of(List.of(3, 2), List.of(1, 3))));

        // Then
        assertThat(created.error()).isEqualTo(Error.NONE);
        assertThat(partition("placed", 0).replicas()).containsExactly(3, 2);
        assertThat(partition("placed", 0).isr()).containsExactly(2);
        assertThat(partition("placed", 0).leader()).isEqualTo(2);
        assertThat(partition("placed", 1).replicas()).containsExactly(1, 3);
        assertThat(partition("placed", 1).leader()).isEqualTo(1);
        assertThat(call(new CreateTopic("on-fenced", 1, -1, Map.of(), List.of(List.of(3))))
                        .error())
                .isEqualTo(Error.INVALID_REPLICA_ASSIGNMENT);
        assertThat(call(new CreateTopic("on-unknown", 1, -1, Map.of(), List.of(List.of(1, 9))))
                        .error())
                .isEqualTo(Error.INVALID_REPLICA_ASSIGNMENT);
        assertThat(controller.projected().topic("on-fenced")).isEmpty();
    }

    @Test
    void addedPartitionsTakeTheirAssignedReplicasAndBadAssignmentsAddNone() {
        // Given: nodes 1-3, 3 fenced, and a topic of two partitions of two replicas
        registerAndUnfence(1, 2, 3);
        assertThat(call(new CreateTopic("grown", 2, 2, Map.of())).error()).isEqualTo(Error.NONE);
        now += SESSION_MS / 2;
        heartbeat(1, 2);
        now += SESSION_MS / 2 + 1;
        controller.tick(now);

        // When
        ControllerResponse added = call(new CreatePartitions("grown", 4, List.of(List.of(3, 2), List.of(1, 3))));

        // Then
        assertThat(added.error()).isEqualTo(Error.NONE);
        assertThat(partition("grown", 2).replicas()).containsExactly(3, 2);
        assertThat(partition("grown", 2).isr()).containsExactly(2);
        assertThat(partition("grown", 2).leader()).isEqualTo(2);
        assertThat(partition("grown", 3).replicas()).containsExactly(1, 3);
        assertThat(partition("grown", 3).leader()).isEqualTo(1);
        for (List<List<Integer>> bad : List.of(
                List.of(List.of(1, 9)), // an unknown broker
                List.of(List.of(1, 1)), // a broker twice
                List.of(List.of(1)), // fewer replicas than the topic's
                List.of(List.of(3, 3)),
                List.of(List.of(1, 2), List.of(2, 1)))) { // more lists than added partitions
            ControllerResponse refused = call(new CreatePartitions("grown", 5, bad));
            assertThat(refused.error()).as("%s", bad).isEqualTo(Error.INVALID_REPLICA_ASSIGNMENT);
            assertThat(refused.message()).as("%s", bad).isNotBlank();
        }
        assertThat(controller.projected().topic("grown").orElseThrow().partitions())
                .hasSize(4);
    }

    @Test
    void aSilentNodeIsFencedAndItsLeadershipsGoToTheNextIsrMemberInANewEpoch() {
        // Given
        registerAndUnfence(1, 2, 3);
        call(new CreateTopic("t", 3, 3, Map.of()));
        int victim = partition("t", 0).leader();

        // When: everyone but the victim heartbeats past its session
        now += SESSION_MS / 2;
        heartbeat(java.util.stream.IntStream.of(1, 2, 3)
                .filter(id -> id != victim)
                .toArray());
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
        assertThat(call(new AlterPartition(leader, id, 0, 1, 0, shrunk)).error())
                .isEqualTo(Error.STALE_EPOCH);
        assertThat(call(new AlterPartition(leader, id, 0, 0, 1, shrunk)).error())
                .isEqualTo(Error.STALE_EPOCH);
        int follower = state.replicas().get(1);
        assertThat(call(new AlterPartition(follower, id, 0, 0, 0, List.of(follower)))
                        .error())
                .isEqualTo(Error.STALE_EPOCH);
        assertThat(call(new AlterPartition(leader, id, 0, 0, 0, List.of(follower)))
                        .error())
                .as("ISR without the leader")
                .isEqualTo(Error.INVALID_REQUEST);
        assertThat(call(new AlterPartition(leader, id, 0, 0, 0, shrunk)).error())
                .isEqualTo(Error.NONE);
        assertThat(controller.projected().partitionEpoch(id, 0)).isEqualTo(1);
        assertThat(call(new AlterPartition(leader, id, 0, 0, 0, state.replicas()))
                        .error())
                .isEqualTo(Error.STALE_EPOCH);
        assertThat(call(new AlterPartition(leader, id, 0, 0, 1, state.replicas()))
                        .error())
                .isEqualTo(Error.NONE);
        assertThat(partition("t", 0).isr()).containsExactlyElementsOf(state.replicas());
    }

    // ---------------------------------------------------------------- one decision, one entry (issue 11, defect 2)

    /**
     * What a controller failover can leave: any prefix of the log. Whatever prefix a new controller starts from,
     * no partition is led by a fenced node, no fenced node sits in an ISR beside live members, and a topic has
     * all its partitions or does not exist.
     */
    private void assertEveryPrefixConsistent(Map<String, Integer> partitionCounts) {
        for (int entries = 0; entries <= log.size(); entries++) {
            ClusterImage image = replay(entries);
            for (TopicImage topic : image.image().topics().values()) {
                assertThat(topic.partitions().size())
                        .as("partitions of %s after %d entries", topic.name(), entries)
                        .isEqualTo(partitionCounts.get(topic.name()));
                for (Map.Entry<Integer, PartitionState> e : topic.partitions().entrySet()) {
                    PartitionState state = e.getValue();
                    if (state.leader() != -1) {
                        assertThat(image.isUnfenced(state.leader()))
                                .as(
                                        "leader %d of %s-%d is unfenced after %d entries",
                                        state.leader(), topic.name(), e.getKey(), entries)
                                .isTrue();
                    }
                    if (state.isr().size() > 1) {
                        assertThat(state.isr())
                                .as("ISR of %s-%d after %d entries", topic.name(), e.getKey(), entries)
                                .allMatch(image::isUnfenced);
                    }
                }
            }
        }
    }

    @Test
    void aFencingIsOneEntrySoNoPrefixLeavesAPartitionLedByTheFencedNode() {
        // Given
        registerAndUnfence(1, 2, 3);
        call(new CreateTopic("t", 30, 3, Map.of()));

        // When: node 2 goes silent and is fenced
        now += SESSION_MS / 2;
        heartbeat(1, 3);
        now += SESSION_MS / 2 + 1;
        int before = log.size();
        controller.tick(now);

        // Then
        assertThat(log.size())
                .as("one entry for the fencing and its partition changes")
                .isEqualTo(before + 1);
        assertThat(log.get(before)).first().isInstanceOf(FenceNode.class);
        assertThat(controller.projected().isUnfenced(2)).isFalse();
        assertEveryPrefixConsistent(Map.of("t", 30));
    }

    @Test
    void aTopicOf500PartitionsIsOneEntrySoNoPrefixHoldsHalfOfIt() {
        // Given
        registerAndUnfence(1, 2, 3);
        int before = log.size();

        // When
        assertThat(call(new CreateTopic("big", 500, 3, Map.of("cleanup.policy", "compact")))
                        .error())
                .isEqualTo(Error.NONE);

        // Then
        assertThat(log.size()).isEqualTo(before + 1);
        assertThat(log.get(before)).hasSize(1 + 1 + 500);
        assertEveryPrefixConsistent(Map.of("big", 500));
    }

    @Test
    void aRestartAndAControlledShutdownAreOneEntryEach() {
        // Given
        registerAndUnfence(1, 2, 3);
        call(new CreateTopic("t", 12, 3, Map.of()));
        int before = log.size();

        // When: node 1 restarts (new incarnation), node 3 shuts down
        call(new RegisterBroker(1, UUID.randomUUID(), "h", 1));
        call(new Heartbeat(3, epochs[3], Long.MAX_VALUE, true));

        // Then
        assertThat(log.size()).isEqualTo(before + 2);
        assertEveryPrefixConsistent(Map.of("t", 12));
        for (int p = 0; p < 12; p++) {
            assertThat(partition("t", p).leader()).isEqualTo(2);
            assertThat(partition("t", p).isr()).containsExactly(2);
        }
    }

    @Test
    void anAclAndCredentialChangeIsOneEntryAndOtherRecordsCannotBeSmuggledIn() {
        // Given
        registerAndUnfence(1);
        MetadataRecord.Acl read =
                new MetadataRecord.Acl((byte) 2, "orders", (byte) 3, "User:alice", "*", (byte) 3, (byte) 3);
        MetadataRecord.Acl write =
                new MetadataRecord.Acl((byte) 2, "orders", (byte) 3, "User:alice", "*", (byte) 4, (byte) 3);
        List<MetadataRecord> change = List.of(
                new MetadataRecord.AddAcl(read),
                new MetadataRecord.AddAcl(write),
                new MetadataRecord.ScramCredential(
                        "alice", (byte) 2, new byte[] {1}, new byte[] {2}, new byte[] {3}, 4096));
        int before = log.size();

        // When
        ControllerResponse response = call(new ControllerRequest.AlterSecurity(change));
        ControllerResponse smuggled = call(new ControllerRequest.AlterSecurity(
                List.of(new MetadataRecord.RemoveAcl(write), new FenceNode(1, epochs[1]))));

        // Then
        assertThat(response.error()).isEqualTo(Error.NONE);
        assertThat(log.size()).isEqualTo(before + 1);
        assertThat(log.get(before)).isEqualTo(change);
        assertThat(smuggled.error()).isEqualTo(Error.INVALID_REQUEST);
        assertThat(log.size()).as("nothing of a refused request is written").isEqualTo(before + 1);
        assertThat(replay(log.size()).image().security().acls()).containsExactlyInAnyOrder(read, write);
        assertThat(replay(log.size()).image().security().scramCredentials()).hasSize(1);
        assertThat(controller.projected().isUnfenced(1)).isTrue();
    }

    @Test
    void aRequestOfMoreThanTenThousandRecordsIsRefusedAsKafkaDoes() {
        registerAndUnfence(1);
        assertThat(call(new CreateTopic("huge", 10_000, 1, Map.of())).error()).isEqualTo(Error.INVALID_REQUEST);
        assertThat(controller.projected().topic("huge")).isEmpty();
    }

    /**
     * A log written one record per entry (before decisions were batched) may end in the middle of a fencing: the
     * node fenced, its partitions still led by it. The next controller repairs them before anything else.
     */
    @Test
    void aNewControllerReconcilesPartitionsLedByAFencedNodeOrHoldingItInTheirIsr() {
        // Given: 1, 2, 3 unfenced; t-0..t-5 on all three; then only node 1's FenceNode made it into the log
        registerAndUnfence(1, 2, 3);
        call(new CreateTopic("t", 6, 3, Map.of()));
        call(new CreateTopic("solo", 1, 1, Map.of()));
        int soloOwner = partition("solo", 0).leader();
        ClusterImage image = replay(log.size());
        long offset = image.endOffset();
        image = image.apply(offset, new FenceNode(1, epochs[1]));
        if (soloOwner != 1) {
            image = image.apply(offset + 1, new FenceNode(soloOwner, epochs[soloOwner]));
        }
        log.add(List.of(new FenceNode(1, epochs[1])));
        if (soloOwner != 1) {
            log.add(List.of(new FenceNode(soloOwner, epochs[soloOwner])));
        }
        assertThat(image.topic("t").orElseThrow().partitions().values()).anyMatch(s -> s.leader() == 1);

        // When: a controller activates on that log
        now += 100;
        controller = newController(SESSION_MS, image);

        // Then: one entry moved every partition off the fenced node(s), from the ISR, in a new leader epoch
        for (int p = 0; p < 6; p++) {
            PartitionState state = partition("t", p);
            assertThat(state.leader()).isNotEqualTo(1).isNotEqualTo(-1);
            assertThat(controller.projected().isUnfenced(state.leader())).isTrue();
            assertThat(state.isr()).doesNotContain(1);
        }
        assertThat(partition("solo", 0).leader())
                .as("no live ISR member: leaderless, ISR kept")
                .isEqualTo(-1);
        assertThat(partition("solo", 0).isr()).containsExactly(soloOwner);
        assertThat(replay(log.size()).image()).isEqualTo(controller.projected().image());
    }

    // ---------------------------------------------------------------- fast fencing (issue 11, failover time)

    private static final long DEFAULT_SESSION_MS = 9_000;

    @Test
    void aNodeWhoseConnectionsClosedIsFencedAfterAShortGraceNotTheSessionTimeout() {
        // Given
        controller = newController(DEFAULT_SESSION_MS, ClusterImage.EMPTY);
        registerAndUnfence(1, 2, 3);
        call(new CreateTopic("t", 3, 3, Map.of()));

        // When: node 2's process dies (its connections close), the others heartbeat
        liveness.onPeerUnreachable(2);
        now += QuorumController.FAST_FENCE_GRACE_MS - 1;
        heartbeat(1, 3);
        controller.tick(now);
        assertThat(controller.projected().isUnfenced(2))
                .as("still within the grace")
                .isTrue();
        now += 2;
        controller.tick(now);

        // Then
        assertThat(controller.projected().isUnfenced(2)).isFalse();
        for (int p = 0; p < 3; p++) {
            assertThat(partition("t", p).leader()).isNotEqualTo(2);
        }
    }

    @Test
    void aPausedNodeKeepsItsConnectionsAndIsFencedOnlyAtItsSessionTimeout() {
        // Given
        controller = newController(DEFAULT_SESSION_MS, ClusterImage.EMPTY);
        registerAndUnfence(1, 2, 3);

        // When: node 2 stops heartbeating, its connections stay open (SIGSTOP)
        for (int i = 0; i < 4; i++) {
            now += 2_000;
            heartbeat(1, 3);
            controller.tick(now);
        }

        // Then
        assertThat(controller.projected().isUnfenced(2)).isTrue();
        now += 1_001;
        heartbeat(1, 3);
        controller.tick(now);
        assertThat(controller.projected().isUnfenced(2)).isFalse();
    }

    @Test
    void aNodeThatReconnectsOrHeartbeatsWithinTheGraceIsNotFenced() {
        // Given
        controller = newController(DEFAULT_SESSION_MS, ClusterImage.EMPTY);
        registerAndUnfence(1, 2, 3);

        // When: node 2's connection drops and comes back; node 3's drops and it heartbeats over a new one
        liveness.onPeerUnreachable(2);
        liveness.onPeerUnreachable(3);
        now += 100;
        liveness.onPeerReachable(2);
        heartbeat(3);
        now += 5_000;
        heartbeat(1, 2, 3);
        controller.tick(now);

        // Then
        assertThat(controller.projected().isUnfenced(2)).isTrue();
        assertThat(controller.projected().isUnfenced(3)).isTrue();
    }

    @Test
    void aNewControllerUsesWhatItSawAsAFollowerButOnlyAfterItsActivationGrace() {
        // Given: an image with 1, 2, 3 unfenced, and node 2's connections closed before this node leads
        registerAndUnfence(1, 2, 3);
        ClusterImage image = replay(log.size());
        liveness.onPeerUnreachable(2);
        now += 1_500; // the election

        // When
        controller = newController(DEFAULT_SESSION_MS, image);
        now += QuorumController.ACTIVATION_GRACE_MS - 1;
        controller.tick(now);
        assertThat(controller.projected().isUnfenced(2)).isTrue();
        now += 2;
        controller.tick(now);

        // Then: fenced long before a session timeout; node 3, silent but with no such evidence, is not
        assertThat(controller.projected().isUnfenced(2)).isFalse();
        assertThat(controller.projected().isUnfenced(3)).isTrue();
    }

    @Test
    void aNewControllerWithoutEvidenceGivesEveryNodeAFullSession() {
        // Given
        registerAndUnfence(1, 2, 3);
        ClusterImage image = replay(log.size());

        // When: node 2 never heartbeats to the new controller
        controller = newController(DEFAULT_SESSION_MS, image);
        now += DEFAULT_SESSION_MS;
        heartbeat(1, 3);
        controller.tick(now);
        assertThat(controller.projected().isUnfenced(2)).isTrue();
        now += 1;
        controller.tick(now);

        // Then
        assertThat(controller.projected().isUnfenced(2)).isFalse();
        assertThat(controller.projected().node(2).map(NodeRegistration::fenced)).contains(true);
    }

    // ---------------------------------------------------------------- reassignment (KIP-455)

    private ControllerResponse reassign(String topic, int partition, List<Integer> target) {
        return call(new ControllerRequest.AlterReassignment(topic, partition, target));
    }

    /** The leader's AlterPartition to {@code isr}, at the partition's current epochs. */
    private ControllerResponse alterIsr(String topic, List<Integer> isr) {
        PartitionState state = partition(topic, 0);
        int partitionEpoch = controller.projected().partitionEpoch(topicId(topic), 0);
        return call(new AlterPartition(state.leader(), topicId(topic), 0, state.leaderEpoch(), partitionEpoch, isr));
    }

    @Test
    void aReassignmentAddsTheTargetThenCompletesOnceEveryTargetReplicaIsInSyncAndTheLeaderMoves() {
        // Given t-0 on {1, 2}, led by 1
        registerAndUnfence(1, 2, 3);
        assertThat(call(new CreateTopic("t", 1, -1, Map.of(), List.of(List.of(1, 2))))
                        .error())
                .isEqualTo(Error.NONE);

        // When it is reassigned to {2, 3}
        assertThat(reassign("t", 0, List.of(2, 3)).error()).isEqualTo(Error.NONE);

        // Then the replicas are the union, 3 being added and 1 removed; ISR, leader and leader epoch unchanged
        PartitionState running = partition("t", 0);
        assertThat(running.replicas()).containsExactly(2, 3, 1);
        assertThat(running.addingReplicas()).containsExactly(3);
        assertThat(running.removingReplicas()).containsExactly(1);
        assertThat(running.isr()).containsExactly(1, 2);
        assertThat(running.leader()).isEqualTo(1);
        assertThat(running.leaderEpoch()).isZero();
        assertThat(replay(log.size()).topic("t").orElseThrow().partitions().get(0))
                .isEqualTo(running);

        // When 3 catches up and the leader adds it to the ISR
        assertThat(alterIsr("t", List.of(1, 2, 3)).error()).isEqualTo(Error.NONE);

        // Then the reassignment completes: replicas and ISR the target, 2 (first target in the ISR) leads in a new
        // epoch
        PartitionState done = partition("t", 0);
        assertThat(done.replicas()).containsExactly(2, 3);
        assertThat(done.isr()).containsExactly(2, 3);
        assertThat(done.addingReplicas()).isEmpty();
        assertThat(done.removingReplicas()).isEmpty();
        assertThat(done.leader()).isEqualTo(2);
        assertThat(done.leaderEpoch()).isEqualTo(1);
        assertThat(replay(log.size()).topic("t").orElseThrow().partitions().get(0))
                .isEqualTo(done);
    }

    @Test
    void aReassignmentKeepsTheLeaderThatStaysAndCompletesAtOnceWhenTheTargetIsInSync() {
        // Given t-0 on {1, 2, 3}, led by 1
        registerAndUnfence(1, 2, 3);
        call(new CreateTopic("t", 1, -1, Map.of(), List.of(List.of(1, 2, 3))));

        // When it moves to {3, 1}, both in the ISR
        assertThat(reassign("t", 0, List.of(3, 1)).error()).isEqualTo(Error.NONE);

        // Then it is done in one step, the leader staying in its epoch
        PartitionState done = partition("t", 0);
        assertThat(done.replicas()).containsExactly(3, 1);
        assertThat(done.isr()).containsExactly(3, 1);
        assertThat(done.reassigning()).isFalse();
        assertThat(done.leader()).isEqualTo(1);
        assertThat(done.leaderEpoch()).isZero();
    }

    @Test
    void aCancelRevertsToTheOriginalReplicasAndBadRequestsGetKafkasErrors() {
        // Given t-0 on {1, 2}; bad targets, a partition or topic that does not exist, a cancel of nothing
        registerAndUnfence(1, 2, 3);
        call(new CreateTopic("t", 1, -1, Map.of(), List.of(List.of(1, 2))));
        assertThat(reassign("t", 0, List.of(3, 4)).error()).isEqualTo(Error.INVALID_REPLICA_ASSIGNMENT);
        assertThat(reassign("t", 0, List.of(3, 3)).error()).isEqualTo(Error.INVALID_REPLICA_ASSIGNMENT);
        assertThat(reassign("t", 0, List.of()).error()).isEqualTo(Error.INVALID_REPLICA_ASSIGNMENT);
        assertThat(reassign("t", 1, List.of(1)).error()).isEqualTo(Error.UNKNOWN_TOPIC);
        assertThat(reassign("nope", 0, List.of(1)).error()).isEqualTo(Error.UNKNOWN_TOPIC);
        assertThat(reassign("t", 0, null).error()).isEqualTo(Error.NO_REASSIGNMENT_IN_PROGRESS);
        assertThat(partition("t", 0).reassigning()).isFalse();
        // and then a move to {2, 3} running
        reassign("t", 0, List.of(2, 3));

        // When it is cancelled
        assertThat(reassign("t", 0, null).error()).isEqualTo(Error.NONE);

        // Then it is back on {1, 2}, led by 1, and a second cancel finds nothing to cancel
        PartitionState reverted = partition("t", 0);
        assertThat(reverted.replicas()).containsExactlyInAnyOrder(1, 2);
        assertThat(reverted.isr()).containsExactlyInAnyOrder(1, 2);
        assertThat(reverted.reassigning()).isFalse();
        assertThat(reverted.leader()).isEqualTo(1);
        assertThat(reassign("t", 0, null).error()).isEqualTo(Error.NO_REASSIGNMENT_IN_PROGRESS);
    }

    @Test
    void aRunningReassignmentSurvivesAControllerFailoverAndFencingAndCompletesUnderTheNextController() {
        // Given t-0 on {1, 2} being moved to {2, 3}
        registerAndUnfence(1, 2, 3);
        call(new CreateTopic("t", 1, -1, Map.of(), List.of(List.of(1, 2))));
        reassign("t", 0, List.of(2, 3));

        // When another controller takes over from the replayed log (its records and a snapshot of it read back)
        ClusterImage replayed = replay(log.size());
        for (List<MetadataRecord> entry : log) {
            for (MetadataRecord record : entry) {
                assertThat(MetadataRecordSerde.deserialize(MetadataRecordSerde.serialize(record)))
                        .isEqualTo(record);
            }
        }
        assertThat(MetadataImageSerde.deserialize(MetadataImageSerde.serialize(replayed.image())))
                .isEqualTo(replayed.image());
        controller = newController(SESSION_MS, replayed);
        heartbeat(1, 2, 3);

        // Then it still sees the reassignment
        PartitionState running = partition("t", 0);
        assertThat(running.addingReplicas()).containsExactly(3);
        assertThat(running.removingReplicas()).containsExactly(1);

        // When the leader 1 is fenced (it misses its heartbeats) and 2 leads
        now += SESSION_MS / 2;
        heartbeat(2, 3);
        now += SESSION_MS / 2 + 1;
        controller.tick(now);
        heartbeat(2, 3);
        PartitionState afterFence = partition("t", 0);
        assertThat(afterFence.leader()).isEqualTo(2);
        assertThat(afterFence.addingReplicas()).containsExactly(3);
        assertThat(afterFence.removingReplicas()).containsExactly(1);

        // And 3 joins the ISR
        assertThat(alterIsr("t", List.of(2, 3)).error()).isEqualTo(Error.NONE);

        // Then the reassignment completes on {2, 3}, 2 still leading
        PartitionState done = partition("t", 0);
        assertThat(done.replicas()).containsExactly(2, 3);
        assertThat(done.isr()).containsExactly(2, 3);
        assertThat(done.reassigning()).isFalse();
        assertThat(done.leader()).isEqualTo(2);
        assertThat(replay(log.size()).topic("t").orElseThrow().partitions().get(0))
                .isEqualTo(done);
    }

    @Test
    void partitionsAddedDuringAReassignmentTakeTheTopicsReplicationFactorNotTheUnion() {
        // Given t-0 on {1, 2} being moved to {2, 3}: three replicas meanwhile
        registerAndUnfence(1, 2, 3);
        call(new CreateTopic("t", 1, -1, Map.of(), List.of(List.of(1, 2))));
        reassign("t", 0, List.of(2, 3));
        assertThat(partition("t", 0).replicas()).hasSize(3);

        // When a partition is added
        assertThat(call(new CreatePartitions("t", 2)).error()).isEqualTo(Error.NONE);

        // Then it has two replicas, and the move still runs
        assertThat(partition("t", 1).replicas()).hasSize(2);
        assertThat(partition("t", 0).addingReplicas()).containsExactly(3);
    }
}
