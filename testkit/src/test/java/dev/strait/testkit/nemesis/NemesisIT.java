package dev.strait.testkit.nemesis;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The short nemesis run of the build: one seeded schedule of every fault kind (pauses shorter and longer than the
 * session timeout, the leader isolated from its followers and the controller, a follower cut from its leader, a
 * minority split, flapping links, kills) against three Strait nodes, and the same schedule against Apache Kafka 4.1.1,
 * whose verdict shows the harness does not cry wolf: no acknowledged record lost or moved, no offset holding two
 * values, committed offsets never back, a healthy cluster after healing. Each run prints its seed and schedule; replay
 * a failure with the printed {@code bin/bench nemesis} command. Override with {@code -Dnemesis.seed=} and
 * {@code -Dnemesis.faultPhaseS=}.
 *
 * <p>Kafka is allowed one kind of anomaly Strait is not: records written twice (and the reordering the second copy
 * makes). Seen on seed 47: the leader of a partition and the controller were SIGKILLed while batches were in flight;
 * the restarted node that became leader had rebuilt its producer state from its producer snapshot, which keeps only
 * the last batch of each producer (sequence 303 at offset 607), so the retry of the batch with sequences 301-302,
 * already in its log at 602-603, was answered OUT_OF_ORDER_SEQUENCE_NUMBER instead of DUPLICATE_SEQUENCE_NUMBER;
 * kafka-clients 4.1.1 then bumped the producer epoch and sent the same records again as epoch 3, sequences 0-1, at
 * 608-609 (read from the kept segment files). That is Kafka's behaviour, not the harness's, and the campaign counts it
 * as an anomaly of Kafka's; this test only makes sure nothing else shows up.
 */
class NemesisIT {
    private static final long SEED = Long.getLong("nemesis.seed", 47);
    private static final long FAULT_PHASE_MS = Long.getLong("nemesis.faultPhaseS", 45) * 1000;
    /** Kafka 4.1.1's idempotence gap after a restart (see the class comment); nothing else is excused. */
    private static final Set<Anomaly.Type> KAFKA_KNOWN = EnumSet.of(Anomaly.Type.DUPLICATED, Anomaly.Type.REORDERED);

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void straitKeepsEveryAcknowledgedRecordThroughTheSchedule() {
        RunReport report = run(SystemKind.STRAIT);
        assertClean(report, Set.of());
    }

    @Test
    @Timeout(value = 8, unit = TimeUnit.MINUTES)
    void kafkaLosesNothingUnderTheSameSchedule() {
        RunReport report = run(SystemKind.KAFKA);
        assertClean(report, KAFKA_KNOWN);
    }

    private static RunReport run(SystemKind system) {
        NemesisCluster.Settings settings = NemesisCluster.Settings.defaults();
        WorkloadSpec workload = WorkloadSpec.defaults();
        ScheduleSpec spec = new ScheduleSpec(
                FAULT_PHASE_MS,
                settings.sessionTimeoutMs(),
                3,
                workload.partitions(),
                500,
                EnumSet.allOf(FaultKind.class));
        RunOptions options =
                new RunOptions(system, spec, workload, settings, Path.of("target", "nemesis"), true, System.out);
        RunReport report = new NemesisRun(options, SEED).run();
        System.out.println(report.describe());
        return report;
    }

    private static void assertClean(RunReport report, Set<Anomaly.Type> excused) {
        assertThat(report.error()).as("harness error").isNull();
        assertThat(report.faultsInjected()).as("faults injected").isNotEmpty();
        assertThat(report.acknowledged()).as("acknowledged records").isPositive();
        assertThat(report.anomalies())
                .as("anomalies (replay: " + report.replay() + ")")
                .filteredOn(a -> a.counted() && !excused.contains(a.type()))
                .isEmpty();
    }
}
