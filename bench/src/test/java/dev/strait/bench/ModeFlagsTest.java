package dev.strait.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.List;
import org.assertj.core.api.ThrowableAssert.ThrowingCallable;
import org.junit.jupiter.api.Test;

/**
 * The modes that parsed their flags by hand before picocli (the mirror bench, lag, sync, failover, metadata) and
 * sync-scale: every flag's old name and default, help, and a one-line error for a bad value or an unknown flag.
 */
class ModeFlagsTest {

    @Test
    void mirrorBench() {
        Path here = Path.of(".").toAbsolutePath().normalize();
        assertThat(MirrorBench.parse(new String[0]))
                .isEqualTo(new MirrorBench.Options(1_000_000, 1024, 6, List.of(1, 2, 4), true, here));
        assertThat(MirrorBench.parse(new String[] {
                    "--records",
                    "200000",
                    "--record-size",
                    "10",
                    "--partitions",
                    "2",
                    "--streams",
                    "1,2,4,8",
                    "--no-mm2",
                    "--repo",
                    "/tmp/x/../strait"
                }))
                .isEqualTo(new MirrorBench.Options(200_000, 10, 2, List.of(1, 2, 4, 8), false, Path.of("/tmp/strait")));
        assertThat(MirrorBench.parse(new String[] {"--help"})).isNull();
        assertThat(MirrorBench.parse(new String[] {"-h"})).isNull();
        assertThat(MirrorBench.usage())
                .contains("--streams")
                .contains("1, 2, 4")
                .contains("bin/bench lag")
                .contains("nemesis");
        assertOneLineError(() -> MirrorBench.parse(new String[] {"--streams", "1,x"}), "--streams");
        assertOneLineError(() -> MirrorBench.parse(new String[] {"--streams", "0"}), "--streams");
        assertOneLineError(() -> MirrorBench.parse(new String[] {"--records"}), "--records");
        assertOneLineError(() -> MirrorBench.parse(new String[] {"nosuchmode"}), "nosuchmode");
    }

    @Test
    void lagBench() {
        assertThat(LagBench.parse(new String[0])).isEqualTo(new LagBench.Options(100, 100, 5, false));
        assertThat(LagBench.parse(
                        new String[] {"--topics", "3", "--partitions-per-topic", "4", "--cycles", "2", "--churn"}))
                .isEqualTo(new LagBench.Options(3, 4, 2, true));
        assertThat(LagBench.parse(new String[] {"--help"})).isNull();
        assertThat(LagBench.usage()).contains("--partitions-per-topic").contains("--churn");
        assertOneLineError(() -> LagBench.parse(new String[] {"--topics", "many"}), "--topics");
        assertOneLineError(() -> LagBench.parse(new String[] {"--cycles", "0"}), "--cycles");
        assertOneLineError(() -> LagBench.parse(new String[] {"--partitions", "5"}), "--partitions");
    }

    @Test
    void syncBench() {
        assertThat(SyncBench.parse(new String[0])).isEqualTo(new SyncBench.Options(1000, 100, 1000, 3, 10, false));
        assertThat(SyncBench.parse(new String[] {
                    "--groups", "50", "--partitions", "10", "--segments", "7", "--runs", "0", "--rounds", "2", "--live"
                }))
                .isEqualTo(new SyncBench.Options(50, 10, 7, 0, 2, true));
        assertThat(SyncBench.parse(new String[] {"-h"})).isNull();
        assertThat(SyncBench.usage())
                .contains("-h, --help")
                .contains("--segments")
                .contains("--live")
                .contains("1000");
        assertOneLineError(() -> SyncBench.parse(new String[] {"--groups", "1e3"}), "--groups");
        assertOneLineError(() -> SyncBench.parse(new String[] {"--rounds", "0"}), "--rounds");
        assertOneLineError(() -> SyncBench.parse(new String[] {"--runs", "-1"}), "--runs");
        assertOneLineError(() -> SyncBench.parse(new String[] {"--round", "2"}), "--round");
    }

