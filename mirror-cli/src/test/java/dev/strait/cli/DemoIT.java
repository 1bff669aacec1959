package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/strait demo} as a user runs it: built-in 3-node clusters, load, a broker killed, a verdict, exit 0;
 * the terminal shows the live lines and the verdict only (the logs go to a file), and the healthy run reads OK
 * throughout, except while the broker kill is named on the line; then the failover drill moves an application's
 * group to the target with the source stopped, reading nothing again and skipping nothing.
 */
class DemoIT {
    private static final Pattern LIVE =
            Pattern.compile("^t=.*\\| lag exact .* (\\S+) +\\| canary +\\S+ ms (\\S+)(.*)$");

    @TempDir
    Path dir;

    @Test
    void theDemoRunsEndToEndLosesNothingAndReadsOkOutsideTheBrokerKill() throws Exception {
        Path out = dir.resolve("demo.txt");
        Path log = dir.resolve("demo.log");
        Process p = new ProcessBuilder(List.of(
                        "bash",
                        Path.of("..", "bin", "strait")
                                .toAbsolutePath()
                                .normalize()
                                .toString(),
                        "demo",
                        "--duration",
                        "16",
                        "--rate",
                        "1000",
                        "--log-file",
                        log.toString()))
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        assertThat(p.waitFor(240, TimeUnit.SECONDS)).as("demo finishes").isTrue();
        String text = Files.readString(out, StandardCharsets.UTF_8);
        System.out.println(text);

        assertThat(p.exitValue()).as(text).isZero();
        assertThat(text)
                .containsPattern("killing source broker node \\d \\(leader of demo.orders-0\\)")
                .containsPattern("source broker node \\d is back")
                .contains("after:  demo.orders-0 leader")
                .contains("warm: first probe across in")
                .contains("==== verdict ====")
                .contains("lost: 0   duplicated:")
                .contains("VERDICT: nothing lost")
                .contains("logs go to " + log)
                .contains("logs: " + log);
        assertThat(text).containsPattern("produced \\(acknowledged by the source\\): [1-9][0-9,]+");
        assertThat(text)
                .as("no log line on the terminal")
                .doesNotContain(" INFO ")
                .doesNotContain(" WARN ")
                .doesNotContain(" ERROR ");
        assertThat(Files.readString(log, StandardCharsets.UTF_8))
                .as("the logs are in the file")
                .contains(" INFO ");
        int live = 0;
        for (String line : text.lines().toList()) {
            Matcher m = LIVE.matcher(line);
            if (!m.matches()) {
                continue;
            }
            live++;
            boolean duringTheKill = m.group(3).contains("killed");
            if (!duringTheKill) {
                assertThat(m.group(1))
                        .as("lag status outside the broker kill: " + line)
                        .isIn("OK", "-");
                assertThat(m.group(2))
                        .as("canary outside the broker kill: " + line)
                        .isEqualTo("OK");
            }
        }
        assertThat(live).as("live lines").isGreaterThanOrEqualTo(16);
        assertThat(text).containsPattern("canary: OK, \\d+ probes sent, \\d+ arrived, 0 lost");

        // the failover drill at the end: an application's group reads the orders on the source behind the load,
        // the whole source is stopped, strait failover --execute moves the group from what the target holds, and
        // the group reads on the target exactly the records it had not read (by provenance)
        assertThat(text)
                .contains("==== failover drill ====")
                .contains(">>> stopping the whole source cluster")
                .contains("strait failover: EXECUTE")
                .contains("moved 1 of 1 groups")
                .containsPattern("demo-app read [1-9][0-9,]* records of demo.orders on the source and stopped; "
                        + "[1-9][0-9,]* it has not read")
                .containsPattern("demo-app on the target: read [1-9][0-9,]* records; read again 0, skipped 0")
                .contains("DRILL: demo-app failed over to the target: read again 0, skipped 0");
    }
}
