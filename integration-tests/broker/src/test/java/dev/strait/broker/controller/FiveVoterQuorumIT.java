package dev.strait.broker.controller;

import static dev.strait.broker.controller.QuorumTestCluster.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.metadata.TopicMetadata;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** Five voters survive the loss of two, the active controller among them. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FiveVoterQuorumIT {

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
    void losingTheControllerAndOneMoreVoterKeepsMetadataAndWrites() {
        // Given
        cluster = new QuorumTestCluster(dir, 5).startAll();
        int controller = cluster.awaitActiveController();
        cluster.awaitAllUnfenced();
        TopicMetadata topic = cluster.node((controller + 1) % 5).createTopic("five", 5, 3, Map.of());
        int other = (controller + 2) % 5;

        // When
        cluster.stop(controller);
        cluster.stop(other);
        int next = cluster.awaitActiveController();

        // Then
        assertThat(next).isNotIn(controller, other);
        QuorumMetadataSource survivor = cluster.node(next);
        assertThat(survivor.topic("five")).contains(topic);
        await("every partition led by a live in-sync replica", () -> {
            for (int p = 0; p < 5; p++) {
                PartitionState state =
                        survivor.partitionState(topic.topicId(), p).orElseThrow();
                if (!state.hasLeader() || state.leader() == controller || state.leader() == other) {
                    return false;
                }
            }
            return true;
        });
        TopicMetadata later = cluster.running().get(0).createTopic("five-later", 1, 3, Map.of());
        for (QuorumMetadataSource node : cluster.running()) {
            await(
                    "node " + node.localNodeId() + " sees five-later",
                    () -> node.topic("five-later").isPresent());
            assertThat(node.topic("five-later")).contains(later);
        }
    }
}
