package dev.strait.broker.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Seeded schedules of the group coordinator under coordinator failovers (losing what was not replicated), consumer
 * crashes, pauses past the session timeout and departures, each checked after every step (see
 * {@link CoordinatorSimulation}). {@code -Dsim.seed=N} replays one seed; {@code -Dsim.schedules=N} runs more.
 */
@Tag("simulation")
class CoordinatorSimulationTest {

    private static final long DURATION_MS = 20_000;

    @Test
    void everyScheduleKeepsCommittedOffsetsAndSettles() {
        String replay = System.getProperty("sim.seed");
        List<Long> seeds = new ArrayList<>();
        if (replay != null) {
            seeds.add(Long.parseLong(replay));
        } else {
            int schedules = Integer.getInteger("sim.schedules", 200);
            for (long s = 0; s < schedules; s++) {
                seeds.add(s * 0x9E3779B97F4A7C15L + 11);
            }
        }
        long failovers = 0;
        long crashes = 0;
        long pauses = 0;
        long leaves = 0;
        long commits = 0;
        long generations = 0;
        for (long seed : seeds) {
            CoordinatorSimulation simulation = new CoordinatorSimulation(seed);
            try {
                CoordinatorSimulation.Outcome outcome = simulation.run(DURATION_MS);
                failovers += outcome.failovers();
                crashes += outcome.crashes();
                pauses += outcome.pauses();
                leaves += outcome.leaves();
                commits += outcome.acknowledgedCommits();
                generations += outcome.stableGenerations();
            } finally {
                simulation.close();
            }
        }
        System.out.printf(
                "coordinator simulation: %d schedules, %d failovers, %d crashes, %d pauses, %d departures,"
                        + " %d acknowledged commits, %d completed rebalances%n",
                seeds.size(), failovers, crashes, pauses, leaves, commits, generations);
        // The schedules must exercise every fault, or passing says nothing.
        assertThat(failovers).as("coordinator failovers").isGreaterThan(seeds.size());
        assertThat(crashes).as("consumer crashes").isGreaterThan(seeds.size());
        assertThat(pauses).as("pauses past the session timeout").isGreaterThan(seeds.size());
        assertThat(leaves).as("departures").isGreaterThan(seeds.size() / 2);
        assertThat(commits).as("acknowledged commits").isGreaterThan(seeds.size() * 10L);
        assertThat(generations).as("completed rebalances").isGreaterThan(seeds.size() * 2L);
    }

    /**
     * Every shard's loop runs on the simulation's thread, in the order it decides, with ticks on its fake clock: a
     * seed replays its run exactly (the same faults, the same records appended, requests answered in the same
     * order), and another seed makes another run.
     */
    @Test
    void aSeedReplaysItsRunExactly() {
        long seed = 0x5EEDL;
        CoordinatorSimulation.Outcome first = runOnce(seed);
        CoordinatorSimulation.Outcome again = runOnce(seed);
        assertThat(again).isEqualTo(first);
        assertThat(first.acknowledgedCommits()).as("the run did something").isPositive();
        assertThat(runOnce(seed + 1).history()).as("another seed, another run").isNotEqualTo(first.history());
    }

    private static CoordinatorSimulation.Outcome runOnce(long seed) {
        CoordinatorSimulation simulation = new CoordinatorSimulation(seed);
        try {
            return simulation.run(DURATION_MS);
        } finally {
            simulation.close();
        }
    }

    /**
     * The checker against the rule defect 6 broke: offsets served (and acknowledged) as soon as appended. Some
     * schedule must then show a failover taking back an offset a reader was served, and the failure must be that
     * safety invariant, not any failure.
     */
    @Test
    void theCheckerCatchesOffsetsServedBeforeTheyAreDurable() {
        CoordinatorSimulation.Violation found = null;
        for (long seed = 0; seed < 200 && found == null; seed++) {
            CoordinatorSimulation simulation = new CoordinatorSimulation(seed, true);
            try {
                simulation.run(DURATION_MS);
            } catch (CoordinatorSimulation.Violation e) {
                found = e;
            } finally {
                simulation.close();
            }
        }
        assertThat(found).as("a schedule where the broken rule loses an offset").isNotNull();
        assertThat(found.getMessage())
                .contains("replay with -Dsim.seed=")
                .containsAnyOf("went back from", "below the acknowledged commit");
        System.out.println("offsets served before durable caught: "
                + found.getMessage().lines().findFirst().orElseThrow());
    }
}
