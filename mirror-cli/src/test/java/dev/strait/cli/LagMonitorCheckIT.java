package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.SharedClusters;
import dev.strait.testkit.TestProducer;
import dev.strait.time.Await;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bin/lag-monitor check} as cron or Nagios would run it, against real clusters and a real mirror. */
class LagMonitorCheckIT {
    @TempDir
    Path dir;

    private record Run(int code, String out) {}

    private Run check(Path config, String... extra) throws Exception {
        return run("check", config, extra);
    }

    private Run run(String sub, Path config, String... extra) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                "bash",
                Path.of("..", "bin", "lag-monitor").toAbsolutePath().normalize().toString(),
                sub,
                "--config",
                config.toString()));
        cmd.addAll(List.of(extra));
        Path out = dir.resolve("out.txt");
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    }

    /** Runs with stdout and stderr apart; {@link Run#out()} is stdout alone. */
    private Run runSplit(String sub, Path config, String... extra) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(
                "bash",
                Path.of("..", "bin", "lag-monitor").toAbsolutePath().normalize().toString(),
                sub,
                "--config",
                config.toString()));
        cmd.addAll(List.of(extra));
        Path out = dir.resolve("stdout.txt");
        Path err = dir.resolve("stderr.txt");
        Process p = new ProcessBuilder(cmd)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Run(p.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
    }

    @Test
    void exitCodeFollowsTheVerdict() throws Exception {
        // Given: a topic fully mirrored by a mirror process that then stopped cleanly
        KafkaCluster source = SharedClusters.source();
        KafkaCluster target = SharedClusters.target();
        String topic = "chk";
        source.createTopic(topic, 2);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 2, 100);
        }
        try (MirrorProcess mirror =
                MirrorProcess.start(dir, "mirror", MirrorProcessSuite.args(dir, source, target, "g-chk", topic))) {
            Await.until(
                    "mirrored and committed",
                    Duration.ofSeconds(60),
                    () -> source.committedOffsets("g-chk", topic).values().stream()
                                    .mapToLong(Long::longValue)
                                    .sum()
                            == 200);
            mirror.terminate(60);
        }
        Path config = dir.resolve("lag.properties");
        Files.writeString(
                config,
                "source.bootstrap.servers=" + source.bootstrapServers() + "\ntarget.bootstrap.servers="
                        + target.bootstrapServers() + "\nmirror.group.id=g-chk\ntopics=chk\nsample.interval.ms=200\n"
                        + "mirror.commit.interval.ms=1000\n");

        // When / Then: caught up
        Run ok = check(config);
        assertThat(ok.code()).as(ok.out()).isZero();
        assertThat(ok.out()).contains("group g-chk: OK").contains("chk");

        // When / Then: 60 new records the stopped mirror does not copy, with a 10-record threshold
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 2, 100, 30);
        }
        Run critical = check(config, "--max-lag-records", "10", "--json");
        assertThat(critical.code()).as(critical.out()).isEqualTo(2);
        assertThat(critical.out()).contains("\"thresholdCrossed\":true").contains("\"exactLag\":30");
        // stdout holds the JSON alone (check --json | jq works); the alert log line goes to stderr
        Run split = runSplit("check", config, "--max-lag-records", "10", "--json");
        assertThat(split.code()).isEqualTo(2);
        assertThat(split.out().strip())
                .as("stdout: " + split.out())
                .startsWith("{\"group\":\"g-chk\"")
                .endsWith("}")
                .doesNotContain("ALERT")
                .hasLineCount(1);

        // When / Then: bad input is Nagios UNKNOWN
        assertThat(check(dir.resolve("missing.properties")).code()).isEqualTo(3);

        // When / Then: the audit of what the mirror committed is clean; past it, the 30 uncopied records are missing
        Run clean = run("audit", config);
        assertThat(clean.code()).as(clean.out()).isZero();
        assertThat(clean.out()).contains("audit: clean");
        Run missing = run("audit", config, "--to-offset", "130");
        assertThat(missing.code()).as(missing.out()).isEqualTo(1);
        assertThat(missing.out()).contains("MISSING chk-0@100").contains("audit: 60 findings");
    }
}
