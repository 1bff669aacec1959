package dev.strait.canary;

import dev.strait.time.Time;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;

/** The system clock, remembering the longest {@link #sleep} anyone asked of it. */
final class SleepRecordingTime implements Time {
    private final AtomicLong longestSleepMs = new AtomicLong();

    long longestSleepMs() {
        return longestSleepMs.get();
    }

    @Override
    public long milliseconds() {
        return Time.SYSTEM.milliseconds();
    }

    @Override
    public long nanoseconds() {
        return Time.SYSTEM.nanoseconds();
    }

    @Override
    public void sleep(long ms) {
        longestSleepMs.accumulateAndGet(ms, Math::max);
        Time.SYSTEM.sleep(ms);
    }

    @Override
    public void waitObject(Object obj, BooleanSupplier condition, long deadlineMs) throws InterruptedException {
        Time.SYSTEM.waitObject(obj, condition, deadlineMs);
    }
}
