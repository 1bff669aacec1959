package dev.strait.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.bench.MirrorTopicsBench.Copier;
import dev.strait.bench.MirrorTopicsBench.Measured;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** bin/bench mirror-topics: its flags, the CPU time read from /proc/PID/stat, and its report to the character. */
class MirrorTopicsBenchTest {

    @Test
    void flagsAndTheirDefaults() {
        Path here = Path.of(".").toAbsolutePath().normalize();
        assertThat(MirrorTopicsBench.parse(new String[0]))
                .isEqualTo(new MirrorTopicsBench.Options(
                        1_000_000,
                        1024,
                        6,
                        "lz4",
                        List.of(Copier.MIRROR_TOPICS, Copier.FOLLOWER, Copier.STRAIT, Copier.MM2),
                        "1g",
                        Duration.ofSeconds(5),
                        Duration.ofSeconds(1200),
                        null,
                        false,
                        here));
        assertThat(MirrorTopicsBench.parse(new String[] {
                    "--records",
                    "200000",
                    "--record-size",
                    "512",
                    "--partitions",
                    "3",
                    "--compression",
                    "zstd",
                    "--only",
                    "mm2,mirror-topics",
                    "--heap",
                    "2g",
                    "--settle-s",
                    "0",
                    "--step-timeout-s",
                    "60",
                    "--output",
                    "out.md",
                    "--keep-logs",
                    "--repo",
                    "/tmp/x/../strait"
                }))
                .isEqualTo(new MirrorTopicsBench.Options(
                        200_000,
                        512,
                        3,
                        "zstd",
                        List.of(Copier.MIRROR_TOPICS, Copier.MM2),
                        "2g",
                        Duration.ZERO,
                        Duration.ofSeconds(60),
                        Path.of("out.md"),
                        true,
                        Path.of("/tmp/strait")));
        assertThat(MirrorTopicsBench.parse(new String[] {"--help"})).isNull();
        assertThat(MirrorTopicsBench.usage())
                .contains("--only")
                .contains("mirror-topics, follower, strait, mm2")
                .contains("--compression")
                .contains("lz4");
        assertOneLineError(new String[] {"--only", "mm3"}, "mm3");
        assertOneLineError(new String[] {"--compression", "brotli"}, "--compression");
        assertOneLineError(new String[] {"--records", "0"}, "--records");
        assertOneLineError(new String[] {"--settle-s", "-1"}, "--settle-s");
        assertOneLineError(new String[] {"--streams", "2"}, "--streams");
    }

    @Test
    void binBenchHandsTheModeToMirrorTopicsBench() {
        // bin/bench runs MirrorBench --repo DIR "$@" for every mode it does not name itself.
        assertThat(MirrorBench.mirrorTopicsArgs(new String[] {"--repo", "/r", "mirror-topics", "--records", "5"}))
                .containsExactly("--repo", "/r", "--records", "5");
        assertThat(MirrorBench.mirrorTopicsArgs(new String[] {"mirror-topics", "--help"}))
                .containsExactly("--help");
        assertThat(MirrorBench.mirrorTopicsArgs(new String[] {"--repo", "/r", "--records", "5"}))
                .isNull();
        assertThat(MirrorBench.mirrorTopicsArgs(new String[] {"--repo", "/r", "--only", "mirror-topics"}))
                .isNull();
        assertThat(MirrorBench.mirrorTopicsArgs(new String[0])).isNull();
    }

    private static void assertOneLineError(String[] args, String names) {
        assertThatThrownBy(() -> MirrorTopicsBench.parse(args))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(names)
                .hasMessageNotContaining("\n");
    }

    @Test
    void cpuTicksAreUtimePlusStimeCountedFromTheLastParenthesis() {
        // A command name with a space and a parenthesis, as a thread may name itself; utime 1234, stime 56.
        String stat = "4242 (java (x) y) S 1 4242 4242 0 -1 4194560 100 0 0 0 1234 56 7 8 20 0 40 0 12345 1 2";
        assertThat(ProcessStats.cpuTicks(stat)).isEqualTo(1290);
        assertThat(ProcessStats.cpuTicks("4242 (java) S 1 2 3")).isEqualTo(-1);
        assertThat(ProcessStats.cpuTicks("no stat line")).isEqualTo(-1);
        assertThat(ProcessStats.cpuSeconds(ProcessHandle.current().pid())).isGreaterThan(0);
        assertThat(ProcessStats.cpuSeconds(-5)).isEqualTo(-1);
        assertThat(ProcessStats.isCompilerThread("C2 CompilerThre\n")).isTrue();
        assertThat(ProcessStats.isCompilerThread("C1 CompilerThre")).isTrue();
        assertThat(ProcessStats.isCompilerThread("GC Thread#0")).isFalse();
        assertThat(ProcessStats.isCompilerThread("kafka-request-handler-0")).isFalse();
        assertThat(ProcessStats.compilerCpuSeconds(ProcessHandle.current().pid()))
                .isGreaterThanOrEqualTo(0);
        assertThat(ProcessStats.compilerCpuSeconds(-5)).isEqualTo(-1);
    }

