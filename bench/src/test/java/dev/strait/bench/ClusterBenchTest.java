package dev.strait.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The statistics and flags of {@code bin/bench cluster}; the bench itself runs child JVMs and is not a test. */
class ClusterBenchTest {

    @Test
    void medianOfOddAndEvenCounts() {
        assertThat(ClusterBench.median(List.of(3.0, 1.0, 2.0))).isEqualTo(2.0);
        assertThat(ClusterBench.median(List.of(4.0, 1.0, 3.0, 2.0))).isEqualTo(2.5);
        assertThat(ClusterBench.median(List.of(7.0))).isEqualTo(7.0);
    }

    @Test
    void p99IsTheMaximumUpToAHundredRunsThenTheNearestRank() {
        assertThat(ClusterBench.p99(List.of(5.0, 1.0, 9.0, 2.0, 3.0))).isEqualTo(9.0);
        List<Double> twoHundred = new java.util.ArrayList<>();
        for (int i = 1; i <= 200; i++) {
            twoHundred.add((double) i);
        }
        assertThat(ClusterBench.p99(twoHundred)).isEqualTo(198.0);
    }

    @Test
    void runsFlagIsParsedAndChecked() {
        assertThat(ClusterBench.parse(new String[] {"--runs", "5"}).runs()).isEqualTo(5);
        assertThat(ClusterBench.parse(new String[0]).runs()).isEqualTo(1);
        assertThatThrownBy(() -> ClusterBench.parse(new String[] {"--runs", "0"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--runs");
        assertThatThrownBy(() -> ClusterBench.parse(new String[] {"--runs", "x"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--runs");
        assertThatThrownBy(() -> ClusterBench.parse(new String[] {"--no-such-flag"}))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("--no-such-flag")
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
        assertThat(ClusterBench.parse(new String[] {"--help"})).isNull();
        assertThat(ClusterBench.usage())
                .contains("--session-timeout-ms")
                .contains("9000")
                .contains("--runs");
    }

    @Test
    void everyFlagKeepsItsNameAndDefault() {
        ClusterBench.Options defaults = ClusterBench.parse(new String[0]);
        assertThat(defaults.records()).isEqualTo(1_000_000);
        assertThat(defaults.recordBytes()).isEqualTo(1024);
        assertThat(defaults.partitions()).isEqualTo(6);
        assertThat(defaults.brokers()).containsExactly(BrokerNode.Kind.KAFKA, BrokerNode.Kind.STRAIT);
        assertThat(defaults.sessionTimeouts()).containsExactly(9000);
        assertThat(defaults.heap()).isEqualTo("512m");
        assertThat(defaults.failoverTimeout()).hasSeconds(60);
        assertThat(defaults.stepTimeout()).hasSeconds(900);
        assertThat(defaults.output()).isNull();
        assertThat(defaults.keepLogs()).isFalse();
        ClusterBench.Options set = ClusterBench.parse(new String[] {
            "--records",
            "5",
            "--record-size",
            "10",
            "--partitions",
            "2",
            "--nodes",
            "3",
            "--only",
            "strait",
            "--session-timeout-ms",
            "9000,3000",
            "--heap",
            "1g",
            "--failover-timeout-s",
            "7",
            "--step-timeout-s",
            "8",
            "--output",
            "x.md",
            "--keep-logs",
            "--runs",
            "2",
            "--victim",
            "controller",
            "--strait-flush-on-ack"
        });
        assertThat(set)
                .isEqualTo(new ClusterBench.Options(
                        5,
                        10,
                        2,
                        java.util.List.of(BrokerNode.Kind.STRAIT),
                        java.util.List.of(9000, 3000),
                        "1g",
                        java.time.Duration.ofSeconds(7),
                        java.time.Duration.ofSeconds(8),
                        java.nio.file.Path.of("x.md"),
                        true,
                        2,
                        ClusterBench.Victim.CONTROLLER,
                        true));
        assertThat(defaults.victim()).isEqualTo(ClusterBench.Victim.LEADER);
        assertThatThrownBy(() -> ClusterBench.parse(new String[] {"--victim", "follower"}))
                .hasMessageContaining("--victim takes leader or controller");
        assertThatThrownBy(() -> ClusterBench.parse(new String[] {"--nodes", "5"}))
                .hasMessageContaining("--nodes");
        assertThatThrownBy(() -> ClusterBench.parse(new String[] {"--only", "redpanda"}))
                .hasMessageContaining("--only");
    }
}
