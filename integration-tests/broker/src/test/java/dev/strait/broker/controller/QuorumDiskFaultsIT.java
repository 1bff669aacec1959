package dev.strait.broker.controller;

import static dev.strait.broker.controller.QuorumTestCluster.await;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import dev.strait.broker.metadata.BrokerRegistration;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.raft.FileRaftStorage;
import dev.strait.broker.raft.LogEntry;
import dev.strait.broker.raft.RaftConfig;
import dev.strait.broker.raft.metadata.MetadataRecord;
import dev.strait.broker.raft.metadata.MetadataRecord.FenceNode;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The voter's metadata disk misbehaves. One voter (node 0, whose Raft storage is slowed down or fails) and two
 * broker-only nodes (7, 8), all heartbeating every 250 ms with a 1.5 s session.
 * <ul>
 *   <li>Issue 11, defect 5: a slow disk must not fence the cluster; the voter's whole metadata log is read back
 *       and no {@link FenceNode} may be in it.</li>
 *   <li>Issue 11, defect 8: a failing disk stops the node's quorum loop, which reports the fatal fault, and the
 *       node's metadata source refuses further mutations instead of acting on a frozen image.</li>
 * </ul>
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class QuorumDiskFaultsIT {

    private static final long SESSION_MS = 1_500;

    @TempDir
    Path dir;

    private final List<String> faults = new CopyOnWriteArrayList<>();
    private final AtomicReference<SlowRaftStorage> disk = new AtomicReference<>();
    private final List<QuorumMetadataSource> nodes = new ArrayList<>();
    private QuorumMetadataSource voter;

    private QuorumConfig settings(int nodeId, Map<Integer, InetSocketAddress> voters, int listenPort) {
        return new QuorumConfig(
                nodeId,
                voters,
                "127.0.0.1",
                listenPort,
                dir.resolve("node-" + nodeId),
                SESSION_MS,
                250,
                1,
                30_000,
                2_000,
                new RaftConfig(500, 300, 250, 20, 200, 1_500, 500));
    }

    @BeforeEach
    void startCluster() {
        int voterPort = QuorumTestCluster.freePort();
        Map<Integer, InetSocketAddress> voters = Map.of(0, new InetSocketAddress("127.0.0.1", voterPort));
        voter = QuorumMetadataSource.open(
                settings(0, voters, voterPort),
                QuorumTestCluster.testEnvironment(0, faults).withStorage(SlowRaftStorage.opener(disk)));
        nodes.add(voter);
        for (int id : new int[] {7, 8}) {
            nodes.add(
                    QuorumMetadataSource.open(settings(id, voters, -1), QuorumTestCluster.testEnvironment(id, faults)));
        }
        for (QuorumMetadataSource node : nodes) {
            node.registerLocalBroker("127.0.0.1", 19_000 + node.localNodeId());
        }
        await(
                "all three brokers unfenced",
                () -> voter.brokers().stream()
                        .filter(b -> !b.fenced())
                        .map(BrokerRegistration::id)
                        .toList()
                        .containsAll(List.of(0, 7, 8)));
    }

    @AfterEach
    void stop() {
        for (QuorumMetadataSource node : nodes) {
            node.closeAbruptly();
        }
    }

    @Test
    void aCreateTopicsOfSeveralHundredPartitionsOnASlowDiskFencesNobody() throws Exception {
        // Given: every fsync of the metadata log takes 25 ms
        disk.get().flushDelayMs.set(25);

        // When: 400 partitions (one fsync per record would hold the loop for 10 s, beyond the 1.5 s session)
        TopicMetadata big = nodes.get(1).createTopic("big", 400, 3, Map.of());
        assertThat(big.partitions()).isEqualTo(400);
        // And: a later decision, so that a fencing decided after the creation would be in the log before it
        nodes.get(2).createTopic("marker", 1, 3, Map.of());

        // Then
        assertThat(fencingsInVoterLog()).isEmpty();
        assertThat(faults).isEmpty();
    }

    @Test
    void heartbeatsQueuedBehindAStalledFsyncCountBeforeAnyFencing() throws Exception {
        // Given: the next fsync of the metadata log stalls for twice the session timeout
        disk.get().stallNextFlushMs.set(2 * SESSION_MS);

        // When: a decision hits the stalled disk; the brokers' heartbeats queue behind it
        nodes.get(1).createTopic("stalled", 3, 3, Map.of());
        nodes.get(2).createTopic("marker", 1, 3, Map.of());

        // Then
        assertThat(fencingsInVoterLog()).isEmpty();
        assertThat(faults).isEmpty();
    }

    @Test
    void aFailingMetadataDiskIsAFatalFaultAndTheNodeRefusesToGoOn() {
        // When: the voter's fsync fails under a decision
        disk.get().failFlushes.set(true);
        Throwable refused = catchThrowable(() -> voter.createTopic("doomed", 1, 1, Map.of()));

        // Then: the quorum loop reported it, and the node does not pretend to go on
        await("the fatal fault reported", () -> !faults.isEmpty());
        assertThat(faults)
                .singleElement()
                .asString()
                .contains("metadata quorum loop of node 0")
                .contains("fsync failed");
        assertThat(refused).isNotNull();
        assertThatThrownBy(() -> voter.createTopic("after", 1, 1, Map.of()))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("fatal error");
    }

    /** Stops the cluster and reads the voter's metadata log back from its files. */
    private List<MetadataRecord> fencingsInVoterLog() throws Exception {
        stop();
        nodes.clear();
        List<MetadataRecord> fencings = new ArrayList<>();
        try (FileRaftStorage log = FileRaftStorage.open(dir.resolve("node-0"))) {
            for (long offset = 0; offset < log.endOffset(); offset++) {
                LogEntry entry = log.entry(offset);
                if (entry.kind() == LogEntry.Kind.DATA) {
                    for (MetadataRecord record : MetadataEntries.decode(entry.payload())) {
                        if (record instanceof FenceNode) {
                            fencings.add(record);
                        }
                    }
                }
            }
        }
        return fencings;
    }
}
