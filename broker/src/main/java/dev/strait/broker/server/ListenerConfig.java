package dev.strait.broker.server;

import dev.strait.broker.server.BrokerConfig.Listener;
import dev.strait.settings.ConfigException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * Where a node listens and whom it talks to, parsed once from the settings whose values have a format of their own
 * that {@link BrokerSettings} cannot check per value: {@code listeners}, {@code advertised.listeners},
 * {@code listener.security.protocol.map}, {@code controller.listener.names} and the inter-broker listener
 * ({@code inter.broker.listener.name} or {@code security.inter.broker.protocol}). Each bad value fails with a
 * {@link ConfigException} naming its setting. Immutable.
 *
 * <p>The controller quorum's voters, and whether they fit the node's roles, are {@link QuorumVoters}'.
 */
final class ListenerConfig {

    private static final Pattern LISTENER = Pattern.compile("([A-Za-z_]+)://(\\[[^\\]]*\\]|[^:]*):(\\d+)");
    private static final Set<String> SECURITY_PROTOCOLS = Set.of("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL");
    private static final Set<String> SECURED_NAMES = Set.of("SSL", "SASL_PLAINTEXT", "SASL_SSL");

    private final String listeners;
    private final Set<String> controllerNames;
    private final List<Listener> brokerListeners;
    private final @Nullable Listener controllerListener;
    private final Map<String, String> protocols;
    private final String controllerSecurityProtocol;
    private final Map<String, Listener> advertised;
    private final String interBrokerListenerName;

    private ListenerConfig(Map<String, String> props) {
        String value = props.get(NodeSettings.LISTENERS.name());
        this.listeners = (value == null
                        ? Objects.requireNonNull(NodeSettings.LISTENERS.defaultValue(), "listeners has a default")
                        : value)
                .trim();
        this.controllerNames = controllerNames(props.get(ClusterSettings.CONTROLLER_LISTENER_NAMES.name()));
        List<Listener> parsed = parseListeners(NodeSettings.LISTENERS.name(), listeners);
        List<Listener> clients =
                parsed.stream().filter(l -> !controllerNames.contains(l.name())).toList();
        if (clients.isEmpty()) {
            throw new ConfigException(
                    NodeSettings.LISTENERS.name(),
                    listeners,
                    "no broker listener (every listener is named in controller.listener.names)");
        }
        this.brokerListeners = List.copyOf(clients);
        this.controllerListener = parsed.stream()
                .filter(l -> controllerNames.contains(l.name()))
                .findFirst()
                .orElse(null);
        String map = props.get(SecuritySettings.LISTENER_SECURITY_PROTOCOL_MAP.name());
        Map<String, String> explicit = protocolMap(map);
        this.protocols = listenerProtocols(map, explicit, parsed, controllerNames);
        this.controllerSecurityProtocol = controllerSecurityProtocol(explicit);
        this.advertised = advertisedListeners(props.get(ClusterSettings.ADVERTISED_LISTENERS.name()));
        this.interBrokerListenerName = interBrokerListener(
                props.get(SecuritySettings.INTER_BROKER_LISTENER_NAME.name()),
                props.get(SecuritySettings.SECURITY_INTER_BROKER_PROTOCOL.name()));
    }

    /**
     * The listener settings among {@code props} (the properties as given), defaults filled in.
     *
     * @throws ConfigException for the first bad value, naming its setting
     */
    static ListenerConfig parse(Map<String, String> props) {
        return new ListenerConfig(props);
    }

    /** {@code controller.listener.names}, upper case, in order; empty when unset. */
    Set<String> controllerNames() {
        return controllerNames;
    }

    /** The first of {@code controller.listener.names}, or null. */
    @Nullable
    String controllerListenerName() {
        return controllerNames.isEmpty() ? null : controllerNames.iterator().next();
    }

    /** The broker (non-controller) listeners, in the order of {@code listeners}; never empty. */
    List<Listener> brokerListeners() {
        return brokerListeners;
    }

