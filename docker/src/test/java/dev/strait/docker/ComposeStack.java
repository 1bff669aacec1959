package dev.strait.docker;

import dev.strait.testkit.Docker;
import dev.strait.testkit.KafkaCluster;
import dev.strait.time.Await;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * One of the repository's compose files brought up under a project name of its own, with every published port
 * on a free port of 127.0.0.1 (the variables the files read: DC1_BROKER_PORT and the rest), the images of
 * {@link Docker#straitImage()}, {@link Docker#kafkaImage()} and {@link Docker#prometheusImage()}. {@link #close()} takes it down with its volumes
 * and, when {@link #failed()} was called, prints the services' logs first. Not thread-safe: one test drives it.
 */
final class ComposeStack implements AutoCloseable {
    static final Path DOCKER_DIR = Path.of("").toAbsolutePath().normalize();
    private static final List<String> PORT_VARIABLES = List.of(
            "DC1_BROKER_PORT",
            "DC1_BROKER_2_PORT",
            "DC1_BROKER_3_PORT",
            "DC2_BROKER_PORT",
            "LAG_MONITOR_PORT",
            "CANARY_PORT",
            "MIRROR_METRICS_PORT",
            "PROMETHEUS_PORT");
    private static final Duration COMMAND_TIMEOUT = Duration.ofMinutes(6);

    private final List<Path> files;
    private final String project;
    private final Map<String, String> env = new LinkedHashMap<>();
    private final List<String> compose;
    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private boolean failed;

    /** The compose file and the override files applied on top of it, in order. */
    ComposeStack(String fileName, String... overrides) {
        List<Path> all = new ArrayList<>(List.of(DOCKER_DIR.resolve(fileName)));
        for (String override : overrides) {
            all.add(DOCKER_DIR.resolve(override));
        }
        this.files = List.copyOf(all);
        this.project = "strait-it-"
                + Long.toString(new Random().nextLong() & Long.MAX_VALUE, 36).toLowerCase(Locale.ROOT);
        this.compose = Docker.composeCommand();
        for (String variable : PORT_VARIABLES) {
            env.put(variable, Integer.toString(KafkaCluster.freePort()));
        }
        env.put("PUBLISH_ADDRESS", "127.0.0.1");
        env.put("DC1_ADVERTISED_HOST", "127.0.0.1");
        env.put("DC2_ADVERTISED_HOST", "127.0.0.1");
        env.put("STRAIT_IMAGE", Docker.straitImage());
        env.put("KAFKA_IMAGE", Docker.kafkaImage());
        env.put("PROMETHEUS_IMAGE", Docker.prometheusImage());
        // Seven or eight JVMs start at once on the CI machine's two cores: C1 only, so the JIT does not starve them.
        env.put("STRAIT_HEAP_OPTS", "-Xms64m -Xmx256m -XX:+UseSerialGC -XX:TieredStopAtLevel=1");
        env.put("KAFKA_JVM_PERFORMANCE_OPTS", "-XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true");
    }

    /** Runs the services of these compose profiles too (e.g. "monitoring"); call before {@link #up()}. */
    ComposeStack profiles(List<String> profiles) {
        if (!profiles.isEmpty()) {
            // Read by docker-compose 1.28 and later and by docker compose v2, for every command (down included).
            env.put("COMPOSE_PROFILES", String.join(",", profiles));
        }
        return this;
    }

    String project() {
        return project;
    }

    int port(String variable) {
        return Integer.parseInt(env.get(variable));
    }

    String dc1Bootstrap() {
        return "127.0.0.1:" + port("DC1_BROKER_PORT") + ",127.0.0.1:" + port("DC1_BROKER_2_PORT") + ",127.0.0.1:"
                + port("DC1_BROKER_3_PORT");
    }

    String dc2Bootstrap() {
        return "127.0.0.1:" + port("DC2_BROKER_PORT");
    }

    String up() {
        return compose("up", "-d");
    }

    /** {@code down}: SIGTERM to every service, within its stop_grace_period; the named volumes stay. */
    String down() {
        return compose("down", "--timeout", "60");
    }

    String compose(String... args) {
        List<String> command = new ArrayList<>(compose);
        command.addAll(List.of("-p", project));
        for (Path file : files) {
            command.addAll(List.of("-f", file.toString()));
        }
        command.addAll(List.of(args));
        return Docker.check(COMMAND_TIMEOUT, env, command);
    }

    /** The id of the service's container (the first, for a scaled service); fails when it has none. */
    String containerId(String service) {
        String id = compose("ps", "-q", service).strip();
        if (id.isEmpty()) {
            throw new AssertionError("service " + service + " has no container in " + project);
        }
        return id.lines().findFirst().orElseThrow();
    }

    String inspect(String service, String format) {
        return Docker.check(
                        Duration.ofSeconds(60), List.of("docker", "inspect", "--format", format, containerId(service)))
                .strip();
    }

    String health(String service) {
        return inspect(service, "{{if .State.Health}}{{.State.Health.Status}}{{else}}none{{end}}");
    }

    int restartCount(String service) {
        return Integer.parseInt(inspect(service, "{{.RestartCount}}"));
    }

    void awaitHealthy(Duration timeout, List<String> services) {
        Await.until(
                "healthy: " + services + " (" + project + ")",
                timeout,
                () -> services.stream().allMatch(s -> "healthy".equals(health(s))));
    }

    /** SIGKILL of the service's main process, from the host: what a crash or the kernel's OOM killer does. */
    void crash(String service) {
        long pid = Long.parseLong(inspect(service, "{{.State.Pid}}"));
        if (pid <= 0) {
            throw new AssertionError(service + " is not running");
        }
        ProcessHandle process =
                ProcessHandle.of(pid).orElseThrow(() -> new AssertionError("no process " + pid + " for " + service));
        if (!process.destroyForcibly()) {
            throw new AssertionError("could not SIGKILL " + service + " (pid " + pid + ")");
        }
    }

    /** GET of a published HTTP port's path; null when nothing answers yet. */
    String get(String portVariable, String path) {
        try {
            HttpResponse<String> response = http.send(
                    HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port(portVariable) + path))
                            .timeout(Duration.ofSeconds(10))
                            .build(),
                    HttpResponse.BodyHandlers.ofString());
            return response.statusCode() == 200 ? response.body() : null;
        } catch (java.io.IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** The log of the service's container (stdout and stderr). */
    String logs(String service) {
        return Docker.run(Duration.ofSeconds(60), List.of("docker", "logs", containerId(service)))
                .output();
    }

    /** Marks the stack failed: {@link #close()} then prints every service's log. */
    void failed() {
        failed = true;
    }

    /** The state and the last lines of the log of every container of the project, running or not. */
    private void printLogs() {
        try {
            String ids = Docker.check(
                    Duration.ofSeconds(60),
                    List.of("docker", "ps", "-a", "-q", "--filter", "label=com.docker.compose.project=" + project));
            for (String id : ids.strip().split("\\s+")) {
                if (id.isEmpty()) {
                    continue;
                }
                String name = Docker.run(
                                Duration.ofSeconds(60),
                                List.of(
                                        "docker",
                                        "inspect",
                                        "--format",
                                        "{{.Name}} {{.State.Status}} exit={{.State.ExitCode}} restarts={{.RestartCount}}"
                                                + "{{if .State.Health}} health={{.State.Health.Status}}{{end}}",
                                        id))
                        .output()
                        .strip();
                System.out.println("==== " + name + " ====\n"
                        + Docker.run(Duration.ofSeconds(60), List.of("docker", "logs", "--tail", "200", id))
                                .output());
            }
        } catch (AssertionError | RuntimeException e) {
            System.out.println(project + ": no logs: " + e);
        }
    }

    @Override
    public void close() {
        if (failed) {
            printLogs();
        }
        compose("down", "--volumes", "--timeout", "30");
    }
}
