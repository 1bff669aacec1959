package dev.strait.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/** Waits for a condition, polling; fails with a message that says what did not happen. */
public final class Await {
    private Await() {}

    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        until(what, timeout, condition, () -> "");
    }

    /** As above; on a time-out the message adds what {@code state} says about where things stand. */
    public static void until(String what, Duration timeout, BooleanSupplier condition, Supplier<String> state) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                String now = state.get();
                throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for: " + what
                        + (now.isEmpty() ? "" : " (" + now + ")"));
            }
            KafkaCluster.sleep(100);
        }
    }
}
