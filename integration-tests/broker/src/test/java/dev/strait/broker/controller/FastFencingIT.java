package dev.strait.broker.controller;

import static dev.strait.broker.controller.QuorumTestCluster.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.metadata.BrokerRegistration;
import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.metadata.TopicMetadata;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, failover time: a node whose process is gone (its connections closed) is fenced without waiting for
 * its session timeout, by the controller that saw it go and by a controller elected because it went. The session
 * timeout here (10 minutes) is far beyond every wait of the test, so only fast fencing can pass it.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class FastFencingIT {

    private static final long SESSION_MS = 600_000;

    @TempDir
    Path dir;

    private QuorumTestCluster cluster;

    @AfterEach
    void tearDown() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aKilledActiveControllerIsFencedByItsSuccessorAndItsPartitionsMove() {
        // Given
        cluster = new QuorumTestCluster(dir, 3).sessionTimeoutMs(SESSION_MS).startAll();
        int controller = cluster.awaitActiveController();
        cluster.awaitAllUnfenced();
        TopicMetadata topic = cluster.node((controller + 1) % 3).createTopic("t", 6, 3, Map.of());

        // When: the active controller's process dies
        cluster.kill(controller);

        // Then
        int next = cluster.awaitActiveController();
        assertThat(next).isNotEqualTo(controller);
        awaitFencedWithPartitionsMoved(controller, topic);
    }

    @Test
    void aKilledBrokerIsFencedByTheActiveController() {
        // Given
        cluster = new QuorumTestCluster(dir, 3).sessionTimeoutMs(SESSION_MS).startAll();
        int controller = cluster.awaitActiveController();
        cluster.awaitAllUnfenced();
        TopicMetadata topic = cluster.node(controller).createTopic("t", 6, 3, Map.of());
        int victim = (controller + 1) % 3;

        // When
        cluster.kill(victim);

        // Then
        awaitFencedWithPartitionsMoved(victim, topic);
        assertThat(cluster.awaitActiveController()).isEqualTo(controller);
    }

    private void awaitFencedWithPartitionsMoved(int gone, TopicMetadata topic) {
        await("node " + gone + " fenced and leading nothing on every running node", () -> {
            for (QuorumMetadataSource node : cluster.running()) {
                boolean fenced = node.brokers().stream().anyMatch(b -> b.id() == gone && b.fenced());
                if (!fenced) {
                    return false;
                }
                for (int p = 0; p < topic.partitions(); p++) {
                    PartitionState state =
                            node.partitionState(topic.topicId(), p).orElseThrow();
                    if (!state.hasLeader()
                            || state.leader() == gone
                            || state.isr().contains(gone)) {
                        return false;
                    }
                }
            }
            return true;
        });
        for (QuorumMetadataSource node : cluster.running()) {
            assertThat(node.brokers().stream().filter(b -> b.id() != gone).map(BrokerRegistration::fenced))
                    .as("the live nodes stay unfenced")
                    .containsOnly(false);
        }
    }
}
