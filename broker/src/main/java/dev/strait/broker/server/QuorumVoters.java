package dev.strait.broker.server;

import dev.strait.broker.server.BrokerConfig.Listener;
import dev.strait.settings.ConfigException;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The node's place in the controller quorum, parsed once from {@code controller.quorum.voters} and
 * {@code process.roles}, whose values have formats of their own that {@link BrokerSettings} cannot check per value,
 * and checked against the node: a voter has the controller role and a controller listener, and the other way
 * round. Without voters the node is a standalone one-node cluster. Each bad value fails with a
 * {@link ConfigException} naming its setting. Immutable.
 */
final class QuorumVoters {

    private static final Pattern VOTER = Pattern.compile("(\\d+)@(\\[[^\\]]*\\]|[^:@]+):(\\d+)");
    private static final String VOTERS = ClusterSettings.CONTROLLER_QUORUM_VOTERS.name();
    private static final String ROLES = ClusterSettings.PROCESS_ROLES.name();

    private final Map<Integer, Listener> voters;
    private final Set<String> processRoles;

    private QuorumVoters(Map<Integer, Listener> voters, Set<String> processRoles) {
        this.voters = voters;
        this.processRoles = processRoles;
    }

    /**
     * The quorum settings among {@code props} (the properties as given) of node {@code nodeId}, whose listeners are
     * {@code listeners}.
     *
     * @throws ConfigException for the first bad value, or the first setting that does not fit the others, naming it
     */
    static QuorumVoters parse(Map<String, String> props, int nodeId, ListenerConfig listeners) {
        QuorumVoters quorum = new QuorumVoters(parseVoters(props.get(VOTERS)), parseRoles(props.get(ROLES)));
        quorum.check(props, nodeId, listeners);
        return quorum;
    }

    /** {@code controller.quorum.voters}: voter id to its controller endpoint, by id; empty when unset. */
    Map<Integer, Listener> voters() {
        return voters;
    }

    /** {@code process.roles}, lower case and sorted; empty for a standalone node. */
    Set<String> processRoles() {
        return processRoles;
    }

    /** {@code value} of {@code controller.quorum.voters} as voter id to endpoint; empty when null or blank. */
    static Map<Integer, Listener> parseVoters(@Nullable String value) {
        if (value == null || value.isBlank()) {
            return Map.of();
        }
        Map<Integer, Listener> voters = new TreeMap<>();
        for (String part : value.split(",")) {
            Matcher m = VOTER.matcher(part.trim());
            if (!m.matches()) {
                throw new ConfigException(VOTERS, value, "expected id@host:port[,id@host:port]");
            }
            int id;
            int port;
            try {
                id = Integer.parseInt(m.group(1));
                port = Integer.parseInt(m.group(3));
            } catch (NumberFormatException e) {
                throw new ConfigException(VOTERS, value, "id or port out of range");
            }
            if (port < 1 || port > 65535) {
                throw new ConfigException(VOTERS, value, "port must be 1..65535 in " + part.trim());
            }
            Listener endpoint = new Listener("CONTROLLER", ListenerConfig.unbracketed(m.group(2)), port);
            if (voters.put(id, endpoint) != null) {
                throw new ConfigException(VOTERS, value, "voter " + id + " appears twice");
            }
        }
        return Collections.unmodifiableMap(voters);
    }

    /**
     * {@code value} of {@code process.roles}; empty when null. Read from the text as given rather than the table's
     * list, which would skip empty elements this refuses.
     */
    private static Set<String> parseRoles(@Nullable String value) {
        if (value == null) {
            return Set.of();
        }
        Set<String> roles = new TreeSet<>();
        for (String part : value.split(",")) {
            String role = part.trim().toLowerCase(Locale.ROOT);
            if (!role.equals("broker") && !role.equals("controller")) {
                throw new ConfigException(ROLES, value, "expected broker, controller or broker,controller");
            }
            roles.add(role);
        }
        if (!roles.contains("broker")) {
            throw new ConfigException(
                    ROLES, value, "a controller-only node is not supported yet; use broker,controller");
        }
        return Collections.unmodifiableSet(roles);
    }

    /** How the voters fit the node's roles, id and listeners. */
    private void check(Map<String, String> props, int nodeId, ListenerConfig listeners) {
        Set<String> controllerNames = listeners.controllerNames();
        if (voters.isEmpty()) {
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
        if (controller != voters.containsKey(nodeId)) {
            throw new ConfigException(
                    VOTERS,
                    props.get(VOTERS),
                    controller
                            ? "node.id " + nodeId + " has the controller role but is not a voter"
                            : "node.id " + nodeId + " is a voter but process.roles lacks controller");
        }
        if (controller && listeners.controllerListener().isEmpty()) {
            throw new ConfigException(
                    NodeSettings.LISTENERS.name(),
                    props.getOrDefault(NodeSettings.LISTENERS.name(), ""),
                    "a controller needs a listener named in controller.listener.names " + controllerNames);
        }
    }
}
