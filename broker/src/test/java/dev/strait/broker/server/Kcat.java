package dev.strait.broker.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;

/**
 * kcat (librdkafka's command-line client) as a child process, the non-Java client the security tests use.
 *
 * <p>{@link #require} decides whether a test that needs it runs: with {@code kcat} on the PATH it runs; without it
 * the test FAILS in CI (environment variable {@code CI} true, 1 or yes, or system property {@code strait.ci}, as
 * testkit's {@code Docker.require}) and is skipped elsewhere, saying why. {@code .ci/run} installs it
 * (Debian's {@code kcat} package). Every run is bounded; a run that outlives its bound is killed and fails.
 */
final class Kcat {

    static final String EXECUTABLE = "kcat";
    private static final Duration CHECK_TIMEOUT = Duration.ofSeconds(30);
    private static final String HOW = "install it (apt-get install kcat; .ci/run does)";

    private Kcat() {}

    /** What a finished run printed and returned. */
    record Result(int exitCode, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit code " + exitCode + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
        }
    }

    static void require() {
        String missing = missing();
        if (missing == null) {
            return;
        }
        if (inCi()) {
            throw new AssertionError("this test needs kcat, and CI (CI=" + System.getenv("CI") + ") must run it: "
                    + missing + "; " + HOW);
        }
        Assumptions.abort("skipped outside CI: " + missing + "; " + HOW);
    }

    /** Null when kcat runs, else why not. */
    static String missing() {
        try {
            Result version = run(CHECK_TIMEOUT, "", List.of("-V"));
            return version.exitCode() == 0 ? null : "'kcat -V' failed: " + version;
        } catch (UncheckedIOException e) {
            return "no kcat on PATH (" + e.getCause().getMessage() + ")";
        }
    }

    static boolean inCi() {
        if (Boolean.parseBoolean(System.getProperty("strait.ci", "false"))) {
            return true;
        }
        String ci = System.getenv("CI");
        return ci != null && List.of("true", "1", "yes").contains(ci.trim().toLowerCase(Locale.ROOT));
    }

    /** Runs {@code kcat <args>} with {@code stdin} as its input, bounded by {@code timeout}. */
    static Result run(Duration timeout, String stdin, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(EXECUTABLE);
        command.addAll(args);
        Path in = null;
        Path out = null;
        Path err = null;
        Process process = null;
        try {
            in = Files.createTempFile("strait-kcat-", ".in");
            out = Files.createTempFile("strait-kcat-", ".out");
            err = Files.createTempFile("strait-kcat-", ".err");
            Files.writeString(in, stdin, StandardCharsets.UTF_8);
            process = new ProcessBuilder(command)
                    .redirectInput(in.toFile())
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError("kcat did not finish within " + timeout.toSeconds() + " s and was killed: "
                        + String.join(" ", command) + "\nstdout:\n" + read(out) + "\nstderr:\n" + read(err));
            }
            return new Result(process.exitValue(), read(out), read(err));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run " + String.join(" ", command) + ": " + e.getMessage(), e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted: " + String.join(" ", command), e);
        } finally {
            if (process != null && process.isAlive()) {
                process.destroyForcibly();
            }
            for (Path file : new Path[] {in, out, err}) {
                delete(file);
            }
        }
    }

    private static String read(Path file) throws IOException {
        return Files.readString(file, StandardCharsets.UTF_8);
    }

    private static void delete(Path file) {
        if (file == null) {
            return;
        }
        try {
            Files.deleteIfExists(file);
        } catch (IOException ignored) {
            // a temp file left behind is harmless
        }
    }
}
