package dev.strait.broker.replica;

import dev.strait.broker.log.LogConfig;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * The topic configs this broker understands, by their Kafka names, with validation and the merge of broker
 * defaults and topic overrides. {@code cleanup.policy} takes {@code delete}, {@code compact} or both.
 */
public final class TopicConfigs {

    public static final String CLEANUP_POLICY = "cleanup.policy";
    /** Replication, not the log: the ISR size an acks=all produce needs. */
    public static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";

    /** Supported keys with the built-in defaults (Kafka's). */
    public static final Map<String, String> BUILT_IN_DEFAULTS;

    static {
        LogConfig d = LogConfig.defaults();
        Map<String, String> m = new LinkedHashMap<>();
        m.put(CLEANUP_POLICY, d.cleanupPolicy().configValue());
        m.put("delete.retention.ms", Long.toString(d.deleteRetentionMs()));
        m.put("retention.ms", Long.toString(d.retentionMs()));
        m.put("retention.bytes", Long.toString(d.retentionBytes()));
        m.put("segment.bytes", Integer.toString(d.segmentBytes()));
        m.put("segment.ms", Long.toString(d.segmentMs()));
        m.put("max.message.bytes", Integer.toString(d.maxMessageBytes()));
        m.put("message.timestamp.type", d.timestampType().configValue());
        m.put("index.interval.bytes", Integer.toString(d.indexIntervalBytes()));
        m.put(MIN_INSYNC_REPLICAS, "1");
        m.put(LogConfig.FLUSH_ON_ACK, Boolean.toString(d.flushOnAck()));
        BUILT_IN_DEFAULTS = java.util.Collections.unmodifiableMap(m);
    }

    private TopicConfigs() {}

    public static Set<String> supportedKeys() {
        return BUILT_IN_DEFAULTS.keySet();
    }

    /**
     * Checks names and values.
     *
     * @throws IllegalArgumentException naming the bad setting
     */
    public static void validate(Map<String, String> configs) {
        toLogConfig(configs);
    }

    /** The log config for a topic: built-in defaults, then broker defaults, then topic overrides. */
    public static LogConfig toLogConfig(Map<String, String> configs) {
        Map<String, String> logConfigs = new HashMap<>();
        for (Map.Entry<String, String> entry : configs.entrySet()) {
            String key = entry.getKey();
            String value = entry.getValue();
            if (value == null) {
                throw new IllegalArgumentException("config '" + key + "' needs a value");
            }
            if (!BUILT_IN_DEFAULTS.containsKey(key)) {
                throw new IllegalArgumentException("unknown topic config '" + key + "'");
            } else if (key.equals(MIN_INSYNC_REPLICAS)) {
                validateMinInsync(value.trim());
            } else {
                logConfigs.put(key, value.trim());
            }
        }
        return LogConfig.fromTopicConfigs(logConfigs);
    }

    private static void validateMinInsync(String value) {
        int parsed;
        try {
            parsed = Integer.parseInt(value);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("min.insync.replicas must be an integer, got '" + value + "'");
        }
        if (parsed < 1) {
            throw new IllegalArgumentException("min.insync.replicas must be at least 1, got " + parsed);
        }
    }

    /** Every supported key with its effective value: overrides over broker defaults over built-in defaults. */
    public static Map<String, String> effective(Map<String, String> brokerDefaults, Map<String, String> overrides) {
        Map<String, String> result = new LinkedHashMap<>(BUILT_IN_DEFAULTS);
        result.putAll(brokerDefaults);
        result.putAll(overrides);
        return result;
    }
}
