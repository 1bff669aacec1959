package dev.strait.broker.controller;

import static dev.strait.broker.controller.QuorumTestCluster.await;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.metadata.TopicMetadata;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** One voter: the smallest quorum, its restart, and garbage on its controller listener. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class SingleVoterQuorumIT {

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
    void aSingleVoterLeadsItselfAndKeepsItsMetadataAcrossARestart() {
        // Given
        cluster = new QuorumTestCluster(dir, 1).startAll();
        cluster.awaitActiveController();
        cluster.awaitAllUnfenced();
        TopicMetadata topic = cluster.node(0).createTopic("solo", 2, -1, Map.of("retention.ms", "5"));
        long producerIds = cluster.node(0).allocateProducerIds(100);

        // When
        cluster.stop(0);
        QuorumMetadataSource again = cluster.start(0);

        // Then
        await("metadata replayed", () -> again.topic("solo").isPresent());
        assertThat(again.topic("solo")).contains(topic);
        cluster.awaitAllUnfenced();
        await(
                "leader again after unfencing (the restart took the only ISR member's leadership)",
                () -> again.partitionState(topic.topicId(), 1)
                                .map(PartitionState::leader)
                                .orElse(-1)
                        == 0);
        assertThat(again.partitionState(topic.topicId(), 1))
                .map(PartitionState::isr)
                .contains(java.util.List.of(0));
        assertThat(again.allocateProducerIds(1)).isEqualTo(producerIds + 100);
    }

    @Test
    void garbageOnTheControllerListenerClosesThatConnectionOnly() throws IOException {
        // Given
        cluster = new QuorumTestCluster(dir, 1).startAll();
        cluster.awaitActiveController();
        cluster.awaitAllUnfenced();
        int port = cluster.node(0).controllerPort();

        // When: a frame with a bad CRC, then a huge size, then random bytes, each on a fresh connection
        byte[] good = ControllerWire.encode(new ControllerMessage.Hello(9));
        byte[] badCrc = good.clone();
        badCrc[badCrc.length - 1] ^= 1;
        byte[] huge = {0x7f, 0x7f, 0x7f, 0x7f, 1, 2, 3};
        byte[] noise = "GET / HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        for (byte[] garbage : new byte[][] {badCrc, huge, noise}) {
            try (Socket socket = new Socket("127.0.0.1", port)) {
                socket.setSoTimeout(5_000);
                OutputStream out = socket.getOutputStream();
                out.write(garbage);
                out.flush();
                // Then: the node closes the connection
                assertThat(new DataInputStream(socket.getInputStream()).read()).isEqualTo(-1);
            }
        }

        // And: the node still works
        assertThat(cluster.node(0).createTopic("still-alive", 1, 1, Map.of()).partitions())
                .isEqualTo(1);
    }
}