    @Test
    void reportComparesEachWayWithMirrorMaker2AndTheFollowerAndJudgesTheGoals() {
        List<Measured> runs = List.of(
                new Measured(Copier.MIRROR_TOPICS, 4.0, 4.0, 1.5, null, 1.5, 0.5, 2.0, 250_000_000),
                new Measured(Copier.FOLLOWER, 5.0, 5.0, 1.2, null, 1.2, 1.0, 1.8, 250_000_000),
                new Measured(Copier.STRAIT, 12.0, 8.0, 6.0, 4.0, 9.5, 2.0, 2.5, 240_000_000),
                new Measured(Copier.MM2, 40.0, 25.0, 30.0, 10.0, 45.25, 3.25, 3.0, 260_000_000));
        Map<String, String> failures = new LinkedHashMap<>();
        assertThat(MirrorTopicsBench.report(250_000_000, runs, failures)).isEqualTo("""
                | way | counted processes | seconds | copy window s | MB/s in the window | CPU s copier \
                | CPU s target storage | CPU s counted | of which JIT compiler s | CPU s/GB copier only | CPU s/GB counted | counted / MM2 \
                | copier only / MM2 | counted / follower | copier CPU s, whole run | CPU s source leader \
                | MB stored on the target |
                |---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
                | mirror topics | companion broker (copier = storage) | 4 | 4 | 62.50 | 1.50 | - | 1.50 | 0.50 | 6 | 6 \
                | 0.038 | 0.050 | 1.250 | 1.50 | 2 | 250 |
                | Kafka follower | follower broker (copier = storage) | 5 | 5 | 50 | 1.20 | - | 1.20 | 1 | 4.80 \
                | 4.80 | 0.030 | 0.040 | 1.000 | 1.20 | 1.80 | 250 |
                | Strait mirror | mirror process + target Kafka broker | 12 | 8 | 31.25 | 6 | 4 | 10 | 2 | 24 | 40 \
                | 0.250 | 0.200 | 8.333 | 9.50 | 2.50 | 240 |
                | MirrorMaker 2 | MM2 process + target Kafka broker | 40 | 25 | 10 | 30 | 10 | 40 | 3.25 | 120 | 160 \
                | 1.000 | 1.000 | 33.333 | 45.25 | 3 | 260 |

                CPU s/GB: CPU seconds per 10^9 bytes of the backlog as stored on the source (250,000,000 bytes). \
                The window of a mirror process runs from the first record on the target to the last (its start-up \
                is in "whole run" only); the other ways' window is the whole copy. JIT compiler: the counted \
                processes' C1/C2 threads in the window (a lower bound). The source leader serves every way alike and \
                is counted in none.
                goal: mirror topics at most 1/20 of MirrorMaker 2's CPU per GB (ratio <= 0.050): counted 0.038, met; \
                copier only 0.050 (met); counted without JIT compiler threads 0.027 (met)
                goal: mirror topics within 1.5 x Kafka follower replication's CPU per GB (ratio <= 1.500): \
                counted 1.250, met; counted without JIT compiler threads 5.000 (not met)""");

        failures.put("MirrorMaker 2", "IllegalStateException: MirrorMaker 2 did not finish in time");
        String withoutMm2 = MirrorTopicsBench.report(250_000_000, runs.subList(0, 2), failures);
        assertThat(withoutMm2)
                .contains(
                        "| mirror topics | companion broker (copier = storage) | 4 | 4 | 62.50 | 1.50 | - | 1.50 | 0.50"
                                + " | 6 | 6 | - | - | 1.250 |")
                .contains("goal: mirror topics at most 1/20 of MirrorMaker 2's CPU per GB: not measured (its"
                        + " reference did not run)")
                .endsWith("FAILED MirrorMaker 2: IllegalStateException: MirrorMaker 2 did not finish in time");
        Measured slow = new Measured(Copier.MIRROR_TOPICS, 4.0, 4.0, 1.9, null, 1.9, 0.2, 2.0, -1);
        assertThat(MirrorTopicsBench.report(250_000_000, List.of(slow, runs.get(1), runs.get(3)), Map.of()))
                .contains("counted 0.048, met; copier only 0.063 (not met); counted without JIT compiler threads 0.046"
                        + " (met)")
                .contains("counted 1.583, not met; counted without JIT compiler threads 8.500 (not met)")
                .contains("| 1.90 | 2 | - |");
    }
}
