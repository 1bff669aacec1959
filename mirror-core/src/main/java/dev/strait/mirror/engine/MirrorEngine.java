package dev.strait.mirror.engine;

import dev.strait.mirror.config.ClientConfigs;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.metrics.ClientMetricsBridge;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mirror: {@code num.streams} consumer threads in one group, one shared producer, offsets committed
 * only for what the target acknowledged (see {@link MirrorStream}).
 *
 * <pre>
 *   NEW --start()--> RUNNING --requestStop() or a stream fails--> STOPPING --all streams done--> STOPPED | FAILED
 * </pre>
 *
 * <p>When one stream fails (a send failure with abort.on.send.failure, a truncated source with
 * on.source.truncation=fail, an unreachable target topic), the engine stops the other streams politely, so
 * each commits what it copied, and ends FAILED with that stream's error.
 *
 * <p>Thread-safe: {@link #requestStop()} and the accessors may be called from any thread (e.g. a signal handler).
 */
public final class MirrorEngine implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(MirrorEngine.class);

    public enum State {
        NEW,
        RUNNING,
        STOPPING,
        STOPPED,
        FAILED
    }

    private final MirrorConfig settings;
    private final MirrorMetrics metrics;
    private final Time time;
    private final AcknowledgementListener listener;
    private final AtomicReference<State> state = new AtomicReference<>(State.NEW);
    private final AtomicReference<Throwable> failure = new AtomicReference<>();
    private final List<MirrorStream> streams = new java.util.concurrent.CopyOnWriteArrayList<>();
    private final List<Thread> threads = new ArrayList<>();
    private final CountDownLatch terminated = new CountDownLatch(1);
    private final AtomicInteger running = new AtomicInteger();
    // Null until start() connects (and after a start that failed before them).
    private @Nullable EngineSyncs syncs;
    private @Nullable Admin sourceAdmin;
    private @Nullable Admin targetAdmin;
    private @Nullable Producer<byte[], byte[]> producer;
    private @Nullable String sourceClusterId;
    private @Nullable String targetClusterId;

    public MirrorEngine(MirrorConfig settings, MirrorMetrics metrics, Time time) {
        this(settings, metrics, time, AcknowledgementListener.NONE);
    }

    /**
     * An engine that reports every acknowledged copy to {@code listener} (source partition and offset to
     * target partition and offset), e.g. for offset translation; see {@link AcknowledgementListener}.
     */
    public MirrorEngine(MirrorConfig settings, MirrorMetrics metrics, Time time, AcknowledgementListener listener) {
        this.settings = settings;
        this.metrics = metrics;
        this.time = time;
        this.listener = java.util.Objects.requireNonNull(listener);
    }

    /**
     * Connects to both clusters, then starts the streams. Throws {@link MirrorException} (and starts nothing)
     * if a cluster cannot be reached.
     */
    public synchronized void start() {
        if (!state.compareAndSet(State.NEW, State.RUNNING)) {
            throw new IllegalStateException("the engine was already started (state " + state.get() + ")");
        }
        try {
            Properties consumerBase = ClientConfigs.consumer(settings.consumerConfig(), 0);
            Properties producerProps = ClientConfigs.producer(settings.producerConfig());
            sourceAdmin = Admin.create(ClientConfigs.admin(consumerBase, "strait-mirror-source-admin"));
            targetAdmin = Admin.create(ClientConfigs.admin(producerProps, "strait-mirror-target-admin"));
            sourceClusterId = clusterId(sourceAdmin, "source", consumerBase);
            targetClusterId = clusterId(targetAdmin, "target", producerProps);
            if (sourceClusterId.equals(targetClusterId)) {
                throw new MirrorException("source and target are the same cluster (" + sourceClusterId + "); "
                        + "check bootstrap.servers in --consumer.config and --producer.config");
            }
            producer = new KafkaProducer<>(producerProps);
            ClientMetricsBridge.registerProducer(metrics.registry(), producer.metrics());
            TargetTopics targetTopics = new TargetTopics(
                    sourceAdmin,
                    targetAdmin,
                    settings.targetReplicationFactor(),
                    Integer.parseInt(producerProps.getProperty(ProducerConfig.BATCH_SIZE_CONFIG)),
                    settings.sync().topics(),
                    settings.renamer(),
                    time,
                    metrics.registry());
            syncs = new EngineSyncs(
                    settings,
                    sourceAdmin,
                    targetAdmin,
                    producerProps,
                    sourceClusterId,
                    targetTopics,
                    metrics.registry(),
                    time);
            AcknowledgementListener acks = both(syncs.listener(), listener);
            String offsetReset = ClientConfigs.userOffsetReset(settings.consumerConfig());
            RecordSizer sizer = new RecordSizer(producerProps.getProperty(ProducerConfig.COMPRESSION_TYPE_CONFIG));
            RecordRouter.Targets targets = new RecordRouter.Targets() {
                @Override
                public TargetTopics.TargetTopic ensure(String sourceTopic, String targetTopic) {
                    return targetTopics.ensure(sourceTopic, targetTopic);
                }

                @Override
                public void refresh(String targetTopic) {
                    targetTopics.refresh(targetTopic);
                }

                @Override
                public int currentMaxMessageBytes(String sourceTopic, String targetTopic) {
                    return targetTopics.currentMaxMessageBytes(sourceTopic, targetTopic);
                }
            };
            for (int i = 0; i < settings.numStreams(); i++) {
                KafkaConsumer<byte[], byte[]> consumer =
                        new KafkaConsumer<>(ClientConfigs.consumer(settings.consumerConfig(), i));
                ClientMetricsBridge.registerConsumer(metrics.registry(), "stream-" + i, consumer.metrics());
                streams.add(new MirrorStream(
                        i,
                        settings,
                        consumer,
                        producer,
                        targets,
                        sourceClusterId,
                        targetClusterId,
                        metrics,
                        time,
                        offsetReset,
                        sizer,
                        acks,
                        this::sourceTopicId));
            }
        } catch (RuntimeException e) {
            state.set(State.FAILED);
            failure.set(e);
            if (syncs != null) {
                syncs.requestStop();
                syncs.close();
            }
            closeClients();
            terminated.countDown();
            throw e;
        }
        LOGGER.info(
                "Mirroring topics matching '{}' from cluster {} to cluster {} with {} streams (rename: {}, "
                        + "partitions: {}, commit every {} ms, abort on send failure: {})",
                settings.include().pattern(),
                sourceClusterId,
                targetClusterId,
                settings.numStreams(),
                settings.renamer().describe(),
                settings.partitionMode().name().toLowerCase(java.util.Locale.ROOT),
                settings.offsetCommitIntervalMs(),
                settings.abortOnSendFailure());
        running.set(streams.size());
        if (state.get() == State.STOPPING) {
            // A stop (e.g. SIGTERM) arrived while the engine was connecting: the streams end at once.
            streams.forEach(MirrorStream::requestStop);
        }
        for (MirrorStream stream : streams) {
            Thread t = new Thread(() -> runStream(stream), "strait-mirror-stream-" + threads.size());
            threads.add(t);
        }
        threads.forEach(Thread::start);
        syncs.start();
    }

    private static AcknowledgementListener both(AcknowledgementListener a, AcknowledgementListener b) {
        if (a == AcknowledgementListener.NONE) {
            return b;
        }
        if (b == AcknowledgementListener.NONE) {
            return a;
        }
        return new AcknowledgementListener() {
            @Override
            public void acknowledged(
                    TopicPartition source, long sourceOffset, TopicPartition target, long targetOffset) {
                a.acknowledged(source, sourceOffset, target, targetOffset);
                b.acknowledged(source, sourceOffset, target, targetOffset);
            }

            @Override
            public void original(TopicPartition source, long sourceOffset, TopicPartition target, long targetOffset) {
                a.original(source, sourceOffset, target, targetOffset);
                b.original(source, sourceOffset, target, targetOffset);
            }
        };
    }

    /** The group offset sync, or null when the offset map is off (for tests and metrics). */
    public dev.strait.mirror.sync.@Nullable GroupOffsetSync groupSync() {
        return syncs == null ? null : syncs.groupSync();
    }

    private void runStream(MirrorStream stream) {
        try {
            stream.run();
        } catch (Throwable t) {
            if (failure.compareAndSet(null, t)) {
                LOGGER.error("A mirror stream failed, stopping the mirror: {}", t.getMessage());
            }
            requestStop();
        } finally {
            if (running.decrementAndGet() == 0) {
                finishAll();
            }
        }
    }

    private void finishAll() {
        // The producer closes first (after a failure without sending what is queued); the sync threads may be in
        // admin calls to an unreachable cluster, and must not hold it up.
        if (syncs != null) {
            syncs.requestStop();
        }
        closeProducer();
        if (syncs != null) {
            syncs.awaitStop(5_000);
        }
        closeClients();
        if (syncs != null) {
            syncs.awaitStop(30_000);
            syncs.close();
        }
        metrics.sync();
        state.set(failure.get() == null ? State.STOPPED : State.FAILED);
        LOGGER.info(
                "Mirror {}: {} records consumed, {} produced, {} send errors",
                state.get() == State.STOPPED ? "stopped" : "failed",
                metrics.recordsConsumed(),
                metrics.recordsProduced(),
                metrics.sendErrors());
        terminated.countDown();
    }

    /** Stops polling in every stream; each flushes, commits and closes. Returns at once; see {@link #awaitTermination}. */
    public void requestStop() {
        state.compareAndSet(State.RUNNING, State.STOPPING);
        for (MirrorStream s : streams) {
            s.requestStop();
        }
    }

    /** Waits until every stream has finished and the clients are closed. Returns false on timeout. */
    public boolean awaitTermination(Duration timeout) throws InterruptedException {
        return terminated.await(timeout.toMillis(), TimeUnit.MILLISECONDS);
    }

    public State state() {
        return Objects.requireNonNull(state.get(), "state");
    }

    /**
     * The longest time any running stream has made no progress while it had work (copies in flight, or
     * records on the source it has not read), in ms; 0 when every stream moves or is idle with nothing to do.
     * A mirror can be RUNNING and stuck (a target that takes nothing but fails nothing yet): health checks
     * compare this with how long a healthy stream may pause.
     */
    public long longestStallMs() {
        long now = time.milliseconds();
        long worst = 0;
        for (MirrorStream s : streams) {
            worst = Math.max(worst, s.stalledForMs(now));
        }
        return worst;
    }

    /** How long a stream may go without progress before health checks call it stuck. */
    public long stallThresholdMs() {
        return Math.max(120_000, 2 * settings.offsetCommitIntervalMs());
    }

    /** What /healthz reports: running and not stuck. */
    public String healthDetail() {
        State s = Objects.requireNonNull(state.get(), "the state is never null");
        long stall = longestStallMs();
        if (s == State.RUNNING && stall > stallThresholdMs()) {
            return "running but stuck: a stream made no progress for " + stall / 1000
                    + " s while it had records to copy";
        }
        return s.name().toLowerCase(java.util.Locale.ROOT)
                + (failure.get() == null ? "" : ": " + failure.get().getMessage());
    }

    public boolean healthy() {
        return state.get() == State.RUNNING && longestStallMs() <= stallThresholdMs();
    }

    /** The error that stopped the mirror, or null. */
    public @Nullable Throwable failure() {
        return failure.get();
    }

    public MirrorMetrics metrics() {
        return metrics;
    }

    /** Null until {@link #start} has reached the source. */
    public @Nullable String sourceClusterId() {
        return sourceClusterId;
    }

    /** Null until {@link #start} has reached the target. */
    public @Nullable String targetClusterId() {
        return targetClusterId;
    }

    @Override
    public void close() throws InterruptedException {
        requestStop();
        if (state.get() != State.NEW && !awaitTermination(Duration.ofMinutes(3))) {
            LOGGER.warn("The mirror did not stop within 3 minutes; closing anyway");
        }
    }

    private synchronized void closeProducer() {
        if (producer != null) {
            try {
                producer.close(failure.get() == null ? Duration.ofSeconds(30) : Duration.ZERO);
            } catch (RuntimeException e) {
                LOGGER.warn("Closing the producer failed: {}", e.toString());
            }
        }
    }

    private synchronized void closeClients() {
        if (producer != null) {
            try {
                // After a failure the batches still queued are dropped, not sent: they lie behind the failed
                // record, which a restart copies first (nothing past it was committed).
                producer.close(failure.get() == null ? Duration.ofSeconds(30) : Duration.ZERO);
            } catch (RuntimeException e) {
                LOGGER.warn("Closing the producer failed: {}", e.toString());
            }
        }
        for (Admin admin : new Admin[] {sourceAdmin, targetAdmin}) {
            if (admin != null) {
                admin.close(Duration.ofSeconds(5));
            }
        }
    }

    /** The id of a source topic, or null when it cannot be read now (the caller then assumes the worst). */
    private @Nullable String sourceTopicId(String topic) {
        Admin admin = sourceAdmin;
        if (admin == null) {
            return null;
        }
        try {
            return Objects.requireNonNull(
                            admin.describeTopics(List.of(topic))
                                    .topicNameValues()
                                    .get(topic),
                            "describeTopics answers for the topic it was asked")
                    .get(30, TimeUnit.SECONDS)
                    .topicId()
                    .toString();
        } catch (Exception e) {
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            return null;
        }
    }

    private static String clusterId(Admin admin, String which, Properties props) {
        try {
            return admin.describeCluster().clusterId().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            Throwable cause = e.getCause() != null ? e.getCause() : e;
            throw new MirrorException(
                    "cannot reach the " + which + " cluster at " + props.getProperty("bootstrap.servers") + ": "
                            + cause.getMessage() + "; check bootstrap.servers and security settings",
                    cause);
        }
    }
}
