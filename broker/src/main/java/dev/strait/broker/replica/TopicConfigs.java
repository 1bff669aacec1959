package dev.strait.broker.replica;

import dev.strait.broker.log.LogConfig;
import dev.strait.broker.metadata.MirrorTruncation;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The topic configs this broker accepts: every topic config of Kafka 4.1.1, by its name, type and default, checked
 * as Kafka checks it (type and range), plus Strait's {@code flush.on.ack}; and the merge of built-in defaults,
 * broker defaults and topic overrides.
 *
 * <p>What each does here:
 * <ul>
 *   <li>acted on by the log ({@link LogConfig}): {@code cleanup.policy} (delete, compact or both),
 *       {@code retention.ms}, {@code retention.bytes}, {@code segment.bytes}, {@code segment.ms},
 *       {@code max.message.bytes}, {@code index.interval.bytes}, {@code delete.retention.ms},
 *       {@code message.timestamp.type}, {@code min.compaction.lag.ms}, {@code max.compaction.lag.ms},
 *       {@code message.timestamp.before.max.ms}, {@code message.timestamp.after.max.ms}, {@code flush.on.ack};
 *       by replication: {@code min.insync.replicas};</li>
 *   <li>accepted with any valid value, having no effect here as in a Kafka cluster without the feature behind
 *       them: the compression levels (used only when the broker recompresses, which it never does with
 *       {@code compression.type=producer}), the throttled-replica lists (no replication quotas), the tiered-storage
 *       settings other than {@code remote.storage.enable}, {@code min.cleanable.dirty.ratio} (the cleaner compacts
 *       every closed segment on each pass, whatever the ratio), {@code preallocate}, {@code file.delete.delay.ms}
 *       (segments are deleted at once) and {@code segment.index.bytes} (indexes grow as needed);</li>
 *   <li>accepted only with the value this broker implements, other valid values refused with a message that
 *       names it: {@code compression.type} ({@code producer}: batches are stored as produced),
 *       {@code remote.storage.enable} ({@code false}: no tiered storage, as Kafka answers without it),
 *       {@code unclean.leader.election.enable} ({@code false}, as the broker setting), {@code segment.jitter.ms}
 *       (0), {@code flush.messages} and {@code flush.ms} (never: durability comes from replication, or from
 *       {@code flush.on.ack}).</li>
 * </ul>
 * {@code segment.bytes} keeps a lower floor than Kafka's 1 MiB (one batch header), which tests and the offsets
 * topic's {@code offsets.topic.segment.bytes} use.
 */
public final class TopicConfigs {

    public static final String CLEANUP_POLICY = "cleanup.policy";
    /** Replication, not the log: the ISR size an acks=all produce needs. */
    public static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";

    /** A mirror topic's source cluster ({@code host:port,...}); empty on a topic that is not a mirror. */
    public static final String MIRROR_SOURCE_BOOTSTRAP_SERVERS = "strait.mirror.source.bootstrap.servers";
    /**
     * A mirror topic's source as a link named in the brokers' settings ({@code strait.mirror.link.<name>.*}: the
     * source's bootstrap servers and client security); instead of {@link #MIRROR_SOURCE_BOOTSTRAP_SERVERS}.
     */
    public static final String MIRROR_LINK = "strait.mirror.link";
    /** The topic on the source cluster a mirror topic copies; empty means the same name. */
    public static final String MIRROR_SOURCE_TOPIC = "strait.mirror.source.topic";
    /** The source topic's id when mirroring began: a source topic deleted and re-created is not copied on top. */
    public static final String MIRROR_SOURCE_TOPIC_ID = "strait.mirror.source.topic.id";
    /**
     * {@code mirroring} (read-only, copied from the source), {@code paused} (read-only, not copied: a failback sets
     * it while it saves what only this side holds) or {@code promoted} (a topic of its own).
     */
    public static final String MIRROR_STATE = "strait.mirror.state";

    public static final String MIRROR_STATE_MIRRORING = "mirroring";
    public static final String MIRROR_STATE_PAUSED = "paused";
    public static final String MIRROR_STATE_PROMOTED = "promoted";
    /**
     * A failback's truncation of a mirror topic whose log runs past the point where it and its new source part:
     * {@code partition:offset,...}. Each replica cuts its log there once per {@link #MIRROR_TRUNCATE_ID}, keeping
     * what it cut in a file beside the log; the controller starts a new leader epoch for the named partitions.
     */
    public static final String MIRROR_TRUNCATE_OFFSETS = MirrorTruncation.OFFSETS_CONFIG;
    /** Names one failback's truncation, so a replica applies it once (a restart does not cut again). */
    public static final String MIRROR_TRUNCATE_ID = MirrorTruncation.ID_CONFIG;

