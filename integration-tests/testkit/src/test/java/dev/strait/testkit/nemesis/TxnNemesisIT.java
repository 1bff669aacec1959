package dev.strait.testkit.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The short nemesis schedule of {@link NemesisIT} with the transactional workload ({@link TxnWorkload}) against three
 * Strait nodes: transactional producers (some transactions aborted) and read_committed readers through the faults,
 * then a final read_committed and read_uncommitted read. No aborted record visible, no committed record missing, no
 * transaction partly visible, no duplicate, no reordering ({@link TxnChecker}); a healthy cluster after healing. Apache
 * Kafka 4.1.1 goes through the same workload in {@code bin/bench nemesis --workload txn --system kafka} (not in the
 * build, whose 25 minutes it would exceed; figures in docs/benchmarks.md).
 */
class TxnNemesisIT {
    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void straitKeepsTransactionsAtomicThroughTheSchedule() {
        RunReport report =
                ShortSchedule.run(SystemKind.STRAIT, ShortSchedule.WITHOUT_POWER, WorkloadSpec.txnDefaults());
        assertTransactional(report);
        ShortSchedule.assertClean(report, Set.of());
    }

    static void assertTransactional(RunReport report) {
        assertThat(report.transactions()).as("transaction figures").isNotNull();
        assertThat(report.transactions().committed())
                .as("committed transactions")
                .isPositive();
        assertThat(report.transactions().aborted()).as("aborted transactions").isPositive();
    }
}
