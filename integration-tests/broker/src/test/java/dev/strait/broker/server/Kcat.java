package dev.strait.broker.server;

import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
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
            ChildRun.Result version = run(CHECK_TIMEOUT, "", List.of("-V"));
            return version.exitCode() == 0 ? null : "'kcat -V' failed: " + version;
        } catch (UncheckedIOException e) {
            return "no kcat on PATH (" + e.getCause().getMessage() + ")";
        }
    }

    static boolean inCi() {
        return ChildRun.inCi();
    }

    /** Runs {@code kcat <args>} with {@code stdin} as its input, bounded by {@code timeout}. */
    static ChildRun.Result run(Duration timeout, String stdin, List<String> args) {
        List<String> command = new ArrayList<>();
        command.add(EXECUTABLE);
        command.addAll(args);
        return ChildRun.run(command, stdin, timeout);
    }
}
