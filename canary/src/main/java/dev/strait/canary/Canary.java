package dev.strait.canary;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import dev.strait.time.Time;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The canary: every interval it produces one probe to each partition of the canary topic on the source,
 * and reads them back from the target after the mirror copied them. End-to-end latency is measured on
 * this process's own clock (sent → readable on the target), so clocks of the clusters do not matter.
 *
 * <p>This class wires the parts and runs them: the {@link Prober} sends, the {@link ProbeReader} reads back, the
 * {@link ProbeTracker} decides OK, LATE or LOST, and the {@link CanaryAlerter} tells someone when that changes.
 * Threads: a scheduler runs the probe rounds and the evaluation (and so the alerts); the reader has its own.
 * Shared state lives in the thread-safe {@link ProbeTracker}, the metrics registry and volatile fields. Outages of
 * either cluster are reported (produce errors, missing target topic) and never stop the loop.
 */
public final class Canary implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(Canary.class);
    private static final long EVALUATE_EVERY_MS = 250;

    private final CanaryConfig config;
    private final Time time;
    private final ProbeTracker tracker;
    private final Prober prober;
    private final ProbeReader reader;
    private final CanaryAlerter alerter;
    private final ScheduledExecutorService scheduler;
    private volatile @Nullable ScheduledFuture<?> probing;
    /** Written by the scheduler's evaluation only. */
    private volatile CanaryState state = CanaryState.OK;

    public Canary(CanaryConfig config, MetricRegistry registry, Time time) {
        this.config = config;
        this.time = time;
        this.tracker = new ProbeTracker(config.alarmThresholdMs(), config.lostAfterMs());
        long startedMs = time.milliseconds();
        // New on every start: probes of an earlier run of the same canary.id are told apart by it.
        long id = UUID.randomUUID().getMostSignificantBits();
        long runId = id == Probe.UNKNOWN_RUN ? 1 : id;
        this.reader = new ProbeReader(config, runId, startedMs, tracker, registry, time);
        this.prober = new Prober(config, runId, tracker, registry, time);
        this.alerter = new CanaryAlerter(config.canaryId(), config.webhookUrl(), config.alertSuppressMs());
        this.scheduler = Executors.newScheduledThreadPool(1, r -> {
            Thread t = new Thread(r, "strait-canary-scheduler");
            t.setDaemon(true);
            return t;
        });
    }

    public void start() {
        reader.start();
        probing = scheduler.scheduleAtFixedRate(prober::round, 0, config.intervalMs(), TimeUnit.MILLISECONDS);
        scheduler.scheduleAtFixedRate(this::evaluate, EVALUATE_EVERY_MS, EVALUATE_EVERY_MS, TimeUnit.MILLISECONDS);
        LOGGER.info(
                "Canary {} probing {} ({} partitions) every {} ms, reading {} on the target; alarm after {} ms, "
                        + "lost after {} ms",
                config.canaryId(),
                config.topic(),
                config.partitions(),
                config.intervalMs(),
                config.targetTopic(),
                config.alarmThresholdMs(),
                config.lostAfterMs());
    }

    private void evaluate() {
        try {
            CanaryState next = tracker.evaluate(time.milliseconds());
            CanaryState previous = state;
            state = next;
            if (next != previous) {
                alerter.changed(
                        previous,
                        next,
                        time.milliseconds(),
                        tracker.counts(),
                        prober.sourceAvailable(),
                        g -> CanaryFormat.write(g, this));
            }
        } catch (RuntimeException e) {
            LOGGER.error("Canary evaluation failed", e);
        }
    }

    public CanaryState state() {
        return state;
    }

    /**
     * Sends no more probes; those outstanding are still read and evaluated. For a clean end: stop probing,
     * wait until nothing is outstanding, then stop what the probes go through.
     */
    public void stopProbing() {
        ScheduledFuture<?> p = probing;
        if (p != null) {
            p.cancel(false);
        }
    }

    /** Probes of earlier runs of this canary id that arrived during this run. */
    public long earlierRunArrivals() {
        return reader.earlierRunArrivals();
    }

    /** End-to-end latency of the latest probe that arrived, or -1 before the first. */
    public long lastLatencyMs() {
        return reader.lastLatencyMs();
    }

    public ProbeTracker.Counts counts() {
        return tracker.counts();
    }

    public boolean sourceAvailable() {
        return prober.sourceAvailable();
    }

    public String lastProduceError() {
        return prober.lastProduceError();
    }

    public boolean targetTopicPresent() {
        return reader.targetTopicPresent();
    }

    public long produceErrors() {
        return prober.produceErrors();
    }

    public Histogram latency() {
        return reader.latency();
    }

    public Histogram produceLatency() {
        return prober.produceLatency();
    }

    public CanaryConfig config() {
        return config;
    }

    public int webhooksSent() {
        return alerter.webhooksSent();
    }

    public long nowMs() {
        return time.milliseconds();
    }

    @Override
    public void close() throws InterruptedException {
        scheduler.shutdownNow();
        scheduler.awaitTermination(10, TimeUnit.SECONDS);
        reader.stop();
        prober.close();
    }
}