    /** The controller listener among {@code listeners}, if any. */
    Optional<Listener> controllerListener() {
        return Optional.ofNullable(controllerListener);
    }

    /** Each listener's name and security protocol. */
    Map<String, String> protocols() {
        return protocols;
    }

    /** The controller listener's protocol, also when it is not among this node's listeners; PLAINTEXT by default. */
    String controllerSecurityProtocol() {
        return controllerSecurityProtocol;
    }

    /** {@code advertised.listeners} by listener name. */
    Map<String, Listener> advertised() {
        return advertised;
    }

    /** The broker listener broker-to-broker clients use (upper case). */
    String interBrokerListenerName() {
        return interBrokerListenerName;
    }

    /** The text of {@code listeners} as given (trimmed), else its default. */
    String listenersText() {
        return listeners;
    }

    /** {@code value} as a list of {@code NAME://host:port}; {@code name} is the setting it is the value of. */
    static List<Listener> parseListeners(String name, String value) {
        List<Listener> result = new ArrayList<>();
        Set<String> seen = new HashSet<>();
        for (String part : value.split(",")) {
            Matcher m = LISTENER.matcher(part.trim());
            if (!m.matches()) {
                throw new ConfigException(name, value, "expected NAME://host:port[,NAME://host:port]");
            }
            String listener = m.group(1).toUpperCase(Locale.ROOT);
            String host = unbracketed(m.group(2));
            int port;
            try {
                port = Integer.parseInt(m.group(3));
            } catch (NumberFormatException e) {
                throw new ConfigException(name, value, "port must be <= 65535");
            }
            if (port > 65535) {
                throw new ConfigException(name, value, "port must be <= 65535");
            }
            if (!seen.add(listener)) {
                throw new ConfigException(name, value, "listener name " + listener + " appears twice");
            }
            result.add(new Listener(listener, host.isEmpty() ? "0.0.0.0" : host, port));
        }
        return result;
    }

    /** {@code host} without the brackets of an IPv6 literal ({@code [::1]}). */
    static String unbracketed(String host) {
        return host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
    }

    private static Set<String> controllerNames(@Nullable String value) {
        Set<String> names = new LinkedHashSet<>();
        if (value != null) {
            for (String part : value.split(",")) {
                if (!part.isBlank()) {
                    names.add(part.trim().toUpperCase(Locale.ROOT));
                }
            }
            if (names.isEmpty()) {
                throw new ConfigException(
                        ClusterSettings.CONTROLLER_LISTENER_NAMES.name(), value, "needs at least one name");
            }
        }
        return Collections.unmodifiableSet(names);
    }

    /** The entries of {@code listener.security.protocol.map}, names and protocols upper case. */
    private static Map<String, String> protocolMap(@Nullable String value) {
        Map<String, String> map = new LinkedHashMap<>();
        if (value == null || value.isBlank()) {
            return map;
        }
        for (String part : value.split(",")) {
            String[] pair = part.trim().split(":");
            if (pair.length != 2 || pair[0].isBlank()) {
                throw new ConfigException(
                        SecuritySettings.LISTENER_SECURITY_PROTOCOL_MAP.name(), value, "expected NAME:PROTOCOL,...");
            }
            String protocol = pair[1].trim().toUpperCase(Locale.ROOT);
            if (!SECURITY_PROTOCOLS.contains(protocol)) {
                throw new ConfigException(
                        SecuritySettings.LISTENER_SECURITY_PROTOCOL_MAP.name(),
                        value,
                        "unknown security protocol " + pair[1].trim()
                                + " (PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL)");
            }
            map.put(pair[0].trim().toUpperCase(Locale.ROOT), protocol);
        }
        return map;
    }

