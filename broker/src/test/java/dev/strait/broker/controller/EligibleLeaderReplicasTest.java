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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Issue 22, defect 1: eligible leader replicas (KIP-966), unclean-shutdown detection at registration, and broker
 * epochs in AlterPartition (KIP-903), as the controller decides them.
 *
 * <p>The measured schedule: topic with one partition on replicas [1, 2], {@code min.insync.replicas=2}. Node 1
 * leads; node 2 falls behind and is shrunk out of the ISR; node 1 loses power (its log restarts shorter) and
 * registers again. Kafka 4.1 elects node 2 from the ELR; the old controller let node 1 lead again with an empty
 * log, and every acknowledged record was lost when node 2 truncated to it.
 *
 * <p>No Raft or sockets: a fake proposer appends and commits at once; time is driven by hand.
 */
class EligibleLeaderReplicasTest {

    private static final long SESSION_MS = 1_000;
    private static final int A = 1;
    private static final int B = 2;
    private static final int C = 3;

    private final List<List<MetadataRecord>> log = new ArrayList<>();
    private final Map<Integer, Long> epochs = new HashMap<>();
    private long now = 10_000;
    private long nextTopic;
    private QuorumController controller;

    @BeforeEach
    void activate() {
        PeerLiveness liveness = new PeerLiveness(() -> now, new ControllerTransport.Receiver() {
            @Override
            public void onMessage(ControllerMessage message) {}

            @Override
            public void onPeerReachable(int peer) {}

            @Override
            public void onPeerUnreachable(int peer) {}
        });
        controller = new QuorumController(
                9,
                SESSION_MS,
                3,
                ClusterImage.EMPTY,
                batch -> {
                    log.add(List.copyOf(batch));
                    long offset = log.size() - 1;
                    return new QuorumController.Proposal(offset, CompletableFuture.completedFuture(offset));
                },
                () -> new UUID(7, ++nextTopic),
                liveness,
                now);
        for (int id : List.of(A, B, C)) {
            register(id, UUID.randomUUID());
        }
    }

    private ControllerResponse call(ControllerRequest request) {
        return controller.handle(request, now).join();
    }

    /** Registers a new incarnation (the old constructor: no clean-shutdown claim) and unfences it. */
    private void register(int id, UUID incarnation) {
        ControllerResponse registered = call(new RegisterBroker(id, incarnation, "h", 9000 + id));
        assertThat(registered.error()).isEqualTo(Error.NONE);
        epochs.put(id, registered.value());
        assertThat(call(new Heartbeat(id, registered.value(), Long.MAX_VALUE, false))
                        .error())
                .isEqualTo(Error.NONE);
    }

    private TopicImage topic() {
        return controller.projected().topic("t").orElseThrow();
    }

    private PartitionState partition() {
        return topic().partitions().get(0);
    }

    private int partitionEpoch() {
        return controller.projected().partitionEpoch(topic().topicId(), 0);
    }

    /** Topic "t", one partition on [A, B] led by A, min.insync.replicas=2. */
    private void createTopicOnAandB() {
        // Placement is round robin over [1, 2, 3] starting at the cursor; fence C so the replicas are [A, B].
        assertThat(call(new CreateTopic("t", 1, 2, Map.of("min.insync.replicas", "2")))
                        .error())
                .isEqualTo(Error.NONE);
        assertThat(partition().replicas()).containsExactly(A, B);
        assertThat(partition().leader()).isEqualTo(A);
    }

    private ControllerResponse alterIsr(List<Integer> isr) {
        PartitionState state = partition();
        return call(
                new AlterPartition(state.leader(), topic().topicId(), 0, state.leaderEpoch(), partitionEpoch(), isr));
    }

    @Test
    void aReplicaShrunkOutBelowMinIsrIsElectedWhenTheLastIsrMemberRestartsUncleanly() {
        createTopicOnAandB();
        assertThat(alterIsr(List.of(A)).error()).isEqualTo(Error.NONE);
        assertThat(partition().isr()).containsExactly(A);
        assertThat(partition().elr()).containsExactly(B);

        // A loses power and registers again: it may have lost acknowledged records, so it may not lead.
        register(A, UUID.randomUUID());

        assertThat(partition().leader())
                .as("the ELR member leads once the last ISR member restarted uncleanly")
                .isEqualTo(B);
        assertThat(partition().isr()).containsExactly(B);
        assertThat(partition().elr()).isEmpty();
    }

    @Test
    void theElrEmptiesOnceTheIsrReachesMinIsrAgain() {
        createTopicOnAandB();
        assertThat(alterIsr(List.of(A)).error()).isEqualTo(Error.NONE);
        assertThat(partition().elr()).containsExactly(B);
        assertThat(alterIsr(List.of(A, B)).error()).isEqualTo(Error.NONE);
        assertThat(partition().isr()).containsExactly(A, B);
        assertThat(partition().elr()).isEmpty();
    }

