package dev.strait.canary;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.SlidingTimeWindowArrayReservoir;
import dev.strait.mirror.config.ClientConfigs;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The canary: every interval it produces one probe to each partition of the canary topic on the source,
 * and reads them back from the target after the mirror copied them. End-to-end latency is measured on
 * this process's own clock (sent → readable on the target), so clocks of the clusters do not matter.
 *
 * <p>Threads: a scheduler runs the probe rounds and the once-a-second evaluation; a reader thread polls
 * the target. Shared state lives in the thread-safe {@link ProbeTracker} and the metrics registry.
 * Outages of either cluster are reported (produce errors, missing target topic) and never stop the loop.
 */
public final class Canary implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(Canary.class);
    private static final long EVALUATE_EVERY_MS = 250;
    /** How often the reader looks for partitions added to the target topic. */
    private static final long PARTITION_REFRESH_MS = 10_000;

    private final CanaryConfig config;
    private final Time time;
    private final ProbeTracker tracker;
    private final MetricRegistry registry;
    private final Histogram latencyMs;
    private final Histogram produceLatencyMs;
    private final Counter produceErrors;
    private final KafkaProducer<byte[], byte[]> producer;
    private final ScheduledExecutorService scheduler;
    private final Thread reader;
    private final AtomicLong seq = new AtomicLong();
    /** New on every start: probes of an earlier run of the same canary.id are told apart by it. */
    private final long runId;

    private final long startedMs;
    /** Probes of earlier runs of this canary id that arrived (their fate was unknown when this run started). */
    private final AtomicLong earlierRunArrivals = new AtomicLong();

    private final HttpClient http =
            HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    private final Map<CanaryState, Long> lastAlertMs = new HashMap<>();
    private volatile CanaryState state = CanaryState.OK;
    private volatile boolean sourceAvailable = true;
    private volatile String lastProduceError = "";
    private volatile boolean targetTopicPresent;
    private volatile boolean running = true;
    private volatile int webhooksSent;
    private volatile java.util.concurrent.ScheduledFuture<?> probing;
    /** End-to-end latency of the latest probe that arrived, or -1. */
    private volatile long lastLatencyMs = -1;

    public Canary(CanaryConfig config, MetricRegistry registry, Time time) {
        this.config = config;
        this.time = time;
        this.registry = registry;
        this.tracker = new ProbeTracker(config.alarmThresholdMs(), config.lostAfterMs());
        this.latencyMs = registry.register(
                "strait.canary.latency-ms", new Histogram(new SlidingTimeWindowArrayReservoir(5, TimeUnit.MINUTES)));
        this.produceLatencyMs = registry.register(
                "strait.canary.produce-latency-ms",
                new Histogram(new SlidingTimeWindowArrayReservoir(5, TimeUnit.MINUTES)));
        this.produceErrors = registry.counter("strait.canary.produce-errors");
        this.startedMs = time.milliseconds();
        long id = java.util.UUID.randomUUID().getMostSignificantBits();
        this.runId = id == Probe.UNKNOWN_RUN ? 1 : id;
        ensureTopic();
        this.producer = new KafkaProducer<>(producerProps(), new ByteArraySerializer(), new ByteArraySerializer());
        this.scheduler = Executors.newScheduledThreadPool(1, r -> {
            Thread t = new Thread(r, "strait-canary-scheduler");
            t.setDaemon(true);
            return t;
        });
        this.reader = new Thread(this::readLoop, "strait-canary-reader");
        reader.setDaemon(true);
    }

    public void start() {
        reader.start();
        probing = scheduler.scheduleAtFixedRate(this::probeRound, 0, config.intervalMs(), TimeUnit.MILLISECONDS);
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

    private void ensureTopic() {
        try (Admin admin = Admin.create(adminProps(config.sourceClient()))) {
            if (!admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(config.topic())) {
                admin.createTopics(List.of(new NewTopic(
                                config.topic(),
                                java.util.Optional.of(config.partitions()),
                                config.replicationFactor() < 0
                                        ? java.util.Optional.empty()
                                        : java.util.Optional.of(config.replicationFactor()))))
                        .all()
                        .get(30, TimeUnit.SECONDS);
                LOGGER.info(
                        "Created canary topic {} with {} partitions on the source",
                        config.topic(),
                        config.partitions());
            }
        } catch (java.util.concurrent.ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                LOGGER.warn(
                        "Could not create canary topic {} ({}); probing goes on and will fail until it exists",
                        config.topic(),
                        e.getCause().toString());
            }
        } catch (Exception e) {
            LOGGER.warn("Could not check canary topic {} ({}); probing goes on", config.topic(), e.toString());
        }
    }

    private void probeRound() {
        try {
            List<PartitionInfo> parts = producer.partitionsFor(config.topic());
            int n = parts == null || parts.isEmpty() ? config.partitions() : parts.size();
            for (int p = 0; p < n; p++) {
                Probe probe = new Probe(config.canaryId(), runId, seq.incrementAndGet(), p, time.milliseconds());
                tracker.sent(probe);
                producer.send(
                        new ProducerRecord<>(config.topic(), p, probe.sentMs(), probe.key(), probe.value()),
                        (md, e) -> onProduced(probe, e));
            }
        } catch (RuntimeException e) {
            onSourceError(e);
        }
    }

    private void onProduced(Probe probe, Exception e) {
        if (e == null) {
            produceLatencyMs.update(time.milliseconds() - probe.sentMs());
            if (!sourceAvailable) {
                LOGGER.info("Canary {}: the source accepts probes again", config.canaryId());
            }
            sourceAvailable = true;
            return;
        }
        tracker.notSent(probe);
        onSourceError(e);
    }

    private void onSourceError(Exception e) {
        String denied = denied(e, "source", "WRITE", config.topic());
        lastProduceError = denied != null ? denied : e.toString();
        // After the message: whoever sees the count go up reads this error, not the one before.
        produceErrors.inc();
        if (sourceAvailable) {
            LOGGER.warn(
                    "Canary {}: probe could not be produced to the source: {}", config.canaryId(), lastProduceError);
        }
        sourceAvailable = false;
    }

    private void readLoop() {
        Properties props = consumerProps();
        // Where the reader is in each target partition: after an error it resumes there, so no probe is read
        // (and counted) twice; a partition added to the topic is picked up at the next refresh.
        Map<TopicPartition, Long> resumeAt = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
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
                    String denied = denied(e, "target", "READ", config.targetTopic());
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
        time.sleep(8000);
        if (!fresh.isEmpty()) {
            Map<TopicPartition, Long> since = new HashMap<>();
            fresh.forEach(tp -> since.put(tp, startedMs));
            Map<TopicPartition, OffsetAndTimestamp> at = consumer.offsetsForTimes(since, Duration.ofSeconds(10));
            Map<TopicPartition, Long> ends = consumer.endOffsets(fresh, Duration.ofSeconds(10));
            for (TopicPartition tp : fresh) {
                OffsetAndTimestamp o = at.get(tp);
                long offset = o == null ? ends.get(tp) : o.offset();
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

    /** Probes of earlier runs of this canary id that arrived during this run. */
    public long earlierRunArrivals() {
        return earlierRunArrivals.get();
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

    private void evaluate() {
        try {
            CanaryState next = tracker.evaluate(time.milliseconds());
            CanaryState previous = state;
            state = next;
            if (next != previous) {
                alert(previous, next);
            }
        } catch (RuntimeException e) {
            LOGGER.error("Canary evaluation failed", e);
        }
    }

    private void alert(CanaryState previous, CanaryState next) {
        long now = time.milliseconds();
        Long last = lastAlertMs.get(next);
        if (last != null && now - last < config.alertSuppressMs()) {
            LOGGER.debug("Suppressed repeated canary alert {} -> {}", previous, next);
            return;
        }
        lastAlertMs.put(next, now);
        ProbeTracker.Counts c = tracker.counts();
        LOGGER.warn(
                "ALERT canary {}: {} -> {} (sent {}, arrived {}, late {}, lost {}, source {})",
                config.canaryId(),
                previous,
                next,
                c.sent(),
                c.arrived(),
                c.late(),
                c.lost(),
                sourceAvailable ? "available" : "unavailable");
        if (config.webhookUrl() != null) {
            String body = CanaryFormat.webhook(config.canaryId(), previous, next, g -> CanaryFormat.write(g, this));
            try {
                http.send(
                        HttpRequest.newBuilder(config.webhookUrl())
                                .timeout(Duration.ofSeconds(10))
                                .header("Content-Type", "application/json")
                                .POST(HttpRequest.BodyPublishers.ofString(body))
                                .build(),
                        HttpResponse.BodyHandlers.discarding());
                webhooksSent++;
            } catch (Exception e) {
                LOGGER.warn("Canary webhook {} failed: {}", config.webhookUrl(), e.toString());
            }
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
        java.util.concurrent.ScheduledFuture<?> p = probing;
        if (p != null) {
            p.cancel(false);
        }
    }

    /** End-to-end latency of the latest probe that arrived, or -1 before the first. */
    public long lastLatencyMs() {
        return lastLatencyMs;
    }

    public ProbeTracker.Counts counts() {
        return tracker.counts();
    }

    public boolean sourceAvailable() {
        return sourceAvailable;
    }

    public String lastProduceError() {
        return lastProduceError;
    }

    public boolean targetTopicPresent() {
        return targetTopicPresent;
    }

    public long produceErrors() {
        return produceErrors.getCount();
    }

    public Histogram latency() {
        return latencyMs;
    }

    public Histogram produceLatency() {
        return produceLatencyMs;
    }

    public CanaryConfig config() {
        return config;
    }

    public int webhooksSent() {
        return webhooksSent;
    }

    public long nowMs() {
        return time.milliseconds();
    }

    /**
     * One line for the cluster refusing the canary's principal: the operation, the topic, the grant; null
     * when {@code e} is no authorization failure. Kafka's message names the topic but not the operation.
     */
    static String denied(Throwable e, String cluster, String operation, String topic) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof AuthorizationException) {
                String op = operation.charAt(0) + operation.substring(1).toLowerCase(java.util.Locale.ROOT);
                return "the " + cluster + " cluster denied the canary's principal (" + cluster + ". settings) "
                        + operation
                        + " on topic " + topic + " (" + t.getClass().getSimpleName() + "): grant it (kafka-acls "
                        + "--bootstrap-server <" + cluster + "> --add --allow-principal User:<canary> --operation " + op
                        + " --topic " + topic + ")";
            }
        }
        return null;
    }

    private Properties producerProps() {
        Properties p = filtered(config.sourceClient(), ProducerConfig.configNames());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.CLIENT_ID_CONFIG, "strait-canary-" + config.canaryId());
        // A probe that cannot be delivered within one interval is reported, not retried forever.
        long delivery = Math.max(5_000, config.intervalMs());
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, String.valueOf(Math.min(delivery, 30_000) / 2));
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, String.valueOf(delivery));
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, String.valueOf(Math.min(delivery, 10_000)));
        return p;
    }

    private Properties consumerProps() {
        Properties p = filtered(config.targetClient(), ConsumerConfig.configNames());
        p.remove(ConsumerConfig.GROUP_ID_CONFIG);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, "strait-canary-reader-" + config.canaryId());
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
        p.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "100");
        p.put(ConsumerConfig.METADATA_MAX_AGE_CONFIG, "5000");
        return p;
    }

    private static Properties adminProps(Properties client) {
        Properties p = filtered(client, AdminClientConfig.configNames());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return p;
    }

    private static Properties filtered(Properties client, Set<String> known) {
        return ClientConfigs.only(client, known);
    }

    @Override
    public void close() throws InterruptedException {
        running = false;
        scheduler.shutdownNow();
        scheduler.awaitTermination(10, TimeUnit.SECONDS);
        reader.join(10_000);
        producer.close(Duration.ofSeconds(5));
    }
}
