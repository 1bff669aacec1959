package dev.strait.broker.server;

import dev.strait.broker.link.SourceLinks;
import dev.strait.broker.protocol.ScramBootstrap;
import dev.strait.settings.ConfigException;
import dev.strait.settings.Setting;
import dev.strait.settings.SettingValues;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Broker settings under Kafka's names. Immutable; built with {@link #from(Map)}, which fails with a
 * {@link ConfigException} naming the first bad setting.
 *
 * <p>Which settings exist, their types, defaults and allowed values are declared once, in {@link BrokerSettings}
 * (the table {@code config/broker.properties} and the reference documentation are generated from); every value is
 * parsed and checked against it here, once, into the typed fields the getters return (so a bad value, or a
 * setting read under a name or type the table does not declare, fails when the config is built, not when a
 * getter is first called), and keys that are no setting are logged and ignored. What the table cannot
 * say is checked here: the formats of listeners (by {@link ListenerConfig}) and of voters and roles (by
 * {@link QuorumVoters}), and how settings fit together (a controller needs a controller listener, the heartbeat
 * must be shorter than the session, a secured cluster must map its controller listener...).
 *
 * <p>KRaft-style cluster settings: {@code process.roles} ({@code broker,controller} or {@code broker}),
 * {@code controller.quorum.voters} ({@code id@host:port,...}), {@code controller.listener.names}, a controller
 * listener among {@code listeners} (e.g. {@code PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0}),
 * {@code advertised.listeners}. A config without {@code controller.quorum.voters} runs a standalone one-node
 * cluster whose metadata is a local file. {@code listeners} may hold several broker listeners, each with its own
 * protocol and {@code listener.name.<l>.*} security; {@link #interBrokerListenerName()} is the one replicas
 * fetch from. {@link #host()}, {@link #port()} and {@link #listenerName()} describe the first broker listener. Security settings ({@code ssl.*}, {@code sasl.*},
 * {@code listener.name.*}) are checked per value here and applied by the protocol adapter from
 * {@link #originals()}.
 */
public final class BrokerConfig {

    private static final Logger LOGGER = LoggerFactory.getLogger(BrokerConfig.class);

    private final Map<String, String> originals;
    private final int nodeId;
    private final String listenerName;
    private final String host;
    private final int port;
    private final List<Path> logDirs;
    private final Map<String, String> topicDefaults;
    private final ListenerConfig listeners;
    private final QuorumVoters quorum;
    private final int offsetsTopicReplicationFactor;
    private final long brokerSessionTimeoutMs;
    private final long brokerHeartbeatIntervalMs;
    private final int metricsPort;
    private final long metadataLogMaxRecordBytesBetweenSnapshots;
    private final long metadataLogMaxSnapshotIntervalMs;
    private final int numNetworkThreads;
    private final int numIoThreads;
    private final int queuedMaxRequests;
    private final int socketRequestMaxBytes;
    private final int offsetsTopicNumPartitions;
    private final int transactionStateLogReplicationFactor;
    private final int transactionStateLogNumPartitions;
    private final int transactionMaxTimeoutMs;
    private final long transactionalIdExpirationMs;
    private final int transactionCleanupIntervalMs;
    private final int offsetsTopicSegmentBytes;
    private final boolean logCleanerEnable;
    private final long logCleanerBackoffMs;
    private final long logCleanerDedupeBufferSize;
    private final int defaultReplicationFactor;
    private final boolean flushOnAck;
    private final int minInsyncReplicas;
    private final boolean uncleanLeaderElectionEnable;
    private final long replicaLagTimeMaxMs;
    private final int replicaFetchMaxBytes;
    private final int replicaFetchMinBytes;
    private final int replicaFetchWaitMaxMs;
    private final int replicaFetchBackoffMs;
    private final int replicaSocketTimeoutMs;
    private final int groupInitialRebalanceDelayMs;
    private final int groupMinSessionTimeoutMs;
    private final int groupMaxSessionTimeoutMs;
    private final int groupConsumerSessionTimeoutMs;
    private final int groupConsumerHeartbeatIntervalMs;
    private final int numPartitions;
    private final boolean autoCreateTopics;
    private final long retentionCheckIntervalMs;
    private final String metricsHost;
    private final Path bootIdFile;
    /** Null when unset: the metadata source then picks its place under the first log dir. */
    private final @Nullable Path metadataLogDir;

    private final long logCleanerIoMaxBytesPerSecond;
    private final @Nullable String interBrokerSaslMechanism;
    private final @Nullable ScramBootstrap scramBootstrap;

    /** A listener: its name (upper case), host ({@code 0.0.0.0} when empty) and port. */
    public record Listener(String name, String host, int port) {}

    private BrokerConfig(Map<String, String> props) {
        this.originals = Collections.unmodifiableMap(new LinkedHashMap<>(props));
        for (String name : props.keySet()) {
            // A mirror link's client settings are Kafka's client settings under the link's prefix (SourceLinks).
            if (BrokerSettings.forKey(name).isEmpty() && !name.startsWith(SourceLinks.PREFIX)) {
                LOGGER.warn(BrokerSettings.unknownWarning(name));
            }
        }
        if (props.get(NodeSettings.NODE_ID.name()) == null) {
            throw new ConfigException("Missing required configuration node.id: this node's id, an int >= 0 that is "
                    + "unique in the cluster");
        }
        SettingValues values = BrokerSettings.parse(props);
        this.nodeId = values.get(NodeSettings.NODE_ID);
        this.listeners = ListenerConfig.parse(props);
        Listener client = listeners.brokerListeners().get(0);
        this.listenerName = client.name();
        this.host = client.host();
        this.port = client.port();
        this.quorum = QuorumVoters.parse(props, nodeId, listeners);
        Setting<?> dirsSetting = values.isSet(NodeSettings.LOG_DIRS) ? NodeSettings.LOG_DIRS : NodeSettings.LOG_DIR;
        String dirsName = dirsSetting.name();
        String dirs = Objects.requireNonNullElse(raw(dirsSetting), "");
        List<Path> paths = new ArrayList<>();
        for (String dir : dirs.split(",")) {
            if (!dir.isBlank()) {
                paths.add(path(dirsSetting, dir.trim()));
            }
        }
        if (paths.isEmpty()) {
            throw new ConfigException(dirsName, dirs, "needs at least one directory");
        }
        this.logDirs = List.copyOf(paths);
        this.topicDefaults = TopicDefaultSettings.topicDefaults(values, originals);
        this.offsetsTopicReplicationFactor =
                checkInternalTopicReplicationFactor(values, ConsumerGroupSettings.OFFSETS_TOPIC_REPLICATION_FACTOR);
        this.transactionStateLogReplicationFactor = checkInternalTopicReplicationFactor(
                values, TransactionSettings.TRANSACTION_STATE_LOG_REPLICATION_FACTOR);
        this.transactionStateLogNumPartitions = values.get(TransactionSettings.TRANSACTION_STATE_LOG_NUM_PARTITIONS);
        this.transactionMaxTimeoutMs = values.get(TransactionSettings.TRANSACTION_MAX_TIMEOUT_MS);
        this.transactionalIdExpirationMs = values.get(TransactionSettings.TRANSACTIONAL_ID_EXPIRATION_MS);
        this.transactionCleanupIntervalMs =
                values.get(TransactionSettings.TRANSACTION_ABORT_TIMED_OUT_TRANSACTION_CLEANUP_INTERVAL_MS);
        this.brokerSessionTimeoutMs = values.get(ClusterSettings.BROKER_SESSION_TIMEOUT_MS);
        this.brokerHeartbeatIntervalMs = values.get(ClusterSettings.BROKER_HEARTBEAT_INTERVAL_MS);
        this.metricsPort = values.get(NodeSettings.STRAIT_METRICS_PORT);
        this.metadataLogMaxRecordBytesBetweenSnapshots =
                values.get(ClusterSettings.METADATA_LOG_MAX_RECORD_BYTES_BETWEEN_SNAPSHOTS);
        this.metadataLogMaxSnapshotIntervalMs = values.get(ClusterSettings.METADATA_LOG_MAX_SNAPSHOT_INTERVAL_MS);
        this.numNetworkThreads = values.get(NodeSettings.NUM_NETWORK_THREADS);
        this.numIoThreads = values.get(NodeSettings.NUM_IO_THREADS);
        this.queuedMaxRequests = values.get(NodeSettings.QUEUED_MAX_REQUESTS);
        this.socketRequestMaxBytes = values.get(NodeSettings.SOCKET_REQUEST_MAX_BYTES);
        this.offsetsTopicNumPartitions = values.get(ConsumerGroupSettings.OFFSETS_TOPIC_NUM_PARTITIONS);
        this.offsetsTopicSegmentBytes = values.get(ConsumerGroupSettings.OFFSETS_TOPIC_SEGMENT_BYTES);
        this.logCleanerEnable = values.get(CompactionSettings.LOG_CLEANER_ENABLE);
        this.logCleanerBackoffMs = values.get(CompactionSettings.LOG_CLEANER_BACKOFF_MS);
        this.logCleanerDedupeBufferSize = values.get(CompactionSettings.LOG_CLEANER_DEDUPE_BUFFER_SIZE);
        this.defaultReplicationFactor = values.get(ReplicationSettings.DEFAULT_REPLICATION_FACTOR);
        this.flushOnAck = values.get(TopicDefaultSettings.STRAIT_FLUSH_ON_ACK);
        this.minInsyncReplicas = values.get(ReplicationSettings.MIN_INSYNC_REPLICAS);
        this.uncleanLeaderElectionEnable = values.get(ReplicationSettings.UNCLEAN_LEADER_ELECTION_ENABLE);
        this.replicaLagTimeMaxMs = values.get(ReplicationSettings.REPLICA_LAG_TIME_MAX_MS);
        this.replicaFetchMaxBytes = values.get(ReplicationSettings.REPLICA_FETCH_MAX_BYTES);
        this.replicaFetchMinBytes = values.get(ReplicationSettings.REPLICA_FETCH_MIN_BYTES);
        this.replicaFetchWaitMaxMs = values.get(ReplicationSettings.REPLICA_FETCH_WAIT_MAX_MS);
        this.replicaFetchBackoffMs = values.get(ReplicationSettings.REPLICA_FETCH_BACKOFF_MS);
        this.replicaSocketTimeoutMs = values.get(ReplicationSettings.REPLICA_SOCKET_TIMEOUT_MS);
        this.groupInitialRebalanceDelayMs = values.get(ConsumerGroupSettings.GROUP_INITIAL_REBALANCE_DELAY_MS);
        this.groupMinSessionTimeoutMs = values.get(ConsumerGroupSettings.GROUP_MIN_SESSION_TIMEOUT_MS);
        this.groupMaxSessionTimeoutMs = values.get(ConsumerGroupSettings.GROUP_MAX_SESSION_TIMEOUT_MS);
        this.groupConsumerSessionTimeoutMs = values.get(ConsumerGroupSettings.GROUP_CONSUMER_SESSION_TIMEOUT_MS);
        this.groupConsumerHeartbeatIntervalMs = values.get(ConsumerGroupSettings.GROUP_CONSUMER_HEARTBEAT_INTERVAL_MS);
        this.numPartitions = values.get(TopicDefaultSettings.NUM_PARTITIONS);
        this.autoCreateTopics = values.get(TopicDefaultSettings.AUTO_CREATE_TOPICS_ENABLE);
        this.retentionCheckIntervalMs = values.get(TopicDefaultSettings.LOG_RETENTION_CHECK_INTERVAL_MS);
        this.metricsHost = values.get(NodeSettings.STRAIT_METRICS_HOST).trim();
        this.bootIdFile = path(ClusterSettings.STRAIT_BOOT_ID_FILE, values.get(ClusterSettings.STRAIT_BOOT_ID_FILE));
        this.metadataLogDir = values.find(ClusterSettings.METADATA_LOG_DIR)
                .filter(dir -> !dir.isBlank())
                .map(dir -> path(ClusterSettings.METADATA_LOG_DIR, dir))
                .orElse(null);
        this.interBrokerSaslMechanism = values.find(SecuritySettings.SASL_MECHANISM_INTER_BROKER_PROTOCOL)
                .orElse(null);
        // The table's check has parsed it once already, so this cannot fail.
        this.scramBootstrap = values.find(SecuritySettings.STRAIT_BOOTSTRAP_SCRAM_CREDENTIALS)
                .filter(scram -> !scram.isBlank())
                .map(ScramBootstrap::parse)
                .orElse(null);
        this.logCleanerIoMaxBytesPerSecond = values.find(CompactionSettings.LOG_CLEANER_IO_MAX_BYTES_PER_SECOND)
                .filter(limit -> limit < Long.MAX_VALUE)
                .map(Double::longValue)
                .orElse(0L);
        long session = brokerSessionTimeoutMs();
        long heartbeat = brokerHeartbeatIntervalMs();
        if (heartbeat >= session) {
            throw new ConfigException(
                    ClusterSettings.BROKER_HEARTBEAT_INTERVAL_MS.name(),
                    heartbeat,
                    "must be below broker.session.timeout.ms (" + session + ")");
        }
    }

    /** The text of {@code setting} as set (trimmed), else its default. */
    private @Nullable String raw(Setting<?> setting) {
        String value = originals.get(setting.name());
        if (value == null) {
            value = setting.defaultValue();
        }
        return value == null ? null : value.trim();
    }

    /** {@code value} of {@code setting} as a path, refused here rather than where the path is first used. */
    private static Path path(Setting<?> setting, String value) {
        try {
            return Path.of(value);
        } catch (InvalidPathException e) {
            throw new ConfigException(setting.name(), value, "not a path (" + e.getReason() + ")");
        }
    }

    public static BrokerConfig from(Map<String, String> props) {
        return new BrokerConfig(props);
    }

    public static BrokerConfig from(Properties props) {
        Map<String, String> map = new LinkedHashMap<>();
        for (String name : props.stringPropertyNames()) {
            map.put(name, props.getProperty(name).trim());
        }
        return from(map);
    }

    /**
     * {@code offsets.topic.replication.factor}: 3 by default in a cluster, as Kafka. A standalone node is a
     * one-broker cluster for good: there a value above 1 is refused, and unset is -1, the metadata source's own
     * default (one replica).
     */
    private int checkInternalTopicReplicationFactor(SettingValues values, Setting<Integer> setting) {
        int factor = values.get(setting);
        if (hasControllerQuorum()) {
            return factor;
        }
        if (!values.isSet(setting)) {
            return -1;
        }
        if (factor > 1) {
            throw new ConfigException(
                    setting.name(),
                    factor,
                    "a standalone node (no controller.quorum.voters) is a "
                            + "one-broker cluster: set it to 1, or configure a controller quorum");
        }
        return factor;
    }

    /**
     * The settings as given, sorted, secrets (passwords, keys, JAAS entries, SCRAM credentials) as
     * {@value Setting#HIDDEN}; keys that are no setting are listed by name only.
     */
    @Override
    public String toString() {
        StringBuilder b = new StringBuilder("BrokerConfig{");
        List<String> ignored = new ArrayList<>();
        String separator = "";
        for (String key : new java.util.TreeSet<>(originals.keySet())) {
            if (BrokerSettings.forKey(key).isEmpty()) {
                ignored.add(key);
                continue;
            }
            b.append(separator)
                    .append(key)
                    .append('=')
                    .append(BrokerSettings.sensitive(key) ? Setting.HIDDEN : originals.get(key));
            separator = ", ";
        }
        if (!ignored.isEmpty()) {
            b.append(separator).append("ignored=").append(ignored);
        }
        return b.append('}').toString();
    }

    /** Each listener's name and security protocol (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL). */
    public Map<String, String> listenerProtocols() {
        return listeners.protocols();
    }

    /** The first of {@code controller.listener.names}, or null. */
    public @Nullable String controllerListenerName() {
        return listeners.controllerListenerName();
    }

    /**
     * The controller listener's security protocol (PLAINTEXT or SSL), also on a broker-only node that has no
     * controller listener of its own but dials the voters with it.
     */
    public String controllerSecurityProtocol() {
        return listeners.controllerSecurityProtocol();
    }

    /** The first broker listener's security protocol. */
    public @Nullable String securityProtocol() {
        return listeners.protocols().get(listenerName);
    }

    /** The broker (non-controller) listeners, in the order of {@code listeners}. */
    public List<Listener> brokerListeners() {
        return listeners.brokerListeners();
    }

    /** The broker listener replica fetchers and other broker-to-broker clients use (upper case). */
    public String interBrokerListenerName() {
        return listeners.interBrokerListenerName();
    }

    /** The {@code advertised.listeners} entry for a listener, if there is one. */
    public java.util.Optional<Listener> advertisedListener(String listener) {
        return java.util.Optional.ofNullable(listeners.advertised().get(listener));
    }

    public Map<String, String> originals() {
        return originals;
    }

    public int nodeId() {
        return nodeId;
    }

    public String listenerName() {
        return listenerName;
    }

    public String host() {
        return host;
    }

    public int port() {
        return port;
    }

    /** The {@code advertised.listeners} entry for the first broker listener, if there is one. */
    public java.util.Optional<Listener> advertisedListener() {
        return advertisedListener(listenerName);
    }

    /** {@code process.roles} (empty for a standalone node). */
    public Set<String> processRoles() {
        return quorum.processRoles();
    }

    /** {@code controller.quorum.voters}: voter id to its controller endpoint; empty for a standalone node. */
    public Map<Integer, Listener> controllerQuorumVoters() {
        return quorum.voters();
    }

    /** Whether this node follows a controller quorum (otherwise it is a standalone one-node cluster). */
    public boolean hasControllerQuorum() {
        return !quorum.voters().isEmpty();
    }

    /**
     * The controller listener among {@code listeners}, if any. Its port may be 0: a voter then binds the port its
     * own {@code controller.quorum.voters} entry names, which the other nodes must know anyway.
     */
    public java.util.Optional<Listener> controllerListener() {
        return listeners.controllerListener();
    }

    /** {@code broker.session.timeout.ms} (default 9000, as Kafka): a node silent this long is fenced. */
    public long brokerSessionTimeoutMs() {
        return brokerSessionTimeoutMs;
    }

    /** {@code broker.heartbeat.interval.ms} (default 2000, as Kafka). */
    public long brokerHeartbeatIntervalMs() {
        return brokerHeartbeatIntervalMs;
    }

    /** {@code strait.metrics.port}: where the node serves /metrics; -1 for nowhere, 0 for a free port. */
    public int metricsPort() {
        return metricsPort;
    }

    /** {@code strait.metrics.host}: the address the metrics endpoint binds to. */
    public String metricsHost() {
        return metricsHost;
    }

    /** {@code strait.boot.id.file}: names the machine's boot, so that a crash without a reboot is no power loss. */
    public Path bootIdFile() {
        return bootIdFile;
    }

    /** {@code metadata.log.dir}: where the metadata log lives; default {@code <first log dir>/__cluster_metadata-0}. */
    public java.util.Optional<Path> metadataLogDir() {
        return java.util.Optional.ofNullable(metadataLogDir);
    }

    /**
     * {@code metadata.log.max.record.bytes.between.snapshots} (default 20 MiB, as Kafka): a node snapshots its
     * metadata image, and truncates the metadata log behind it, once this many bytes of records were committed
     * since its latest snapshot.
     */
    public long metadataLogMaxRecordBytesBetweenSnapshots() {
        return metadataLogMaxRecordBytesBetweenSnapshots;
    }

    /**
     * {@code metadata.log.max.snapshot.interval.ms} (default one hour, as Kafka): a node also snapshots this long
     * after its latest snapshot if anything was committed since; 0 turns the timer off.
     */
    public long metadataLogMaxSnapshotIntervalMs() {
        return metadataLogMaxSnapshotIntervalMs;
    }

    public List<Path> logDirs() {
        return logDirs;
    }

    public int numNetworkThreads() {
        return numNetworkThreads;
    }

    public int numIoThreads() {
        return numIoThreads;
    }

    public int queuedMaxRequests() {
        return queuedMaxRequests;
    }

    public int socketRequestMaxBytes() {
        return socketRequestMaxBytes;
    }

    /** {@code offsets.topic.num.partitions} (default 5; only used when the offsets topic is created). */
    /** {@code transaction.state.log.replication.factor}; -1 on a standalone node that left it unset. */
    public int transactionStateLogReplicationFactor() {
        return transactionStateLogReplicationFactor;
    }

    public int transactionStateLogNumPartitions() {
        return transactionStateLogNumPartitions;
    }

    public int transactionMaxTimeoutMs() {
        return transactionMaxTimeoutMs;
    }

    public long transactionalIdExpirationMs() {
        return transactionalIdExpirationMs;
    }

    public int transactionCleanupIntervalMs() {
        return transactionCleanupIntervalMs;
    }

    public int offsetsTopicNumPartitions() {
        return offsetsTopicNumPartitions;
    }

    /**
     * {@code offsets.topic.replication.factor}: replicas of each partition of {@code __consumer_offsets}, which is
     * created only once that many brokers are registered (as Kafka: until then group and offset requests answer
     * COORDINATOR_NOT_AVAILABLE and clients retry). Default 3, as Kafka, in a cluster with a controller quorum. A
     * standalone node (no {@code controller.quorum.voters}) is a one-broker cluster for good: there a value above 1
     * is refused, and when unset this returns -1, the metadata source's own default (one replica).
     */
    public int offsetsTopicReplicationFactor() {
        return offsetsTopicReplicationFactor;
    }

    /** {@code offsets.topic.segment.bytes} (default 104857600, as Kafka): segment size of the offsets topic. */
    public int offsetsTopicSegmentBytes() {
        return offsetsTopicSegmentBytes;
    }

    /** {@code log.cleaner.enable} (default true): whether compacted topics are compacted. */
    public boolean logCleanerEnable() {
        return logCleanerEnable;
    }

    /** {@code log.cleaner.backoff.ms} (default 15000, as Kafka): pause between cleaner rounds. */
    public long logCleanerBackoffMs() {
        return logCleanerBackoffMs;
    }

    /** {@code log.cleaner.dedupe.buffer.size} (default 134217728, as Kafka): memory for a pass's key map. */
    public long logCleanerDedupeBufferSize() {
        return logCleanerDedupeBufferSize;
    }

    /**
     * {@code log.cleaner.io.max.bytes.per.second} (default: no limit, as Kafka): the cleaner's read plus write rate.
     * Kafka's value is a double; a whole number is accepted here.
     */
    public long logCleanerIoMaxBytesPerSecond() {
        return logCleanerIoMaxBytesPerSecond;
    }

    /** {@code default.replication.factor} (default 1, as Kafka): replicas of topics created without a factor. */
    public int defaultReplicationFactor() {
        return defaultReplicationFactor;
    }

    /** {@code strait.flush.on.ack}: the fsync mode of topics that do not set {@code flush.on.ack}. */
    public boolean flushOnAck() {
        return flushOnAck;
    }

    /** {@code min.insync.replicas} (default 1, as Kafka): the ISR size an acks=all produce needs; a topic may override it. */
    public int minInsyncReplicas() {
        return minInsyncReplicas;
    }

    /**
     * {@code unclean.leader.election.enable} (default false, as Kafka). Only false is supported: a replica outside
     * the ISR never leads, so an acknowledged record is never given up for availability.
     */
    public boolean uncleanLeaderElectionEnable() {
        return uncleanLeaderElectionEnable;
    }

    /** {@code replica.lag.time.max.ms} (default 30000, as Kafka): a follower not caught up for this long leaves the ISR. */
    public long replicaLagTimeMaxMs() {
        return replicaLagTimeMaxMs;
    }

    /** {@code replica.fetch.max.bytes} (default 1048576, as Kafka): bytes per partition in a follower's fetch. */
    public int replicaFetchMaxBytes() {
        return replicaFetchMaxBytes;
    }

    /** {@code replica.fetch.min.bytes} (default 1, as Kafka). */
    public int replicaFetchMinBytes() {
        return replicaFetchMinBytes;
    }

    /** {@code replica.fetch.wait.max.ms} (default 500, as Kafka): how long a follower's fetch may wait for data. */
    public int replicaFetchWaitMaxMs() {
        return replicaFetchWaitMaxMs;
    }

    /** {@code replica.fetch.backoff.ms} (default 1000, as Kafka): pause after a failed follower fetch. */
    public int replicaFetchBackoffMs() {
        return replicaFetchBackoffMs;
    }

    /** {@code replica.socket.timeout.ms} (default 30000, as Kafka): a follower's request timeout. */
    public int replicaSocketTimeoutMs() {
        return replicaSocketTimeoutMs;
    }

    /** {@code group.initial.rebalance.delay.ms} (default 3000, as Kafka). */
    public int groupInitialRebalanceDelayMs() {
        return groupInitialRebalanceDelayMs;
    }

    /** {@code group.min.session.timeout.ms} (default 6000, as Kafka). */
    public int groupMinSessionTimeoutMs() {
        return groupMinSessionTimeoutMs;
    }

    /** {@code group.max.session.timeout.ms} (default 1800000, as Kafka). */
    public int groupMaxSessionTimeoutMs() {
        return groupMaxSessionTimeoutMs;
    }

    /** {@code group.consumer.session.timeout.ms} (default 45000, as Kafka). */
    public int groupConsumerSessionTimeoutMs() {
        return groupConsumerSessionTimeoutMs;
    }

    /** {@code group.consumer.heartbeat.interval.ms} (default 5000, as Kafka). */
    public int groupConsumerHeartbeatIntervalMs() {
        return groupConsumerHeartbeatIntervalMs;
    }

    public int numPartitions() {
        return numPartitions;
    }

    public boolean autoCreateTopics() {
        return autoCreateTopics;
    }

    public long retentionCheckIntervalMs() {
        return retentionCheckIntervalMs;
    }

    /** {@code sasl.mechanism.inter.broker.protocol}, or null when unset. */
    public @Nullable String interBrokerSaslMechanism() {
        return interBrokerSaslMechanism;
    }

    /** {@code strait.bootstrap.scram.credentials}: the SCRAM users to create, if any. */
    public java.util.Optional<ScramBootstrap> scramBootstrap() {
        return java.util.Optional.ofNullable(scramBootstrap);
    }

    /** Topic config defaults under topic config names (e.g. retention.ms). */
    public Map<String, String> topicDefaults() {
        return topicDefaults;
    }
}
