package dev.strait.testkit;

import java.time.Duration;
import java.util.function.BooleanSupplier;

/** Waits for a condition, polling; fails with a message that says what did not happen. */
public final class Await {
    private Await() {}

    public static void until(String what, Duration timeout, BooleanSupplier condition) {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout.toSeconds() + " s waiting for: " + what);
            }
            KafkaCluster.sleep(100);
        }
    }
}
