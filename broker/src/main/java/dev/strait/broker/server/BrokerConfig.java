package dev.strait.broker.server;

import dev.strait.broker.replica.TopicConfigs;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Broker settings under Kafka's names. Immutable; built with {@link #from(Map)}, which fails with a
 * {@link ConfigException} naming the first bad setting.
 *
 * <p>Supported: {@code node.id} (required), {@code listeners} (one PLAINTEXT listener, default
 * {@code PLAINTEXT://127.0.0.1:9092}), {@code log.dirs} / {@code log.dir}, {@code num.network.threads},
 * {@code num.io.threads}, {@code queued.max.requests}, {@code socket.request.max.bytes}, {@code num.partitions},
 * {@code auto.create.topics.enable}, {@code log.retention.check.interval.ms}, and the topic defaults
 * {@code log.retention.ms|minutes|hours}, {@code log.retention.bytes}, {@code log.segment.bytes},
 * {@code log.roll.ms|hours}, {@code message.max.bytes}, {@code log.message.timestamp.type},
 * {@code log.cleanup.policy}, {@code log.index.interval.bytes}, {@code log.cleaner.delete.retention.ms}; the log
 * cleaner's {@code log.cleaner.enable}, {@code log.cleaner.backoff.ms}, {@code log.cleaner.dedupe.buffer.size},
 * {@code log.cleaner.io.max.bytes.per.second}; the group coordinator's {@code offsets.topic.num.partitions},
 * {@code offsets.topic.replication.factor}, {@code offsets.topic.segment.bytes} and {@code group.*} timeouts. Unknown names are logged and ignored.
 *
 * <p>KRaft-style cluster settings: {@code process.roles} ({@code broker,controller} or {@code broker}),
 * {@code controller.quorum.voters} ({@code id@host:port,...}), {@code controller.listener.names}, a controller
 * listener among {@code listeners} (e.g. {@code PLAINTEXT://127.0.0.1:0,CONTROLLER://127.0.0.1:0}),
 * {@code advertised.listeners}, {@code broker.session.timeout.ms}, {@code broker.heartbeat.interval.ms} and
 * {@code metadata.log.dir}. A config without {@code controller.quorum.voters} runs a standalone one-node cluster
 * whose metadata is a local file, as before. {@link #host()}, {@link #port()} and {@link #listenerName()} always
 * describe the client (non-controller) listener.
 */
public final class BrokerConfig {

    private static final Logger LOGGER = LoggerFactory.getLogger(BrokerConfig.class);
    private static final Pattern LISTENER = Pattern.compile("([A-Za-z_]+)://(\\[[^\\]]*\\]|[^:]*):(\\d+)");

    /** Broker-level names of topic defaults, mapped to the topic config names. */
    private static final Map<String, String> TOPIC_DEFAULT_NAMES = Map.of(
            "log.retention.ms", "retention.ms",
            "log.retention.bytes", "retention.bytes",
            "log.segment.bytes", "segment.bytes",
            "log.roll.ms", "segment.ms",
            "message.max.bytes", "max.message.bytes",
            "log.message.timestamp.type", "message.timestamp.type",
            "log.cleanup.policy", "cleanup.policy",
            "log.index.interval.bytes", "index.interval.bytes",
            "log.cleaner.delete.retention.ms", "delete.retention.ms");

    private static final Set<String> OTHER_NAMES = Set.of(
            "node.id",
            "listeners",
            "log.dirs",
            "log.dir",
            "process.roles",
            "controller.quorum.voters",
            "controller.listener.names",
            "advertised.listeners",
            "listener.security.protocol.map",
            "broker.session.timeout.ms",
            "broker.heartbeat.interval.ms",
            "metadata.log.dir",
            "metadata.log.max.record.bytes.between.snapshots",
            "metadata.log.max.snapshot.interval.ms",
            "num.network.threads",
            "num.io.threads",
            "queued.max.requests",
            "socket.request.max.bytes",
            "num.partitions",
            "auto.create.topics.enable",
            "log.retention.check.interval.ms",
            "log.retention.minutes",
            "log.retention.hours",
            "log.roll.hours",
            "offsets.topic.num.partitions",
            "offsets.topic.replication.factor",
            "group.initial.rebalance.delay.ms",
            "group.min.session.timeout.ms",
            "group.max.session.timeout.ms",
            "offsets.topic.segment.bytes",
            "log.cleaner.enable",
            "log.cleaner.backoff.ms",
            "log.cleaner.dedupe.buffer.size",
            "log.cleaner.io.max.bytes.per.second",
            "default.replication.factor",
            "min.insync.replicas",
            "unclean.leader.election.enable",
            "replica.lag.time.max.ms",
            "replica.fetch.max.bytes",
            "replica.fetch.min.bytes",
            "replica.fetch.wait.max.ms",
            "replica.fetch.backoff.ms",
            "replica.socket.timeout.ms",
            "authorizer.class.name",
            "super.users",
            "allow.everyone.if.no.acl.found",
            "inter.broker.listener.name",
            "security.inter.broker.protocol",
            "sasl.mechanism.inter.broker.protocol",
            "strait.bootstrap.scram.credentials");
    /** Security settings read by the protocol adapter with Kafka's own config definitions. */
    private static final List<String> SECURITY_PREFIXES = List.of("ssl.", "sasl.", "listener.name.");

    private static final Set<String> SECURITY_PROTOCOLS = Set.of("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL");
    private static final Set<String> SECURED_NAMES = Set.of("SSL", "SASL_PLAINTEXT", "SASL_SSL");

    private final Map<String, String> originals;
    private final int nodeId;
    private final String listenerName;
    private final String host;
    private final int port;
    private final List<Path> logDirs;
    private final int numNetworkThreads;
    private final int numIoThreads;
    private final int queuedMaxRequests;
    private final int socketRequestMaxBytes;
    private final int numPartitions;
    private final boolean autoCreateTopics;
    private final long retentionCheckIntervalMs;
    private final Map<String, String> topicDefaults;
    private final Set<String> processRoles;
    private final Map<Integer, Listener> quorumVoters;
    private final Listener controllerListener;
    private final Listener advertisedListener;
    private final Map<String, String> listenerProtocols;

    /** A listener: its name (upper case), host ({@code 0.0.0.0} when empty) and port. */
    public record Listener(String name, String host, int port) {}

    private BrokerConfig(Map<String, String> props) {
        this.originals = Collections.unmodifiableMap(new LinkedHashMap<>(props));
        for (String name : props.keySet()) {
            if (!OTHER_NAMES.contains(name)
                    && !TOPIC_DEFAULT_NAMES.containsKey(name)
                    && SECURITY_PREFIXES.stream().noneMatch(name::startsWith)) {
                LOGGER.warn("ignoring unknown broker config '{}'", name);
            }
        }
        String nodeIdValue = props.get("node.id");
        if (nodeIdValue == null) {
            throw new ConfigException("Missing required configuration node.id");
        }
        this.nodeId = intValue(props, "node.id", 0, 0);
        String listeners =
                props.getOrDefault("listeners", "PLAINTEXT://127.0.0.1:9092").trim();
        Set<String> controllerNames = names(props, "controller.listener.names");
        List<Listener> parsed = parseListeners("listeners", listeners);
        List<Listener> clients =
                parsed.stream().filter(l -> !controllerNames.contains(l.name())).toList();
        if (clients.size() != 1) {
            throw new ConfigException(
                    "listeners",
                    listeners,
                    clients.isEmpty()
                            ? "no client listener"
                            : "only one client listener is supported yet; name the controller listener in "
                                    + "controller.listener.names");
        }
        Listener client = clients.get(0);
        this.listenerName = client.name();
        this.host = client.host();
        this.port = client.port();
        this.controllerListener = parsed.stream()
                .filter(l -> controllerNames.contains(l.name()))
                .findFirst()
                .orElse(null);
        this.listenerProtocols = listenerProtocols(props, parsed, controllerNames);
        this.advertisedListener = advertisedListener(props, listenerName);
        checkInterBrokerListener(props);
        this.processRoles = processRoles(props);
        this.quorumVoters = quorumVoters(props);
        checkQuorum(props, controllerNames);
        String dirs = props.getOrDefault("log.dirs", props.getOrDefault("log.dir", "/tmp/strait-logs"));
        List<Path> paths = new ArrayList<>();
        for (String dir : dirs.split(",")) {
            if (!dir.isBlank()) {
                paths.add(Path.of(dir.trim()));
            }
        }
        if (paths.isEmpty()) {
            throw new ConfigException("log.dirs", dirs, "needs at least one directory");
        }
        this.logDirs = List.copyOf(paths);
        this.numNetworkThreads = intValue(props, "num.network.threads", 3, 1);
        this.numIoThreads = intValue(props, "num.io.threads", 8, 1);
        this.queuedMaxRequests = intValue(props, "queued.max.requests", 500, 1);
        this.socketRequestMaxBytes = intValue(props, "socket.request.max.bytes", 104857600, 1);
        this.numPartitions = intValue(props, "num.partitions", 1, 1);
        this.autoCreateTopics = boolValue(props, "auto.create.topics.enable", true);
        this.retentionCheckIntervalMs = longValue(props, "log.retention.check.interval.ms", 300000, 1);
        this.topicDefaults = topicDefaults(props);
        // Validated here so that a bad value fails at startup with the setting's name, not later.
        defaultReplicationFactor();
        minInsyncReplicas();
        uncleanLeaderElectionEnable();
        replicaLagTimeMaxMs();
        replicaFetchMaxBytes();
        replicaFetchMinBytes();
        replicaFetchWaitMaxMs();
        replicaFetchBackoffMs();
        replicaSocketTimeoutMs();
        offsetsTopicSegmentBytes();
        offsetsTopicReplicationFactor();
        logCleanerEnable();
        logCleanerBackoffMs();
        logCleanerDedupeBufferSize();
        logCleanerIoMaxBytesPerSecond();
        metadataLogMaxRecordBytesBetweenSnapshots();
        metadataLogMaxSnapshotIntervalMs();
        long session = brokerSessionTimeoutMs();
        long heartbeat = brokerHeartbeatIntervalMs();
        if (heartbeat >= session) {
            throw new ConfigException(
                    "broker.heartbeat.interval.ms",
                    heartbeat,
                    "must be below broker.session.timeout.ms (" + session + ")");
        }
    }

    private static List<Listener> parseListeners(String name, String value) {
        List<Listener> result = new ArrayList<>();
        Set<String> seen = new java.util.HashSet<>();
        for (String part : value.split(",")) {
            Matcher m = LISTENER.matcher(part.trim());
            if (!m.matches()) {
                throw new ConfigException(name, value, "expected NAME://host:port[,NAME://host:port]");
            }
            String listener = m.group(1).toUpperCase(java.util.Locale.ROOT);
            String hostValue = m.group(2);
            if (hostValue.startsWith("[")) {
                hostValue = hostValue.substring(1, hostValue.length() - 1);
            }
            int portValue = Integer.parseInt(m.group(3));
            if (portValue > 65535) {
                throw new ConfigException(name, value, "port must be <= 65535");
            }
            if (!seen.add(listener)) {
                throw new ConfigException(name, value, "listener name " + listener + " appears twice");
            }
            result.add(new Listener(listener, hostValue.isEmpty() ? "0.0.0.0" : hostValue, portValue));
        }
        return result;
    }

    private static Set<String> names(Map<String, String> props, String name) {
        String value = props.get(name);
        Set<String> names = new java.util.LinkedHashSet<>();
        if (value != null) {
            for (String part : value.split(",")) {
                if (!part.isBlank()) {
                    names.add(part.trim().toUpperCase(java.util.Locale.ROOT));
                }
            }
            if (names.isEmpty()) {
                throw new ConfigException(name, value, "needs at least one name");
            }
        }
        return Collections.unmodifiableSet(names);
    }

    /**
     * Each listener's security protocol, as Kafka resolves it: from {@code listener.security.protocol.map}, else the
     * listener's name when it is a protocol's, else PLAINTEXT for a controller listener (Kafka's KRaft default).
     * The controller wire speaks PLAINTEXT or SSL (mutual TLS); SASL is for client listeners.
     */
    private static Map<String, String> listenerProtocols(
            Map<String, String> props, List<Listener> listeners, Set<String> controllerNames) {
        String value = props.get("listener.security.protocol.map");
        Map<String, String> map = new LinkedHashMap<>();
        if (value != null && !value.isBlank()) {
            for (String part : value.split(",")) {
                String[] pair = part.trim().split(":");
                if (pair.length != 2 || pair[0].isBlank()) {
                    throw new ConfigException("listener.security.protocol.map", value, "expected NAME:PROTOCOL,...");
                }
                String protocol = pair[1].trim().toUpperCase(java.util.Locale.ROOT);
                if (!SECURITY_PROTOCOLS.contains(protocol)) {
                    throw new ConfigException(
                            "listener.security.protocol.map",
                            value,
                            "unknown security protocol " + pair[1].trim()
                                    + " (PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL)");
                }
                map.put(pair[0].trim().toUpperCase(java.util.Locale.ROOT), protocol);
            }
        }
        Map<String, String> result = new LinkedHashMap<>();
        for (Listener listener : listeners) {
            String protocol = map.get(listener.name());
            if (protocol == null && SECURITY_PROTOCOLS.contains(listener.name())) {
                protocol = listener.name();
            }
            if (protocol == null && controllerNames.contains(listener.name())) {
                if (!map.isEmpty() || listeners.stream().anyMatch(l -> SECURED_NAMES.contains(l.name()))) {
                    // Kafka's rule: the PLAINTEXT default is only for an all-PLAINTEXT node without a map, so a
                    // secured cluster never ends up with an unencrypted controller listener by omission.
                    throw new ConfigException(
                            "listener.security.protocol.map",
                            value,
                            "controller listener "
                                    + listener.name() + " defined in controller.listener.names is not in it; name its "
                                    + "protocol explicitly, e.g. " + listener.name()
                                    + ":SSL (Kafka requires a mapping for "
                                    + "each controller listener once the map is set or SSL/SASL listeners are in use)");
                }
                protocol = "PLAINTEXT";
            }
            if (protocol == null) {
                throw new ConfigException(
                        "listener.security.protocol.map",
                        value,
                        "no security protocol for listener " + listener.name());
            }
            if (controllerNames.contains(listener.name()) && protocol.startsWith("SASL")) {
                throw new ConfigException(
                        "listener.security.protocol.map",
                        value,
                        "the controller listener "
                                + listener.name()
                                + " speaks PLAINTEXT or SSL (with ssl.client.auth=required for mutual TLS "
                                + "and the nodes' certificate principals in super.users), not " + protocol
                                + "; SASL on the "
                                + "controller wire (sasl.mechanism.controller.protocol) is not supported");
            }
            result.put(listener.name(), protocol);
        }
        return Collections.unmodifiableMap(result);
    }

    /**
     * Kafka's inter-broker listener settings. Replica fetchers connect to the one broker listener (several are not
     * supported yet), so these may only name that listener or its protocol; the credentials are that listener's
     * ({@code sasl.mechanism.inter.broker.protocol} and its JAAS entry).
     */
    private void checkInterBrokerListener(Map<String, String> props) {
        String name = props.get("inter.broker.listener.name");
        String protocol = props.get("security.inter.broker.protocol");
        if (name != null && protocol != null) {
            throw new ConfigException(
                    "security.inter.broker.protocol",
                    protocol,
                    "set inter.broker.listener.name " + "or security.inter.broker.protocol, not both (as Kafka)");
        }
        if (name != null && !name.trim().equalsIgnoreCase(listenerName)) {
            throw new ConfigException(
                    "inter.broker.listener.name",
                    name,
                    "replicas fetch from the broker's one "
                            + "listener " + listenerName
                            + " (several broker listeners are not supported yet); name it or "
                            + "leave the setting out");
        }
        String own = listenerProtocols.get(listenerName);
        if (protocol != null && !protocol.trim().equalsIgnoreCase(own)) {
            throw new ConfigException(
                    "security.inter.broker.protocol",
                    protocol,
                    "replicas fetch from the broker's "
                            + "one listener " + listenerName + ", which speaks " + own + "; set " + own
                            + " or leave the "
                            + "setting out");
        }
    }

    private static Listener advertisedListener(Map<String, String> props, String clientName) {
        String value = props.get("advertised.listeners");
        if (value == null || value.isBlank()) {
            return null;
        }
        Listener found = null;
        for (Listener listener : parseListeners("advertised.listeners", value.trim())) {
            if (listener.host().equals("0.0.0.0") || listener.port() == 0) {
                throw new ConfigException(
                        "advertised.listeners",
                        value,
                        "must name a reachable host and a port (not 0.0.0.0 or 0): " + listener.name());
            }
            if (listener.name().equals(clientName)) {
                found = listener;
            }
        }
        return found;
    }

    private static Set<String> processRoles(Map<String, String> props) {
        String value = props.get("process.roles");
        if (value == null) {
            return Set.of();
        }
        Set<String> roles = new java.util.TreeSet<>();
        for (String part : value.split(",")) {
            String role = part.trim().toLowerCase(java.util.Locale.ROOT);
            if (!role.equals("broker") && !role.equals("controller")) {
                throw new ConfigException("process.roles", value, "expected broker, controller or broker,controller");
            }
            roles.add(role);
        }
        if (!roles.contains("broker")) {
            throw new ConfigException(
                    "process.roles", value, "a controller-only node is not supported yet; use broker,controller");
        }
        return Collections.unmodifiableSet(roles);
    }

    private static final Pattern VOTER = Pattern.compile("(\\d+)@(\\[[^\\]]*\\]|[^:@]+):(\\d+)");

    private static Map<Integer, Listener> quorumVoters(Map<String, String> props) {
        String value = props.get("controller.quorum.voters");
        if (value == null || value.isBlank()) {
            return Map.of();
        }
        Map<Integer, Listener> voters = new java.util.TreeMap<>();
        for (String part : value.split(",")) {
            Matcher m = VOTER.matcher(part.trim());
            if (!m.matches()) {
                throw new ConfigException("controller.quorum.voters", value, "expected id@host:port[,id@host:port]");
            }
            int id;
            int voterPort;
            try {
                id = Integer.parseInt(m.group(1));
                voterPort = Integer.parseInt(m.group(3));
            } catch (NumberFormatException e) {
                throw new ConfigException("controller.quorum.voters", value, "id or port out of range");
            }
            if (voterPort < 1 || voterPort > 65535) {
                throw new ConfigException("controller.quorum.voters", value, "port must be 1..65535 in " + part.trim());
            }
            String voterHost = m.group(2);
            if (voterHost.startsWith("[")) {
                voterHost = voterHost.substring(1, voterHost.length() - 1);
            }
            if (voters.put(id, new Listener("CONTROLLER", voterHost, voterPort)) != null) {
                throw new ConfigException("controller.quorum.voters", value, "voter " + id + " appears twice");
            }
        }
        return Collections.unmodifiableMap(voters);
    }

    private void checkQuorum(Map<String, String> props, Set<String> controllerNames) {
        if (quorumVoters.isEmpty()) {
            if (!processRoles.isEmpty()) {
                throw new ConfigException("Missing required configuration controller.quorum.voters: it is required "
                        + "when process.roles is set");
            }
            return;
        }
        if (processRoles.isEmpty()) {
            throw new ConfigException("Missing required configuration process.roles: it is required with "
                    + "controller.quorum.voters (broker,controller or broker)");
        }
        if (controllerNames.isEmpty()) {
            throw new ConfigException("Missing required configuration controller.listener.names: it is required "
                    + "with controller.quorum.voters");
        }
        boolean controller = processRoles.contains("controller");
        if (controller != quorumVoters.containsKey(nodeId)) {
            throw new ConfigException(
                    "controller.quorum.voters",
                    props.get("controller.quorum.voters"),
                    controller
                            ? "node.id " + nodeId + " has the controller role but is not a voter"
                            : "node.id " + nodeId + " is a voter but process.roles lacks controller");
        }
        if (controller && controllerListener == null) {
            throw new ConfigException(
                    "listeners",
                    props.getOrDefault("listeners", ""),
                    "a controller needs a listener named in controller.listener.names " + controllerNames);
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

    private static Map<String, String> topicDefaults(Map<String, String> props) {
        Map<String, String> defaults = new LinkedHashMap<>();
        if (props.containsKey("log.retention.hours")) {
            defaults.put("retention.ms", Long.toString(longValue(props, "log.retention.hours", 168, -1) * 3600_000L));
        }
        if (props.containsKey("log.retention.minutes")) {
            defaults.put("retention.ms", Long.toString(longValue(props, "log.retention.minutes", 0, -1) * 60_000L));
        }
        if (props.containsKey("log.roll.hours")) {
            defaults.put("segment.ms", Long.toString(longValue(props, "log.roll.hours", 168, 1) * 3600_000L));
        }
        for (Map.Entry<String, String> entry : TOPIC_DEFAULT_NAMES.entrySet()) {
            String value = props.get(entry.getKey());
            if (value != null) {
                defaults.put(entry.getValue(), value);
            }
        }
        for (Map.Entry<String, String> entry : defaults.entrySet()) {
            try {
                TopicConfigs.validate(Map.of(entry.getKey(), entry.getValue()));
            } catch (IllegalArgumentException e) {
                String brokerName = TOPIC_DEFAULT_NAMES.entrySet().stream()
                        .filter(n -> n.getValue().equals(entry.getKey()))
                        .map(Map.Entry::getKey)
                        .findFirst()
                        .orElse(entry.getKey());
                throw new ConfigException(brokerName, entry.getValue(), e.getMessage());
            }
        }
        return Collections.unmodifiableMap(defaults);
    }

    private static long longValue(Map<String, String> props, String name, long defaultValue, long min) {
        String value = props.get(name);
        if (value == null) {
            return defaultValue;
        }
        long parsed;
        try {
            parsed = Long.parseLong(value.trim());
        } catch (NumberFormatException e) {
            throw new ConfigException(name, value, "not a number");
        }
        if (parsed < min) {
            throw new ConfigException(name, value, "must be >= " + min);
        }
        return parsed;
    }

    private static int intValue(Map<String, String> props, String name, int defaultValue, int min) {
        long value = longValue(props, name, defaultValue, min);
        if (value > Integer.MAX_VALUE) {
            throw new ConfigException(name, value, "must be <= " + Integer.MAX_VALUE);
        }
        return (int) value;
    }

    private static boolean boolValue(Map<String, String> props, String name, boolean defaultValue) {
        String value = props.get(name);
        if (value == null) {
            return defaultValue;
        }
        if (value.equalsIgnoreCase("true") || value.equalsIgnoreCase("false")) {
            return Boolean.parseBoolean(value);
        }
        throw new ConfigException(name, value, "expected true or false");
    }

    /** Each listener's name and security protocol (PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL). */
    public Map<String, String> listenerProtocols() {
        return listenerProtocols;
    }

    /** The first of {@code controller.listener.names}, or null. */
    public String controllerListenerName() {
        String value = originals.get("controller.listener.names");
        if (value == null || value.isBlank()) {
            return null;
        }
        return value.split(",")[0].trim().toUpperCase(java.util.Locale.ROOT);
    }

    /**
     * The controller listener's security protocol (PLAINTEXT or SSL), also on a broker-only node that has no
     * controller listener of its own but dials the voters with it.
     */
    public String controllerSecurityProtocol() {
        String name = controllerListenerName();
        if (name == null) {
            return "PLAINTEXT";
        }
        String protocol = listenerProtocols.get(name);
        if (protocol != null) {
            return protocol;
        }
        String map = originals.getOrDefault("listener.security.protocol.map", "");
        for (String part : map.split(",")) {
            String[] pair = part.trim().split(":");
            if (pair.length == 2 && pair[0].trim().equalsIgnoreCase(name)) {
                return pair[1].trim().toUpperCase(java.util.Locale.ROOT);
            }
        }
        return "PLAINTEXT";
    }

    /** The client listener's security protocol. */
    public String securityProtocol() {
        return listenerProtocols.get(listenerName);
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

    /** The {@code advertised.listeners} entry for the client listener, if there is one. */
    public java.util.Optional<Listener> advertisedListener() {
        return java.util.Optional.ofNullable(advertisedListener);
    }

    /** {@code process.roles} (empty for a standalone node). */
    public Set<String> processRoles() {
        return processRoles;
    }

    /** {@code controller.quorum.voters}: voter id to its controller endpoint; empty for a standalone node. */
    public Map<Integer, Listener> controllerQuorumVoters() {
        return quorumVoters;
    }

    /** Whether this node follows a controller quorum (otherwise it is a standalone one-node cluster). */
    public boolean hasControllerQuorum() {
        return !quorumVoters.isEmpty();
    }

    /**
     * The controller listener among {@code listeners}, if any. Its port may be 0: a voter then binds the port its
     * own {@code controller.quorum.voters} entry names, which the other nodes must know anyway.
     */
    public java.util.Optional<Listener> controllerListener() {
        return java.util.Optional.ofNullable(controllerListener);
    }

    /** {@code broker.session.timeout.ms} (default 9000, as Kafka): a node silent this long is fenced. */
    public long brokerSessionTimeoutMs() {
        return longValue(originals, "broker.session.timeout.ms", 9_000, 1);
    }

    /** {@code broker.heartbeat.interval.ms} (default 2000, as Kafka). */
    public long brokerHeartbeatIntervalMs() {
        return longValue(originals, "broker.heartbeat.interval.ms", 2_000, 1);
    }

    /** {@code metadata.log.dir}: where the metadata log lives; default {@code <first log dir>/__cluster_metadata-0}. */
    public java.util.Optional<Path> metadataLogDir() {
        String value = originals.get("metadata.log.dir");
        return value == null || value.isBlank()
                ? java.util.Optional.empty()
                : java.util.Optional.of(Path.of(value.trim()));
    }

    /**
     * {@code metadata.log.max.record.bytes.between.snapshots} (default 20 MiB, as Kafka): a node snapshots its
     * metadata image, and truncates the metadata log behind it, once this many bytes of records were committed
     * since its latest snapshot.
     */
    public long metadataLogMaxRecordBytesBetweenSnapshots() {
        return longValue(originals, "metadata.log.max.record.bytes.between.snapshots", 20L * 1024 * 1024, 1);
    }

    /**
     * {@code metadata.log.max.snapshot.interval.ms} (default one hour, as Kafka): a node also snapshots this long
     * after its latest snapshot if anything was committed since; 0 turns the timer off.
     */
    public long metadataLogMaxSnapshotIntervalMs() {
        return longValue(originals, "metadata.log.max.snapshot.interval.ms", 3_600_000L, 0);
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
    public int offsetsTopicNumPartitions() {
        return (int) longValue(originals, "offsets.topic.num.partitions", 5, 1);
    }

    /**
     * {@code offsets.topic.replication.factor}: replicas of each partition of {@code __consumer_offsets}, which is
     * created only once that many brokers are registered (as Kafka: until then group and offset requests answer
     * COORDINATOR_NOT_AVAILABLE and clients retry). Default 3, as Kafka, in a cluster with a controller quorum. A
     * standalone node (no {@code controller.quorum.voters}) is a one-broker cluster for good: there a value above 1
     * is refused, and when unset this returns -1, the metadata source's own default (one replica).
     */
    public int offsetsTopicReplicationFactor() {
        String name = "offsets.topic.replication.factor";
        int factor = intValue(originals, name, hasControllerQuorum() ? 3 : 1, 1);
        if (factor > Short.MAX_VALUE) {
            throw new ConfigException(name, factor, "must be <= " + Short.MAX_VALUE);
        }
        if (!hasControllerQuorum()) {
            if (factor > 1) {
                throw new ConfigException(
                        name,
                        factor,
                        "a standalone node (no controller.quorum.voters) is a "
                                + "one-broker cluster: set it to 1, or configure a controller quorum");
            }
            return originals.containsKey(name) ? factor : -1;
        }
        return factor;
    }

    /** {@code offsets.topic.segment.bytes} (default 104857600, as Kafka): segment size of the offsets topic. */
    public int offsetsTopicSegmentBytes() {
        return intValue(originals, "offsets.topic.segment.bytes", 104_857_600, 1);
    }

    /** {@code log.cleaner.enable} (default true): whether compacted topics are compacted. */
    public boolean logCleanerEnable() {
        return boolValue(originals, "log.cleaner.enable", true);
    }

    /** {@code log.cleaner.backoff.ms} (default 15000, as Kafka): pause between cleaner rounds. */
    public long logCleanerBackoffMs() {
        return longValue(originals, "log.cleaner.backoff.ms", 15_000, 1);
    }

    /** {@code log.cleaner.dedupe.buffer.size} (default 134217728, as Kafka): memory for a pass's key map. */
    public long logCleanerDedupeBufferSize() {
        return longValue(originals, "log.cleaner.dedupe.buffer.size", 134_217_728, 1);
    }

    /**
     * {@code log.cleaner.io.max.bytes.per.second} (default: no limit, as Kafka): the cleaner's read plus write rate.
     * Kafka's value is a double; a whole number is accepted here.
     */
    public long logCleanerIoMaxBytesPerSecond() {
        String value = originals.get("log.cleaner.io.max.bytes.per.second");
        if (value == null) {
            return 0;
        }
        try {
            double parsed = Double.parseDouble(value.trim());
            if (!(parsed >= 1)) {
                throw new ConfigException("log.cleaner.io.max.bytes.per.second", value, "must be >= 1");
            }
            return parsed >= Long.MAX_VALUE ? 0 : (long) parsed;
        } catch (NumberFormatException e) {
            throw new ConfigException("log.cleaner.io.max.bytes.per.second", value, "not a number");
        }
    }

    /** {@code default.replication.factor} (default 1, as Kafka): replicas of topics created without a factor. */
    public int defaultReplicationFactor() {
        return intValue(originals, "default.replication.factor", 1, 1);
    }

    /** {@code min.insync.replicas} (default 1, as Kafka): the ISR size an acks=all produce needs; a topic may override it. */
    public int minInsyncReplicas() {
        return intValue(originals, "min.insync.replicas", 1, 1);
    }

    /**
     * {@code unclean.leader.election.enable} (default false, as Kafka). Only false is supported: a replica outside
     * the ISR never leads, so an acknowledged record is never given up for availability.
     */
    public boolean uncleanLeaderElectionEnable() {
        boolean enabled = boolValue(originals, "unclean.leader.election.enable", false);
        if (enabled) {
            throw new ConfigException(
                    "unclean.leader.election.enable",
                    "true",
                    "not supported: leaders are elected from the in-sync replicas only");
        }
        return false;
    }

    /** {@code replica.lag.time.max.ms} (default 30000, as Kafka): a follower not caught up for this long leaves the ISR. */
    public long replicaLagTimeMaxMs() {
        return longValue(originals, "replica.lag.time.max.ms", 30_000, 1);
    }

    /** {@code replica.fetch.max.bytes} (default 1048576, as Kafka): bytes per partition in a follower's fetch. */
    public int replicaFetchMaxBytes() {
        return intValue(originals, "replica.fetch.max.bytes", 1_048_576, 1);
    }

    /** {@code replica.fetch.min.bytes} (default 1, as Kafka). */
    public int replicaFetchMinBytes() {
        return intValue(originals, "replica.fetch.min.bytes", 1, 1);
    }

    /** {@code replica.fetch.wait.max.ms} (default 500, as Kafka): how long a follower's fetch may wait for data. */
    public int replicaFetchWaitMaxMs() {
        return intValue(originals, "replica.fetch.wait.max.ms", 500, 0);
    }

    /** {@code replica.fetch.backoff.ms} (default 1000, as Kafka): pause after a failed follower fetch. */
    public int replicaFetchBackoffMs() {
        return intValue(originals, "replica.fetch.backoff.ms", 1000, 0);
    }

    /** {@code replica.socket.timeout.ms} (default 30000, as Kafka): a follower's request timeout. */
    public int replicaSocketTimeoutMs() {
        return intValue(originals, "replica.socket.timeout.ms", 30_000, 1);
    }

    /** {@code group.initial.rebalance.delay.ms} (default 3000, as Kafka). */
    public int groupInitialRebalanceDelayMs() {
        return (int) longValue(originals, "group.initial.rebalance.delay.ms", 3000, 0);
    }

    /** {@code group.min.session.timeout.ms} (default 6000, as Kafka). */
    public int groupMinSessionTimeoutMs() {
        return (int) longValue(originals, "group.min.session.timeout.ms", 6000, 0);
    }

    /** {@code group.max.session.timeout.ms} (default 1800000, as Kafka). */
    public int groupMaxSessionTimeoutMs() {
        return (int) longValue(originals, "group.max.session.timeout.ms", 1_800_000, 1);
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

    /** Topic config defaults under topic config names (e.g. retention.ms). */
    public Map<String, String> topicDefaults() {
        return topicDefaults;
    }
}
