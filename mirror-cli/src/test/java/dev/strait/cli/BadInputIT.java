package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Bad input through the real {@code bin/mirror-maker} script: one line on stderr, exit code 2, and
 * nothing started (no cluster is reachable at the configured address, so a started mirror would fail
 * with code 1 instead).
 */
class BadInputIT {
    @TempDir
    Path dir;

    private Path file(String name, String content) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, content);
        return p;
    }

    private record Result(int code, String stdout, String stderr) {}

    private Result run(String... args) throws Exception {
        return runScript("mirror-maker", args);
    }

    private Result runScript(String name, String... args) throws Exception {
        Path script = Path.of("..", "bin", name).toAbsolutePath().normalize();
        List<String> cmd = new ArrayList<>(List.of("bash", script.toString()));
        cmd.addAll(List.of(args));
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process p = new ProcessBuilder(cmd)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        return new Result(
                p.exitValue(),
                Files.readString(out, StandardCharsets.UTF_8),
                Files.readString(err, StandardCharsets.UTF_8));
    }

    private void assertBadInput(Result r, String mentions) {
        assertThat(r.code()).as(r.toString()).isEqualTo(2);
        assertThat(r.stderr().strip().lines().count())
                .as("one line on stderr: " + r.stderr())
                .isEqualTo(1);
        assertThat(r.stderr()).contains(mentions);
        assertThat(r.stdout()).as("nothing started").doesNotContain("Mirroring topics");
    }

    @Test
    void everyKindOfBadInputGetsOneLineAndExitCodeTwo() throws Exception {
        Path consumer = file("c.properties", "bootstrap.servers=127.0.0.1:1\ngroup.id=g\n");
        Path producer = file("p.properties", "bootstrap.servers=127.0.0.1:1\n");
        String c = consumer.toString();
        String p = producer.toString();

        assertBadInput(
                run(
                        "--consumer.config",
                        dir.resolve("missing.properties").toString(),
                        "--producer.config",
                        p,
                        "--whitelist",
                        "x"),
                "not found");
        assertBadInput(
                run("--consumer.config", dir.toString(), "--producer.config", p, "--whitelist", "x"), "cannot be read");
        assertBadInput(
                run(
                        "--consumer.config",
                        file("nobootstrap.properties", "group.id=g\n").toString(),
                        "--producer.config",
                        p,
                        "--whitelist",
                        "x"),
                "bootstrap.servers");
        assertBadInput(
                run(
                        "--consumer.config",
                        c,
                        "--producer.config",
                        file("pnob.properties", "acks=all\n").toString(),
                        "--whitelist",
                        "x"),
                "bootstrap.servers");
        assertBadInput(run("--consumer.config", c, "--producer.config", p, "--whitelist", "prod["), "regex");
        assertBadInput(run("--consumer.config", c, "--producer.config", p, "--whitelist", "x", "--bogus"), "--bogus");
        assertBadInput(
                run("--consumer.config", c, "--producer.config", p, "--whitelist", "x", "--num.streams", "0"),
                "--num.streams");
        assertBadInput(
                run(
                        "--consumer.config",
                        file("auto.properties", "bootstrap.servers=127.0.0.1:1\ngroup.id=g\nenable.auto.commit=true\n")
                                .toString(),
                        "--producer.config",
                        p,
                        "--whitelist",
                        "x"),
                "enable.auto.commit");
        assertBadInput(
                run(
                        "--consumer.config",
                        file("nogroup.properties", "bootstrap.servers=127.0.0.1:1\n")
                                .toString(),
                        "--producer.config",
                        p,
                        "--whitelist",
                        "x"),
                "group.id");
        assertBadInput(
                run(
                        "--consumer.config",
                        c,
                        "--producer.config",
                        p,
                        "--whitelist",
                        "x",
                        "--on.source.truncation",
                        "maybe"),
                "--on.source.truncation");
        assertBadInput(
                run(
                        "--consumer.config",
                        c,
                        "--producer.config",
                        p,
                        "--whitelist",
                        "x",
                        "--message.handler",
                        "no.such.Handler"),
                "no.such.Handler");
        assertBadInput(run("--producer.config", p, "--whitelist", "x"), "--consumer.config");
    }

    @Test
    void helpDocumentsEveryFlag() throws Exception {
        Result r = run("--help");
        assertThat(r.code()).isZero();
        for (String flag : List.of(
                "--consumer.config",
                "--producer.config",
                "--num.streams",
                "--whitelist",
                "--include",
                "--offset.commit.interval.ms",
                "--abort.on.send.failure",
                "--message.handler",
                "--message.handler.args",
                "--on.source.truncation",
                "--partition.mode",
                "--topic.prefix",
                "--topic.rename",
                "--metrics.port")) {
            assertThat(r.stdout()).contains(flag);
        }
    }

    @Test
    void canaryAndLagMonitorRejectBadConfigWithOneLine() throws Exception {
        Path badInterval = file(
                "canary.properties",
                "source.bootstrap.servers=127.0.0.1:1\n" + "target.bootstrap.servers=127.0.0.1:1\ninterval.ms=5\n");
        Path noTarget = file("lag.properties", "source.bootstrap.servers=127.0.0.1:1\nmirror.group.id=g\n");

        assertBadInput(runScript("canary", "--config", badInterval.toString()), "interval.ms");
        assertBadInput(
                runScript("canary", "--config", dir.resolve("none.properties").toString()), "not found");
        assertBadInput(runScript("lag-monitor", "--config", noTarget.toString()), "target.bootstrap.servers");
        assertBadInput(runScript("lag-monitor", "audit", "--config", noTarget.toString()), "target.bootstrap.servers");
    }
}
