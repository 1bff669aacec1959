package dev.strait.time;

import java.util.function.BooleanSupplier;

/**
 * Strait's one source of time, in every module: wall-clock milliseconds (segment roll, retention, timestamps, what a
 * report prints) and a monotonic clock for timers, timeouts and deadlines. Injected so that tests drive time
 * explicitly ({@link ManualTime}) instead of sleeping; production code uses {@link #SYSTEM}.
 *
 * <p>A test clock need only implement {@link #milliseconds()}: the monotonic clock then follows it, and sleeping
 * returns at once. Implementations must be thread-safe. A pure state machine takes {@code long nowMs} arguments
 * instead of a clock.
 */
@FunctionalInterface
public interface Time {

    /** The system clocks: {@code currentTimeMillis} for the wall clock, {@code nanoTime} for the monotonic one. */
    Time SYSTEM = new SystemTime();

    /** Current wall-clock time in milliseconds since the epoch; may jump (NTP). */
    long milliseconds();

    /** A monotonic clock in nanoseconds with an arbitrary origin: only differences mean anything. */
    default long nanoseconds() {
        return milliseconds() * 1_000_000L;
    }

    /** {@link #nanoseconds()} in milliseconds: for timers and deadlines, which must not jump with the wall clock. */
    default long hiResClockMs() {
        return nanoseconds() / 1_000_000L;
    }

    /**
     * Pauses the calling thread for {@code ms}. An interrupt ends the pause early and stays set on the thread, so a
     * loop around it sees it. A test clock moves instead of waiting.
     */
    default void sleep(long ms) {}

    /**
     * Waits on {@code monitor} until {@code done} holds or the wall clock reaches {@code deadlineMs}, whichever is
     * first; a {@code notifyAll} on the monitor makes it look again at once. The caller must not hold the monitor.
     *
     * @throws InterruptedException if the thread is interrupted while it waits
     */
    default void waitObject(Object monitor, BooleanSupplier done, long deadlineMs) throws InterruptedException {
        // A clock that only tells time may move without a notify: look again every few milliseconds.
        synchronized (monitor) {
            while (!done.getAsBoolean()) {
                long leftMs = deadlineMs - milliseconds();
                if (leftMs <= 0) {
                    return;
                }
                monitor.wait(Math.min(leftMs, 10));
            }
        }
    }
}
