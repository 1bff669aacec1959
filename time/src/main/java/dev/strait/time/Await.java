package dev.strait.time;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * Waits for a condition, polling, and fails with a message that says what did not happen: the one wait helper of
 * every module's tests (and of the test kit). It lives here, beside the clock, because every module may depend on
 * this one, while the test kit depends on the broker. Polls every 20 ms for the first two seconds, so that quick
 * conditions are seen at once, then every 100 ms, so that a long wait on a condition that asks a cluster does not
 * load it.
 */
public final class Await {
    private static final long QUICK_POLL_MS = 20;
    private static final long SLOW_POLL_MS = 100;
    private static final long QUICK_PHASE_MS = 2_000;

    private Await() {}

    /**
     * Polls {@code condition} until it holds.
     *
     * @throws AssertionError after {@code timeout}, naming {@code what}
     */
    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        until(what, timeout, condition, () -> "");
    }

    /** As above; on a time-out the message adds what {@code state} says about where things stand. */
    public static void until(String what, Duration timeout, BooleanSupplier condition, Supplier<String> state) {
        Time time = Time.SYSTEM;
        long startMs = time.hiResClockMs();
        long deadlineMs = startMs + timeout.toMillis();
        while (!condition.getAsBoolean()) {
            long nowMs = time.hiResClockMs();
            if (nowMs > deadlineMs) {
                String now = state.get();
                throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for: " + what
                        + (now.isEmpty() ? "" : " (" + now + ")"));
            }
            time.sleep(nowMs - startMs < QUICK_PHASE_MS ? QUICK_POLL_MS : SLOW_POLL_MS);
            if (Thread.currentThread().isInterrupted()) {
                throw new AssertionError("interrupted waiting for: " + what);
            }
        }
    }
}
