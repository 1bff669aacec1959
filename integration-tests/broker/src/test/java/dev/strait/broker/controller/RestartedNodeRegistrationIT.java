package dev.strait.broker.controller;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.metadata.BrokerRegistration;
import dev.strait.broker.raft.FileRaftStorage;
import dev.strait.broker.raft.RaftConfig;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A node restarted after a crash sees, at once, its own image from its snapshot and log up to its checkpointed
 * high watermark, and that image still shows its previous incarnation unfenced. Registering the new incarnation
 * must wait for the controller to unfence it, not return on the strength of the old one.
 */
class RestartedNodeRegistrationIT {

    /** Fatal faults the nodes reported (none expected). */
    private final List<String> faults = new java.util.concurrent.CopyOnWriteArrayList<>();

    @TempDir
    Path dir;

    private final Map<Integer, InetSocketAddress> voters = new LinkedHashMap<>();

    private QuorumConfig settings(int id) {
        return new QuorumConfig(
                id,
                voters,
                "127.0.0.1",
                voters.get(id).getPort(),
                dir.resolve("node-" + id),
                QuorumTestCluster.SESSION_TIMEOUT_MS,
                QuorumTestCluster.HEARTBEAT_MS,
                1,
                10_000,
                2_000,
                new RaftConfig(500, 300, 250, 20, 200, 1_500, 500));
    }

    @Test
    void aRestartedNodeWaitsForItsNewIncarnationToBeUnfenced() throws Exception {
        for (int id = 0; id < 3; id++) {
            voters.put(id, new InetSocketAddress("127.0.0.1", QuorumTestCluster.freePort()));
        }
        QuorumMetadataSource[] nodes = new QuorumMetadataSource[3];
        try {
            for (int id = 0; id < 3; id++) {
                nodes[id] = QuorumMetadataSource.open(settings(id), QuorumTestCluster.testEnvironment(id, faults));
            }
            List<CompletableFuture<Void>> registrations = new ArrayList<>();
            for (int id = 0; id < 3; id++) {
                QuorumMetadataSource node = nodes[id];
                int port = 19_000 + id;
                registrations.add(CompletableFuture.runAsync(() -> node.registerLocalBroker("127.0.0.1", port)));
            }
            registrations.forEach(CompletableFuture::join);
            QuorumTestCluster.await(
                    "node 2 sees all three unfenced",
                    () -> nodes[2].brokers().stream().filter(b -> !b.fenced()).count() == 3);
            // Given: node 2 checkpointed a high watermark that covers its own unfencing, then crashes
            long seenAllUnfencedAt = System.currentTimeMillis();
            Path checkpoint = dir.resolve("node-2").resolve(FileRaftStorage.HIGH_WATERMARK_FILE);
            QuorumTestCluster.await(
                    "node 2 checkpoints its high watermark", () -> modifiedAfter(checkpoint, seenAllUnfencedAt));
            nodes[2].closeAbruptly();
            nodes[2] = null;
            // When: it restarts and registers from another port (a new incarnation)
            nodes[2] = QuorumMetadataSource.open(settings(2), QuorumTestCluster.testEnvironment(2, faults));
            nodes[2].registerLocalBroker("127.0.0.1", 29_002);
            // Then: by the time registration returns, its own image shows the new incarnation unfenced
            BrokerRegistration self = nodes[2].brokers().stream()
                    .filter(b -> b.id() == 2)
                    .findFirst()
                    .orElseThrow();
            assertThat(self.port()).isEqualTo(29_002);
            assertThat(self.fenced()).isFalse();
        } finally {
            for (QuorumMetadataSource node : nodes) {
                if (node != null) {
                    node.closeAbruptly();
                }
            }
        }
    }

    private static boolean modifiedAfter(Path file, long millis) {
        try {
            return Files.exists(file) && Files.getLastModifiedTime(file).toMillis() > millis;
        } catch (IOException e) {
            return false; // being replaced; look again
        }
    }
}
