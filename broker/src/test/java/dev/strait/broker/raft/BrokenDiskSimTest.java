package dev.strait.broker.raft;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Proves the checker can fail: with disks whose flush is a no-op (so nodes in effect acknowledge entries before
 * they are durable), crashes lose committed entries, and the simulation must catch it, name the seed, and
 * replay the same failure from that seed.
 */
@Tag("simulation")
class BrokenDiskSimTest {

    @Test
    void ackingBeforeFlushIsCaughtAndTheSeedReplays() {
        // Given
        List<Simulation.SimulationFailure> failures = new ArrayList<>();
        // When
        for (long seed = 0; seed < 200; seed++) {
            try {
                new Simulation(seed, 3, 1, true).runRandomSchedule(3_000, 30_000);
            } catch (Simulation.SimulationFailure failure) {
                failures.add(failure);
            }
        }
        // Then
        assertThat(failures).as("seeds that caught the lying disk").isNotEmpty();
        List<Simulation.SimulationFailure> safety =
                failures.stream().filter(f -> f.safety).toList();
        assertThat(safety)
                .as("seeds that caught the lying disk breaking a safety rule (not only a stuck quorum)")
                .isNotEmpty();
        Simulation.SimulationFailure first = safety.get(0);
        System.out.println("lying disk caught by " + failures.size() + " of 200 seeds; first:\n" + first.getMessage());
        assertThat(first.getMessage()).contains("seed=" + first.seed).contains("-Dsim.seed=" + first.seed);
        assertThatThrownBy(() -> new Simulation(first.seed, 3, 1, true).runRandomSchedule(3_000, 30_000))
                .isInstanceOf(Simulation.SimulationFailure.class)
                .hasMessage(first.getMessage());
    }
}
