package dev.strait.broker.partition;

import dev.strait.broker.log.LogConfig;
import dev.strait.broker.log.RecordBatchHeader;
import dev.strait.broker.metadata.MirrorTruncation;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The topic configs this broker accepts: every topic config of Kafka 4.1.1, by its name, type and default, checked
 * as Kafka checks it (type, range, and min.compaction.lag.ms not above max.compaction.lag.ms), plus Strait's
 * {@code flush.on.ack} and its mirror-topic configs; and the merge of built-in defaults, broker defaults and topic
 * overrides.
 *
 * <p>Each definition says what the broker does with the config ({@link #documentation()}, rendered into
 * docs/reference.md): the log ({@link LogConfig}) acts on cleanup, retention, segment rolling, the batch size limit,
 * the index interval, compaction lags and the timestamp type and limits; replication on {@code min.insync.replicas}.
 * Every other valid value is accepted and described but not acted on, as in a Kafka cluster without the feature
 * behind it (recompression, fsync by count or age, replication quotas, automatic unclean election, segment jitter,
 * preallocation, delayed file deletion, tiered storage); only {@code remote.storage.enable=true} is refused, as
 * Kafka refuses it without tiered storage. {@code segment.bytes} and {@code max.message.bytes} keep a floor of one
 * batch header (Kafka: 1 MiB and 0), which tests and the offsets topic's {@code offsets.topic.segment.bytes} use.
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

    /**
     * One config: its type, its built-in default, its check, whether the log acts on it, what values it allows and
     * what this broker does with it (both for the reference).
     */
    private record Definition(
            Type type, String defaultValue, Consumer<String> check, boolean logConfig, String allowed, String effect) {}

    /** A topic config as the reference documents it. */
    public record Documentation(String name, Type type, String defaultValue, String allowed, String effect) {}

    private static final String NOT_ACTED_ON = "Accepted and described, not acted on: ";
    private static final String NO_TIERED_STORAGE =
            "Accepted and described, no effect: this cluster has no tiered storage (remote.storage.enable is false).";

    private static final Map<String, Definition> DEFINITIONS = new LinkedHashMap<>();

    /** Supported keys with the built-in defaults (Kafka's). */
    public static final Map<String, String> BUILT_IN_DEFAULTS;

    static {
        LogConfig d = LogConfig.defaults();
        log(
                CLEANUP_POLICY,
                Type.LIST,
                d.cleanupPolicy().configValue(),
                v -> LogConfig.CleanupPolicy.forConfigValue(v),
                "delete, compact or both",
                "Old segments are deleted by retention (delete), compacted to the latest record of each key"
                        + " (compact), or both.");
        log(
                "delete.retention.ms",
                Type.LONG,
                d.deleteRetentionMs(),
                atLeast(0),
                ">= 0",
                "How long compaction keeps a tombstone after it reached the cleaned part of the log.");
        log(
                "retention.ms",
                Type.LONG,
                d.retentionMs(),
                atLeast(-1),
                ">= -1",
                "Segments whose records are all older are deleted; -1 keeps them for good.");
        log(
                "retention.bytes",
                Type.LONG,
                d.retentionBytes(),
                atLeast(-1),
                ">= -1",
                "The oldest segments are deleted while a partition is larger; -1 for no limit.");
        log(
                "segment.bytes",
                Type.INT,
                d.segmentBytes(),
                atLeast(RecordBatchHeader.HEADER_SIZE_BYTES),
                ">= " + RecordBatchHeader.HEADER_SIZE_BYTES,
                "The active segment rolls at this size (the floor is one batch header, not Kafka's 1 MiB).");
        log(
                "segment.ms",
                Type.LONG,
                d.segmentMs(),
                atLeast(1),
                ">= 1",
                "The active segment rolls at this age, on the next append.");
        log(
                "max.message.bytes",
                Type.INT,
                d.maxMessageBytes(),
                atLeast(RecordBatchHeader.HEADER_SIZE_BYTES),
                ">= " + RecordBatchHeader.HEADER_SIZE_BYTES + " (one batch header; Kafka: >= 0)",
                "A larger record batch is refused with MESSAGE_TOO_LARGE.");
        log(
                "message.timestamp.type",
                Type.STRING,
                d.timestampType().configValue(),
                oneOf("CreateTime", "LogAppendTime"),
                "CreateTime or LogAppendTime",
                "LogAppendTime stamps each batch with the leader's clock on append; CreateTime keeps the"
                        + " producer's.");
        log(
                "index.interval.bytes",
                Type.INT,
                d.indexIntervalBytes(),
                atLeast(0),
                ">= 0",
                "Bytes of records between entries of a segment's offset and time indexes.");
        log(
                "min.compaction.lag.ms",
                Type.LONG,
                d.minCompactionLagMs(),
                atLeast(0),
                ">= 0, <= max.compaction.lag.ms",
                "The cleaner leaves segments holding a younger record.");
        log(
                "max.compaction.lag.ms",
                Type.LONG,
                d.maxCompactionLagMs(),
                atLeast(1),
                ">= 1",
                "A compacted topic's active segment rolls at this age, on the next append, so it gets compacted.");
        log(
                "message.timestamp.before.max.ms",
                Type.LONG,
                d.timestampBeforeMaxMs(),
                atLeast(0),
                ">= 0",
                "A CreateTime record stamped further in the past is refused with INVALID_TIMESTAMP.");
        log(
                "message.timestamp.after.max.ms",
                Type.LONG,
                d.timestampAfterMaxMs(),
                atLeast(0),
                ">= 0",
                "A CreateTime record stamped further in the future is refused with INVALID_TIMESTAMP.");
        define(
                MIN_INSYNC_REPLICAS,
                Type.INT,
                "1",
                atLeast(1),
                false,
                ">= 1",
                "An acks=all produce with fewer in-sync replicas is refused with NOT_ENOUGH_REPLICAS.");
        log(
                LogConfig.FLUSH_ON_ACK,
                Type.BOOLEAN,
                d.flushOnAck(),
                v -> {},
                "",
                "Strait's: acks=all is acknowledged only once every in-sync replica has fsynced the records.");

        define(
                "compression.type",
                Type.STRING,
                "producer",
                oneOf("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer"),
                false,
                "uncompressed, zstd, lz4, snappy, gzip or producer",
                NOT_ACTED_ON + "batches are stored as the producer compressed them, whatever the value (the broker"
                        + " never recompresses).");
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
                false,
                "-1, or 1 to 9",
                NOT_ACTED_ON + "used only when recompressing, which the broker never does.");
        define(
                "compression.lz4.level",
                Type.INT,
                "9",
                between(1, 17),
                false,
                "1 to 17",
                NOT_ACTED_ON + "used only when recompressing, which the broker never does.");
        define(
                "compression.zstd.level",
                Type.INT,
                "3",
                between(-131072, 22),
                false,
                "-131072 to 22",
                NOT_ACTED_ON + "used only when recompressing, which the broker never does.");
        define(
                "file.delete.delay.ms",
                Type.LONG,
                "60000",
                atLeast(0),
                false,
                ">= 0",
                NOT_ACTED_ON + "a deleted segment's files are removed at once.");
        define(
                "flush.messages",
                Type.LONG,
                Long.toString(Long.MAX_VALUE),
                atLeast(1),
                false,
                ">= 1",
                NOT_ACTED_ON + "the log is not fsynced by message count; durability comes from replication, or"
                        + " from flush.on.ack.");
        define(
                "flush.ms",
                Type.LONG,
                Long.toString(Long.MAX_VALUE),
                atLeast(0),
                false,
                ">= 0",
                NOT_ACTED_ON + "the log is not fsynced by age; durability comes from replication, or from"
                        + " flush.on.ack.");
        for (String throttled :
                List.of("follower.replication.throttled.replicas", "leader.replication.throttled.replicas")) {
            define(
                    throttled,
                    Type.LIST,
                    "",
                    TopicConfigs::throttledReplicas,
                    false,
                    "* or partition:broker pairs",
                    NOT_ACTED_ON + "the broker has no replication quotas.");
        }
        define("local.retention.bytes", Type.LONG, "-2", atLeast(-2), false, ">= -2", NO_TIERED_STORAGE);
        define("local.retention.ms", Type.LONG, "-2", atLeast(-2), false, ">= -2", NO_TIERED_STORAGE);
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
                false,
                "0 to 1",
                NOT_ACTED_ON + "the cleaner compacts every closed segment on each pass, whatever the ratio.");
        define(
                "preallocate",
                Type.BOOLEAN,
                "false",
                v -> {},
                false,
                "",
                NOT_ACTED_ON + "segment files grow as they are written.");
        define("remote.log.copy.disable", Type.BOOLEAN, "false", v -> {}, false, "", NO_TIERED_STORAGE);
        define("remote.log.delete.on.disable", Type.BOOLEAN, "false", v -> {}, false, "", NO_TIERED_STORAGE);
        define(
                "remote.storage.enable",
                Type.BOOLEAN,
                "false",
                v -> {
                    if (v.equalsIgnoreCase("true")) {
                        // Kafka's answer on a cluster without tiered storage (LogConfig.validate)
                        throw new UnsupportedValueException("Tiered Storage functionality is disabled in the broker."
                                + " Topic cannot be configured with remote log storage.");
                    }
                },
                false,
                "false",
                "true is refused with INVALID_CONFIG, as by a Kafka cluster without tiered storage.");
        define(
                "segment.index.bytes",
                Type.INT,
                "10485760",
                atLeast(4),
                false,
                ">= 4",
                NOT_ACTED_ON + "indexes grow as needed.");
        define(
                "segment.jitter.ms",
                Type.LONG,
                "0",
                atLeast(0),
                false,
                ">= 0",
                NOT_ACTED_ON + "segments roll at segment.ms exactly.");
        define(
                "unclean.leader.election.enable",
                Type.BOOLEAN,
                "false",
                v -> {},
                false,
                "",
                NOT_ACTED_ON + "the controller never elects a replica outside the ISR on its own, so an acknowledged"
                        + " record is never given up; kafka-leader-election --election-type UNCLEAN does it on"
                        + " request.");

        // Strait's mirror topics: the source a topic copies, byte for byte and at the same offsets (dev.strait.broker
        // .link); empty on every other topic.
        define(
                MIRROR_SOURCE_BOOTSTRAP_SERVERS,
                Type.LIST,
                "",
                TopicConfigs::hostPortList,
                false,
                "host:port,...",
                "Strait's: makes the topic a mirror of the same topic on that cluster.");
        define(
                MIRROR_LINK,
                Type.STRING,
                "",
                TopicConfigs::linkName,
                false,
                "a link name",
                "Strait's: makes the topic a mirror through the link of that name (strait.mirror.link.<name>.*).");
        define(
                MIRROR_SOURCE_TOPIC,
                Type.STRING,
                "",
                v -> {},
                false,
                "",
                "Strait's: the source topic a mirror topic copies; empty for the same name.");
        define(
                MIRROR_SOURCE_TOPIC_ID,
                Type.STRING,
                "",
                TopicConfigs::topicId,
                false,
                "a topic id",
                "Strait's: the source topic's id when mirroring began.");
        define(
                MIRROR_STATE,
                Type.STRING,
                "",
                oneOf("", MIRROR_STATE_MIRRORING, MIRROR_STATE_PAUSED, MIRROR_STATE_PROMOTED),
                false,
                "mirroring, paused or promoted",
                "Strait's: a mirror topic's state: mirroring and paused are read-only, promoted is a topic of its own.");
        define(
                MIRROR_TRUNCATE_OFFSETS,
                Type.STRING,
                "",
                v -> MirrorTruncation.parseOffsets(v),
                false,
                "partition:offset,...",
                "Strait's: where a failback cuts a mirror topic's partitions.");
        define(
                MIRROR_TRUNCATE_ID,
                Type.STRING,
                "",
                TopicConfigs::truncationId,
                false,
                "an id",
                "Strait's: names one failback's cut, so each replica makes it once.");

        Map<String, String> defaults = new LinkedHashMap<>();
        DEFINITIONS.forEach((name, definition) -> defaults.put(name, definition.defaultValue()));
        BUILT_IN_DEFAULTS = java.util.Collections.unmodifiableMap(defaults);
    }

    private TopicConfigs() {}

    private static void log(
            String name, Type type, Object defaultValue, Consumer<String> check, String allowed, String effect) {
        define(name, type, String.valueOf(defaultValue), check, true, allowed, effect);
    }

    private static void define(
            String name,
            Type type,
            String defaultValue,
            Consumer<String> check,
            boolean log,
            String allowed,
            String effect) {
        DEFINITIONS.put(name, new Definition(type, defaultValue, check, log, allowed, effect));
    }

    /** Every topic config with its type, default, allowed values and what the broker does with it. */
    public static List<Documentation> documentation() {
        List<Documentation> docs = new ArrayList<>();
        DEFINITIONS.forEach(
                (name, d) -> docs.add(new Documentation(name, d.type(), d.defaultValue(), d.allowed(), d.effect())));
        return docs;
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
        LogConfig log = toLogConfig(configs);
        if (log.minCompactionLagMs() > log.maxCompactionLagMs()) {
            // Kafka's cross-check and message (LogConfig.validateValues)
            throw new IllegalArgumentException("conflict topic config setting min.compaction.lag.ms ("
                    + log.minCompactionLagMs() + ") > max.compaction.lag.ms (" + log.maxCompactionLagMs() + ")");
        }
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
            throw new IllegalArgumentException("invalid value '" + value + "' for " + key + ": " + e.getMessage(), e);
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
