package dev.strait.broker.partition;

import static dev.strait.broker.partition.TopicConfigSettings.TABLE;

import dev.strait.broker.log.LogConfig;
import dev.strait.broker.log.TimestampType;
import dev.strait.broker.metadata.MirrorTruncation;
import dev.strait.settings.ConfigException;
import dev.strait.settings.Setting;
import dev.strait.settings.SettingValues;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * A topic's configs, as Kafka names the map a topic carries: checked against the table of every config this broker
 * accepts ({@link TopicConfigSettings}: Kafka 4.1.1's, with Kafka's names, types, defaults and checks, plus Strait's
 * {@code flush.on.ack} and mirror-topic configs), read into the {@link LogConfig} the log acts on, and merged from
 * built-in defaults, broker defaults and topic overrides. What the broker does with each config is documented in
 * the table, and rendered into docs/reference.md. Stateless.
 */
public final class TopicConfigs {

    public static final String CLEANUP_POLICY = TopicConfigSettings.CLEANUP_POLICY.name();
    /** Replication, not the log: the ISR size an acks=all produce needs. */
    public static final String MIN_INSYNC_REPLICAS = TopicConfigSettings.MIN_INSYNC_REPLICAS.name();

    /** A mirror topic's source cluster ({@code host:port,...}); empty on a topic that is not a mirror. */
    public static final String MIRROR_SOURCE_BOOTSTRAP_SERVERS =
            TopicConfigSettings.MIRROR_SOURCE_BOOTSTRAP_SERVERS.name();
    /** A mirror topic's source as a link named in the brokers' settings; instead of the bootstrap servers. */
    public static final String MIRROR_LINK = TopicConfigSettings.MIRROR_LINK.name();
    /** The topic on the source cluster a mirror topic copies; empty means the same name. */
    public static final String MIRROR_SOURCE_TOPIC = TopicConfigSettings.MIRROR_SOURCE_TOPIC.name();
    /** The source topic's id when mirroring began: a source topic deleted and re-created is not copied on top. */
    public static final String MIRROR_SOURCE_TOPIC_ID = TopicConfigSettings.MIRROR_SOURCE_TOPIC_ID.name();
    /** {@code mirroring}, {@code paused} or {@code promoted}: see {@link TopicConfigSettings#MIRROR_STATE}. */
    public static final String MIRROR_STATE = TopicConfigSettings.MIRROR_STATE.name();

    public static final String MIRROR_STATE_MIRRORING = "mirroring";
    public static final String MIRROR_STATE_PAUSED = "paused";
    public static final String MIRROR_STATE_PROMOTED = "promoted";
    /** A failback's cut of a mirror topic: {@code partition:offset,...}, made once per {@link #MIRROR_TRUNCATE_ID}. */
    public static final String MIRROR_TRUNCATE_OFFSETS = MirrorTruncation.OFFSETS_CONFIG;
    /** Names one failback's truncation, so a replica applies it once (a restart does not cut again). */
    public static final String MIRROR_TRUNCATE_ID = MirrorTruncation.ID_CONFIG;

    /** Per partition, the source epochs a mirror topic's leaders copied: see {@link dev.strait.broker.link.MirrorLineage}. */
    public static final String MIRROR_SOURCE_LINEAGE = TopicConfigSettings.MIRROR_SOURCE_LINEAGE.name();

    /** Supported keys with the built-in defaults (Kafka's), in the table's order. */
    public static final Map<String, String> BUILT_IN_DEFAULTS;

    static {
        Map<String, String> defaults = new LinkedHashMap<>();
        for (Setting<?> setting : TABLE.all()) {
            String value = setting.defaultValue();
            if (value == null) {
                throw new IllegalStateException("topic config " + setting.name() + " has no default");
            }
            defaults.put(setting.name(), value);
        }
        BUILT_IN_DEFAULTS = Collections.unmodifiableMap(defaults);
    }

    private TopicConfigs() {}

    /** Whether a topic's config overrides make it a mirror topic (it names a source cluster). */
    public static boolean isMirror(Map<String, String> overrides) {
        return !overrides.getOrDefault(MIRROR_SOURCE_BOOTSTRAP_SERVERS, "").isBlank()
                || !overrides.getOrDefault(MIRROR_LINK, "").isBlank();
    }

