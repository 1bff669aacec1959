package dev.strait.broker.txn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Thousands of random schedules of {@link TxnCoordinatorSim}: producers, lost replies, retries, zombies, timeouts,
 * expiry and coordinator crashes that lose the unacknowledged tail of {@code __transaction_state}. Each seed fixes
 * every choice, so a failure replays exactly: {@code -Dsim.seed=N} runs just that seed; {@code -Dsim.seeds=N}
 * changes how many run. The sweep asserts that every fault and path happened, so a change that quietly stops
 * injecting one fails here instead of passing on schedules that no longer test it.
 */
@Tag("simulation")
class TxnCoordinatorSimTest {

    private static final int STEPS = 400;

    @Test
    void randomSchedulesKeepEveryInvariant() {
        String replay = System.getProperty("sim.seed");
        if (replay != null) {
            runOne(Long.parseLong(replay));
            return;
        }
        int seeds = Integer.getInteger("sim.seeds", 3_000);
        long startNs = System.nanoTime();
        TxnCoordinatorSim.Stats stats = new TxnCoordinatorSim.Stats();
        List<Long> failedSeeds = new ArrayList<>();
        TxnCoordinatorSim.SimulationFailure first = null;
        for (long seed = 0; seed < seeds; seed++) {
            try {
                stats.add(runOne(seed).stats);
            } catch (TxnCoordinatorSim.SimulationFailure failure) {
                failedSeeds.add(failure.seed);
                if (first == null) {
                    first = failure;
                }
            }
        }
        long elapsedMs = (System.nanoTime() - startNs) / 1_000_000;
        System.out.printf(
                "transaction coordinator simulation: %d schedules, %s, %d ms, failed seeds %s%n",
                seeds, stats, elapsedMs, failedSeeds);
        if (first != null) {
            System.out.println(first.getMessage());
            throw first;
        }
        if (seeds >= 500) {
            assertEverythingHappened(stats);
        }
    }

    private static void assertEverythingHappened(TxnCoordinatorSim.Stats stats) {
        assertThat(stats.commitsAcked).as("commits acknowledged").isPositive();
        assertThat(stats.abortsAcked).as("aborts acknowledged").isPositive();
        assertThat(stats.fences)
                .as("ongoing transactions fenced by a new producer")
                .isPositive();
        assertThat(stats.timeoutAborts)
                .as("transactions aborted by their timeout")
                .isPositive();
        assertThat(stats.crashes).as("coordinator crashes").isPositive();
        assertThat(stats.keptUnacknowledged)
                .as("unacknowledged records that survived a crash")
                .isPositive();
        assertThat(stats.lostReplies).as("lost replies").isPositive();
        assertThat(stats.retries).as("client retries").isPositive();
        assertThat(stats.fencedReplies).as("PRODUCER_FENCED answers").isPositive();
        assertThat(stats.zombieWritesRefused)
                .as("zombie data refused by a partition")
                .isPositive();
        assertThat(stats.rotations).as("producer id rotations").isPositive();
        assertThat(stats.expirations).as("transactional ids expired").isPositive();
        assertThat(stats.idempotentEndRetries)
                .as("EndTxn retries answered from the completed state")
                .isPositive();
        assertThat(stats.markersResent)
                .as("markers resent by a new coordinator")
                .isPositive();
        assertThat(stats.kip360Inits).as("KIP-360 re-inits").isPositive();
        assertThat(stats.endsSwitched)
                .as("EndTxn retried with the other outcome")
                .isPositive();
    }

    /** The checker can fail: a log that loses records it acknowledged as durable is caught on many seeds. */
    @Test
    void aLogThatLosesAcknowledgedRecordsIsCaught() {
        int caught = 0;
        for (long seed = 0; seed < 300; seed++) {
            try {
                new TxnCoordinatorSim(seed, true).run(STEPS);
            } catch (TxnCoordinatorSim.SimulationFailure expected) {
                caught++;
            }
        }
        System.out.printf("transaction coordinator simulation with a lying log: %d of 300 schedules caught%n", caught);
        assertThat(caught).isGreaterThan(30);
    }

    /**
     * Seeds that once failed, kept as regressions: 8 crashed while the new coordinator was still loading (its state
     * then runs past the durable end, legitimately); 45 had a fenced producer write data after its own EndTxn, which
     * left a transaction open on a partition (a client must not, and KIP-890's verification is what stops it).
     */
    @Test
    void seedsThatOnceFailed() {
        for (long seed : new long[] {8, 45}) {
            runOne(seed);
        }
    }

    @Test
    void aSeedReplaysExactly() {
        TxnCoordinatorSim once = runOne(42);
        TxnCoordinatorSim again = runOne(42);
        assertThat(again.stats).hasToString(once.stats.toString());
    }

    private static TxnCoordinatorSim runOne(long seed) {
        TxnCoordinatorSim sim = new TxnCoordinatorSim(seed);
        sim.run(STEPS);
        return sim;
    }
}