    /** The type of a config's value, as DescribeConfigs reports it. */
    public enum Type {
        BOOLEAN,
        STRING,
        INT,
        LONG,
        DOUBLE,
        LIST
    }

    /** One config: its type, its built-in default, its check, and whether the log acts on it. */
    private record Definition(Type type, String defaultValue, Consumer<String> check, boolean logConfig) {}

    private static final Map<String, Definition> DEFINITIONS = new LinkedHashMap<>();

    /** Supported keys with the built-in defaults (Kafka's). */
    public static final Map<String, String> BUILT_IN_DEFAULTS;

    static {
        LogConfig d = LogConfig.defaults();
        log(CLEANUP_POLICY, Type.LIST, d.cleanupPolicy().configValue(), v -> LogConfig.CleanupPolicy.forConfigValue(v));
        log("delete.retention.ms", Type.LONG, d.deleteRetentionMs(), atLeast(0));
        log("retention.ms", Type.LONG, d.retentionMs(), atLeast(-1));
        log("retention.bytes", Type.LONG, d.retentionBytes(), v -> {});
        log("segment.bytes", Type.INT, d.segmentBytes(), v -> {});
        log("segment.ms", Type.LONG, d.segmentMs(), atLeast(1));
        log("max.message.bytes", Type.INT, d.maxMessageBytes(), atLeast(0));
        log(
                "message.timestamp.type",
                Type.STRING,
                d.timestampType().configValue(),
                oneOf("CreateTime", "LogAppendTime"));
        log("index.interval.bytes", Type.INT, d.indexIntervalBytes(), atLeast(0));
        log("min.compaction.lag.ms", Type.LONG, d.minCompactionLagMs(), atLeast(0));
        log("max.compaction.lag.ms", Type.LONG, d.maxCompactionLagMs(), atLeast(1));
        log("message.timestamp.before.max.ms", Type.LONG, d.timestampBeforeMaxMs(), atLeast(0));
        log("message.timestamp.after.max.ms", Type.LONG, d.timestampAfterMaxMs(), atLeast(0));
        define(MIN_INSYNC_REPLICAS, Type.INT, "1", atLeast(1), false);
        log(LogConfig.FLUSH_ON_ACK, Type.BOOLEAN, d.flushOnAck(), v -> {});

        define(
                "compression.type",
                Type.STRING,
                "producer",
                oneOf("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer")
                        .andThen(only("producer", "batches are stored as the producer compressed them")),
                false);
        define(
                "compression.gzip.level",
                Type.INT,
                "-1",
                v -> {
                    long level = Long.parseLong(v);
                    if (level != -1 && (level < 1 || level > 9)) {
                        throw new IllegalArgumentException("must be -1 or between 1 and 9");
                    }
                },
                false);
        define("compression.lz4.level", Type.INT, "9", between(1, 17), false);
        define("compression.zstd.level", Type.INT, "3", between(-131072, 22), false);
        define("file.delete.delay.ms", Type.LONG, "60000", atLeast(0), false);
        define(
                "flush.messages",
                Type.LONG,
                Long.toString(Long.MAX_VALUE),
                atLeast(1)
                        .andThen(only(
                                Long.toString(Long.MAX_VALUE),
                                "the log is not fsynced by message count; see flush.on.ack")),
                false);
        define(
                "flush.ms",
                Type.LONG,
                Long.toString(Long.MAX_VALUE),
                atLeast(0)
                        .andThen(
                                only(Long.toString(Long.MAX_VALUE), "the log is not fsynced by age; see flush.on.ack")),
                false);
        define("follower.replication.throttled.replicas", Type.LIST, "", TopicConfigs::throttledReplicas, false);
        define("leader.replication.throttled.replicas", Type.LIST, "", TopicConfigs::throttledReplicas, false);
        define("local.retention.bytes", Type.LONG, "-2", atLeast(-2), false);
        define("local.retention.ms", Type.LONG, "-2", atLeast(-2), false);
        define(
                "min.cleanable.dirty.ratio",
                Type.DOUBLE,
                "0.5",
                v -> {
                    double ratio = Double.parseDouble(v);
                    if (!(ratio >= 0 && ratio <= 1)) {
                        throw new IllegalArgumentException("must be between 0 and 1");
                    }
                },
                false);
        define("preallocate", Type.BOOLEAN, "false", v -> {}, false);
        define("remote.log.copy.disable", Type.BOOLEAN, "false", v -> {}, false);
        define("remote.log.delete.on.disable", Type.BOOLEAN, "false", v -> {}, false);
        define(
                "remote.storage.enable",
                Type.BOOLEAN,
                "false",
                only("false", "this cluster has no tiered storage"),
                false);
        define("segment.index.bytes", Type.INT, "10485760", atLeast(4), false);
        define(
                "segment.jitter.ms",
                Type.LONG,
                "0",
                atLeast(0).andThen(only("0", "segments roll at segment.ms exactly")),
                false);
        define(
                "unclean.leader.election.enable",
                Type.BOOLEAN,
                "false",
                only("false", "only an ElectLeaders UNCLEAN request elects a replica outside the ISR"),
                false);

        // Strait's mirror topics: the source a topic copies, byte for byte and at the same offsets (dev.strait.broker
        // .link); empty on every other topic.
        define(MIRROR_SOURCE_BOOTSTRAP_SERVERS, Type.LIST, "", TopicConfigs::hostPortList, false);
        define(MIRROR_LINK, Type.STRING, "", TopicConfigs::linkName, false);
        define(MIRROR_SOURCE_TOPIC, Type.STRING, "", v -> {}, false);
        define(MIRROR_SOURCE_TOPIC_ID, Type.STRING, "", TopicConfigs::topicId, false);
        define(
                MIRROR_STATE,
                Type.STRING,
                "",
                oneOf("", MIRROR_STATE_MIRRORING, MIRROR_STATE_PAUSED, MIRROR_STATE_PROMOTED),
                false);
        define(MIRROR_TRUNCATE_OFFSETS, Type.STRING, "", v -> MirrorTruncation.parseOffsets(v), false);
        define(MIRROR_TRUNCATE_ID, Type.STRING, "", TopicConfigs::truncationId, false);

        Map<String, String> defaults = new LinkedHashMap<>();
        DEFINITIONS.forEach((name, definition) -> defaults.put(name, definition.defaultValue()));
        BUILT_IN_DEFAULTS = java.util.Collections.unmodifiableMap(defaults);
    }

