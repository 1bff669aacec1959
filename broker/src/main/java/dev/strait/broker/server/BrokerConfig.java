package dev.strait.broker.server;

import dev.strait.broker.link.SourceLinks;
import dev.strait.broker.log.LogConfig;
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
 * <p>Which settings exist, their types, defaults and allowed values are declared once, in {@link BrokerSettings}
 * (the table {@code config/broker.properties} and the reference documentation are generated from); every value is
 * parsed and checked against it here, and keys that are no setting are logged and ignored. What the table cannot
 * say is checked here: the formats of listeners and voters, and how settings fit together (a controller needs a
 * controller listener, the heartbeat must be shorter than the session, a secured cluster must map its controller
 * listener...).
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
            "log.cleaner.delete.retention.ms", "delete.retention.ms",
            "strait.flush.on.ack", LogConfig.FLUSH_ON_ACK);

    private static final Set<String> SECURITY_PROTOCOLS = Set.of("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL");
    private static final Set<String> SECURED_NAMES = Set.of("SSL", "SASL_PLAINTEXT", "SASL_SSL");

    private final Map<String, String> originals;
    private final SettingValues values;
    private final int nodeId;
    private final String listenerName;
    private final String host;
    private final int port;
    private final List<Path> logDirs;
    private final Map<String, String> topicDefaults;
    private final Set<String> processRoles;
    private final Map<Integer, Listener> quorumVoters;
    private final Listener controllerListener;
    private final Map<String, Listener> advertisedListeners;
    private final List<Listener> brokerListeners;
    private final String interBrokerListenerName;
    private final Map<String, String> listenerProtocols;
    private final int offsetsTopicReplicationFactor;

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
        if (props.get("node.id") == null) {
            throw new ConfigException("Missing required configuration node.id: this node's id, an int >= 0 that is "
                    + "unique in the cluster");
        }
        this.values = BrokerSettings.parse(props);
        this.nodeId = values.intValue("node.id");
        String listeners = raw("listeners");
        Set<String> controllerNames = names(props, "controller.listener.names");
        List<Listener> parsed = parseListeners("listeners", listeners);
        List<Listener> clients =
                parsed.stream().filter(l -> !controllerNames.contains(l.name())).toList();
        if (clients.isEmpty()) {
            throw new ConfigException(
                    "listeners",
                    listeners,
                    "no broker listener (every listener is named in controller.listener.names)");
        }
        this.brokerListeners = List.copyOf(clients);
        Listener client = clients.get(0);
        this.listenerName = client.name();
        this.host = client.host();
        this.port = client.port();
        this.controllerListener = parsed.stream()
                .filter(l -> controllerNames.contains(l.name()))
                .findFirst()
                .orElse(null);
        this.listenerProtocols = listenerProtocols(props, parsed, controllerNames);
        this.advertisedListeners = advertisedListeners(props);
        this.interBrokerListenerName = interBrokerListener(props);
        this.processRoles = processRoles(props);
        this.quorumVoters = quorumVoters(props);
        checkQuorum(props, controllerNames);
        String dirs = values.isSet("log.dirs") ? raw("log.dirs") : raw("log.dir");
        List<Path> paths = new ArrayList<>();
        for (String dir : dirs.split(",")) {
            if (!dir.isBlank()) {
                paths.add(Path.of(dir.trim()));
            }
        }
        if (paths.isEmpty()) {
            throw new ConfigException(
                    values.isSet("log.dirs") ? "log.dirs" : "log.dir", dirs, "needs at least one directory");
        }
        this.logDirs = List.copyOf(paths);
        this.topicDefaults = parseTopicDefaults();
        this.offsetsTopicReplicationFactor = checkOffsetsTopicReplicationFactor();
        long session = brokerSessionTimeoutMs();
        long heartbeat = brokerHeartbeatIntervalMs();
        if (heartbeat >= session) {
            throw new ConfigException(
                    "broker.heartbeat.interval.ms",
                    heartbeat,
                    "must be below broker.session.timeout.ms (" + session + ")");
        }
    }

    /** The text of {@code name} as set (trimmed), else its default. */
    private String raw(String name) {
        String value = originals.get(name);
        if (value == null) {
            value = BrokerSettings.get(name).defaultValue();
        }
        return value == null ? null : value.trim();
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
                        "no security protocol for listener " + listener.name() + ": map it, e.g. " + listener.name()
                                + ":SASL_SSL (a controller listener must also be named in "
                                + "controller.listener.names)");
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
     * Kafka's inter-broker listener settings: the broker listener replica fetchers (and every other broker-to-broker
     * client) connect to, with that listener's credentials ({@code sasl.mechanism.inter.broker.protocol} and its
     * JAAS entry, or its keystore for mutual TLS). {@code inter.broker.listener.name} names it;
     * {@code security.inter.broker.protocol} picks the listener named like the protocol, else the one broker
     * listener speaking it. With neither, a node's only broker listener, else the one named PLAINTEXT (Kafka's
     * default).
     */
    private String interBrokerListener(Map<String, String> props) {
        String name = props.get("inter.broker.listener.name");
        String protocol = props.get("security.inter.broker.protocol");
        if (name != null && protocol != null) {
            throw new ConfigException(
                    "security.inter.broker.protocol",
                    protocol,
                    "set inter.broker.listener.name or security.inter.broker.protocol, not both (as Kafka)");
        }
        List<String> names = brokerListeners.stream().map(Listener::name).toList();
        if (name != null) {
            String wanted = name.trim().toUpperCase(java.util.Locale.ROOT);
            if (!names.contains(wanted)) {
                throw new ConfigException(
                        "inter.broker.listener.name",
                        name,
                        "is not a broker listener among listeners " + names
                                + (controllerListener != null
                                                && controllerListener.name().equals(wanted)
                                        ? " (the controller listener carries no broker traffic)"
                                        : ""));
            }
            return wanted;
        }
        if (protocol != null) {
            String wanted = protocol.trim().toUpperCase(java.util.Locale.ROOT);
            if (names.contains(wanted)) {
                return wanted;
            }
            List<String> speaking = names.stream()
                    .filter(n -> wanted.equals(listenerProtocols.get(n)))
                    .toList();
            if (speaking.size() != 1) {
                throw new ConfigException(
                        "security.inter.broker.protocol",
                        protocol,
                        (speaking.isEmpty()
                                        ? "no broker listener speaks it"
                                        : "several broker listeners speak it " + speaking)
                                + " (listeners " + describeProtocols(names) + "); set inter.broker.listener.name");
            }
            return speaking.get(0);
        }
        if (names.size() == 1) {
            return names.get(0);
        }
        if (names.contains("PLAINTEXT")) {
            return "PLAINTEXT";
        }
        throw new ConfigException(
                "listeners",
                raw("listeners"),
                "several broker listeners " + names + ": set inter.broker.listener.name to the one replicas "
                        + "fetch from");
    }

    private String describeProtocols(List<String> names) {
        List<String> described = new ArrayList<>();
        for (String name : names) {
            described.add(name + ":" + listenerProtocols.get(name));
        }
        return String.join(",", described);
    }

    /** {@code advertised.listeners} by listener name; a broker listener not named there advertises its own address. */
    private static Map<String, Listener> advertisedListeners(Map<String, String> props) {
        String value = props.get("advertised.listeners");
        Map<String, Listener> result = new LinkedHashMap<>();
        if (value == null || value.isBlank()) {
            return result;
        }
        for (Listener listener : parseListeners("advertised.listeners", value.trim())) {
            if (listener.host().equals("0.0.0.0") || listener.port() == 0) {
                throw new ConfigException(
                        "advertised.listeners",
                        value,
                        "must name a reachable host and a port (not 0.0.0.0 or 0): " + listener.name());
            }
            result.put(listener.name(), listener);
        }
        return Collections.unmodifiableMap(result);
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

    /**
     * The topic defaults set here, under topic config names: Kafka's precedence (log.retention.ms over
     * log.retention.minutes over log.retention.hours; log.roll.ms over log.roll.hours), a negative retention time
     * meaning "keep for good" (-1) whatever its unit. Unset ones are left to the topic configs' own defaults.
     */
    private Map<String, String> parseTopicDefaults() {
        Map<String, String> defaults = new LinkedHashMap<>();
        if (values.isSet("log.retention.hours")) {
            defaults.put("retention.ms", retentionMs(values.intValue("log.retention.hours"), 3_600_000L));
        }
        if (values.isSet("log.retention.minutes")) {
            defaults.put("retention.ms", retentionMs(values.intValue("log.retention.minutes"), 60_000L));
        }
        if (values.isSet("log.roll.hours")) {
            defaults.put("segment.ms", Long.toString(values.intValue("log.roll.hours") * 3_600_000L));
        }
        for (Map.Entry<String, String> entry : TOPIC_DEFAULT_NAMES.entrySet()) {
            if (values.isSet(entry.getKey())) {
                defaults.put(entry.getValue(), raw(entry.getKey()));
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

    private static String retentionMs(int amount, long unitMs) {
        return amount < 0 ? "-1" : Long.toString(amount * unitMs);
    }

    /**
     * {@code offsets.topic.replication.factor}: 3 by default in a cluster, as Kafka. A standalone node is a
     * one-broker cluster for good: there a value above 1 is refused, and unset is -1, the metadata source's own
     * default (one replica).
     */
    private int checkOffsetsTopicReplicationFactor() {
        String name = "offsets.topic.replication.factor";
        int factor = values.intValue(name);
        if (hasControllerQuorum()) {
            return factor;
        }
        if (!values.isSet(name)) {
            return -1;
        }
        if (factor > 1) {
            throw new ConfigException(
                    name,
                    factor,
                    "a standalone node (no controller.quorum.voters) is a "
                            + "one-broker cluster: set it to 1, or configure a controller quorum");
        }
        return factor;
    }

    /**
     * The settings as given, sorted, secrets (passwords, keys, JAAS entries, SCRAM credentials) as
     * {@value BrokerSetting#HIDDEN}; keys that are no setting are listed by name only.
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
                    .append(BrokerSettings.sensitive(key) ? BrokerSetting.HIDDEN : originals.get(key));
            separator = ", ";
        }
        if (!ignored.isEmpty()) {
            b.append(separator).append("ignored=").append(ignored);
        }
        return b.append('}').toString();
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

    /** The first broker listener's security protocol. */
    public String securityProtocol() {
        return listenerProtocols.get(listenerName);
    }

    /** The broker (non-controller) listeners, in the order of {@code listeners}. */
    public List<Listener> brokerListeners() {
        return brokerListeners;
    }

    /** The broker listener replica fetchers and other broker-to-broker clients use (upper case). */
    public String interBrokerListenerName() {
        return interBrokerListenerName;
    }

    /** The {@code advertised.listeners} entry for a listener, if there is one. */
    public java.util.Optional<Listener> advertisedListener(String listener) {
        return java.util.Optional.ofNullable(advertisedListeners.get(listener));
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
        return values.longValue("broker.session.timeout.ms");
    }

    /** {@code broker.heartbeat.interval.ms} (default 2000, as Kafka). */
    public long brokerHeartbeatIntervalMs() {
        return values.longValue("broker.heartbeat.interval.ms");
    }

    /** {@code metadata.log.dir}: where the metadata log lives; default {@code <first log dir>/__cluster_metadata-0}. */
    /** {@code strait.metrics.port}: where the node serves /metrics; -1 for nowhere, 0 for a free port. */
    public int metricsPort() {
        return values.intValue("strait.metrics.port");
    }

    /** {@code strait.metrics.host}: the address the metrics endpoint binds to. */
    public String metricsHost() {
        return values.stringValue("strait.metrics.host").trim();
    }

    /** {@code strait.boot.id.file}: names the machine's boot, so that a crash without a reboot is no power loss. */
    public Path bootIdFile() {
        return Path.of(values.stringValue("strait.boot.id.file").trim());
    }

    public java.util.Optional<Path> metadataLogDir() {
        String value = values.stringValue("metadata.log.dir");
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
        return values.longValue("metadata.log.max.record.bytes.between.snapshots");
    }

    /**
     * {@code metadata.log.max.snapshot.interval.ms} (default one hour, as Kafka): a node also snapshots this long
     * after its latest snapshot if anything was committed since; 0 turns the timer off.
     */
    public long metadataLogMaxSnapshotIntervalMs() {
        return values.longValue("metadata.log.max.snapshot.interval.ms");
    }

    public List<Path> logDirs() {
        return logDirs;
    }

    public int numNetworkThreads() {
        return values.intValue("num.network.threads");
    }

    public int numIoThreads() {
        return values.intValue("num.io.threads");
    }

    public int queuedMaxRequests() {
        return values.intValue("queued.max.requests");
    }

    public int socketRequestMaxBytes() {
        return values.intValue("socket.request.max.bytes");
    }

    /** {@code offsets.topic.num.partitions} (default 5; only used when the offsets topic is created). */
    public int offsetsTopicNumPartitions() {
        return values.intValue("offsets.topic.num.partitions");
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
        return values.intValue("offsets.topic.segment.bytes");
    }

    /** {@code log.cleaner.enable} (default true): whether compacted topics are compacted. */
    public boolean logCleanerEnable() {
        return values.booleanValue("log.cleaner.enable");
    }

    /** {@code log.cleaner.backoff.ms} (default 15000, as Kafka): pause between cleaner rounds. */
    public long logCleanerBackoffMs() {
        return values.longValue("log.cleaner.backoff.ms");
    }

    /** {@code log.cleaner.dedupe.buffer.size} (default 134217728, as Kafka): memory for a pass's key map. */
    public long logCleanerDedupeBufferSize() {
        return values.longValue("log.cleaner.dedupe.buffer.size");
    }

    /**
     * {@code log.cleaner.io.max.bytes.per.second} (default: no limit, as Kafka): the cleaner's read plus write rate.
     * Kafka's value is a double; a whole number is accepted here.
     */
    public long logCleanerIoMaxBytesPerSecond() {
        Double limit = values.doubleValue("log.cleaner.io.max.bytes.per.second");
        return limit == null || limit >= Long.MAX_VALUE ? 0 : limit.longValue();
    }

    /** {@code default.replication.factor} (default 1, as Kafka): replicas of topics created without a factor. */
    public int defaultReplicationFactor() {
        return values.intValue("default.replication.factor");
    }

    /** {@code min.insync.replicas} (default 1, as Kafka): the ISR size an acks=all produce needs; a topic may override it. */
    /** {@code strait.flush.on.ack}: the fsync mode of topics that do not set {@code flush.on.ack}. */
    public boolean flushOnAck() {
        return values.booleanValue("strait.flush.on.ack");
    }

    public int minInsyncReplicas() {
        return values.intValue("min.insync.replicas");
    }

    /**
     * {@code unclean.leader.election.enable} (default false, as Kafka). Only false is supported: a replica outside
     * the ISR never leads, so an acknowledged record is never given up for availability.
     */
    public boolean uncleanLeaderElectionEnable() {
        return values.booleanValue("unclean.leader.election.enable");
    }

    /** {@code replica.lag.time.max.ms} (default 30000, as Kafka): a follower not caught up for this long leaves the ISR. */
    public long replicaLagTimeMaxMs() {
        return values.longValue("replica.lag.time.max.ms");
    }

    /** {@code replica.fetch.max.bytes} (default 1048576, as Kafka): bytes per partition in a follower's fetch. */
    public int replicaFetchMaxBytes() {
        return values.intValue("replica.fetch.max.bytes");
    }

    /** {@code replica.fetch.min.bytes} (default 1, as Kafka). */
    public int replicaFetchMinBytes() {
        return values.intValue("replica.fetch.min.bytes");
    }

    /** {@code replica.fetch.wait.max.ms} (default 500, as Kafka): how long a follower's fetch may wait for data. */
    public int replicaFetchWaitMaxMs() {
        return values.intValue("replica.fetch.wait.max.ms");
    }

    /** {@code replica.fetch.backoff.ms} (default 1000, as Kafka): pause after a failed follower fetch. */
    public int replicaFetchBackoffMs() {
        return values.intValue("replica.fetch.backoff.ms");
    }

    /** {@code replica.socket.timeout.ms} (default 30000, as Kafka): a follower's request timeout. */
    public int replicaSocketTimeoutMs() {
        return values.intValue("replica.socket.timeout.ms");
    }

    /** {@code group.initial.rebalance.delay.ms} (default 3000, as Kafka). */
    public int groupInitialRebalanceDelayMs() {
        return values.intValue("group.initial.rebalance.delay.ms");
    }

    /** {@code group.min.session.timeout.ms} (default 6000, as Kafka). */
    public int groupMinSessionTimeoutMs() {
        return values.intValue("group.min.session.timeout.ms");
    }

    /** {@code group.max.session.timeout.ms} (default 1800000, as Kafka). */
    public int groupMaxSessionTimeoutMs() {
        return values.intValue("group.max.session.timeout.ms");
    }

    public int numPartitions() {
        return values.intValue("num.partitions");
    }

    public boolean autoCreateTopics() {
        return values.booleanValue("auto.create.topics.enable");
    }

    public long retentionCheckIntervalMs() {
        return values.longValue("log.retention.check.interval.ms");
    }

    /** Topic config defaults under topic config names (e.g. retention.ms). */
    public Map<String, String> topicDefaults() {
        return topicDefaults;
    }
}
