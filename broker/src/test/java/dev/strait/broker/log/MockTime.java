package dev.strait.broker.log;

/** A {@link Time} that moves only when a test says so. Not thread-safe (tests are single-threaded). */
final class MockTime implements Time {

    private long nowMs;

    MockTime(long startMs) {
        this.nowMs = startMs;
    }

    @Override
    public long milliseconds() {
        return nowMs;
    }

    void advance(long durationMs) {
        nowMs += durationMs;
    }
}