    private TopicConfigs() {}

    private static void log(String name, Type type, Object defaultValue, Consumer<String> check) {
        define(name, type, String.valueOf(defaultValue), check, true);
    }

    private static void define(String name, Type type, String defaultValue, Consumer<String> check, boolean log) {
        DEFINITIONS.put(name, new Definition(type, defaultValue, check, log));
    }

    private static Consumer<String> atLeast(long min) {
        return v -> {
            if (Long.parseLong(v) < min) {
                throw new IllegalArgumentException("must be at least " + min);
            }
        };
    }

    private static Consumer<String> between(long min, long max) {
        return v -> {
            long value = Long.parseLong(v);
            if (value < min || value > max) {
                throw new IllegalArgumentException("must be between " + min + " and " + max);
            }
        };
    }

    private static Consumer<String> oneOf(String... values) {
        return v -> {
            if (!Arrays.asList(values).contains(v)) {
                throw new IllegalArgumentException("must be one of " + String.join(", ", values));
            }
        };
    }

    /** A valid value other than {@code supported} is refused: the broker does not implement it. */
    private static Consumer<String> only(String supported, String why) {
        return v -> {
            if (!v.equalsIgnoreCase(supported)) {
                throw new UnsupportedValueException("only " + supported + " is supported (" + why + ")");
            }
        };
    }

