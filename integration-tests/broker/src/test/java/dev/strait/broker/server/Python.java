package dev.strait.broker.server;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * Python 3 with Debian's {@code python3-confluent-kafka} (librdkafka underneath) as a child process: a second
 * non-Java client besides {@link Kcat}, for what kcat cannot do (transactions).
 *
 * <p>{@link #require} decides whether a test that needs it runs, as {@link Kcat#require}: with an interpreter that
 * imports {@code confluent_kafka} it runs; without one the test FAILS in CI ({@link ChildRun#inCi}) and is skipped
 * elsewhere, saying why. {@code .ci/run} installs the package. The interpreter is {@code $STRAIT_PYTHON}, else
 * Debian's {@code /usr/bin/python3} (a pyenv shim first on the PATH would lack Debian's package), else
 * {@code python3}. Every run is bounded; a run that outlives its bound is killed and fails.
 */
final class Python {

    private static final Duration CHECK_TIMEOUT = Duration.ofSeconds(30);
    private static final String HOW = "install it (apt-get install python3-confluent-kafka; .ci/run does)";

    private Python() {}

    static void require() {
        String missing = missing();
        if (missing == null) {
            return;
        }
        if (ChildRun.inCi()) {
            throw new AssertionError("this test needs python3-confluent-kafka, and CI (CI=" + System.getenv("CI")
                    + ") must run it: " + missing + "; " + HOW);
        }
        Assumptions.abort("skipped outside CI: " + missing + "; " + HOW);
    }

    /** Null when the interpreter imports confluent_kafka, else why not. */
    static String missing() {
        try {
            ChildRun.Result probe = run(CHECK_TIMEOUT, List.of("-c", "import confluent_kafka"));
            return probe.exitCode() == 0 ? null : interpreter() + " cannot import confluent_kafka: " + probe;
        } catch (UncheckedIOException e) {
            return "no " + interpreter() + " (" + e.getCause().getMessage() + ")";
        }
    }

    static String interpreter() {
        String configured = System.getenv("STRAIT_PYTHON");
        if (configured != null && !configured.isBlank()) {
            return configured;
        }
        return Files.isExecutable(Path.of("/usr/bin/python3")) ? "/usr/bin/python3" : "python3";
    }

    /** Runs the test resource {@code script} (copied to a temporary file) with {@code args}, bounded by {@code timeout}. */
    static ChildRun.Result runScript(Duration timeout, String script, List<String> args) {
        Path copy = null;
        try {
            copy = Files.createTempFile("strait-python-", ".py");
            try (InputStream in = Python.class.getResourceAsStream(script)) {
                if (in == null) {
                    throw new IllegalStateException(script + " is missing from the test classpath");
                }
                Files.copy(in, copy, StandardCopyOption.REPLACE_EXISTING);
            }
            List<String> all = new ArrayList<>();
            all.add(copy.toString());
            all.addAll(args);
            return run(timeout, all);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot copy " + script + ": " + e.getMessage(), e);
        } finally {
            ChildRun.delete(copy);
        }
    }

    /** Runs {@code python <args>} with no input, bounded by {@code timeout}. */
    static ChildRun.Result run(Duration timeout, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(interpreter());
        command.addAll(args);
        return ChildRun.run(command, "", timeout);
    }
}
