package dev.strait.broker.server;

import dev.strait.settings.ConfigException;
import dev.strait.settings.Setting;
import dev.strait.settings.SettingGroup;
import dev.strait.settings.SettingTable;
import dev.strait.settings.SettingValues;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Every broker setting, declared once: Kafka's name, type, default, allowed values, group and documentation.
 * {@link BrokerConfig} parses and checks a node's properties with it, and {@link BrokerSettingsDoc} renders
 * {@code config/broker.properties} and the broker section of {@code docs/reference.md} from it, so that what is
 * accepted, what is documented and what the example file shows cannot drift apart (a test compares the committed
 * file with a fresh rendering).
 *
 * <p>Each setting is a {@link Setting} (the shared declaration of the settings module), a constant of its Java type
 * ({@code Setting<Integer> NODE_ID}...), declared in the class of its {@link Group} ({@link NodeSettings},
 * {@link ClusterSettings}, {@link ReplicationSettings}, {@link TopicDefaultSettings}, {@link CompactionSettings},
 * {@link ConsumerGroupSettings}, {@link TransactionSettings}, {@link SecuritySettings}, {@link TlsSettings}), so that {@link BrokerConfig} reads
 * values by constant rather than by name. This class gathers the groups into one {@link SettingTable}: {@link #all()}
 * lists the settings in the order of the documentation, and settings are found here by name or key (a per-listener
 * key included).
 *
 * <p>The checks here are per value (type, range, allowed values, format); checks across settings (a controller
 * needs a controller listener, the heartbeat must be shorter than the session...) are {@link BrokerConfig}'s.
 */
public final class BrokerSettings {

    /** The groups settings are documented in, in order. */
    public static final class Group {

        public static final SettingGroup NODE =
                new SettingGroup("The node", "node.id, listeners and log.dirs are all a standalone node needs.");

        public static final SettingGroup CLUSTER = new SettingGroup(
                "A replicated cluster",
                "KRaft's names; every node of a cluster is a broker, and a voter of the controller quorum too when"
                        + " process.roles includes controller. Without controller.quorum.voters the node is a"
                        + " standalone one-node cluster whose metadata is a local file.");

        public static final SettingGroup REPLICATION =
                new SettingGroup("Replication", "How partitions are replicated and followers kept in sync.");

        public static final SettingGroup TOPICS = new SettingGroup(
                "Topic defaults",
                "Broker-wide defaults of topic configs; a topic's own config (named in brackets) overrides them.");

        public static final SettingGroup COMPACTION =
                new SettingGroup("Compaction", "The log cleaner, which compacts topics with cleanup.policy compact.");

        public static final SettingGroup GROUPS =
                new SettingGroup("Consumer groups", "The group coordinator and the offsets topic it keeps commits in.");

        public static final SettingGroup TRANSACTIONS = new SettingGroup(
                "Transactions",
                "The transaction coordinator, which serves transactional producers, and the topic it keeps their"
                        + " state in.");

        public static final SettingGroup SECURITY = new SettingGroup(
                "Security",
                "Listeners' security protocols, SASL and authorization. docs/operating.md walks through a secured"
                        + " cluster, and config/broker-secured.properties is one node of it.");

        public static final SettingGroup TLS = new SettingGroup(
                "TLS",
                "Kafka's ssl.* settings, applied by Kafka's own SslFactory to every SSL and SASL_SSL listener. Each"
                        + " may be set for one listener only as listener.name.<listener>.<setting>, e.g."
                        + " listener.name.controller.ssl.client.auth=required.");

        private Group() {}
    }

    /** Every setting, group by group in the order of {@link Group}, each group in its own class. */
    private static final SettingTable TABLE = new SettingTable(
            "broker",
            SettingTable.concat(
                    NodeSettings.ALL,
                    ClusterSettings.ALL,
                    ReplicationSettings.ALL,
                    TopicDefaultSettings.ALL,
                    CompactionSettings.ALL,
                    ConsumerGroupSettings.ALL,
                    TransactionSettings.ALL,
                    SecuritySettings.ALL,
                    TlsSettings.ALL));

    private BrokerSettings() {}

    /** The broker's table, as the shared settings code reads and documents it. */
    public static SettingTable table() {
        return TABLE;
    }

    /** Every setting, in the order of the documentation. */
    public static List<Setting<?>> all() {
        return TABLE.all();
    }

    /** The setting named {@code name} (its own name, not a listener's prefixed form). */
    public static Setting<?> get(String name) {
        return TABLE.get(name);
    }

    /**
     * The setting {@code key} sets: the setting of that name, or for a per-listener setting the one that
     * {@code listener.name.<listener>.<name>} (or {@code listener.name.<listener>.<mechanism>.<name>}) overrides.
     */
    public static Optional<Setting<?>> forKey(String key) {
        return TABLE.forKey(key);
    }

    /** Whether the value of {@code key} is secret; a key that is no setting counts as secret if it looks like one. */
    public static boolean sensitive(String key) {
        return TABLE.sensitive(key);
    }

    /**
     * Parses and checks each value of {@code props} (types, ranges, allowed values, formats) and fills in the
     * defaults.
     *
     * @throws ConfigException for the first bad value, naming its key
     */
    static SettingValues parse(Map<String, String> props) {
        return TABLE.parse(props);
    }

    /** The warning for a key that is no broker setting: one line, with the setting meant when that is clear. */
    static String unknownWarning(String key) {
        return TABLE.unknownWarning(key);
    }
}