    public static Set<String> supportedKeys() {
        return BUILT_IN_DEFAULTS.keySet();
    }

    /**
     * The type of a supported config's value, as DescribeConfigs reports it.
     *
     * @throws IllegalArgumentException for a key that is no topic config
     */
    public static Setting.Type type(String key) {
        if (!supportedKeys().contains(key)) {
            throw new IllegalArgumentException("unknown topic config '" + key + "'");
        }
        return TABLE.get(key).type();
    }

    /**
     * Checks names and values: each value as the table declares it, and min.compaction.lag.ms not above
     * max.compaction.lag.ms (each missing one at its built-in default).
     *
     * @throws IllegalArgumentException naming the bad config and its value
     */
    public static void validate(Map<String, String> configs) {
        SettingValues values = parse(configs);
        long minLagMs = values.get(TopicConfigSettings.MIN_COMPACTION_LAG_MS);
        long maxLagMs = values.get(TopicConfigSettings.MAX_COMPACTION_LAG_MS);
        if (minLagMs > maxLagMs) {
            // Kafka's cross-check and message (LogConfig.validateValues)
            throw new IllegalArgumentException("conflict topic config setting min.compaction.lag.ms (" + minLagMs
                    + ") > max.compaction.lag.ms (" + maxLagMs + ")");
        }
    }

    /**
     * The log config for a topic from its effective configs (built-in defaults, then broker defaults, then topic
     * overrides; a missing one at its built-in default).
     *
     * @throws IllegalArgumentException naming a bad config, though they were checked when they were set
     */
    public static LogConfig toLogConfig(Map<String, String> configs) {
        SettingValues values = parse(configs);
        return new LogConfig(
                values.get(TopicConfigSettings.SEGMENT_BYTES),
                values.get(TopicConfigSettings.SEGMENT_MS),
                values.get(TopicConfigSettings.RETENTION_MS),
                values.get(TopicConfigSettings.RETENTION_BYTES),
                values.get(TopicConfigSettings.MAX_MESSAGE_BYTES),
                values.get(TopicConfigSettings.INDEX_INTERVAL_BYTES),
                TimestampType.forConfigValue(values.get(TopicConfigSettings.MESSAGE_TIMESTAMP_TYPE)),
                LogConfig.CleanupPolicy.forPolicies(values.get(TopicConfigSettings.CLEANUP_POLICY)),
                values.get(TopicConfigSettings.DELETE_RETENTION_MS),
                values.get(TopicConfigSettings.FLUSH_ON_ACK),
                values.get(TopicConfigSettings.MIN_COMPACTION_LAG_MS),
                values.get(TopicConfigSettings.MAX_COMPACTION_LAG_MS),
                values.get(TopicConfigSettings.MESSAGE_TIMESTAMP_BEFORE_MAX_MS),
                values.get(TopicConfigSettings.MESSAGE_TIMESTAMP_AFTER_MAX_MS));
    }

    /** Every supported key with its effective value: overrides over broker defaults over built-in defaults. */
    public static Map<String, String> effective(Map<String, String> brokerDefaults, Map<String, String> overrides) {
        Map<String, String> result = new LinkedHashMap<>(BUILT_IN_DEFAULTS);
        result.putAll(brokerDefaults);
        result.putAll(overrides);
        return result;
    }

    /**
     * {@code configs} parsed by the table, a missing one at its built-in default; values are trimmed.
     *
     * @throws IllegalArgumentException for a key that is no topic config, or a bad value (Kafka's wording: "Invalid
     *     value V for configuration K: why")
     */
    private static SettingValues parse(Map<String, String> configs) {
        for (String key : configs.keySet()) {
            if (!supportedKeys().contains(key)) {
                throw new IllegalArgumentException("unknown topic config '" + key + "'");
            }
        }
        try {
            return TABLE.parse(configs);
        } catch (ConfigException e) {
            // the broker's callers answer an IllegalArgumentException with INVALID_CONFIG (ApiErrors)
            throw new IllegalArgumentException(e.getMessage(), e);
        }
    }
}
