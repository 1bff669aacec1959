package dev.strait.broker.server;

import dev.strait.broker.server.BrokerSetting.Scope;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Every broker setting, declared once: Kafka's name, type, default, allowed values, group and documentation.
 * {@link BrokerConfig} parses and checks a node's properties with it, and {@link BrokerSettingsDoc} renders
 * {@code config/broker.properties} and the broker section of {@code docs/reference.md} from it, so that what is
 * accepted, what is documented and what the example file shows cannot drift apart (a test compares the committed
 * file with a fresh rendering).
 *
 * <p>Each setting is a constant of its Java type ({@code BrokerSetting<Integer> NODE_ID}...), declared in the class
 * of its {@link Group} ({@link NodeSettings}, {@link ClusterSettings}, {@link ReplicationSettings},
 * {@link TopicDefaultSettings}, {@link CompactionSettings}, {@link ConsumerGroupSettings}, {@link SecuritySettings},
 * {@link TlsSettings}), so that {@link BrokerConfig} reads values by constant rather than by name. This class
 * gathers the groups into one table: {@link #all()} lists the settings in the order of the documentation, and
 * settings are found here by name or key.
 *
 * <p>The checks here are per value (type, range, allowed values, format); checks across settings (a controller
 * needs a controller listener, the heartbeat must be shorter than the session...) are {@link BrokerConfig}'s.
 */
public final class BrokerSettings {

    /** The groups settings are documented in, in order. */
    public enum Group {
        NODE("The node", "node.id, listeners and log.dirs are all a standalone node needs."),
        CLUSTER(
                "A replicated cluster",
                "KRaft's names; every node of a cluster is a broker, and a voter of the controller quorum too when"
                        + " process.roles includes controller. Without controller.quorum.voters the node is a"
                        + " standalone one-node cluster whose metadata is a local file."),
        REPLICATION("Replication", "How partitions are replicated and followers kept in sync."),
        TOPICS(
                "Topic defaults",
                "Broker-wide defaults of topic configs; a topic's own config (named in brackets) overrides them."),
        COMPACTION("Compaction", "The log cleaner, which compacts topics with cleanup.policy compact."),
        GROUPS("Consumer groups", "The group coordinator and the offsets topic it keeps commits in."),
        SECURITY(
                "Security",
                "Listeners' security protocols, SASL and authorization. docs/operating.md walks through a secured"
                        + " cluster, and config/broker-secured.properties is one node of it."),
        TLS(
                "TLS",
                "Kafka's ssl.* settings, applied by Kafka's own SslFactory to every SSL and SASL_SSL listener. Each"
                        + " may be set for one listener only as listener.name.<listener>.<setting>, e.g."
                        + " listener.name.controller.ssl.client.auth=required.");

        private final String title;
        private final String intro;

        Group(String title, String intro) {
            this.title = title;
            this.intro = intro;
        }

        public String title() {
            return title;
        }

        public String intro() {
            return intro;
        }
    }

    private static final String LISTENER_PREFIX = "listener.name.";

    /** Every setting, group by group in the order of {@link Group}, each group in its own class. */
    private static final List<BrokerSetting<?>> ALL = concat(
            NodeSettings.ALL,
            ClusterSettings.ALL,
            ReplicationSettings.ALL,
            TopicDefaultSettings.ALL,
            CompactionSettings.ALL,
            ConsumerGroupSettings.ALL,
            SecuritySettings.ALL,
            TlsSettings.ALL);

    private static final Map<String, BrokerSetting<?>> BY_NAME;

    static {
        Map<String, BrokerSetting<?>> byName = new LinkedHashMap<>();
        for (BrokerSetting<?> setting : ALL) {
            if (byName.put(setting.name(), setting) != null) {
                throw new ExceptionInInitializerError("broker setting " + setting.name() + " declared twice");
            }
        }
        BY_NAME = Collections.unmodifiableMap(byName);
    }

    private BrokerSettings() {}

    @SafeVarargs
    private static List<BrokerSetting<?>> concat(List<BrokerSetting<?>>... groups) {
        List<BrokerSetting<?>> all = new ArrayList<>();
        for (List<BrokerSetting<?>> group : groups) {
            all.addAll(group);
        }
        return List.copyOf(all);
    }

    /** Every setting, in the order of the documentation. */
    public static List<BrokerSetting<?>> all() {
        return ALL;
    }

    /** The setting named {@code name} (its own name, not a listener's prefixed form). */
    public static BrokerSetting<?> get(String name) {
        BrokerSetting<?> setting = BY_NAME.get(name);
        if (setting == null) {
            throw new IllegalArgumentException("no broker setting " + name);
        }
        return setting;
    }

    /**
     * The setting {@code key} sets: the setting of that name, or for a per-listener setting the one that
     * {@code listener.name.<listener>.<name>} (or {@code listener.name.<listener>.<mechanism>.<name>}) overrides.
     */
    public static Optional<BrokerSetting<?>> forKey(String key) {
        BrokerSetting<?> direct = BY_NAME.get(key);
        if (direct != null && direct.scope() != Scope.LISTENER_MECHANISM) {
            return Optional.of(direct);
        }
        if (!key.startsWith(LISTENER_PREFIX)) {
            return Optional.empty();
        }
        String rest = key.substring(LISTENER_PREFIX.length());
        int dot = rest.indexOf('.');
        if (dot <= 0) {
            return Optional.empty();
        }
        String afterListener = rest.substring(dot + 1);
        BrokerSetting<?> perListener = BY_NAME.get(afterListener);
        if (perListener != null && perListener.scope() == Scope.LISTENER) {
            return Optional.of(perListener);
        }
        int mechanismDot = afterListener.indexOf('.');
        if (mechanismDot > 0) {
            BrokerSetting<?> perMechanism = BY_NAME.get(afterListener.substring(mechanismDot + 1));
            if (perMechanism != null && perMechanism.scope() == Scope.LISTENER_MECHANISM) {
                return Optional.of(perMechanism);
            }
        }
        return Optional.empty();
    }

    /** Whether the value of {@code key} is secret; a key that is no setting counts as secret if it looks like one. */
    public static boolean sensitive(String key) {
        Optional<BrokerSetting<?>> setting = forKey(key);
        if (setting.isPresent()) {
            return setting.get().sensitive();
        }
        String lower = key.toLowerCase(Locale.ROOT);
        return lower.contains("password")
                || lower.contains("secret")
                || lower.contains("jaas")
                || lower.contains("credential")
                || lower.endsWith(".key");
    }

    /**
     * Parses and checks each value of {@code props} (types, ranges, allowed values, formats) and fills in the
     * defaults.
     *
     * @throws ConfigException for the first bad value, naming its key
     */
    static SettingValues parse(Map<String, String> props) {
        Map<String, Object> values = new LinkedHashMap<>();
        Set<String> given = new LinkedHashSet<>();
        List<String> unknown = new ArrayList<>();
        for (Map.Entry<String, String> entry : props.entrySet()) {
            String key = entry.getKey();
            Optional<BrokerSetting<?>> setting = forKey(key);
            if (setting.isEmpty()) {
                unknown.add(key);
                continue;
            }
            if (entry.getValue() == null) {
                throw new ConfigException("Missing value for configuration " + key);
            }
            Object value = setting.get().parse(key, entry.getValue());
            if (key.equals(setting.get().name())) {
                values.put(key, value);
                given.add(key);
            }
        }
        for (BrokerSetting<?> setting : ALL) {
            if (!values.containsKey(setting.name())
                    && setting.defaultValue() != null
                    && setting.scope() != Scope.LISTENER_MECHANISM) {
                values.put(setting.name(), setting.parse(setting.name(), setting.defaultValue()));
            }
        }
        return new SettingValues(values, given, unknown);
    }

    /** The warning for a key that is no broker setting: one line, with the setting meant when that is clear. */
    static String unknownWarning(String key) {
        BrokerSetting<?> exact = BY_NAME.get(key);
        if (exact != null && exact.scope() == Scope.LISTENER_MECHANISM) {
            return "ignoring broker config '" + key + "': it is only read per listener and mechanism, as "
                    + "listener.name.<listener>.<mechanism>." + key;
        }
        String closest = null;
        int best = 3;
        for (String name : BY_NAME.keySet()) {
            int distance = distance(key, name, best);
            if (distance < best) {
                best = distance;
                closest = name;
            }
        }
        return "ignoring unknown broker config '" + key + "'"
                + (closest == null ? "" : "; did you mean '" + closest + "'?");
    }

    /** Levenshtein distance of {@code a} and {@code b}, or {@code limit} once it is known to be at least that. */
    private static int distance(String a, String b, int limit) {
        if (Math.abs(a.length() - b.length()) >= limit) {
            return limit;
        }
        int[] previous = new int[b.length() + 1];
        int[] current = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            previous[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            current[0] = i;
            int rowMin = current[0];
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                current[j] = Math.min(Math.min(current[j - 1] + 1, previous[j] + 1), previous[j - 1] + cost);
                rowMin = Math.min(rowMin, current[j]);
            }
            if (rowMin >= limit) {
                return limit;
            }
            int[] swap = previous;
            previous = current;
            current = swap;
        }
        return Math.min(previous[b.length()], limit);
    }
}
