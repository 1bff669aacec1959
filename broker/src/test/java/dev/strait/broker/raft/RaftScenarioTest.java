package dev.strait.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.raft.metadata.MetadataImage;
import dev.strait.broker.raft.metadata.MetadataLoader;
import dev.strait.broker.raft.metadata.MetadataRecord;
import dev.strait.broker.raft.metadata.MetadataRecord.CreateTopic;
import dev.strait.broker.raft.metadata.MetadataRecord.PartitionChange;
import dev.strait.broker.raft.metadata.MetadataRecord.ProducerIdBlock;
import dev.strait.broker.raft.metadata.MetadataRecord.RegisterNode;
import dev.strait.broker.raft.metadata.MetadataRecordSerde;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Scripted schedules on the simulated quorum (no random faults; messages still take 1-5 ms). Every invariant
 * of {@link Simulation} is checked after every event here too.
 */
class RaftScenarioTest {

    @Test
    void leaderCrashAfterProposalBeforeCommitLosesOnlyThatProposal() {
        // Given
        Simulation sim = new Simulation(1, 3, 1, false, false);
        RaftNode oldLeader = sim.awaitLeader(5_000);
        CompletableFuture<Long> committedBefore = sim.propose(oldLeader.nodeId(), "kept");
        sim.runFor(200);
        assertThat(committedBefore).isCompleted();
        // When: the leader stores a proposal and dies before any follower fetches it
        CompletableFuture<Long> doomed = sim.propose(oldLeader.nodeId(), "doomed");
        sim.crash(oldLeader.nodeId());
        RaftNode newLeader = sim.awaitLeader(5_000);
        CompletableFuture<Long> after = sim.propose(newLeader.nodeId(), "after-failover");
        sim.runFor(300);
        sim.restart(oldLeader.nodeId());
        sim.runFor(1_000);
        // Then
        assertThat(newLeader.epoch()).isGreaterThan(oldLeader.epoch());
        assertThat(after).isCompleted();
        assertThat(doomed).isNotDone();
        sim.checkLogsConverged();
        for (int id = 1; id <= 4; id++) {
            assertThat(payloads(sim.node(id)))
                    .as("node %d", id)
                    .contains("kept", "after-failover")
                    .doesNotContain("doomed");
        }
    }

    @Test
    void aPartitionedLeaderStopsConfirmingItsLeadershipBeforeAnotherIsElected() {
        // Given: three voters (election timeout 150 ms, check-quorum 450 ms), a leader that confirms its leadership
        RaftConfig config = new RaftConfig(150, 150, 60, 10, 100, 450, 10);
        long window = config.electionTimeoutMs() / 2;
        Simulation sim = new Simulation(3, 3, 0, false, config);
        RaftNode oldLeader = sim.awaitLeader(5_000);
        sim.runFor(300);
        assertThat(oldLeader.leadershipConfirmedWithin(sim.nowMs(), window)).isTrue();

        // When: it is cut off from the other voters (silently: its connections stay open)
        sim.partition(Set.of(oldLeader.nodeId()));

        // Then: at no moment does it confirm its leadership while another leader exists, though for a while it
        // still believes it leads (check-quorum has not made it resign yet)
        boolean overlapSeen = false;
        for (int step = 0; step < 400; step++) {
            sim.runFor(2);
            RaftNode current = sim.currentLeader();
            boolean otherLeader = current != null && current.nodeId() != oldLeader.nodeId();
            if (otherLeader) {
                overlapSeen |= oldLeader.isLeader();
                assertThat(oldLeader.leadershipConfirmedWithin(sim.nowMs(), window))
                        .as("old leader confirms at %d ms while node %d leads", sim.nowMs(), current.nodeId())
                        .isFalse();
            }
        }
        assertThat(overlapSeen)
                .as("the old leader still believed it led after the new one was elected")
                .isTrue();
        assertThat(sim.currentLeader().nodeId()).isNotEqualTo(oldLeader.nodeId());
    }

