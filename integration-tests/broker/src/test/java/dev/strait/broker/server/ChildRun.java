package dev.strait.broker.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;

/**
 * One bounded run of a non-Java client as a child process ({@link Kcat}, {@link Python}): its input from a string,
 * its output and errors captured; a run that outlives its bound is killed and fails the test.
 */
final class ChildRun {

    private ChildRun() {}

    /** What a finished run printed and returned. */
    record Result(int exitCode, String stdout, String stderr) {
        @Override
        public String toString() {
            return "exit code " + exitCode + "\nstdout:\n" + stdout + "\nstderr:\n" + stderr;
        }
    }

    /** Whether this is CI (environment variable {@code CI} true, 1 or yes, or system property {@code strait.ci}). */
    static boolean inCi() {
        if (Boolean.parseBoolean(System.getProperty("strait.ci", "false"))) {
            return true;
        }
        String ci = System.getenv("CI");
        return ci != null && List.of("true", "1", "yes").contains(ci.trim().toLowerCase(Locale.ROOT));
    }

    /**
     * Runs {@code command} with {@code stdin} as its input, bounded by {@code timeout}.
     *
     * @throws UncheckedIOException if it cannot be started (not installed)
     */
    static Result run(List<String> command, String stdin, Duration timeout) {
        String name = Path.of(command.get(0)).getFileName().toString();
        Path in = null;
        Path out = null;
        Path err = null;
        Process process = null;
        try {
            in = Files.createTempFile("strait-" + name + "-", ".in");
            out = Files.createTempFile("strait-" + name + "-", ".out");
            err = Files.createTempFile("strait-" + name + "-", ".err");
            Files.writeString(in, stdin, StandardCharsets.UTF_8);
            process = new ProcessBuilder(command)
                    .redirectInput(in.toFile())
                    .redirectOutput(out.toFile())
                    .redirectError(err.toFile())
                    .start();
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
                process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                throw new AssertionError(name + " did not finish within " + timeout.toSeconds() + " s and was killed: "
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

    static void delete(Path file) {
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
