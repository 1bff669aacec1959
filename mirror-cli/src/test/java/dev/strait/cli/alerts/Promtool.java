package dev.strait.cli.alerts;

import dev.strait.testkit.Docker;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Assumptions;

/**
 * Prometheus's {@code promtool} (Debian package {@code prometheus}; {@code .ci/run} installs it). Without it a test
 * fails in CI and is skipped elsewhere, saying why, as {@link Docker#require} does for the Docker tests. Stateless.
 */
final class Promtool {
    private static final Duration TIMEOUT = Duration.ofSeconds(120);
    private static final String HOW =
            "Install it: apt-get install prometheus (Debian; .ci/run does it before mvn verify)";

    private Promtool() {}

    /** Returns when promtool runs; otherwise fails the calling test in CI, or aborts it (skipped) elsewhere. */
    static void require() {
        String missing = missing();
        if (missing == null) {
            return;
        }
        if (Docker.inCi()) {
            throw new AssertionError("this test needs promtool, and CI (CI=" + System.getenv("CI") + ") must run it: "
                    + missing + ". " + HOW);
        }
        Assumptions.abort("skipped outside CI: " + missing + ". " + HOW);
    }

    private static String missing() {
        try {
            Docker.Result version = Docker.run(TIMEOUT, List.of("promtool", "--version"));
            return version.ok()
                    ? null
                    : "promtool --version failed: " + version.output().strip();
        } catch (UncheckedIOException e) {
            return "no promtool on PATH (" + e.getCause().getMessage() + ")";
        }
    }

    /** {@code promtool check rules FILE}: the exit code and what it printed. */
    static Docker.Result checkRules(Path rules) {
        return Docker.run(TIMEOUT, List.of("promtool", "check", "rules", rules.toString()));
    }

    /** {@code promtool test rules FILE}: runs the unit tests in FILE (its rule_files are relative to it). */
    static Docker.Result testRules(Path tests) {
        return Docker.run(TIMEOUT, List.of("promtool", "test", "rules", tests.toString()));
    }
}
