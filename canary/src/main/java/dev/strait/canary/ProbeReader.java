package dev.strait.canary;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.SlidingTimeWindowArrayReservoir;
import dev.strait.mirror.config.ClientConfigs;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The canary's receiving half: reads the mirror's copies of the probes from the target topic and hands this run's
 * to the {@link ProbeTracker}, timing each on this process's clock; probes of an earlier run of the same canary id
 * are counted apart. A missing target topic, a refused read or an unreachable target is logged and retried, never
 * thrown.
 *
 * <p>Threads: its own, {@code strait-canary-reader}, owns the consumer; others read only its volatile flags, the
 * counters and the latency histogram.
 */
final class ProbeReader {
    private static final Logger LOGGER = LoggerFactory.getLogger(ProbeReader.class);
    /** How often the reader looks for partitions added to the target topic. */
    private static final long PARTITION_REFRESH_MS = 10_000;

    private final CanaryConfig config;
    private final long runId;
    private final long startedMs;
    private final ProbeTracker tracker;
    private final Time time;
    private final Histogram latencyMs;
    private final Thread thread;
    /** Probes of earlier runs of this canary id that arrived (their fate was unknown when this run started). */
    private final AtomicLong earlierRunArrivals = new AtomicLong();

    private volatile boolean running = true;
    private volatile boolean targetTopicPresent;
    /** End-to-end latency of the latest probe that arrived, or -1. */
    private volatile long lastLatencyMs = -1;

    /**
     * @param runId     this run's probes carry it; any other is an earlier run's
     * @param startedMs the first time the reader finds a partition, it starts at the records written since then
     */
    ProbeReader(
            CanaryConfig config, long runId, long startedMs, ProbeTracker tracker, MetricRegistry registry, Time time) {
        this.config = config;
        this.runId = runId;
        this.startedMs = startedMs;
        this.tracker = tracker;
        this.time = time;
        this.latencyMs = registry.register(
                "strait.canary.latency-ms", new Histogram(new SlidingTimeWindowArrayReservoir(5, TimeUnit.MINUTES)));
        this.thread = new Thread(this::readLoop, "strait-canary-reader");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void readLoop() {
        // Where the reader is in each target partition: after an error it resumes there, so no probe is read
        // (and counted) twice; a partition added to the topic is picked up at the next refresh.
        Map<TopicPartition, Long> resumeAt = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(consumerProps(), new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            boolean warned = false;
            long nextRefreshMs = 0;
            while (running) {
                try {
                    long now = time.milliseconds();
                    if (consumer.assignment().isEmpty() || now >= nextRefreshMs) {
                        nextRefreshMs = now + PARTITION_REFRESH_MS;
                        if (!assign(consumer, resumeAt)) {
                            if (!warned && now - startedMs > 2 * config.intervalMs() + 10_000) {
                                LOGGER.warn(
                                        "Canary {}: target topic {} has not appeared on the target; does the mirror's "
                                                + "include pattern match {}?",
                                        config.canaryId(),
                                        config.targetTopic(),
                                        config.topic());
                                warned = true;
                            }
                            time.sleep(1000);
                            continue;
                        }
                    }
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                        resumeAt.put(new TopicPartition(r.topic(), r.partition()), r.offset() + 1);
                        Probe probe = Probe.decode(config.canaryId(), r.key(), r.value());
                        if (probe == null) {
                            continue;
                        }
                        if (probe.runId() != runId) {
                            onEarlierRunArrival(probe);
                        } else {
                            onArrival(probe);
                        }
                    }
                } catch (RuntimeException e) {
                    String denied = AccessDenied.explain(e, "target", "READ", config.targetTopic());
                    LOGGER.warn(
                            "Canary {}: reading the target failed ({}); retrying",
                            config.canaryId(),
                            denied != null ? denied : e.toString());
                    consumer.assign(List.of());
                    time.sleep(1000);
                }
            }
        }
    }

