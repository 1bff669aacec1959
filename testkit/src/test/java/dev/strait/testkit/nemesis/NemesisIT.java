package dev.strait.testkit.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The short nemesis run of the build: one seeded schedule of every fault kind (pauses shorter and longer than the
 * session timeout, the leader isolated from its followers and the controller, a follower cut from its leader, a
 * minority split, flapping links, kills) against three Strait nodes, and the same schedule against Apache Kafka 4.1.1,
 * whose clean verdict shows the harness does not cry wolf. Each run prints its seed and schedule; replay a failure
 * with the printed {@code bin/bench nemesis} command. Override with {@code -Dnemesis.seed=} and
 * {@code -Dnemesis.faultPhaseS=}.
 */
class NemesisIT {
    private static final long SEED = Long.getLong("nemesis.seed", 47);
    private static final long FAULT_PHASE_MS = Long.getLong("nemesis.faultPhaseS", 45) * 1000;

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void straitKeepsEveryAcknowledgedRecordThroughTheSchedule() {
        RunReport report = run(SystemKind.STRAIT);
        assertClean(report);
    }

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void kafkaShowsNoAnomalyUnderTheSameSchedule() {
        RunReport report = run(SystemKind.KAFKA);
        assertClean(report);
    }

    private static RunReport run(SystemKind system) {
        NemesisCluster.Settings settings = NemesisCluster.Settings.defaults();
        WorkloadSpec workload = WorkloadSpec.defaults();
        ScheduleSpec spec = new ScheduleSpec(FAULT_PHASE_MS, settings.sessionTimeoutMs(), 3, workload.partitions(), 500,
                EnumSet.allOf(FaultKind.class));
        RunOptions options = new RunOptions(system, spec, workload, settings, Path.of("target", "nemesis"), true,
                System.out);
        RunReport report = new NemesisRun(options, SEED).run();
        System.out.println(report.describe());
        return report;
    }

    private static void assertClean(RunReport report) {
        assertThat(report.error()).as("harness error").isNull();
        assertThat(report.faultsInjected()).as("faults injected").isNotEmpty();
        assertThat(report.acknowledged()).as("acknowledged records").isPositive();
        assertThat(report.anomalies()).as("anomalies (replay: " + report.replay() + ")").isEmpty();
    }
}
