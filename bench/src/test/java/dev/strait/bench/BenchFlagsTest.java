package dev.strait.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.testkit.nemesis.FaultKind;
import dev.strait.testkit.nemesis.NemesisCluster;
import dev.strait.testkit.nemesis.SystemKind;
import dev.strait.testkit.nemesis.WorkloadSpec;
import java.nio.file.Path;
import java.time.Duration;
import java.util.EnumSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** bin/bench broker and nemesis on picocli: the old flag names and defaults, help, and one-line errors. */
class BenchFlagsTest {

    @Test
    void brokerBenchKeepsItsFlagsAndDefaults() {
        BrokerBench.Options defaults = BrokerBench.parse(new String[0]);
        assertThat(defaults)
                .isEqualTo(new BrokerBench.Options(
                        1_000_000,
                        1024,
                        6,
                        List.of(BrokerNode.Kind.KAFKA, BrokerNode.Kind.STRAIT),
                        null,
                        "1g",
                        10_000,
                        300_000,
                        Duration.ofSeconds(900),
                        false,
                        false));
        BrokerBench.Options set = BrokerBench.parse(new String[] {
            "--records",
            "5",
            "--nodes",
            "1",
            "--record-size",
            "10",
            "--partitions",
            "2",
            "--only",
            "strait,kafka",
            "--output",
            "o.md",
            "--heap",
            "2g",
            "--latency-rate",
            "0",
            "--latency-records",
            "7",
            "--step-timeout-s",
            "9",
            "--jfr"
        });
        assertThat(set)
                .isEqualTo(new BrokerBench.Options(
                        5,
                        10,
                        2,
                        List.of(BrokerNode.Kind.STRAIT, BrokerNode.Kind.KAFKA),
                        Path.of("o.md"),
                        "2g",
                        0,
                        7,
                        Duration.ofSeconds(9),
                        true,
                        true));
        assertThat(BrokerBench.parse(new String[] {"-h"})).isNull();
        assertThat(BrokerBench.usage()).contains("--latency-rate").contains("10000");
        assertOneLineError(() -> BrokerBench.parse(new String[] {"--recods", "5"}), "--recods");
        assertOneLineError(() -> BrokerBench.parse(new String[] {"--records"}), "--records");
        assertOneLineError(() -> BrokerBench.parse(new String[] {"--partitions", "six"}), "--partitions");
        assertOneLineError(() -> BrokerBench.parse(new String[] {"--only", "x"}), "--only");
    }

    @Test
    void nemesisBenchKeepsItsFlagsAndDefaults() {
        NemesisBench.Options defaults = NemesisBench.parse(new String[] {"--seed", "42"});
        assertThat(defaults.runs()).isEqualTo(1);
        assertThat(defaults.seed()).isEqualTo(42);
        assertThat(defaults.systems()).containsExactly(SystemKind.STRAIT);
        assertThat(defaults.faultPhaseS()).isEqualTo(120);
        assertThat(defaults.faults()).isEqualTo(EnumSet.complementOf(EnumSet.of(FaultKind.POWER_LOSS_ALL)));
        assertThat(defaults.flushOnAck()).isFalse();
        assertThat(defaults.kafkaElr()).isEqualTo(NemesisCluster.KafkaElr.DEFAULT);
        assertThat(defaults.partitions()).isEqualTo(4);
        assertThat(defaults.createPartitions()).isEqualTo(500);
        assertThat(defaults.rate()).isEqualTo(400);
        assertThat(defaults.keepLogs()).isFalse();
        assertThat(defaults.writeBackAgeS()).isEqualTo(30);
        assertThat(FaultKind.parseList("power"))
                .containsExactlyInAnyOrder(
                        FaultKind.POWER_LOSS_NODE, FaultKind.POWER_LOSS_LONE_LEADER, FaultKind.POWER_LOSS_MINORITY);
        NemesisBench.Options set = NemesisBench.parse(new String[] {
            "--runs",
            "3",
            "--seed",
            "7",
            "--system",
            "both",
            "--fault-phase-s",
            "30",
            "--faults",
            "pause",
            "--partitions",
            "2",
            "--create-partitions",
            "9",
            "--rate",
            "50",
            "--session-timeout-ms",
            "3000",
            "--work-dir",
            "/tmp/x",
            "--keep-logs",
            "--write-back-age-s",
            "5",
            "--flush-on-ack",
            "--kafka-elr",
            "off"
        });
        assertThat(set)
                .isEqualTo(new NemesisBench.Options(
                        3,
                        7,
                        List.of(SystemKind.STRAIT, SystemKind.KAFKA),
                        30,
                        FaultKind.parseList("pause"),
                        2,
                        9,
                        50,
                        3000,
                        Path.of("/tmp/x"),
                        true,
                        5,
                        true,
                        NemesisCluster.KafkaElr.OFF,
                        WorkloadSpec.Kind.IDEMPOTENT));
        NemesisBench.Options txn = NemesisBench.parse(new String[] {"--workload", "txn"});
        assertThat(txn.workload()).isEqualTo(WorkloadSpec.Kind.TXN);
        assertThat(txn.rate()).isEqualTo(WorkloadSpec.txnDefaults().recordsPerSecond());
        assertThat(NemesisBench.parse(new String[] {"--workload", "txn", "--rate", "90"})
                        .rate())
                .isEqualTo(90);
        assertOneLineError(() -> NemesisBench.parse(new String[] {"--workload", "xa"}), "workload");
        assertThat(NemesisBench.parse(new String[] {"--flush-on-ack", "--faults", "power-loss-all,pause"})
                        .faults())
                .contains(FaultKind.POWER_LOSS_ALL);
        assertOneLineError(() -> NemesisBench.parse(new String[] {"--faults", "power-loss-all"}), "--flush-on-ack");
        assertOneLineError(() -> NemesisBench.parse(new String[] {"--kafka-elr", "maybe"}), "--kafka-elr");
        assertThat(NemesisBench.parse(new String[] {"--help"})).isNull();
        assertThat(NemesisBench.usage()).contains("--fault-phase-s").contains("Fault names:");
        assertOneLineError(() -> NemesisBench.parse(new String[] {"--bogus"}), "--bogus");
        assertOneLineError(() -> NemesisBench.parse(new String[] {"--runs", "0"}), "--runs");
    }

    private static void assertOneLineError(
            org.assertj.core.api.ThrowableAssert.ThrowingCallable call, String mentions) {
        assertThatThrownBy(call)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(mentions)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
}
