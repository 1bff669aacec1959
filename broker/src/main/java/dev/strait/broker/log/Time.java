package dev.strait.broker.log;

/**
 * Source of wall-clock time for the log (segment roll, retention, LogAppendTime). Injected so that tests
 * drive time explicitly instead of sleeping; production code uses {@link #SYSTEM}.
 *
 * <p>Implementations must be thread-safe.
 */
@FunctionalInterface
public interface Time {

    /** The system clock. */
    Time SYSTEM = System::currentTimeMillis;

    /** Current wall-clock time in milliseconds since the epoch. */
    long milliseconds();
}
