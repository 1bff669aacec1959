package dev.strait.broker.log;

/**
 * The broker's one source of time: wall-clock milliseconds (segment roll, retention, LogAppendTime) and a
 * monotonic clock for timers, timeouts and deadlines. Injected so that tests drive time explicitly instead of
 * sleeping; production code uses {@link #SYSTEM}.
 *
 * <p>A test clock need only implement {@link #milliseconds()}: the monotonic clock then follows it, which is what a
 * hand-driven clock wants. Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Time {

    /** The system clocks: {@code currentTimeMillis} for the wall clock, {@code nanoTime} for the monotonic one. */
    Time SYSTEM = new Time() {
        @Override
        public long milliseconds() {
            return System.currentTimeMillis();
        }

        @Override
        public long nanoseconds() {
            return System.nanoTime();
        }
    };

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
}
