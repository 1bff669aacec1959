package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code bin/strait demo} as a user runs it: built-in 3-node clusters, load, a broker killed, a verdict, exit 0. */
class DemoIT {
    @TempDir
    Path dir;

    @Test
    void theDemoRunsEndToEndAndLosesNothing() throws Exception {
        Path out = dir.resolve("demo.txt");
        Process p = new ProcessBuilder(List.of("bash", Path.of("..", "bin", "strait").toAbsolutePath().normalize()
            .toString(), "demo", "--duration", "16", "--rate", "1000"))
            .redirectErrorStream(true).redirectOutput(out.toFile()).start();
        assertThat(p.waitFor(240, TimeUnit.SECONDS)).as("demo finishes").isTrue();
        String text = Files.readString(out, StandardCharsets.UTF_8);
        System.out.println(text.lines().filter(l -> !l.contains(" INFO ") && !l.contains(" WARN "))
            .reduce("", (a, b) -> a + b + "\n"));

        assertThat(p.exitValue()).as(text).isZero();
        assertThat(text).containsPattern("killing source broker node \\d \\(leader of demo.orders-0\\)")
            .containsPattern("source broker node \\d is back").contains("after:  demo.orders-0 leader")
            .contains("==== verdict ====").contains("lost: 0 (missing on the target 0, acknowledged but gone from the source 0)").contains("VERDICT: nothing lost");
        assertThat(text).containsPattern("produced \\(acknowledged by the source\\): [1-9][0-9,]+");
    }
}
