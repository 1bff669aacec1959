package dev.strait.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Thousands of random schedules against quorums of 1, 3 and 5 voters plus one observer. Each seed fixes the
 * fault rates and every random choice, so a failure replays exactly: {@code -Dsim.seed=N} (optionally
 * {@code -Dsim.voters=3}) runs just that seed. {@code -Dsim.seeds=N} changes how many seeds each quorum size gets.
 * A sweep asserts its fault statistics, so a change that quietly stops injecting a fault (or stops taking
 * snapshots) fails here instead of passing on schedules that no longer test anything.
 */
@Tag("simulation")
class RaftSimTest {

    private static final long CHAOS_MS = 3_000;
    private static final long LIVENESS_BUDGET_MS = 30_000;
    private static final int OBSERVERS = 1;

    @ParameterizedTest(name = "{0} voters")
    @ValueSource(ints = {1, 3, 5})
    void randomSchedulesKeepEveryInvariant(int voters) {
        String replay = System.getProperty("sim.seed");
        if (replay != null) {
            int only = Integer.getInteger("sim.voters", voters);
            if (only == voters) {
                runOne(Long.parseLong(replay), voters);
            }
            return;
        }
        int seeds = Integer.getInteger("sim.seeds", 2_000);
        long startNs = System.nanoTime();
        long events = 0;
        long committed = 0;
        Simulation.Stats stats = new Simulation.Stats();
        List<Long> failedSeeds = new ArrayList<>();
        Simulation.SimulationFailure first = null;
        for (long seed = 0; seed < seeds; seed++) {
            try {
                Simulation simulation = runOne(voters * 1_000_000L + seed, voters);
                events += simulation.events();
                committed += simulation.committedCount();
                stats.add(simulation.stats());
            } catch (Simulation.SimulationFailure failure) {
                failedSeeds.add(failure.seed);
                if (first == null) {
                    first = failure;
                }
            }
        }
        long elapsedMs = (System.nanoTime() - startNs) / 1_000_000;
        System.out.printf(
                "raft simulation: %d voters, %d schedules, %d events, %d committed entries, %s, %d ms, "
                        + "failed seeds %s%n",
                voters, seeds, events, committed, stats, elapsedMs, failedSeeds);
        if (first != null) {
            System.out.println(first.getMessage());
            throw first;
        }
        assertThat(committed).isPositive();
        if (seeds >= 500) {
            assertFaultsHappened(voters, stats);
        }
    }

    /** Every kind of fault and every snapshot path was exercised by the sweep, not just configured. */
    private static void assertFaultsHappened(int voters, Simulation.Stats stats) {
        assertThat(stats.elections).as("elections").isPositive();
        assertThat(stats.crashes).as("crashes").isPositive();
        assertThat(stats.partitions).as("partitions").isPositive();
        assertThat(stats.dropped).as("dropped messages").isPositive();
        assertThat(stats.duplicated).as("duplicated messages").isPositive();
        assertThat(stats.snapshotsTaken).as("snapshots taken").isPositive();
        assertThat(stats.snapshotsInstalled)
                .as("snapshots a follower or observer downloaded")
                .isPositive();
        assertThat(stats.snapshotLoads).as("restarts that loaded a snapshot").isPositive();
        assertThat(stats.snapshotCrashes)
                .as("power losses inside a snapshot install")
                .isPositive();
        assertThat(stats.corruptedChunks)
                .as("snapshot chunks corrupted in flight")
                .isPositive();
        assertThat(stats.highWatermarkRestarts)
                .as("restarts that knew their high watermark")
                .isPositive();
        assertThat(stats.snapshotsReplacedMidDownload)
                .as("snapshots replaced while a follower downloaded them")
                .isPositive();
        if (voters > 1) {
            // with one voter nothing uncommitted survives a leader's crash, so no follower ever diverges
            assertThat(stats.divergences).as("diverging-epoch answers").isPositive();
        }
    }

    @Test
    void aSeedReplaysExactly() {
        Simulation once = runOne(42, 3);
        Simulation again = runOne(42, 3);
        assertThat(again.events()).isEqualTo(once.events());
        assertThat(again.nowMs()).isEqualTo(once.nowMs());
        assertThat(again.committedEntries()).isEqualTo(once.committedEntries());
        assertThat(again.stats()).hasToString(once.stats().toString());
    }

    private static Simulation runOne(long seed, int voters) {
        Simulation simulation = new Simulation(seed, voters, OBSERVERS, false);
        simulation.runRandomSchedule(CHAOS_MS, LIVENESS_BUDGET_MS);
        return simulation;
    }
}
