package dev.strait.canary;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.SlidingTimeWindowArrayReservoir;
import dev.strait.mirror.config.ClientConfigs;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The canary's sending half: creates the canary topic on the source if it is missing, and each {@link #round()}
 * produces one probe to every partition of it, telling the {@link ProbeTracker} what went out. Produce failures
 * (an unreachable source, a denied write) are counted and reported once per outage, never thrown.
 *
 * <p>Threads: {@link #round()} runs on the canary's scheduler; the producer's callbacks run on its I/O thread. What
 * both write and others read (availability, the last error) is volatile or a metric.
 */
final class Prober implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(Prober.class);

    private final CanaryConfig config;
    private final long runId;
    private final ProbeTracker tracker;
    private final Time time;
    private final Histogram produceLatencyMs;
    private final Counter produceErrors;
    private final AtomicLong seq = new AtomicLong();
    private final KafkaProducer<byte[], byte[]> producer;
    private volatile boolean sourceAvailable = true;
    private volatile String lastProduceError = "";

    /** Creates the canary topic when it is missing, then the producer; nothing is sent before {@link #round()}. */
    Prober(CanaryConfig config, long runId, ProbeTracker tracker, MetricRegistry registry, Time time) {
        this.config = config;
        this.runId = runId;
        this.tracker = tracker;
        this.time = time;
        this.produceLatencyMs = registry.register(
                "strait.canary.produce-latency-ms",
                new Histogram(new SlidingTimeWindowArrayReservoir(5, TimeUnit.MINUTES)));
        this.produceErrors = registry.counter("strait.canary.produce-errors");
        ensureTopic();
        this.producer = new KafkaProducer<>(producerProps(), new ByteArraySerializer(), new ByteArraySerializer());
    }

    private void ensureTopic() {
        try (Admin admin = Admin.create(adminProps())) {
            if (!admin.listTopics().names().get(30, TimeUnit.SECONDS).contains(config.topic())) {
                admin.createTopics(List.of(new NewTopic(
                                config.topic(),
                                Optional.of(config.partitions()),
                                config.replicationFactor() < 0
                                        ? Optional.empty()
                                        : Optional.of(config.replicationFactor()))))
                        .all()
                        .get(30, TimeUnit.SECONDS);
                LOGGER.info(
                        "Created canary topic {} with {} partitions on the source",
                        config.topic(),
                        config.partitions());
            }
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                LOGGER.warn(
                        "Could not create canary topic {} ({}); probing goes on and will fail until it exists",
                        config.topic(),
                        String.valueOf(e.getCause()));
            }
        } catch (Exception e) {
            LOGGER.warn("Could not check canary topic {} ({}); probing goes on", config.topic(), e.toString());
        }
    }

    /** Sends one probe to each partition the topic has now (the configured count while the source is unknown). */
    void round() {
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
        String denied = AccessDenied.explain(e, "source", "WRITE", config.topic());
        lastProduceError = denied != null ? denied : e.toString();
        // After the message: whoever sees the count go up reads this error, not the one before.
        produceErrors.inc();
        if (sourceAvailable) {
            LOGGER.warn(
                    "Canary {}: probe could not be produced to the source: {}", config.canaryId(), lastProduceError);
        }
        sourceAvailable = false;
    }

    boolean sourceAvailable() {
        return sourceAvailable;
    }

    String lastProduceError() {
        return lastProduceError;
    }

    long produceErrors() {
        return produceErrors.getCount();
    }

    Histogram produceLatency() {
        return produceLatencyMs;
    }

    private Properties producerProps() {
        Properties p = ClientConfigs.only(config.sourceClient(), ProducerConfig.configNames());
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

    private Properties adminProps() {
        Properties p = ClientConfigs.only(config.sourceClient(), AdminClientConfig.configNames());
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        return p;
    }

    /** Waits up to 5 s for probes still in the producer. */
    @Override
    public void close() {
        producer.close(Duration.ofSeconds(5));
    }
}
