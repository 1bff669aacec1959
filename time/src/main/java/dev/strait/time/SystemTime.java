package dev.strait.time;

import java.util.function.BooleanSupplier;

/** The real clocks; the only place outside tests that reads them (checkstyle bans them everywhere else). */
final class SystemTime implements Time {

    @Override
    public long milliseconds() {
        return System.currentTimeMillis();
    }

    @Override
    public long nanoseconds() {
        return System.nanoTime();
    }

    @Override
    public void sleep(long ms) {
        if (ms <= 0) {
            return;
        }
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void waitObject(Object monitor, BooleanSupplier done, long deadlineMs) throws InterruptedException {
        synchronized (monitor) {
            while (!done.getAsBoolean()) {
                long leftMs = deadlineMs - milliseconds();
                if (leftMs <= 0) {
                    return;
                }
                monitor.wait(leftMs);
            }
        }
    }

    @Override
    public String toString() {
        return "Time.SYSTEM";
    }
}
