package dev.strait.broker.controller;

import static dev.strait.broker.controller.QuorumTestCluster.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.metadata.BrokerRegistration;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.raft.RaftConfig;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A broker-only node ({@code process.roles=broker}) has no controller listener: it follows the log as a Raft
 * observer and calls the controller over the connection it opened, which the voter answers on.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BrokerOnlyNodeIT {

    @TempDir
    Path dir;

    private QuorumConfig settings(int nodeId, Map<Integer, InetSocketAddress> voters, int listenPort) {
        return new QuorumConfig(
                nodeId,
                voters,
                "127.0.0.1",
                listenPort,
                dir.resolve("node-" + nodeId),
                1_500,
                250,
                1,
                10_000,
                2_000,
                new RaftConfig(500, 300, 250, 20, 200, 1_500, 500));
    }

    @Test
    void anObserverRegistersFollowsTheLogAndMutatesThroughTheVoter() {
        int voterPort = QuorumTestCluster.freePort();
        Map<Integer, InetSocketAddress> voters = Map.of(0, new InetSocketAddress("127.0.0.1", voterPort));
        List<String> faults = new CopyOnWriteArrayList<>();
        try (QuorumMetadataSource voter = QuorumMetadataSource.open(
                        settings(0, voters, voterPort), QuorumTestCluster.testEnvironment(0, faults));
                QuorumMetadataSource observer = QuorumMetadataSource.open(
                        settings(7, voters, -1), QuorumTestCluster.testEnvironment(7, faults))) {
            // Given
            voter.registerLocalBroker("127.0.0.1", 19_000);
            observer.registerLocalBroker("127.0.0.1", 19_007);
            assertThat(observer.controllerPort()).isEqualTo(-1);
            await(
                    "both brokers unfenced on the observer",
                    () -> observer.brokers().stream()
                            .filter(b -> !b.fenced())
                            .map(BrokerRegistration::id)
                            .toList()
                            .containsAll(java.util.List.of(0, 7)));

            // When: the observer creates a topic that needs both brokers
            TopicMetadata topic = observer.createTopic("observed", 2, 2, Map.of());

            // Then
            assertThat(observer.partitionState(topic.topicId(), 0).orElseThrow().replicas())
                    .containsExactlyInAnyOrder(0, 7);
            await("voter sees it", () -> voter.topic("observed").isPresent());
            assertThat(voter.topic("observed")).contains(topic);
        }
        assertThat(faults).isEmpty();
    }
}
