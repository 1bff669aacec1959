package dev.strait.lag;

import dev.strait.lag.alert.Alerter;
import dev.strait.lag.audit.Auditor;
import dev.strait.lag.audit.ContinuousAudit;
import dev.strait.lag.config.LagMonitorConfig;
import dev.strait.lag.peer.PeerState;
import dev.strait.lag.peer.PeerWatch;
import dev.strait.lag.sample.LagHistory;
import dev.strait.lag.sample.LagSampler;
import dev.strait.lag.sample.LagSnapshot;
import dev.strait.lag.status.StatusEvaluator;
import dev.strait.lag.status.StatusEvaluator.GroupStatus;
import dev.strait.time.Time;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lag monitor daemon: every {@code sample.interval.ms} it samples, evaluates and alerts, on one thread;
 * the latest verdict is published as an immutable {@link GroupStatus} for the HTTP server to read.
 * A cluster that cannot be read makes that cycle ERR; the loop goes on (no crash loop). For the status page the
 * loop also keeps the last hour of lag ({@link LagHistory}) and reads the canary and the mirror ({@link PeerWatch}),
 * publishing both as immutable snapshots too.
 */
public final class LagMonitor implements Runnable, AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(LagMonitor.class);
    /** Points per partition the page's charts keep: an hour at 5 s; at shorter intervals, less than an hour. */
    private static final int HISTORY_POINTS = 720;
    /** Points the page's charts keep in all (about 40 MB): an hour at 10 s for up to 2,700 partitions. */
    private static final long HISTORY_TOTAL_POINTS = 1_000_000;

    private final LagMonitorConfig config;
    private final Time time;
    private final LagSampler sampler;
    private final StatusEvaluator evaluator;
    private final Alerter alerter;
    private final @Nullable Auditor auditor;
    private final @Nullable ContinuousAudit audit;
    private long nextAuditMs;
    private final AtomicReference<@Nullable GroupStatus> latest = new AtomicReference<>();
    private final LagHistory history;
    private final PeerWatch peers;
    private volatile LagHistory.Snapshot historySnapshot = LagHistory.Snapshot.EMPTY;
    private volatile PeerState peerState;
    private final CountDownLatch stopped = new CountDownLatch(1);
    /** Counted down by {@link #requestStop()}; the loop waits on it between cycles so a stop is immediate. */
    private final CountDownLatch stopSignal = new CountDownLatch(1);

    private volatile boolean stopRequested;
    private volatile boolean running;
    private volatile long lastCycleEndMs = -1;

    public LagMonitor(LagMonitorConfig config, Time time) {
        this.config = config;
        this.time = time;
        this.sampler = new LagSampler(config, time);
        this.evaluator = new StatusEvaluator(
                config.windowSize(), config.stopAfterMs(), config.maxLagRecords(), config.maxLagSeconds());
        this.alerter = new Alerter(config.mirrorGroupId(), config.webhookUrl(), config.alertSuppressMs());
        this.auditor = config.auditIntervalMs() > 0
                ? new Auditor(
                        config.sourceClient(), config.targetClient(), config.renamer(), config.messageHandler(), time)
                : null;
        this.audit = auditor == null ? null : new ContinuousAudit(auditor, config.auditMaxRecords());
        this.history = LagHistory.lastHour(config.sampleIntervalMs(), HISTORY_POINTS, HISTORY_TOTAL_POINTS);
        this.peers = new PeerWatch(
                config.canaryMetricsUrl(),
                config.pageMirrorMetricsUrl(),
                config.pagePollTimeoutMs(),
                3_600_000,
                HISTORY_POINTS);
        this.peerState = peers.state();
        if (config.windowWarning() != null) {
            LOGGER.warn("Lag monitor for group {}: {}", config.mirrorGroupId(), config.windowWarning());
        }
    }

    /** Runs one cycle now and returns its verdict (used by the loop and by the one-shot check). */
    public GroupStatus cycle() {
        LagSnapshot snapshot = sampler.sample();
        GroupStatus status = evaluator.evaluate(snapshot);
        latest.set(status);
        history.record(snapshot);
        historySnapshot = history.snapshot();
        peers.poll(time.milliseconds());
        peerState = peers.state();
        lastCycleEndMs = time.milliseconds();
        alerter.onStatus(status, lastCycleEndMs);
        if (snapshot.failed()) {
            LOGGER.warn("Lag sample of group {} failed: {}", config.mirrorGroupId(), snapshot.errors());
        } else if (audit != null && lastCycleEndMs >= nextAuditMs) {
            try {
                audit.round(snapshot.partitions());
            } catch (RuntimeException e) {
                // The audit's own messages (a refused read, a read that did not finish) need no class name.
                LOGGER.warn(
                        "Audit round failed ({}); it is retried next interval",
                        e instanceof IllegalStateException ? e.getMessage() : e.toString());
            }
            nextAuditMs = time.milliseconds() + config.auditIntervalMs();
        }
        return status;
    }

    @Override
    public void run() {
        running = true;
        try {
            while (!stopRequested) {
                long start = time.milliseconds();
                try {
                    cycle();
                } catch (RuntimeException e) {
                    LOGGER.error("Lag cycle failed unexpectedly; retrying next interval", e);
                }
                long waitMs = config.sampleIntervalMs() - (time.milliseconds() - start);
                if (waitMs > 0 && stopLatchAwait(waitMs)) {
                    break;
                }
            }
        } finally {
            stopped.countDown();
        }
    }

    private boolean stopLatchAwait(long ms) {
        try {
            return stopSignal.await(ms, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return true;
        }
    }

    /** The status of the latest cycle; null before the first one ends. */
    public @Nullable GroupStatus latest() {
        return latest.get();
    }

    /** The last hour of every partition's lag, as of the latest cycle. */
    public LagHistory.Snapshot history() {
        return historySnapshot;
    }

    /** The canary and the mirror's group sync as last read (not configured, or unreachable since when). */
    public PeerState peers() {
        return peerState;
    }

    /** Healthy once a cycle completed within three intervals. */
    public boolean healthy() {
        long last = lastCycleEndMs;
        return last >= 0 && time.milliseconds() - last < 3 * config.sampleIntervalMs() + 30_000;
    }

    /** The continuous audit's summary, or null when it is off (audit.interval.ms=0). */
    public ContinuousAudit.@Nullable Summary auditSummary() {
        return audit == null ? null : audit.summary();
    }

    public int alertsSent() {
        return alerter.sent();
    }

    public void requestStop() {
        stopRequested = true;
        stopSignal.countDown();
    }

    @Override
    public void close() throws InterruptedException {
        requestStop();
        if (running) {
            stopped.await(60, TimeUnit.SECONDS);
        }
        sampler.close();
        if (auditor != null) {
            auditor.close();
        }
    }
}
