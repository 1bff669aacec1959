package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/strait demo} as a user runs it: built-in 3-node clusters, load, a broker killed, a verdict, exit 0;
 * the terminal shows the live lines and the verdict only (the logs go to a file), and the healthy run reads OK
 * throughout, except while the broker kill is named on the line; then the failover drill moves an application's
 * group to the target with the source stopped, reading nothing again and skipping nothing. With --secure the same
 * verdict on SASL_SSL clusters with ACLs, and no password printed or logged.
 */
class DemoIT {
    private static final Pattern LIVE =
            Pattern.compile("^t=.*\\| lag exact .* (\\S+) +\\| canary +\\S+ ms (\\S+)(.*)$");

    @TempDir
    Path dir;

    /** Runs {@code bin/strait demo <args> --log-file <log>}; its stdout and stderr, after it exited 0. */
    private String demo(Path log, String... args) throws Exception {
        Path out = dir.resolve("demo-" + log.getFileName() + ".txt");
        List<String> command = new ArrayList<>(List.of(
                "bash",
                Path.of("..", "bin", "strait").toAbsolutePath().normalize().toString(),
                "demo"));
        command.addAll(List.of(args));
        command.addAll(List.of("--log-file", log.toString()));
        Process p = new ProcessBuilder(command)
                .redirectErrorStream(true)
                .redirectOutput(out.toFile())
                .start();
        assertThat(p.waitFor(240, TimeUnit.SECONDS)).as("demo finishes").isTrue();
        String text = Files.readString(out, StandardCharsets.UTF_8);
        System.out.println(text);
        assertThat(p.exitValue()).as(text).isZero();
        return text;
    }

    @Test
    void theDemoRunsEndToEndLosesNothingAndReadsOkOutsideTheBrokerKill() throws Exception {
        Path log = dir.resolve("demo.log");
        String text = demo(log, "--duration", "16", "--rate", "1000");
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

    /**
     * {@code --secure}, lean (one node per cluster, no broker kill, the shortest load; the drill stays, as it runs
     * strait failover as its own user; SecuredClusterIT covers three secured nodes): both clusters SASL_SSL with
     * SCRAM-SHA-512 and ACLs, each tool as its user, the same verdict, and none of the run's passwords (read from the
     * client files it leaves in --work-dir) on the terminal or in the log.
     */
    @Test
    void theSecuredDemoLosesNothingRunsEachToolAsItsUserAndPrintsNoPassword() throws Exception {
        Path log = dir.resolve("secure.log");
        Path work = dir.resolve("work");
        String text = demo(
                log,
                "--secure",
                "--work-dir",
                work.toString(),
                "--duration",
                "10",
                "--rate",
                "1000",
                "--nodes",
                "1",
                "--no-broker-kill");
        assertThat(text)
                .contains("starting two secured companion clusters")
                .contains("secured: TLS (a CA made for this run: "
                        + work.resolve("tls").resolve("truststore.p12"))
                .contains("+ SASL SCRAM-SHA-512 on every client connection")
                .contains("ACLs on (StandardAuthorizer, allow.everyone.if.no.acl.found=false)")
                .contains("mirror runs as User:strait-mirror with the ACLs")
                .contains("lag monitor runs as User:strait-lag-monitor with the ACLs")
                .contains("canary runs as User:strait-canary with the ACLs")
                .contains("strait failover runs as User:strait-failover with the ACLs")
                .contains("source topic demo.* READ; source group strait-demo-mirror DESCRIBE; target topic demo.* "
                        + "READ,DESCRIBE_CONFIGS")
                .contains("lost: 0   duplicated:")
                .contains("VERDICT: nothing lost")
                .contains("moved 1 of 1 groups")
                .contains("DRILL: demo-app failed over to the target: read again 0, skipped 0")
                // OK at the end with probes across; on a machine this loaded, probes of the warm-up can be lost
                .containsPattern("canary: OK, [1-9]\\d* probes sent, [1-9]\\d* arrived")
                .doesNotContain(" WARN ")
                .doesNotContain(" ERROR ");

        Set<String> secrets = new HashSet<>();
        Pattern secret = Pattern.compile("password=\"([^\"]+)\"|ssl\\.truststore\\.password=(\\S+)");
        List<Path> files;
        try (Stream<Path> listed = Files.list(work)) {
            files = listed.filter(f -> f.toString().endsWith(".properties")).toList();
        }
        for (Path f : files) {
            assertThat(Files.getPosixFilePermissions(f))
                    .as("%s readable by its owner only", f)
                    .containsExactlyInAnyOrder(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
            Matcher m = secret.matcher(Files.readString(f, StandardCharsets.UTF_8));
            while (m.find()) {
                secrets.add(m.group(1) != null ? m.group(1) : m.group(2));
            }
        }
        assertThat(files).as("a client file for each user").hasSize(7);
        assertThat(secrets).as("7 users' passwords and the store password").hasSize(8);
        String logged = Files.readString(log, StandardCharsets.UTF_8);
        assertThat(logged)
                .as("every client of the run is secured")
                .contains("security.protocol = SASL_SSL")
                .doesNotContain("security.protocol = PLAINTEXT");
        for (String s : secrets) {
            assertThat(text).as("a password on the terminal").doesNotContain(s);
            assertThat(logged).as("a password in the log").doesNotContain(s);
        }
    }
}