    /**
     * Each listener's security protocol, as Kafka resolves it: from {@code listener.security.protocol.map}, else the
     * listener's name when it is a protocol's, else PLAINTEXT for a controller listener (Kafka's KRaft default).
     * The controller wire speaks PLAINTEXT or SSL (mutual TLS); SASL is for client listeners.
     */
    private static Map<String, String> listenerProtocols(
            @Nullable String value, Map<String, String> map, List<Listener> listeners, Set<String> controllerNames) {
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
                            SecuritySettings.LISTENER_SECURITY_PROTOCOL_MAP.name(),
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
                        SecuritySettings.LISTENER_SECURITY_PROTOCOL_MAP.name(),
                        value,
                        "no security protocol for listener " + listener.name() + ": map it, e.g. " + listener.name()
                                + ":SASL_SSL (a controller listener must also be named in "
                                + "controller.listener.names)");
            }
            if (controllerNames.contains(listener.name()) && protocol.startsWith("SASL")) {
                throw new ConfigException(
                        SecuritySettings.LISTENER_SECURITY_PROTOCOL_MAP.name(),
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
     * The protocol a broker-only node dials the voters with: its controller listener is not among its own
     * listeners, so only the map names it.
     */
    private String controllerSecurityProtocol(Map<String, String> map) {
        String name = controllerListenerName();
        if (name == null) {
            return "PLAINTEXT";
        }
        String protocol = protocols.get(name);
        if (protocol == null) {
            protocol = map.get(name);
        }
        return protocol == null ? "PLAINTEXT" : protocol;
    }

    /**
     * Kafka's inter-broker listener settings: the broker listener replica fetchers (and every other broker-to-broker
     * client) connect to, with that listener's credentials ({@code sasl.mechanism.inter.broker.protocol} and its
     * JAAS entry, or its keystore for mutual TLS). {@code inter.broker.listener.name} names it;
     * {@code security.inter.broker.protocol} picks the listener named like the protocol, else the one broker
     * listener speaking it. With neither, a node's only broker listener, else the one named PLAINTEXT (Kafka's
     * default).
     */
    private String interBrokerListener(@Nullable String name, @Nullable String protocol) {
        if (name != null && protocol != null) {
            throw new ConfigException(
                    SecuritySettings.SECURITY_INTER_BROKER_PROTOCOL.name(),
                    protocol,
                    "set inter.broker.listener.name or security.inter.broker.protocol, not both (as Kafka)");
        }
        List<String> names = brokerListeners.stream().map(Listener::name).toList();
        if (name != null) {
            String wanted = name.trim().toUpperCase(Locale.ROOT);
            if (!names.contains(wanted)) {
                throw new ConfigException(
                        SecuritySettings.INTER_BROKER_LISTENER_NAME.name(),
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
            String wanted = protocol.trim().toUpperCase(Locale.ROOT);
            if (names.contains(wanted)) {
                return wanted;
            }
            List<String> speaking =
                    names.stream().filter(n -> wanted.equals(protocols.get(n))).toList();
            if (speaking.size() != 1) {
                throw new ConfigException(
                        SecuritySettings.SECURITY_INTER_BROKER_PROTOCOL.name(),
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
                NodeSettings.LISTENERS.name(),
                listeners,
                "several broker listeners " + names + ": set inter.broker.listener.name to the one replicas "
                        + "fetch from");
    }

    private String describeProtocols(List<String> names) {
        List<String> described = new ArrayList<>();
        for (String name : names) {
            described.add(name + ":" + protocols.get(name));
        }
        return String.join(",", described);
    }

    /** {@code advertised.listeners} by listener name; a broker listener not named there advertises its own address. */
    private static Map<String, Listener> advertisedListeners(@Nullable String value) {
        if (value == null || value.isBlank()) {
            return Map.of();
        }
        Map<String, Listener> result = new LinkedHashMap<>();
        for (Listener listener : parseListeners(ClusterSettings.ADVERTISED_LISTENERS.name(), value.trim())) {
            if (listener.host().equals("0.0.0.0") || listener.port() == 0) {
                throw new ConfigException(
                        ClusterSettings.ADVERTISED_LISTENERS.name(),
                        value,
                        "must name a reachable host and a port (not 0.0.0.0 or 0): " + listener.name());
            }
            result.put(listener.name(), listener);
        }
        return Collections.unmodifiableMap(result);
    }
}
