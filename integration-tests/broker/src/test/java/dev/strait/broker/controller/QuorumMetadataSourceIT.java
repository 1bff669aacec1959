package dev.strait.broker.controller;

import static dev.strait.broker.controller.QuorumTestCluster.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.metadata.BrokerRegistration;
import dev.strait.broker.metadata.InvalidReplicationFactorException;
import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.metadata.StaleEpochException;
import dev.strait.broker.metadata.TopicExistsException;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.metadata.UnknownTopicException;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Three nodes, each broker and controller voter, over real sockets on 127.0.0.1. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuorumMetadataSourceIT {

    @TempDir
    Path dir;

    private QuorumTestCluster cluster;

    @AfterEach
    void tearDown() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private QuorumTestCluster threeNodes() {
        cluster = new QuorumTestCluster(dir, 3).startAll();
        cluster.awaitActiveController();
        cluster.awaitAllUnfenced();
        return cluster;
    }

    @Test
    void aLeaderIsElectedAndATopicWithThreeReplicasIsVisibleOnEveryNode() {
        // Given
        threeNodes();
        AtomicInteger changes = new AtomicInteger();
        cluster.node(2).addChangeListener(changes::incrementAndGet);
        int before = changes.get();

        // When: node 1 creates (forwarded unless it is the controller)
        TopicMetadata created = cluster.node(1).createTopic("orders", 3, 3, Map.of("retention.ms", "1000"));

        // Then: read-your-writes on node 1, and every node converges on the same partition states
        assertThat(cluster.node(1).topic("orders")).contains(created);
        assertThat(created.partitions()).isEqualTo(3);
        assertThat(created.configs()).containsEntry("retention.ms", "1000");
        Set<Integer> leaders = new HashSet<>();
        for (int p = 0; p < 3; p++) {
            PartitionState state =
                    cluster.node(1).partitionState(created.topicId(), p).orElseThrow();
            assertThat(state.replicas()).hasSize(3).doesNotHaveDuplicates();
            assertThat(state.leader()).isEqualTo(state.replicas().get(0));
            assertThat(state.isr()).containsExactlyInAnyOrderElementsOf(state.replicas());
            assertThat(state.leaderEpoch()).isZero();
            assertThat(state.partitionEpoch()).isZero();
            leaders.add(state.leader());
        }
        assertThat(leaders)
                .as("round-robin placement spreads preferred leaders")
                .hasSize(3);
        for (QuorumMetadataSource node : cluster.running()) {
            await(
                    "node " + node.localNodeId() + " sees orders",
                    () -> node.topic("orders").isPresent()
                            && node.partitionState(created.topicId(), 2).isPresent());
            for (int p = 0; p < 3; p++) {
                assertThat(node.partitionState(created.topicId(), p))
                        .isEqualTo(cluster.node(1).partitionState(created.topicId(), p));
            }
            assertThat(node.clusterId()).isEqualTo(cluster.node(0).clusterId());
        }
        await("listener on node 2 fired", () -> changes.get() > before);

        // And: errors map to the contract's exceptions
        assertThatThrownBy(() -> cluster.node(0).createTopic("orders", 1, 1, Map.of()))
                .isInstanceOf(TopicExistsException.class);
        assertThatThrownBy(() -> cluster.node(2).createTopic("big", 1, 4, Map.of()))
                .isInstanceOf(InvalidReplicationFactorException.class)
                .hasMessageContaining("4");
        assertThatThrownBy(() -> cluster.node(2).deleteTopic("nope")).isInstanceOf(UnknownTopicException.class);
        assertThatThrownBy(() -> cluster.node(2).increasePartitions("orders", 2))
                .isInstanceOf(IllegalArgumentException.class);

        // And: the other mutations read their writes too
        assertThat(cluster.node(2).increasePartitions("orders", 5).partitions()).isEqualTo(5);
        assertThat(cluster.node(0)
                        .replaceConfigs("orders", Map.of("segment.bytes", "4096"))
                        .configs())
                .isEqualTo(Map.of("segment.bytes", "4096"));
        long first = cluster.node(0).allocateProducerIds(10);
        long second = cluster.node(2).allocateProducerIds(10);
        assertThat(second).isGreaterThanOrEqualTo(first + 10);
        cluster.node(1).deleteTopic("orders");
        assertThat(cluster.node(1).topic("orders")).isEmpty();
    }

    @Test
    void controllerFailoverKeepsEveryCommittedChangeAndNewMutationsWork() {
        // Given
        threeNodes();
        TopicMetadata topic = cluster.node(0).createTopic("kept", 3, 3, Map.of("cleanup.policy", "compact"));
        int oldController = cluster.awaitActiveController();
        List<PartitionState> before = List.of(state(0, topic, 0), state(0, topic, 1), state(0, topic, 2));

        // When: the active controller's node goes away
        cluster.stop(oldController);
        int newController = cluster.awaitActiveController();

        // Then
        assertThat(newController).isNotEqualTo(oldController);
        for (QuorumMetadataSource node : cluster.running()) {
            assertThat(node.topic("kept")).contains(topic);
            for (int p = 0; p < 3; p++) {
                int partition = p;
                await("partition " + p + " led by a live ISR member on node " + node.localNodeId(), () -> {
                    PartitionState state =
                            node.partitionState(topic.topicId(), partition).orElseThrow();
                    return state.leader() != oldController
                            && state.hasLeader()
                            && !state.isr().contains(oldController);
                });
                PartitionState state = node.partitionState(topic.topicId(), p).orElseThrow();
                assertThat(state.replicas()).isEqualTo(before.get(p).replicas());
                assertThat(before.get(p).isr()).contains(state.leader());
                assertThat(state.isr()).doesNotContain(oldController);
                if (before.get(p).leader() == oldController) {
                    assertThat(state.leaderEpoch()).isGreaterThan(before.get(p).leaderEpoch());
                }
            }
        }
        QuorumMetadataSource survivor = cluster.running().get(0);
        TopicMetadata next = survivor.createTopic("after-failover", 2, 2, Map.of());
        for (QuorumMetadataSource node : cluster.running()) {
            await(
                    "node " + node.localNodeId() + " sees after-failover",
                    () -> node.topic("after-failover").isPresent());
        }
        assertThat(state(survivor.localNodeId(), next, 0).replicas()).doesNotContain(oldController);
        assertThatThrownBy(() -> survivor.createTopic("three", 1, 3, Map.of()))
                .isInstanceOf(InvalidReplicationFactorException.class);
    }

    @Test
    void aNodeThatStopsHeartbeatingIsFencedAndLosesItsLeadershipsToIsrMembers() {
        // Given
        threeNodes();
        TopicMetadata topic = cluster.node(0).createTopic("fenced", 3, 3, Map.of());
        int victim = state(0, topic, 0).leader();
        int observer = (victim + 1) % 3;

        // When
        cluster.node(victim).pauseHeartbeats(true);

        // Then
        await(
                "node " + victim + " fenced",
                () -> cluster.node(observer).brokers().stream().anyMatch(b -> b.id() == victim && b.fenced()));
        await("leaderships moved off node " + victim, () -> {
            for (int p = 0; p < 3; p++) {
                PartitionState state = state(observer, topic, p);
                if (state.leader() == victim
                        || !state.hasLeader()
                        || state.isr().contains(victim)) {
                    return false;
                }
            }
            return true;
        });
        PartitionState moved = state(observer, topic, 0);
        assertThat(moved.leaderEpoch()).isEqualTo(1);
        assertThat(moved.isr()).hasSize(2).contains(moved.leader());

        // And: when it heartbeats again it is unfenced; the preferred leader election gives partition 0 back
        // once its leader lets it into the ISR again
        cluster.node(victim).pauseHeartbeats(false);
        await(
                "node " + victim + " unfenced",
                () -> cluster.node(observer).brokers().stream().anyMatch(b -> b.id() == victim && !b.fenced()));
        PartitionState current = state(moved.leader(), topic, 0);
        List<Integer> all = current.replicas();
        PartitionState widened = join(cluster.node(current.leader())
                .alterPartition(topic.topicId(), 0, current.leaderEpoch(), current.partitionEpoch(), all));
        assertThat(widened.isr()).containsExactlyInAnyOrderElementsOf(all);
        cluster.node(observer).electPreferredLeaders(List.of("fenced"));
        await("preferred leader back", () -> state(observer, topic, 0).leader() == victim);
    }

    @Test
    void alterPartitionWithStaleEpochsIsRefused() {
        // Given
        threeNodes();
        TopicMetadata topic = cluster.node(0).createTopic("isr", 1, 3, Map.of());
        PartitionState state = state(0, topic, 0);
        QuorumMetadataSource leader = cluster.node(state.leader());
        List<Integer> shrunk = List.of(state.leader(), state.replicas().get(1));

        // Then: a wrong leader epoch, a wrong partition epoch, or a non-leader are refused
        assertThatThrownBy(() -> join(leader.alterPartition(
                        topic.topicId(), 0, state.leaderEpoch() + 1, state.partitionEpoch(), shrunk)))
                .isInstanceOf(StaleEpochException.class);
        assertThatThrownBy(() -> join(leader.alterPartition(
                        topic.topicId(), 0, state.leaderEpoch(), state.partitionEpoch() + 1, shrunk)))
                .isInstanceOf(StaleEpochException.class);
        QuorumMetadataSource follower = cluster.node(state.replicas().get(1));
        assertThatThrownBy(() -> join(follower.alterPartition(
                        topic.topicId(), 0, state.leaderEpoch(), state.partitionEpoch(), shrunk)))
                .isInstanceOf(StaleEpochException.class);
        assertThatThrownBy(() -> join(leader.alterPartition(Uuid.randomUuid(), 0, 0, 0, shrunk)))
                .isInstanceOf(UnknownTopicException.class);

        // When: the current epochs
        PartitionState after =
                join(leader.alterPartition(topic.topicId(), 0, state.leaderEpoch(), state.partitionEpoch(), shrunk));

        // Then: committed, partition epoch bumped, leader epoch not; the old partition epoch is now stale
        assertThat(after.isr()).containsExactlyElementsOf(shrunk);
        assertThat(after.partitionEpoch()).isEqualTo(state.partitionEpoch() + 1);
        assertThat(after.leaderEpoch()).isEqualTo(state.leaderEpoch());
        assertThat(leader.partitionState(topic.topicId(), 0)).contains(after);
        assertThatThrownBy(() -> join(leader.alterPartition(
                        topic.topicId(), 0, state.leaderEpoch(), state.partitionEpoch(), state.replicas())))
                .isInstanceOf(StaleEpochException.class);
        for (QuorumMetadataSource node : cluster.running()) {
            await(
                    "node " + node.localNodeId() + " sees the shrunk ISR",
                    () -> node.partitionState(topic.topicId(), 0).equals(Optional.of(after)));
        }
    }

    @Test
    void aRestartedNodeRereadsTheLogAndRejoins() {
        // Given
        threeNodes();
        int controller = cluster.awaitActiveController();
        int restarted = (controller + 1) % 3;
        TopicMetadata topic = cluster.node(controller).createTopic("durable", 3, 3, Map.of());
        cluster.stop(restarted);
        TopicMetadata whileDown = cluster.node(controller).createTopic("while-down", 1, 2, Map.of());

        // When
        QuorumMetadataSource node = cluster.start(restarted);

        // Then: it replays everything committed, including what happened while it was away
        await(
                "restarted node sees both topics",
                () -> node.topic("durable").isPresent()
                        && node.topic("while-down").isPresent());
        assertThat(node.topic("durable")).contains(topic);
        assertThat(node.topic("while-down")).contains(whileDown);
        cluster.awaitAllUnfenced();
        List<BrokerRegistration> brokers = List.copyOf(node.brokers());
        assertThat(brokers).extracting(BrokerRegistration::id).containsExactlyInAnyOrder(0, 1, 2);
        for (int p = 0; p < 3; p++) {
            PartitionState state = state(restarted, topic, p);
            assertThat(state.isr()).doesNotContain(restarted);
            assertThat(state.leader()).isNotEqualTo(restarted);
        }
        assertThat(node.createTopic("from-restarted", 1, 3, Map.of()).partitions())
                .isEqualTo(1);
    }

    @Test
    void aWholeClusterRestartKeepsEveryCommittedChangeAndElectsLeadersFromTheIsr() {
        // Given
        threeNodes();
        TopicMetadata topic = cluster.node(0).createTopic("everything", 3, 3, Map.of("retention.ms", "7"));
        long producerIds = cluster.node(1).allocateProducerIds(50);

        // When: every node stops, then all start again from their directories
        cluster.close();
        cluster.startAll();
        cluster.awaitActiveController();
        cluster.awaitAllUnfenced();

        // Then
        for (QuorumMetadataSource node : cluster.running()) {
            assertThat(node.topic("everything")).contains(topic);
            for (int p = 0; p < 3; p++) {
                int partition = p;
                await(
                        "partition " + p + " has a leader on node " + node.localNodeId(),
                        () -> node.partitionState(topic.topicId(), partition)
                                .orElseThrow()
                                .hasLeader());
                PartitionState state = node.partitionState(topic.topicId(), p).orElseThrow();
                assertThat(state.isr()).contains(state.leader());
            }
        }
        assertThat(cluster.node(2).allocateProducerIds(1)).isGreaterThanOrEqualTo(producerIds + 50);
    }

    private PartitionState state(int node, TopicMetadata topic, int partition) {
        return cluster.node(node).partitionState(topic.topicId(), partition).orElseThrow();
    }

    private static <T> T join(java.util.concurrent.CompletableFuture<T> future) {
        try {
            return future.get(30, TimeUnit.SECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException runtime) {
                throw runtime;
            }
            throw new AssertionError(e.getCause());
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
