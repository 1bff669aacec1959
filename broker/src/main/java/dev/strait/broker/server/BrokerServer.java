package dev.strait.broker.server;

import dev.strait.broker.group.GroupCoordinator;
import dev.strait.broker.link.MirrorFetcher;
import dev.strait.broker.link.MirrorStatus;
import dev.strait.broker.link.ReplicaManagerMirrorTargets;
import dev.strait.broker.link.SourceLinks;
import dev.strait.broker.log.FaultHandler;
import dev.strait.broker.metadata.BrokerRegistration;
import dev.strait.broker.metadata.MetadataSource;
import dev.strait.broker.metrics.BrokerMetrics;
import dev.strait.broker.metrics.MetricsHttpServer;
import dev.strait.broker.metrics.RequestMetrics;
import dev.strait.broker.network.SocketServer;
import dev.strait.broker.partition.LeaderClient;
import dev.strait.broker.partition.LogCleaner;
import dev.strait.broker.partition.Partition;
import dev.strait.broker.partition.ReplicaFetcherManager;
import dev.strait.broker.partition.ReplicaManager;
import dev.strait.broker.partition.TopicConfigs;
import dev.strait.broker.protocol.BrokerEndpoint;
import dev.strait.broker.protocol.BrokerSecurity;
import dev.strait.broker.protocol.InterBrokerClient;
import dev.strait.broker.protocol.InterBrokerSecurity;
import dev.strait.broker.protocol.KafkaApis;
import dev.strait.broker.protocol.OffsetsTopicLog;
import dev.strait.broker.protocol.ScramBootstrap;
import dev.strait.broker.protocol.SourceClusterClient;
import dev.strait.broker.protocol.TransactionServices;
import dev.strait.broker.txn.TxnConfig;
import dev.strait.settings.ConfigException;
import dev.strait.time.Time;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.UnaryOperator;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One broker node: wiring only. Start order: metadata, logs, request handling, then the listener; stop in reverse.
 * All data lives in the first of {@code log.dirs} for now. {@link #start} and {@link #close} are synchronized;
 * the accessors are valid between them.
 *
 * <p>Fatal faults: every background loop (the metadata quorum loop, replica reconciliation, the replica fetchers,
 * the group coordinator's shard loops) reports an error it cannot recover from to one {@link FaultHandler}. The one
 * given to the constructor decides what happens ({@code BrokerMain} ends the process with exit code 1); by
 * default the broker halts itself, once, on a thread of its own: it stops serving rather than serve from state
 * that no longer follows the cluster.
 */
public final class BrokerServer implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(BrokerServer.class);

    private final BrokerConfig config;
    /** Opens this node's view of the cluster metadata; by default the one {@link MetadataSources} picks. */
    private final MetadataFactory metadataFactory;

    private final UnaryOperator<LeaderClient.Factory> leaderClients;
    private final Time time;
    private final FaultHandler faults;
    private final AtomicBoolean faulted = new AtomicBoolean();
    // The parts of a running broker: null until startup() makes them and after shutdown closes them.
    private @Nullable MetadataSource metadata;
    private @Nullable ReplicaFetcherManager fetcherManager;
    private @Nullable MirrorFetcher mirrorFetcher;
    private @Nullable ScheduledExecutorService scheduler;
    private @Nullable ReplicaManager replicaManager;
    /** One per broker listener, in the order of {@code listeners}. */
    private final List<SocketServer> socketServers = new ArrayList<>();

    private @Nullable GroupCoordinator groupCoordinator;
    private @Nullable TransactionServices transactions;
    private @Nullable LogCleaner logCleaner;
    /** Serves /metrics when strait.metrics.port is not -1; null otherwise or when stopped. */
    private @Nullable MetricsHttpServer metricsServer;
    /** The inter-broker listener's advertised endpoint: what this node registers as its host and port. */
    private volatile @Nullable BrokerEndpoint endpoint;
    /** Every broker listener's advertised endpoint, by listener name. */
    private volatile Map<String, BrokerEndpoint> endpoints = Map.of();

    private boolean started;

    /** Opens the metadata source a broker uses; the broker closes it when it stops. */
    @FunctionalInterface
    public interface MetadataFactory {
        MetadataSource open(BrokerConfig config, Path logDir) throws IOException;
    }

    public BrokerServer(BrokerConfig config) {
        this(config, null, null, UnaryOperator.identity());
    }

    /** A broker whose background loops report fatal faults to {@code faults} (which must not block). */
    public BrokerServer(BrokerConfig config, FaultHandler faults) {
        this(config, faults, null, UnaryOperator.identity());
    }

    /**
     * A broker whose metadata comes from {@code metadataFactory} (tests inject a fake controller here). The source
     * it returns belongs to this broker, which closes it on {@link #close()}.
     */
    public BrokerServer(BrokerConfig config, MetadataFactory metadataFactory) {
        this(config, null, metadataFactory, UnaryOperator.identity());
    }

    /**
     * As {@link #BrokerServer(BrokerConfig, MetadataFactory)}, with the connections of replica fetchers to leaders
     * passed through {@code leaderClients} (tests cut links between brokers with it).
     */
    public BrokerServer(
            BrokerConfig config, MetadataFactory metadataFactory, UnaryOperator<LeaderClient.Factory> leaderClients) {
        this(config, null, metadataFactory, leaderClients);
    }

    private BrokerServer(
            BrokerConfig config,
            @Nullable FaultHandler faults,
            @Nullable MetadataFactory metadataFactory,
            UnaryOperator<LeaderClient.Factory> leaderClients) {
        this.config = config;
        this.time = Time.SYSTEM;
        this.faults = faults != null ? faults : this::haltOnFault;
        this.metadataFactory = metadataFactory != null
                ? metadataFactory
                : (c, logDir) -> MetadataSources.open(c, logDir, time, this::onFault);
        this.leaderClients = leaderClients;
    }

    /** Every fatal fault of this broker's loops comes here: logged, then handed to the handler once. */
    private void onFault(String what, Throwable cause) {
        if (faulted.compareAndSet(false, true)) {
            LOGGER.error("broker {}: fatal error in the {}; stopping the broker", config.nodeId(), what, cause);
            faults.handleFault(what, cause);
        }
    }

    private void haltOnFault(String what, Throwable cause) {
        Thread halter = new Thread(this::halt, "strait-fatal-halt-" + config.nodeId());
        halter.setDaemon(true);
        halter.start();
    }

    /** Whether a background loop of this broker failed fatally (the broker then stops, or has stopped). */
    public boolean hasFailed() {
        return faulted.get();
    }

    public synchronized BrokerServer start() {
        if (started) {
            throw new IllegalStateException("already started");
        }
        // As Kafka logs its config values at start: what a node ran with is in its log (secrets as [hidden]).
        LOGGER.info("starting broker {} with {}", config.nodeId(), config);
        Path logDir = config.logDirs().get(0);
        if (config.logDirs().size() > 1) {
            LOGGER.warn("only the first of log.dirs is used yet: {}", logDir);
        }
        try {
            metadata = metadataFactory.open(config, logDir);
            BrokerSecurity security = security(metadata);
            scheduler = Executors.newSingleThreadScheduledExecutor(r -> {
                Thread thread = new Thread(r, "strait-scheduler-" + config.nodeId());
                thread.setDaemon(true);
                return thread;
            });
            Map<String, String> topicDefaults = new HashMap<>(config.topicDefaults());
            topicDefaults.put(TopicConfigs.MIN_INSYNC_REPLICAS, Integer.toString(config.minInsyncReplicas()));
            replicaManager =
                    new ReplicaManager(metadata, logDir, topicDefaults, time, scheduler, config.replicaLagTimeMaxMs());
            replicaManager.setFaultHandler(this::onFault);
            fetcherManager = new ReplicaFetcherManager(
                    config.nodeId(),
                    metadata,
                    leaderClients.apply(InterBrokerClient.factory(
                            config.nodeId(),
                            metadata::localBrokerEpoch,
                            config.replicaSocketTimeoutMs(),
                            interBrokerSecurity(security))),
                    new ReplicaFetcherManager.Config(
                            config.replicaFetchWaitMaxMs(),
                            config.replicaFetchMinBytes(),
                            config.replicaFetchMaxBytes(),
                            Math.max(config.replicaFetchMaxBytes(), 10 * 1024 * 1024),
                            config.replicaFetchBackoffMs()));
            fetcherManager.setFaultHandler(this::onFault);
            replicaManager.addRoleListener(fetcherManager);
            replicaManager.startup();
            OffsetsTopicLog offsetsLog = new OffsetsTopicLog(
                    replicaManager,
                    config.offsetsTopicNumPartitions(),
                    config.offsetsTopicReplicationFactor(),
                    config.offsetsTopicSegmentBytes());
            groupCoordinator = new GroupCoordinator(
                    new GroupCoordinator.Config(
                            offsetsLog.numPartitions(),
                            config.groupInitialRebalanceDelayMs(),
                            config.groupMinSessionTimeoutMs(),
                            config.groupMaxSessionTimeoutMs(),
                            100),
                    offsetsLog,
                    time::milliseconds,
                    metadata::holdsReadLease);
            groupCoordinator.setFaultHandler(this::onFault);
            groupCoordinator.setConsumerGroupTimeouts(
                    config.groupConsumerSessionTimeoutMs(), config.groupConsumerHeartbeatIntervalMs());
            GroupCoordinator coordinator = groupCoordinator;
            // Registered before startup: a load can only repeat one (loads are idempotent), never be missed.
            replicaManager.addRoleListener(new ReplicaManager.RoleListener() {
                @Override
                public void onBecomeLeader(Partition partition, int leaderEpoch) {
                    if (partition.topicPartition().topic().equals(OffsetsTopicLog.TOPIC)) {
                        coordinator.onBecomeLeader(partition.topicPartition().partition());
                    }
                }

                @Override
                public void onBecomeFollower(Partition partition, int leaderId, int leaderEpoch) {
                    if (partition.topicPartition().topic().equals(OffsetsTopicLog.TOPIC)) {
                        coordinator.onResign(partition.topicPartition().partition());
                    }
                }

                @Override
                public void onRemoved(org.apache.kafka.common.TopicPartition topicPartition) {
                    if (topicPartition.topic().equals(OffsetsTopicLog.TOPIC)) {
                        coordinator.onResign(topicPartition.partition());
                    }
                }
            });
            groupCoordinator.startup();
            transactions = TransactionServices.start(
                    config.nodeId(),
                    replicaManager,
                    groupCoordinator,
                    interBrokerSecurity(security),
                    new TransactionServices.Settings(
                            config.transactionStateLogNumPartitions(),
                            config.transactionStateLogReplicationFactor(),
                            new TxnConfig(
                                    config.transactionMaxTimeoutMs(),
                                    config.transactionalIdExpirationMs(),
                                    OffsetsTopicLog.TOPIC),
                            config.transactionCleanupIntervalMs(),
                            config.replicaSocketTimeoutMs()),
                    scheduler);
            KafkaApis apis = new KafkaApis(
                    () -> endpoint,
                    listener -> Optional.ofNullable(endpoints.get(listener)),
                    replicaManager,
                    config.numPartitions(),
                    config.autoCreateTopics(),
                    config.originals(),
                    groupCoordinator,
                    security,
                    transactions);
            RequestMetrics requestMetrics = new RequestMetrics(time);
            Map<String, BrokerEndpoint> bound = new LinkedHashMap<>();
            List<BrokerRegistration.Endpoint> registered = new ArrayList<>();
            for (BrokerConfig.Listener listener : config.brokerListeners()) {
                SocketServer server = new SocketServer(
                        new SocketServer.Config(
                                listener.name(),
                                listener.host(),
                                listener.port(),
                                config.numNetworkThreads(),
                                config.numIoThreads(),
                                config.queuedMaxRequests(),
                                config.socketRequestMaxBytes(),
                                security.tlsEngines(listener.name())),
                        apis,
                        requestMetrics);
                socketServers.add(server);
                server.bind();
                BrokerEndpoint advertised = new BrokerEndpoint(
                        config.nodeId(), advertisedHost(config, listener), advertisedPort(config, listener, server));
                bound.put(listener.name(), advertised);
                registered.add(new BrokerRegistration.Endpoint(
                        listener.name(),
                        advertised.host(),
                        advertised.port(),
                        MetadataSources.protocolOf(config, listener.name())));
            }
            endpoints = Collections.unmodifiableMap(bound);
            BrokerEndpoint interBroker = Objects.requireNonNull(
                    bound.get(config.interBrokerListenerName()), "the inter-broker listener is a broker listener");
            endpoint = interBroker;
            metadata.registerLocalBroker(interBroker.host(), interBroker.port(), MetadataSources.listed(registered));
            bootstrapScramCredentials();
            boolean offsetsTopicCreated;
            try {
                offsetsTopicCreated = offsetsLog.ensureCreated();
            } catch (org.apache.kafka.common.errors.RetriableException e) {
                // A node restarted without its quorum has no metadata yet (it publishes none before it caught
                // up), and the controller cannot be asked: the topic may well exist; find out in the background.
                offsetsTopicCreated = false;
            }
            if (!offsetsTopicCreated) {
                // A cluster's first nodes start before enough brokers registered to place the offsets topic's
                // replicas; keep trying in the background, as Kafka creates it on demand.
                LOGGER.info(
                        "offsets topic {} not known or created yet: it needs {} registered brokers "
                                + "(offsets.topic.replication.factor), {} are, and a reachable quorum; retrying",
                        OffsetsTopicLog.TOPIC,
                        Math.max(1, config.offsetsTopicReplicationFactor()),
                        metadata.brokers().size());
                scheduleOffsetsTopicCreation(offsetsLog);
            }
            for (SocketServer server : socketServers) {
                server.start();
            }
            mirrorFetcher = new MirrorFetcher(
                    config.nodeId(),
                    new ReplicaManagerMirrorTargets(replicaManager),
                    new SourceLinks(
                            SourceLinks.fromSettings(config.originals()),
                            SourceClusterClient.connector(config.nodeId(), config.replicaSocketTimeoutMs())),
                    time,
                    MirrorFetcher.Config.defaults());
            mirrorFetcher.start();
            if (config.metricsPort() >= 0) {
                BrokerMetrics metrics = new BrokerMetrics(
                        config.nodeId(), metadata, replicaManager, requestMetrics, mirrorFetcher::status, time);
                metricsServer = new MetricsHttpServer(
                        config.metricsHost(),
                        config.metricsPort(),
                        "strait-metrics-" + config.nodeId(),
                        metrics::scrape);
                LOGGER.info(
                        "broker {} serves metrics on http://{}:{}/metrics",
                        config.nodeId(),
                        config.metricsHost(),
                        metricsServer.port());
            }
            if (config.logCleanerEnable()) {
                logCleaner = new LogCleaner(
                        replicaManager,
                        new LogCleaner.Config(
                                config.logCleanerBackoffMs(),
                                config.logCleanerDedupeBufferSize(),
                                config.logCleanerIoMaxBytesPerSecond()),
                        time,
                        config.nodeId());
                logCleaner.startup();
            }
            long isrCheckMs = Math.max(1, config.replicaLagTimeMaxMs() / 2);
            ReplicaManager replicas = replicaManager;
            scheduler.scheduleWithFixedDelay(
                    () -> {
                        try {
                            replicas.maybeShrinkIsr();
                        } catch (RuntimeException e) {
                            LOGGER.error("ISR check failed", e);
                        }
                    },
                    isrCheckMs,
                    isrCheckMs,
                    TimeUnit.MILLISECONDS);
            scheduler.scheduleWithFixedDelay(
                    replicaManager::deleteSegmentsForRetention,
                    config.retentionCheckIntervalMs(),
                    config.retentionCheckIntervalMs(),
                    TimeUnit.MILLISECONDS);
            started = true;
            LOGGER.info(
                    "broker {} started on {}:{} with cluster id {}",
                    config.nodeId(),
                    endpoint.host(),
                    endpoint.port(),
                    metadata.clusterId());
            return this;
        } catch (IOException e) {
            close();
            throw new UncheckedIOException("broker " + config.nodeId() + " failed to start", e);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** Each broker listener's TLS and SASL, and the authorizer, from Kafka's settings. */
    private BrokerSecurity security(MetadataSource source) {
        Map<String, String> protocols = new LinkedHashMap<>();
        for (BrokerConfig.Listener listener : config.brokerListeners()) {
            protocols.put(listener.name(), config.listenerProtocols().get(listener.name()));
        }
        try {
            return BrokerSecurity.create(config.originals(), protocols, source);
        } catch (IllegalArgumentException e) {
            throw new ConfigException(MetadataSources.messageOf(e));
        }
    }

    private InterBrokerSecurity interBrokerSecurity(BrokerSecurity security) {
        try {
            return InterBrokerSecurity.create(
                    security.listener(config.interBrokerListenerName()),
                    config.interBrokerSaslMechanism(),
                    config.originals());
        } catch (IllegalArgumentException e) {
            throw new ConfigException(MetadataSources.messageOf(e));
        }
    }

    /**
     * {@code strait.bootstrap.scram.credentials}: the users {@code kafka-storage format --add-scram} would create,
     * written once the metadata accepts writes, only where the user has no credential of that mechanism yet (so a
     * password changed later with kafka-configs stays changed). Retried in the background until a controller
     * takes it.
     */
    private void bootstrapScramCredentials() {
        if (config.scramBootstrap().isEmpty()) {
            return;
        }
        ScramBootstrap bootstrap = config.scramBootstrap().get();
        ScheduledExecutorService executor = Objects.requireNonNull(scheduler, "called by start()");
        MetadataSource source = Objects.requireNonNull(metadata, "called by start()");
        Runnable attempt = new Runnable() {
            @Override
            public void run() {
                try {
                    int written = bootstrap.apply(source);
                    if (written > 0) {
                        LOGGER.info("wrote {} bootstrap SCRAM credential(s) from {}", written, ScramBootstrap.CONFIG);
                    }
                } catch (RuntimeException e) {
                    LOGGER.info("bootstrap SCRAM credentials not written yet, retrying: {}", e.getMessage());
                    if (!executor.isShutdown()) {
                        executor.schedule(this, 1, TimeUnit.SECONDS);
                    }
                }
            }
        };
        executor.execute(attempt);
    }

    private void scheduleOffsetsTopicCreation(OffsetsTopicLog offsetsLog) {
        ScheduledExecutorService executor = Objects.requireNonNull(scheduler, "called by start()");
        executor.schedule(
                new Runnable() {
                    @Override
                    public void run() {
                        boolean created;
                        try {
                            created = offsetsLog.ensureCreated();
                        } catch (RuntimeException e) {
                            LOGGER.warn("creating the offsets topic failed, retrying: {}", e.toString());
                            created = false;
                        }
                        if (created) {
                            LOGGER.info("offsets topic created");
                        } else if (!executor.isShutdown()) {
                            executor.schedule(this, 1, TimeUnit.SECONDS);
                        }
                    }
                },
                1,
                TimeUnit.SECONDS);
    }

    /**
     * What clients of a listener are told to connect to: its {@code advertised.listeners} entry (a broker in a
     * container, bound to 0.0.0.0, reached through the host's published port), else the listener's own host.
     */
    static String advertisedHost(BrokerConfig config, BrokerConfig.Listener listener) {
        Optional<BrokerConfig.Listener> advertised = config.advertisedListener(listener.name());
        if (advertised.isPresent()) {
            return advertised.get().host();
        }
        return listener.host().equals("0.0.0.0") ? "127.0.0.1" : listener.host();
    }

    private static int advertisedPort(BrokerConfig config, BrokerConfig.Listener listener, SocketServer server) {
        return config.advertisedListener(listener.name())
                .map(BrokerConfig.Listener::port)
                .orElse(server.boundPort());
    }

    public BrokerConfig config() {
        return config;
    }

    /** The replica layer (tests inspect partitions through it); null when stopped. */
    public synchronized @Nullable ReplicaManager replicaManager() {
        return replicaManager;
    }

    /** The node's view of the cluster metadata (tests wait on it); null when stopped. */
    synchronized @Nullable MetadataSource metadata() {
        return metadata;
    }

    /** The port /metrics is served on, or -1 if strait.metrics.port is -1 or the node is stopped. */
    public synchronized int metricsPort() {
        return metricsServer == null ? -1 : metricsServer.port();
    }

    /** The advertised port of the first broker listener (its bound port unless advertised.listeners says else). */
    public int boundPort() {
        return Objects.requireNonNull(endpoints.get(config.listenerName()), "the broker has not started")
                .port();
    }

    /** {@code host:port} of the first broker listener. */
    public String bootstrapServers() {
        return bootstrapServers(config.listenerName());
    }

    /** {@code host:port} of a broker listener, as advertised. */
    public String bootstrapServers(String listener) {
        BrokerEndpoint advertised = endpoints.get(listener.toUpperCase(java.util.Locale.ROOT));
        if (advertised == null) {
            throw new IllegalArgumentException("no broker listener " + listener + " in " + endpoints.keySet());
        }
        return advertised.host() + ":" + advertised.port();
    }

    @Override
    public synchronized void close() {
        // Leaderships move first, while this node still answers, so clients only see retriable errors.
        if (started && metadata != null) {
            metadata.controlledShutdown();
        }
        stop(false);
    }

    /** The mirror-topic partitions this node leads and where their copies stand; empty when it leads none. */
    public synchronized List<MirrorStatus> mirrorStatus() {
        return mirrorFetcher == null ? List.of() : mirrorFetcher.status();
    }

    /**
     * Stops at once without a controlled shutdown, as a crash would leave the cluster: its leaderships move only
     * once the controller misses its heartbeats. For failover tests and the demo.
     */
    public synchronized void halt() {
        stop(true);
    }

    private void stop(boolean abruptly) {
        if (metricsServer != null) {
            metricsServer.close();
            metricsServer = null;
        }
        for (SocketServer server : socketServers) {
            server.close();
        }
        socketServers.clear();
        if (mirrorFetcher != null) {
            mirrorFetcher.close();
            mirrorFetcher = null;
        }
        if (fetcherManager != null) {
            fetcherManager.close();
            fetcherManager = null;
        }
        if (transactions != null) {
            transactions.close();
            transactions = null;
        }
        if (groupCoordinator != null) {
            groupCoordinator.close();
            groupCoordinator = null;
        }
        if (logCleaner != null) {
            logCleaner.close();
            logCleaner = null;
        }
        if (scheduler != null) {
            scheduler.shutdownNow();
            scheduler = null;
        }
        if (replicaManager != null) {
            replicaManager.close();
            replicaManager = null;
        }
        if (metadata != null) {
            if (abruptly) {
                metadata.closeAbruptly();
            } else {
                metadata.close();
            }
            metadata = null;
        }
        if (started) {
            LOGGER.info("broker {} {}", config.nodeId(), abruptly ? "halted" : "stopped");
        }
        started = false;
    }
}