    @Test
    void failoverBench() {
        Path here = Path.of(".").toAbsolutePath().normalize();
        assertThat(FailoverBench.parse(new String[0])).isEqualTo(new FailoverBench.Options(20_000, 4, 6, 60, 5, here));
        assertThat(FailoverBench.parse(new String[] {
                    "--records",
                    "100",
                    "--partitions",
                    "2",
                    "--groups",
                    "3",
                    "--settle-seconds",
                    "0",
                    "--probes",
                    "1",
                    "--repo",
                    "/tmp/s"
                }))
                .isEqualTo(new FailoverBench.Options(100, 2, 3, 0, 1, Path.of("/tmp/s")));
        assertThat(FailoverBench.parse(new String[] {"--help"})).isNull();
        assertThat(FailoverBench.usage()).contains("--settle-seconds").contains("60");
        assertOneLineError(() -> FailoverBench.parse(new String[] {"--groups", "0"}), "--groups");
        assertOneLineError(() -> FailoverBench.parse(new String[] {"--probes", "two"}), "--probes");
        assertOneLineError(() -> FailoverBench.parse(new String[] {"--settle", "1"}), "--settle");
    }

    @Test
    void metadataBench() {
        MetadataBench.Options defaults = MetadataBench.parse(new String[0]);
        assertThat(defaults)
                .isEqualTo(new MetadataBench.Options(
                        100_000, 50, 1_048_576, List.of(true, false), Path.of(System.getProperty("java.io.tmpdir"))));
        assertThat(MetadataBench.parse(new String[] {
                    "--changes",
                    "10",
                    "--partitions",
                    "2",
                    "--snapshot-bytes",
                    "4096",
                    "--mode",
                    "whole-log",
                    "--dir",
                    "/tmp/m"
                }))
                .isEqualTo(new MetadataBench.Options(10, 2, 4096, List.of(false), Path.of("/tmp/m")));
        assertThat(MetadataBench.parse(new String[] {"--mode", "snapshots"}).modes())
                .containsExactly(true);
        assertThat(MetadataBench.parse(new String[] {"--help"})).isNull();
        assertThat(MetadataBench.usage()).contains("--snapshot-bytes").contains("1048576");
        assertOneLineError(() -> MetadataBench.parse(new String[] {"--mode", "all"}), "--mode");
        assertOneLineError(() -> MetadataBench.parse(new String[] {"--changes", "0"}), "--changes");
        assertOneLineError(() -> MetadataBench.parse(new String[] {"--dir"}), "--dir");
    }

    @Test
    void syncScaleBench() {
        SyncScaleBench defaults = SyncScaleBench.parse(new String[0]);
        assertThat(defaults.partitions).containsExactly(1000, 5000, 10000);
        assertThat(defaults.groups).isEqualTo(1000);
        assertThat(defaults.records).isEqualTo(5000);
        assertThat(defaults.rounds).isEqualTo(5);
        assertThat(defaults.heap).isEqualTo("384m");
        SyncScaleBench set =
                SyncScaleBench.parse(new String[] {"--partitions", "100,200", "--rounds", "2", "--heap", "1g"});
        assertThat(set.partitions).containsExactly(100, 200);
        assertThat(set.rounds).isEqualTo(2);
        assertThat(set.heap).isEqualTo("1g");
        assertThat(SyncScaleBench.parse(new String[] {"--help"})).isNull();
        assertThat(BenchFlags.usage(new SyncScaleBench()))
                .contains("bin/bench sync-scale")
                .contains("-h, --help")
                .contains("Default: [1000, 5000, 10000]");
        assertOneLineError(() -> SyncScaleBench.parse(new String[] {"--rounds", "x"}), "--rounds");
    }

    static void assertOneLineError(ThrowingCallable call, String mentions) {
        assertThatThrownBy(call)
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining(mentions)
                .satisfies(e -> assertThat(e.getMessage()).doesNotContain("\n"));
    }
}