    /**
     * Assigns every partition of the target topic: each at the offset the reader had reached, or, the first
     * time, at the records written since this canary started. Returns false while the topic is missing.
     */
    private boolean assign(KafkaConsumer<byte[], byte[]> consumer, Map<TopicPartition, Long> resumeAt) {
        Map<String, List<PartitionInfo>> topics = consumer.listTopics(Duration.ofSeconds(10));
        List<PartitionInfo> infos = topics.get(config.targetTopic());
        if (infos == null || infos.isEmpty()) {
            targetTopicPresent = false;
            return false;
        }
        List<TopicPartition> tps = new ArrayList<>();
        infos.forEach(i -> tps.add(new TopicPartition(i.topic(), i.partition())));
        if (consumer.assignment().containsAll(tps)) {
            targetTopicPresent = true;
            return true;
        }
        Map<TopicPartition, Long> position = new HashMap<>();
        for (TopicPartition tp : consumer.assignment()) {
            position.put(tp, consumer.position(tp));
        }
        consumer.assign(tps);
        List<TopicPartition> fresh = new ArrayList<>();
        for (TopicPartition tp : tps) {
            Long at = position.containsKey(tp) ? position.get(tp) : resumeAt.get(tp);
            if (at != null) {
                consumer.seek(tp, at);
            } else {
                fresh.add(tp);
            }
        }
        if (!fresh.isEmpty()) {
            Map<TopicPartition, Long> since = new HashMap<>();
            fresh.forEach(tp -> since.put(tp, startedMs));
            // The ends first: when no record is as new as the canary yet, reading starts at the end as it was
            // before that question, so a probe copied in between is read, not skipped (it was counted lost).
            Map<TopicPartition, Long> ends = consumer.endOffsets(fresh, Duration.ofSeconds(10));
            Map<TopicPartition, OffsetAndTimestamp> at = consumer.offsetsForTimes(since, Duration.ofSeconds(10));
            for (TopicPartition tp : fresh) {
                OffsetAndTimestamp o = at.get(tp);
                long offset = o == null ? java.util.Objects.requireNonNull(ends.get(tp), "end offset") : o.offset();
                consumer.seek(tp, offset);
                resumeAt.put(tp, offset);
            }
            if (!position.isEmpty()) {
                LOGGER.info(
                        "Canary {}: target topic {} grew to {} partitions; reading the new ones",
                        config.canaryId(),
                        config.targetTopic(),
                        tps.size());
            }
        }
        // Only now: whoever waits for this flag (a test, /status) knows where the reader starts, so records the
        // mirror copies from here on are read.
        targetTopicPresent = true;
        return true;
    }

    /**
     * A probe of an earlier run of this canary id: one that was outstanding when that run ended (a crash, a
     * restart). Counted apart, never matched to this run's probes.
     */
    private void onEarlierRunArrival(Probe probe) {
        long n = earlierRunArrivals.incrementAndGet();
        if (n == 1) {
            LOGGER.info(
                    "Canary {}: probes of an earlier run of this canary arrive (e.g. seq {} of partition {}); they are "
                            + "counted as earlier-run arrivals, apart from this run's",
                    config.canaryId(),
                    probe.seq(),
                    probe.partition());
        }
    }

    private void onArrival(Probe probe) {
        long now = time.milliseconds();
        ProbeTracker.Arrival a = tracker.arrived(probe, now);
        switch (a) {
            case IN_TIME, LATE, AFTER_LOST -> {
                latencyMs.update(now - probe.sentMs());
                lastLatencyMs = now - probe.sentMs();
            }
            case DUPLICATE ->
                LOGGER.warn(
                        "Canary {}: probe {} (partition {}) arrived twice",
                        config.canaryId(),
                        probe.seq(),
                        probe.partition());
            default -> {}
        }
    }

    boolean targetTopicPresent() {
        return targetTopicPresent;
    }

    long earlierRunArrivals() {
        return earlierRunArrivals.get();
    }

    long lastLatencyMs() {
        return lastLatencyMs;
    }

    Histogram latency() {
        return latencyMs;
    }

    private Properties consumerProps() {
        Properties p = ClientConfigs.only(config.targetClient(), ConsumerConfig.configNames());
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "strait-canary-reader-" + config.canaryId());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
        p.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "5000");
        return p;
    }

    /** Ends the loop and waits up to 10 s for the thread, which closes the consumer on its way out. */
    void stop() throws InterruptedException {
        running = false;
        thread.join(10_000);
    }
}