    /** Kafka's format: {@code *}, or partition:broker pairs separated by commas. */
    private static void hostPortList(String value) {
        if (value.isEmpty()) {
            return;
        }
        for (String entry : value.split(",")) {
            String server = entry.trim();
            int colon = server.lastIndexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("'" + server + "' is not host:port");
            }
            int port;
            try {
                port = Integer.parseInt(server.substring(colon + 1));
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException("'" + server + "' has no port number", e);
            }
            if (port < 1 || port > 65_535) {
                throw new IllegalArgumentException("'" + server + "' has port " + port + " outside 1-65535");
            }
        }
    }

    private static void linkName(String value) {
        if (!value.matches("[A-Za-z0-9_-]*")) {
            throw new IllegalArgumentException("a link name is letters, digits, '_' and '-'");
        }
    }

    private static void topicId(String value) {
        if (!value.isEmpty() && !value.matches("[A-Za-z0-9_-]{22}")) {
            throw new IllegalArgumentException("a topic id is 22 characters of base64url, as kafka-topics shows it");
        }
    }

    private static void truncationId(String value) {
        if (!value.matches("[A-Za-z0-9_.-]{0,64}")) {
            throw new IllegalArgumentException("a truncation id is at most 64 letters, digits, '_', '.' and '-'");
        }
    }

    private static void throttledReplicas(String value) {
        if (value.isEmpty() || value.equals("*")) {
            return;
        }
        for (String pair : value.split(",")) {
            if (!pair.trim().matches("[0-9]+:[0-9]+")) {
                throw new IllegalArgumentException("must be * or a list of partition:broker pairs such as 0:101,1:102");
            }
        }
    }

    /** A valid value the broker does not implement; its message says what is supported. */
    private static final class UnsupportedValueException extends IllegalArgumentException {
        private static final long serialVersionUID = 1L;

        UnsupportedValueException(String message) {
            super(message);
        }
    }

    /** Whether a topic's config overrides make it a mirror topic (it names a source cluster). */
    public static boolean isMirror(Map<String, String> overrides) {
        return !overrides.getOrDefault(MIRROR_SOURCE_BOOTSTRAP_SERVERS, "").isBlank()
                || !overrides.getOrDefault(MIRROR_LINK, "").isBlank();
    }

    public static Set<String> supportedKeys() {
        return BUILT_IN_DEFAULTS.keySet();
    }

    /** The type of a supported config's value. */
    public static Type type(String key) {
        Definition definition = DEFINITIONS.get(key);
        if (definition == null) {
            throw new IllegalArgumentException("unknown topic config '" + key + "'");
        }
        return definition.type();
    }

    /**
     * Checks names and values.
     *
     * @throws IllegalArgumentException naming the bad setting
     */
    public static void validate(Map<String, String> configs) {
        for (Map.Entry<String, String> entry : configs.entrySet()) {
            check(entry.getKey(), entry.getValue());
        }
        toLogConfig(configs);
    }

    private static void check(String key, String rawValue) {
        if (rawValue == null) {
            throw new IllegalArgumentException("config '" + key + "' needs a value");
        }
        Definition definition = DEFINITIONS.get(key);
        if (definition == null) {
            throw new IllegalArgumentException("unknown topic config '" + key + "'");
        }
        String value = rawValue.trim();
        try {
            parse(definition.type(), value);
            definition.check().accept(value);
        } catch (UnsupportedValueException e) {
            throw new IllegalArgumentException(
                    key + " '" + value + "' is not supported by this broker: " + e.getMessage(), e);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException(
                    "invalid value '" + value + "' for " + key + ": not a number of type " + definition.type(), e);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("invalid value '" + value + "' for " + key + ": " + e.getMessage(), e);
        }
    }

    /** Checks the value has the config's type (throws NumberFormatException or IllegalArgumentException). */
    private static void parse(Type type, String value) {
        switch (type) {
            case INT:
                Integer.parseInt(value);
                break;
            case LONG:
                Long.parseLong(value);
                break;
            case DOUBLE:
                Double.parseDouble(value);
                break;
            case BOOLEAN:
                String lower = value.toLowerCase(Locale.ROOT);
                if (!lower.equals("true") && !lower.equals("false")) {
                    throw new IllegalArgumentException("must be true or false");
                }
                break;
            default:
                break;
        }
    }

    /**
     * The log config for a topic from its effective configs (built-in defaults, then broker defaults, then topic
     * overrides). Only the configs the log acts on are read; they were checked when they were set.
     */
    public static LogConfig toLogConfig(Map<String, String> configs) {
        Map<String, String> logConfigs = new HashMap<>();
        for (Map.Entry<String, String> entry : configs.entrySet()) {
            String key = entry.getKey();
            Definition definition = DEFINITIONS.get(key);
            if (definition == null) {
                throw new IllegalArgumentException("unknown topic config '" + key + "'");
            }
            if (entry.getValue() == null) {
                throw new IllegalArgumentException("config '" + key + "' needs a value");
            }
            if (definition.logConfig()) {
                logConfigs.put(key, entry.getValue().trim());
            }
        }
        return LogConfig.fromTopicConfigs(logConfigs);
    }

    /** Every supported key with its effective value: overrides over broker defaults over built-in defaults. */
    public static Map<String, String> effective(Map<String, String> brokerDefaults, Map<String, String> overrides) {
        Map<String, String> result = new LinkedHashMap<>(BUILT_IN_DEFAULTS);
        result.putAll(brokerDefaults);
        result.putAll(overrides);
        return result;
    }
}
