package dev.strait.broker;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits in tests for a condition, polling; fails with a message that says what did not happen. */
public final class Wait {
    private Wait() {}

    /** Polls {@code condition} every 20 ms until it holds; an AssertionError after {@code timeout}. */
    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for " + what);
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
        }
    }
}
