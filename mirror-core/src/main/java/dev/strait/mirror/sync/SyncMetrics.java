package dev.strait.mirror.sync;

import com.codahale.metrics.Counter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Timer;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Metrics of one kind of sync (group offsets, topic configs, partitions, ACLs), under
 * {@code strait.mirror.sync.<kind>.}: rounds, failures, whether the last round failed (the alert), the
 * changes it applied, the round time and the time of the last success. Thread-safe.
 */
public final class SyncMetrics {
    public static final String PREFIX = "strait.mirror.sync.";

    private final String kind;
    private final Counter rounds;
    private final Counter failures;
    private final Counter changes;
    private final Timer roundTime;
    private final AtomicLong consecutiveFailures = new AtomicLong();
    private final AtomicLong lastSuccessMs = new AtomicLong(-1);

    public SyncMetrics(MetricRegistry registry, String kind) {
        this.kind = kind;
        String p = PREFIX + kind + ".";
        rounds = registry.counter(p + "rounds");
        failures = registry.counter(p + "failures");
        changes = registry.counter(p + "changes");
        roundTime = registry.timer(p + "round-time");
        registry.gauge(p + "failing", () -> () -> consecutiveFailures.get() > 0 ? 1 : 0);
        registry.gauge(p + "consecutive-failures", () -> consecutiveFailures::get);
        registry.gauge(p + "last-success-ms", () -> lastSuccessMs::get);
    }

    public String kind() {
        return kind;
    }

    public Timer.Context time() {
        return roundTime.time();
    }

    public void succeeded(long nowMs, long changed) {
        rounds.inc();
        changes.inc(changed);
        consecutiveFailures.set(0);
        lastSuccessMs.set(nowMs);
    }

    /** A change made outside a round (e.g. a partition count grown when a new source partition was assigned). */
    public void changed(long n) {
        changes.inc(n);
    }

    /** Returns how many rounds in a row failed, this one included. */
    public long failed() {
        rounds.inc();
        failures.inc();
        return consecutiveFailures.incrementAndGet();
    }

    /** Log the 1st, 2nd, 4th, 8th... failure in a row, so a long outage does not flood the log. */
    public static boolean worthLogging(long consecutiveFailures) {
        return Long.bitCount(consecutiveFailures) == 1;
    }

    public long rounds() {
        return rounds.getCount();
    }

    public long failures() {
        return failures.getCount();
    }

    public long changes() {
        return changes.getCount();
    }

    public long consecutiveFailures() {
        return consecutiveFailures.get();
    }
}
