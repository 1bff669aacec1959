package dev.strait.testkit;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;

/**
 * The local Docker engine, for the tests that run Strait's images (testcontainers, docker-compose) and the CLI
 * calls they make.
 *
 * <p>{@link RequiresDocker} (a class) or {@link #require} (a test) decides whether such a test runs: with an engine that answers and the images it needs, it
 * runs. Without them it FAILS in CI and is skipped elsewhere, with the reason either way. A run is CI when the
 * environment variable {@code CI} is {@code true} (or {@code 1}, {@code yes}), which CI services set and
 * {@code .ci/run} exports, or when the system property {@code strait.ci} is {@code true}. CI prepares the engine
 * and the images ({@code docker/build-images.sh}) before {@code mvn verify}; a developer without Docker still gets
 * a green build, with these tests reported as skipped, not passed.
 *
 * <p>Image names: {@link #straitImage()} ({@code STRAIT_IMAGE}, default {@code strait:dev}) and
 * {@link #kafkaImage()} ({@code STRAIT_KAFKA_IMAGE}, default {@code strait-kafka:4.1.1}, the local Apache Kafka
 * 4.1.1 image that stands in for {@code apache/kafka:4.1.1}) and {@link #prometheusImage()}
 * ({@code STRAIT_PROMETHEUS_IMAGE}, default {@code strait-prometheus:dev}, Debian's Prometheus), each from the system
 * property of the same name in lower case with dots ({@code strait.image}, {@code strait.kafka.image},
 * {@code strait.prometheus.image}) or the environment variable. Stateless.
 */
public final class Docker {
    private static final Duration CHECK_TIMEOUT = Duration.ofSeconds(60);
    private static final String HOW = "Start a Docker engine and build the images with docker/build-images.sh "
            + "(.ci/run does both before mvn verify)";

    private Docker() {}

    /** The output (stdout and stderr together) and exit code of a command that finished. */
    public record Result(int exitCode, String output) {
        public boolean ok() {
            return exitCode == 0;
        }
    }

    /** Whether this run is CI, where a test that needs Docker must not be skipped. */
    public static boolean inCi() {
        if (Boolean.parseBoolean(System.getProperty("strait.ci", "false"))) {
            return true;
        }
        String ci = System.getenv("CI");
        return ci != null && List.of("true", "1", "yes").contains(ci.trim().toLowerCase(Locale.ROOT));
    }

    public static String straitImage() {
        return setting("strait.image", "STRAIT_IMAGE", "strait:dev");
    }

    public static String kafkaImage() {
        return setting("strait.kafka.image", "STRAIT_KAFKA_IMAGE", "strait-kafka:4.1.1");
    }

    /** The Prometheus image docker/build-images.sh makes from Debian's package (docker/compose.two-dc.yml's). */
    public static String prometheusImage() {
        return setting("strait.prometheus.image", "STRAIT_PROMETHEUS_IMAGE", "strait-prometheus:dev");
    }

    private static String setting(String property, String variable, String defaultValue) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            value = System.getenv(variable);
        }
        return value == null || value.isBlank() ? defaultValue : value.trim();
    }

    /**
     * Returns when a Docker engine answers and every image is present; otherwise fails the calling test in CI, or
     * aborts it (JUnit reports it as skipped) outside CI. For a whole class, {@link RequiresDocker} decides before
     * anything starts.
     */
    public static void require(String... images) {
        String missing = missing(images);
        if (missing == null) {
            return;
        }
        if (inCi()) {
            throw new AssertionError(ciFailure(missing));
        }
        Assumptions.abort(skipReason(missing));
    }

    static String ciFailure(String missing) {
        return "this test needs Docker, and CI (CI=" + System.getenv("CI") + ") must run it: " + missing + ". " + HOW;
    }

    static String skipReason(String missing) {
        return "skipped outside CI: " + missing + ". " + HOW;
    }

    /** Null when the engine answers and the images exist, else what is missing. */
    public static @Nullable String missing(String... images) {
        Result version;
        try {
            version = run(CHECK_TIMEOUT, List.of("docker", "version", "--format", "{{.Server.Version}}"));
        } catch (UncheckedIOException e) {
            return "no docker client on PATH ("
                    + (e.getCause() == null ? e.getMessage() : e.getCause().getMessage()) + ")";
        } catch (AssertionError e) {
            return "the Docker engine did not answer within " + CHECK_TIMEOUT.toSeconds() + " s";
        }
        if (!version.ok()) {
            return "no Docker engine answers: " + firstLine(version.output());
        }
        List<String> absent = new ArrayList<>();
        for (String image : images) {
            if (!run(CHECK_TIMEOUT, List.of("docker", "image", "inspect", "--format", "{{.Id}}", image))
                    .ok()) {
                absent.add(image);
            }
        }
        return absent.isEmpty() ? null : "the Docker engine has no image " + String.join(", ", absent);
    }

    private static String firstLine(String text) {
        String t = text.strip();
        int nl = t.indexOf('\n');
        return nl < 0 ? t : t.substring(0, nl);
    }

    /** The Compose command: {@code docker compose} (v2) where it works, else {@code docker-compose} (v1). */
    public static List<String> composeCommand() {
        try {
            if (run(CHECK_TIMEOUT, List.of("docker", "compose", "version")).ok()) {
                return List.of("docker", "compose");
            }
        } catch (UncheckedIOException noDocker) {
            // fall through: docker-compose may still be there
        }
        return List.of("docker-compose");
    }

    /** Runs a command to completion, bounded by {@code timeout}; a command that outlives it is killed and fails. */
    public static Result run(Duration timeout, List<String> command) {
        return run(timeout, Map.of(), command);
    }

    public static Result run(Duration timeout, Map<String, String> environment, List<String> command) {
        File out = null;
        Process process = null;
        try {
            out = Files.createTempFile("strait-docker-", ".out").toFile();
            ProcessBuilder builder = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(out)
                    .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
            builder.environment().putAll(environment);
            process = builder.start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError("timed out after " + timeout.toSeconds() + " s: " + String.join(" ", command)
                        + "\n" + Files.readString(out.toPath(), StandardCharsets.UTF_8));
            }
            return new Result(process.exitValue(), Files.readString(out.toPath(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + String.join(" ", command) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            if (process != null) {
                process.destroyForcibly();
            }
            throw new AssertionError("interrupted: " + String.join(" ", command), e);
        } finally {
            if (out != null) {
                try {
                    Files.deleteIfExists(out.toPath());
                } catch (IOException ignored) {
                    // a temp file left behind is harmless
                }
            }
        }
    }

    /** Like {@link #run}, but a non-zero exit code fails with the command's output. */
    public static String check(Duration timeout, Map<String, String> environment, List<String> command) {
        Result result = run(timeout, environment, command);
        if (!result.ok()) {
            throw new AssertionError(
                    "exit code " + result.exitCode() + ": " + String.join(" ", command) + "\n" + result.output());
        }
        return result.output();
    }

    public static String check(Duration timeout, List<String> command) {
        return check(timeout, Map.of(), command);
    }
}