    @Test
    void aPartitionWhoseOnlyEligibleReplicaRestartedUncleanlyGoesLeaderless() {
        createTopicOnAandB();
        assertThat(alterIsr(List.of(A)).error()).isEqualTo(Error.NONE);
        // B restarts uncleanly first: it leaves the ELR (it may have lost what it had)...
        register(B, UUID.randomUUID());
        assertThat(partition().elr()).isEmpty();
        assertThat(partition().leader()).isEqualTo(A);
        // ...then A: nobody is known to hold the acknowledged records, so nobody leads (Kafka does the same).
        register(A, UUID.randomUUID());
        assertThat(partition().leader()).isEqualTo(-1);
        assertThat(partition().isr()).isEmpty();
        assertThat(partition().elr()).isEmpty();
        assertThat(partition().lastKnownElr())
                .as("where the data was last known to be, for an operator's unclean recovery")
                .containsExactly(A, B);

        // The operator's way back (kafka-leader-election --election-type UNCLEAN): a live replica leads.
        int epochBefore = partition().leaderEpoch();
        assertThat(call(new ControllerRequest.ElectUncleanLeaders(List.of("t"))).error())
                .isEqualTo(Error.NONE);
        assertThat(partition().leader()).isEqualTo(A);
        assertThat(partition().isr()).containsExactly(A);
        assertThat(partition().leaderEpoch()).isGreaterThan(epochBefore);
        assertThat(partition().lastKnownElr()).isEmpty();
    }

    @Test
    void inTheFsyncModeAnUncleanRestartKeepsEveryReplicaEligible() {
        // flush.on.ack: every in-sync replica fsynced what was acknowledged, so a power loss took none of it, and
        // even every replica losing power must not leave the partition leaderless.
        assertThat(call(new CreateTopic("t", 1, 2, Map.of("min.insync.replicas", "2", "flush.on.ack", "true")))
                        .error())
                .isEqualTo(Error.NONE);
        assertThat(partition().replicas()).containsExactly(A, B);
        register(B, UUID.randomUUID());
        register(A, UUID.randomUUID());

        assertThat(partition().leader())
                .as("a replica back from a power loss still leads")
                .isNotEqualTo(-1);
        assertThat(partition().isr()).isNotEmpty();
    }

    @Test
    void aCleanRestartKeepsAnElrMemberEligible() {
        createTopicOnAandB();
        assertThat(alterIsr(List.of(A)).error()).isEqualTo(Error.NONE);
        long epochOfB = epochs.get(B);
        assertThat(call(new Heartbeat(B, epochOfB, Long.MAX_VALUE, true)).flag())
                .isTrue();
        // B's clean-shutdown marker names the epoch it shut down with: its log holds what it had.
        ControllerResponse registered = call(new RegisterBroker(B, UUID.randomUUID(), "h", 9002, List.of(), epochOfB));
        assertThat(registered.error()).isEqualTo(Error.NONE);
        assertThat(partition().elr()).containsExactly(B);
        // A marker of an older epoch than the node's last registration proves nothing about the last life.
        register(B, UUID.randomUUID());
        assertThat(call(new RegisterBroker(B, UUID.randomUUID(), "h", 9002, List.of(), epochOfB))
                        .error())
                .isEqualTo(Error.NONE);
        assertThat(partition().elr()).isEmpty();
    }

    @Test
    void theLastIsrMemberShuttingDownCleanlyHandsLeadershipToTheElr() {
        createTopicOnAandB();
        assertThat(alterIsr(List.of(A)).error()).isEqualTo(Error.NONE);
        assertThat(call(new Heartbeat(A, epochs.get(A), Long.MAX_VALUE, true)).flag())
                .isTrue();
        assertThat(partition().leader()).isEqualTo(B);
        assertThat(partition().isr()).containsExactly(B);
        assertThat(partition().elr()).containsExactly(A);
    }

    @Test
    void anIsrAdditionCarryingAStaleBrokerEpochIsRefused() {
        createTopicOnAandB();
        assertThat(alterIsr(List.of(A)).error()).isEqualTo(Error.NONE);
        long oldEpochOfB = epochs.get(B);
        // B fetched up to the leader's end with its old epoch; then it lost power and registered again. The
        // leader's AlterPartition, built from that old fetch, arrives (or is retried) only now.
        register(B, UUID.randomUUID());
        PartitionState state = partition();
        ControllerResponse stale = call(new AlterPartition(
                A, topic().topicId(), 0, state.leaderEpoch(), partitionEpoch(), List.of(A, B), Map.of(B, oldEpochOfB)));
        assertThat(stale.error()).isEqualTo(Error.INVALID_REQUEST);
        assertThat(stale.message()).contains("broker epoch");
        assertThat(partition().isr()).containsExactly(A);

        ControllerResponse current = call(new AlterPartition(
                A,
                topic().topicId(),
                0,
                state.leaderEpoch(),
                partitionEpoch(),
                List.of(A, B),
                Map.of(B, epochs.get(B))));
        assertThat(current.error()).isEqualTo(Error.NONE);
        assertThat(partition().isr()).containsExactly(A, B);
    }
}