    @Test
    void partitionedOldLeaderCannotCommitAndItsDivergentSuffixIsTruncated() {
        // Given
        Simulation sim = new Simulation(2, 5, 0, false, false);
        RaftNode oldLeader = sim.awaitLeader(5_000);
        sim.runFor(200);
        long highWatermarkBefore = oldLeader.highWatermark();
        long endBefore = oldLeader.endOffset();
        // When
        sim.partition(Set.of(oldLeader.nodeId()));
        List<CompletableFuture<Long>> minority = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            minority.add(sim.propose(oldLeader.nodeId(), "minority-" + i));
        }
        sim.runFor(2_000);
        // Then: no progress on the island, a new leader on the majority side
        assertThat(oldLeader.highWatermark()).isEqualTo(highWatermarkBefore);
        assertThat(oldLeader.endOffset()).isEqualTo(endBefore + 3);
        assertThat(oldLeader.isLeader())
                .as("resigned after checkQuorumMs without fetches")
                .isFalse();
        assertThat(minority).allMatch(CompletableFuture::isCompletedExceptionally);
        RaftNode newLeader = sim.currentLeader();
        assertThat(newLeader.nodeId()).isNotEqualTo(oldLeader.nodeId());
        CompletableFuture<Long> majority = sim.propose(newLeader.nodeId(), "majority");
        sim.runFor(500);
        assertThat(majority).isCompleted();
        // When the partition heals, the old leader follows and its uncommitted entries are replaced
        sim.healPartition();
        sim.runFor(1_000);
        // Then: it follows the new leader; thanks to pre-vote its time alone did not inflate the epoch and force
        // another election
        RaftNode leaderNow = sim.currentLeader();
        assertThat(leaderNow).isSameAs(newLeader);
        assertThat(oldLeader.leaderId()).isEqualTo(newLeader.nodeId());
        assertThat(oldLeader.epoch()).isEqualTo(newLeader.epoch());
        assertThat(payloads(oldLeader)).contains("majority").noneMatch(p -> p.startsWith("minority-"));
        assertThat(oldLeader.entry(endBefore)).isEqualTo(leaderNow.entry(endBefore));
        sim.checkLogsConverged();
    }

    @Test
    void controllerFailoverLosesNoCommittedMetadataAndEveryNodeBuildsTheSameImage() {
        // Given: three voters and one observer (a broker that only follows the log)
        Simulation sim = new Simulation(3, 3, 1, false, false);
        RaftNode first = sim.awaitLeader(5_000);
        UUID orders = new UUID(42, 1);
        List<CompletableFuture<Long>> acked = new ArrayList<>();
        acked.add(proposeRecord(sim, first, new RegisterNode(4, new UUID(4, 4), "broker-4", 9092, "")));
        acked.add(proposeBatch(
                sim,
                first,
                List.of(
                        new CreateTopic("orders", orders),
                        new PartitionChange(orders, 0, List.of(1, 2, 3), List.of(1, 2, 3), 1, 0),
                        new PartitionChange(orders, 1, List.of(2, 3, 1), List.of(2, 3, 1), 2, 0))));
        sim.runFor(300);
        // When: the controller's leader crashes and another takes over
        sim.crash(first.nodeId());
        RaftNode second = sim.awaitLeader(5_000);
        acked.add(proposeRecord(sim, second, new PartitionChange(orders, 0, List.of(1, 2, 3), List.of(2, 3), 2, 1)));
        acked.add(proposeRecord(sim, second, new ProducerIdBlock(4, 0, 1000)));
        sim.runFor(300);
        sim.restart(first.nodeId());
        sim.runFor(1_000);
        // Then
        assertThat(acked).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
        List<MetadataImage> images = new ArrayList<>();
        for (int id = 1; id <= 4; id++) {
            images.add(new MetadataLoader(sim.node(id)).poll());
        }
        MetadataImage image = images.get(0);
        assertThat(images).allMatch(image::equals);
        assertThat(image.topic("orders").orElseThrow().partitions().get(0).leader())
                .isEqualTo(2);
        assertThat(image.topic("orders").orElseThrow().partitions()).hasSize(2);
        assertThat(image.nodes()).containsKey(4);
        assertThat(image.nextProducerId()).isEqualTo(1000);
    }

    private static CompletableFuture<Long> proposeRecord(Simulation sim, RaftNode leader, MetadataRecord record) {
        return proposeBatch(sim, leader, List.of(record));
    }

    private static CompletableFuture<Long> proposeBatch(Simulation sim, RaftNode leader, List<MetadataRecord> batch) {
        return sim.propose(leader.nodeId(), MetadataRecordSerde.serializeBatch(batch), batch.toString());
    }

    private static List<String> payloads(RaftNode node) {
        List<String> payloads = new ArrayList<>();
        for (long offset = 0; offset < node.endOffset(); offset++) {
            LogEntry entry = node.entry(offset);
            if (entry.kind() == LogEntry.Kind.DATA) {
                payloads.add(new String(entry.payload(), StandardCharsets.UTF_8));
            }
        }
        return payloads;
    }
}
