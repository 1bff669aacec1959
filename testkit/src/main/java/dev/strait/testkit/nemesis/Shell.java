package dev.strait.testkit.nemesis;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** Runs a short system command ({@code ip}, {@code tc}, {@code kill}) with a bound, and says why it failed. */
final class Shell {
    private static final long TIMEOUT_S = 30;

    private Shell() {}

    /** The command's exit code and its output (stdout and stderr together). */
    record Result(int exitCode, String output) {}

    /** Runs the command; a non-zero exit is an {@link IllegalStateException} naming the command and its output. */
    static String run(String... command) {
        Result result = tryRun(command);
        if (result.exitCode() != 0) {
            throw new IllegalStateException("'" + String.join(" ", command) + "' exited with " + result.exitCode()
                    + ": " + result.output().trim());
        }
        return result.output();
    }

    static Result tryRun(String... command) {
        return tryRun(List.of(command));
    }

    static Result tryRun(List<String> command) {
        Path out = null;
        try {
            // Output to a file, not a pipe: a command that hangs must not block the read past the bound.
            out = Files.createTempFile("strait-nemesis-cmd-", ".out");
            Process process = new ProcessBuilder(new ArrayList<>(command))
                    .redirectErrorStream(true)
                    .redirectOutput(out.toFile())
                    .start();
            process.getOutputStream().close();
            if (!process.waitFor(TIMEOUT_S, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return new Result(-1, "timed out after " + TIMEOUT_S + " s");
            }
            return new Result(process.exitValue(), Files.readString(out, StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot run '" + String.join(" ", command) + "'", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while running '" + String.join(" ", command) + "'", e);
        } finally {
            if (out != null) {
                try {
                    Files.deleteIfExists(out);
                } catch (IOException ignored) {
                    // a temp file left behind is harmless
                }
            }
        }
    }
}
