package dev.strait.time;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/**
 * The test clock: a {@link Time} that moves only when told. {@link #sleep} and {@link #advance} move it at once, so
 * a test of timing logic runs in no real time and replays exactly. The wall clock can also be set on its own
 * ({@link #setWallClockMs}), as NTP moves it, while the monotonic clock goes on. Thread-safe.
 */
public final class ManualTime implements Time {
    /** 2023-11-14T22:13:20Z: far enough from 0 that an offset from "now" never goes negative. */
    public static final long DEFAULT_START_MS = 1_700_000_000_000L;

    private final AtomicLong nanos;
    private final AtomicLong wallOffsetMs = new AtomicLong();

    public ManualTime() {
        this(DEFAULT_START_MS);
    }

    public ManualTime(long startMs) {
        this.nanos = new AtomicLong(startMs * 1_000_000L);
    }

    @Override
    public long milliseconds() {
        return nanos.get() / 1_000_000L + wallOffsetMs.get();
    }

    @Override
    public long nanoseconds() {
        return nanos.get();
    }

    /** Moves both clocks on by {@code ms}, at once. */
    @Override
    public void sleep(long ms) {
        advance(ms);
    }

    /** Moves both clocks on by {@code ms}. */
    public void advance(long ms) {
        if (ms < 0) {
            throw new IllegalArgumentException("time does not go back: advance(" + ms + ")");
        }
        nanos.addAndGet(ms * 1_000_000L);
    }

    /** Sets the wall clock to {@code ms} (forward or back, as a clock step does); the monotonic clock is untouched. */
    public void setWallClockMs(long ms) {
        wallOffsetMs.set(ms - nanos.get() / 1_000_000L);
    }

    /** Moves the clock a millisecond at a time until {@code done} holds or the deadline is reached. */
    @Override
    public void waitObject(Object monitor, BooleanSupplier done, long deadlineMs) {
        while (!done.getAsBoolean() && milliseconds() < deadlineMs) {
            advance(1);
        }
    }
}
