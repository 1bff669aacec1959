package dev.strait.mirror.metrics;

import dev.strait.time.Time;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Logs one line of progress every interval: what was copied since the last line, the rate, lag and errors. */
public final class ProgressLogger implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(ProgressLogger.class);

    private final MirrorMetrics metrics;
    private final Time time;
    private final ScheduledExecutorService scheduler;
    private long lastProduced;
    private long lastNanos;

    public ProgressLogger(MirrorMetrics metrics, long intervalMs, Time time) {
        this.metrics = metrics;
        this.time = time;
        this.lastNanos = time.nanoseconds();
        this.scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "strait-progress");
            t.setDaemon(true);
            return t;
        });
        scheduler.scheduleAtFixedRate(this::logOnce, intervalMs, intervalMs, TimeUnit.MILLISECONDS);
    }

    private void logOnce() {
        long produced = metrics.recordsProduced();
        long now = time.nanoseconds();
        double seconds = Math.max(1e-3, (now - lastNanos) / 1e9);
        double rate = (produced - lastProduced) / seconds;
        LOGGER.info(
                "progress: mirrored {} records ({} since last report, {} rec/s), consumed {}, consumer lag {}, "
                        + "send errors {}, commits {}, replication latency p99 {} ms, source records lost {}, diverged {}",
                produced,
                produced - lastProduced,
                Math.round(rate),
                metrics.recordsConsumed(),
                metrics.totalLag(),
                metrics.sendErrors(),
                metrics.commits(),
                Math.round(metrics.recordAge().getSnapshot().get99thPercentile()),
                metrics.sourceRecordsLost(),
                metrics.sourceRecordsDiverged());
        lastProduced = produced;
        lastNanos = now;
    }

    @Override
    public void close() {
        scheduler.shutdownNow();
    }
}
