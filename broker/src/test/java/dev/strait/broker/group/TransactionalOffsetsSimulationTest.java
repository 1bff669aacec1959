package dev.strait.broker.group;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Seeded schedules of transactional offset commits, their commit and abort markers reported late, ordinary commits
 * and group deletions under coordinator failovers, each checked against the durable log (see
 * {@link TransactionalOffsetsSimulation}). {@code -Dsim.seed=N} replays one seed; {@code -Dsim.schedules=N} runs more.
 */
@Tag("simulation")
class TransactionalOffsetsSimulationTest {

    private static final long DURATION_MS = 20_000;

    @Test
    void everyScheduleServesWhatTheDurableLogSays() {
        String replay = System.getProperty("sim.seed");
        List<Long> seeds = new ArrayList<>();
        if (replay != null) {
            seeds.add(Long.parseLong(replay));
        } else {
            int schedules = Integer.getInteger("sim.schedules", 200);
            for (long s = 0; s < schedules; s++) {
                seeds.add(s * 0x9E3779B97F4A7C15L + 29);
            }
        }
        long failovers = 0;
        long commits = 0;
        long aborts = 0;
        long checks = 0;
        for (long seed : seeds) {
            TransactionalOffsetsSimulation simulation = new TransactionalOffsetsSimulation(seed);
            try {
                TransactionalOffsetsSimulation.Outcome outcome = simulation.run(DURATION_MS);
                failovers += outcome.failovers();
                commits += outcome.committedTransactions();
                aborts += outcome.abortedTransactions();
                checks += outcome.checks();
            } finally {
                simulation.close();
            }
        }
        System.out.printf(
                "transactional offsets simulation: %d schedules, %d failovers, %d committed and %d aborted"
                        + " transactions, %d checks%n",
                seeds.size(), failovers, commits, aborts, checks);
        // The schedules must exercise failovers and both outcomes, or passing says nothing.
        assertThat(failovers).as("failovers").isGreaterThan(seeds.size() / 2);
        assertThat(commits).as("committed transactions").isGreaterThan(seeds.size() * 10L);
        assertThat(aborts).as("aborted transactions").isGreaterThan(seeds.size() * 10L);
        assertThat(checks).as("checks").isGreaterThan(seeds.size() * 100L);
    }
}
