package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.raft.ElectionState;
import dev.strait.broker.raft.FileRaftStorage;
import dev.strait.broker.raft.LogEntry;
import dev.strait.broker.raft.metadata.MetadataRecord.PartitionChange;
import dev.strait.broker.raft.metadata.MetadataRecordSerde;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 11, defect 8: a fatal error in the metadata quorum loop must stop the node (exit code 1, the reason on
 * stderr), never leave it serving with metadata that no longer moves. The error here: the committed metadata log
 * holds an entry that does not replay (a partition of a topic that does not exist), as a bug in an earlier
 * version could have written; the node's quorum loop fails as soon as it commits it.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class BrokerMainFatalFaultIT {

    @TempDir
    Path dir;

    @Test
    void aNodeWhoseQuorumLoopFailsExitsWithCodeOneAndSaysWhy() throws Exception {
        // Given: a one-voter quorum whose metadata log ends in an entry that cannot be replayed
        Path metadataDir = dir.resolve("metadata");
        Files.createDirectories(metadataDir);
        try (FileRaftStorage log = FileRaftStorage.open(metadataDir)) {
            log.writeElectionState(new ElectionState(1, 0, 0));
            log.append(LogEntry.leaderChange(1, 0, 0));
            byte[] unreplayable = MetadataRecordSerde.serializeBatch(
                    List.of(new PartitionChange(new UUID(1, 2), 0, List.of(0), List.of(0), 0, 0)));
            log.append(new LogEntry(1, 1, LogEntry.Kind.DATA, unreplayable));
            log.flush();
        }
        int clientPort = freePort();
        int controllerPort = freePort();
        Path config = dir.resolve("server.properties");
        Files.writeString(
                config,
                String.join(
                        "\n",
                        "node.id=0",
                        "process.roles=broker,controller",
                        "controller.quorum.voters=0@127.0.0.1:" + controllerPort,
                        "controller.listener.names=CONTROLLER",
                        "listeners=PLAINTEXT://127.0.0.1:" + clientPort + ",CONTROLLER://127.0.0.1:" + controllerPort,
                        "log.dirs=" + dir.resolve("data"),
                        "metadata.log.dir=" + metadataDir,
                        "offsets.topic.replication.factor=1",
                        ""),
                StandardCharsets.UTF_8);
        Path output = dir.resolve("broker.out");
        Process broker = new ProcessBuilder(
                        Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                        "-Xmx256m",
                        "-XX:+UseSerialGC",
                        "-XX:TieredStopAtLevel=1",
                        "-cp",
                        System.getProperty("java.class.path"),
                        BrokerMain.class.getName(),
                        config.toString())
                .redirectErrorStream(true)
                .redirectOutput(output.toFile())
                .start();
        try {
            // When: the node starts and its quorum commits the log
            boolean exited = broker.waitFor(90, TimeUnit.SECONDS);

            // Then
            String log = Files.readString(output, StandardCharsets.UTF_8);
            assertThat(exited).as("the node stopped; its output:%n%s", log).isTrue();
            assertThat(broker.exitValue()).isEqualTo(1);
            assertThat(log).contains("broker stopped after a fatal error in the metadata quorum loop of node 0");
        } finally {
            broker.destroyForcibly();
            broker.waitFor(10, TimeUnit.SECONDS);
        }
    }

    private static int freePort() throws IOException {
        return dev.strait.broker.server.LoopbackPorts.reserve();
    }
}
