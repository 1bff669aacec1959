package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** {@link BrokerMain} as a child JVM: a bad config is one line on stderr; a good one serves clients. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class BrokerMainIT {

    private static final Pattern BOUND = Pattern.compile("listener PLAINTEXT bound to /127\\.0\\.0\\.1:(\\d+)");

    @TempDir
    Path dir;

    private Process launch(String properties) throws Exception {
        Path file = dir.resolve("server.properties");
        Files.writeString(file, properties);
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        return new ProcessBuilder(
                        java.toString(),
                        "-XX:+UseSerialGC",
                        "-XX:TieredStopAtLevel=1",
                        "-cp",
                        System.getProperty("java.class.path"),
                        BrokerMain.class.getName(),
                        file.toString())
                .start();
    }

    @Test
    void aBadConfigFailsWithOneLine() throws Exception {
        Process process = launch("node.id=0\nnum.io.threads=-1\nlog.dirs=" + dir.resolve("logs") + "\n");
        try {
            assertThat(process.waitFor(30, TimeUnit.SECONDS)).isTrue();
            String stderr = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            assertThat(process.exitValue()).isEqualTo(2);
            assertThat(stderr).isEqualTo("Invalid value -1 for configuration num.io.threads: must be >= 1");
        } finally {
            process.destroyForcibly();
        }
    }

    @Test
    void aGoodConfigServesAdminClients() throws Exception {
        Process process =
                launch("node.id=7\nlisteners=PLAINTEXT://127.0.0.1:0\nlog.dirs=" + dir.resolve("logs") + "\n");
        try {
            int port = awaitBoundPort(process);
            try (Admin admin = Admin.create(Map.of(
                    AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                    "127.0.0.1:" + port,
                    AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                    "15000",
                    AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                    "10000"))) {
                assertThat(admin.describeCluster().nodes().get(20, TimeUnit.SECONDS))
                        .extracting(n -> n.id())
                        .containsExactly(7);
            }
            process.destroy();
            assertThat(process.waitFor(20, TimeUnit.SECONDS)).isTrue();
        } finally {
            process.destroyForcibly();
        }
    }

    private static int awaitBoundPort(Process process) throws Exception {
        BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        List<String> seen = new java.util.ArrayList<>();
        String line;
        // readLine returns null when the process exits; the class timeout bounds a hang
        while ((line = out.readLine()) != null) {
            seen.add(line);
            Matcher m = BOUND.matcher(line);
            if (m.find()) {
                Thread drain = new Thread(() -> drain(out), "broker-main-stdout");
                drain.setDaemon(true);
                drain.start();
                return Integer.parseInt(m.group(1));
            }
        }
        throw new AssertionError("the broker exited without binding; output: " + seen);
    }

    private static void drain(BufferedReader out) {
        try {
            while (out.readLine() != null) {
                // keep the pipe from filling up
            }
        } catch (java.io.IOException e) {
            // process gone
        }
    }
}
