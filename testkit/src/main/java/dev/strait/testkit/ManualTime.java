package dev.strait.testkit;

import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;
import org.apache.kafka.common.utils.Time;

/**
 * A Kafka {@link Time} that moves only when told: {@link #sleep} and {@link #advance} move it at once, so a
 * test of timing logic runs in no real time and replays exactly. Thread-safe.
 */
public final class ManualTime implements Time {
    private final AtomicLong nanos;

    public ManualTime() {
        this(1_700_000_000_000L);
    }

    public ManualTime(long startMs) {
        this.nanos = new AtomicLong(startMs * 1_000_000L);
    }

    @Override
    public long milliseconds() {
        return nanos.get() / 1_000_000L;
    }

    @Override
    public long nanoseconds() {
        return nanos.get();
    }

    @Override
    public void sleep(long ms) {
        advance(ms);
    }

    public void advance(long ms) {
        nanos.addAndGet(ms * 1_000_000L);
    }

    @Override
    public void waitObject(Object obj, Supplier<Boolean> condition, long deadlineMs) throws InterruptedException {
        while (!condition.get()) {
            if (milliseconds() >= deadlineMs) {
                throw new org.apache.kafka.common.errors.TimeoutException("condition not met before " + deadlineMs);
            }
            advance(1);
        }
    }
}
