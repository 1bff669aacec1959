package dev.strait.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * Scripted snapshot schedules on the simulated quorum (no random faults; messages take 1-5 ms), with every
 * invariant of {@link Simulation} checked after every event: a follower and a new observer that fall behind the
 * leader's log start, power lost in the middle of a snapshot install, and a snapshot replaced while a follower
 * downloads it.
 */
class RaftSnapshotScenarioTest {

    /** Snapshots every ~60 bytes of payload (about six proposals), 32-byte chunks. */
    private static final RaftConfig CONFIG =
            new RaftConfig(150, 150, 60, 10, 100, 450, 5).withSnapshots(60, 0).withTransfer(32, 20);

    private static List<CompletableFuture<Long>> proposeMany(Simulation sim, String prefix, int count) {
        List<CompletableFuture<Long>> acks = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            RaftNode leader = sim.awaitLeader(5_000);
            acks.add(sim.propose(leader.nodeId(), prefix + "-" + i));
            sim.runFor(10);
        }
        sim.runFor(500);
        return acks;
    }

    @Test
    void aFollowerThatMissedSeveralSnapshotsCatchesUpFromTheLeadersSnapshot() {
        // Given
        Simulation sim = new Simulation(11, 3, 1, false, CONFIG);
        RaftNode leader = sim.awaitLeader(5_000);
        int lagging = sim.voterIds().stream()
                .filter(id -> id != leader.nodeId())
                .findFirst()
                .orElseThrow();
        proposeMany(sim, "before", 5);
        long laggingEnd = sim.node(lagging).endOffset();
        sim.crash(lagging);
        // When: the others commit and snapshot far past it
        List<CompletableFuture<Long>> acks = proposeMany(sim, "while-down", 40);
        assertThat(sim.currentLeader().logStartOffset()).isGreaterThan(laggingEnd);
        sim.restart(lagging);
        sim.runFor(2_000);
        // Then
        RaftNode restarted = sim.node(lagging);
        assertThat(acks).allMatch(f -> f.isDone() && !f.isCompletedExceptionally());
        assertThat(sim.stats().snapshotsInstalled).isPositive();
        assertThat(restarted.logStartOffset()).isGreaterThan(laggingEnd);
        assertThat(restarted.highWatermark()).isEqualTo(sim.currentLeader().highWatermark());
        sim.checkLogsConverged();
    }

    @Test
    void anObserverThatJoinsLateStartsFromASnapshot() {
        // Given: the observer (node 4) is down from the start
        Simulation sim = new Simulation(12, 3, 1, false, CONFIG);
        sim.crash(4);
        proposeMany(sim, "early", 30);
        assertThat(sim.currentLeader().logStartOffset()).isPositive();
        // When
        sim.restart(4);
        sim.runFor(2_000);
        // Then: it never saw offset 0 of the log, yet holds everything committed
        assertThat(sim.node(4).logStartOffset()).isPositive();
        assertThat(sim.node(4).highWatermark()).isEqualTo(sim.currentLeader().highWatermark());
        assertThat(sim.stats().snapshotsInstalled).isPositive();
        sim.checkLogsConverged();
    }

    @Test
    void powerLostWhileTheLeaderWritesASnapshotLosesNothingCommitted() {
        for (SimDisk.SnapshotCrash where : SimDisk.SnapshotCrash.values()) {
            // Given
            Simulation sim = new Simulation(13, 3, 0, false, CONFIG);
            RaftNode leader = sim.awaitLeader(5_000);
            int id = leader.nodeId();
            proposeMany(sim, "first", 8);
            // When: the power fails in the middle of its next snapshot, then it comes back
            sim.armSnapshotCrash(id, where);
            List<CompletableFuture<Long>> acks = new ArrayList<>();
            for (int i = 0; i < 20 && sim.node(id) != null; i++) {
                acks.add(sim.propose(id, "second-" + i));
                sim.runFor(10);
            }
            assertThat(sim.node(id))
                    .as("crashed inside its snapshot (%s)", where)
                    .isNull();
            assertThat(sim.stats().snapshotCrashes).isEqualTo(1);
            sim.restart(id);
            sim.runFor(2_000);
            proposeMany(sim, "third", 5);
            // Then: whatever was acknowledged is committed everywhere (the invariants checked it as it went)
            assertThat(acks.stream().filter(f -> f.isDone() && !f.isCompletedExceptionally()))
                    .isNotEmpty();
            assertThat(sim.node(id).highWatermark())
                    .isEqualTo(sim.currentLeader().highWatermark());
            sim.checkLogsConverged();
        }
    }

    @Test
    void aSnapshotReplacedDuringItsDownloadIsFetchedAgainUnderItsNewId() {
        // Given: one-byte chunks, so a download takes longer than the leader takes to snapshot again
        RaftConfig slow = CONFIG.withTransfer(1, 20);
        Simulation sim = new Simulation(14, 3, 0, false, slow);
        RaftNode leader = sim.awaitLeader(5_000);
        int lagging = sim.voterIds().stream()
                .filter(id -> id != leader.nodeId())
                .findFirst()
                .orElseThrow();
        sim.crash(lagging);
        proposeMany(sim, "while-down", 20);
        // When: it comes back and downloads while proposals keep the leader snapshotting
        sim.restart(lagging);
        proposeMany(sim, "during-download", 30);
        // Then: once the leader stops replacing it (a byte per round trip is slow), the download completes
        for (int i = 0;
                i < 600
                        && sim.node(lagging).highWatermark()
                                < sim.currentLeader().highWatermark();
                i++) {
            sim.runFor(100);
        }
        assertThat(sim.stats().snapshotsReplacedMidDownload).isPositive();
        assertThat(sim.node(lagging).highWatermark())
                .isEqualTo(sim.currentLeader().highWatermark());
        sim.checkLogsConverged();
    }
}
