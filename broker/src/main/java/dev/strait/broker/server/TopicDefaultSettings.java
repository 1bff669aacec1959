package dev.strait.broker.server;

import static dev.strait.settings.Setting.ofBoolean;
import static dev.strait.settings.Setting.ofInt;
import static dev.strait.settings.Setting.ofList;
import static dev.strait.settings.Setting.ofLong;
import static dev.strait.settings.Setting.ofString;

import dev.strait.broker.log.LogConfig;
import dev.strait.broker.log.RecordBatchHeader;
import dev.strait.broker.partition.TopicConfigs;
import dev.strait.broker.server.BrokerSettings.Group;
import dev.strait.settings.ConfigException;
import dev.strait.settings.Setting;
import dev.strait.settings.SettingValues;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The settings of {@link Group#TOPICS} in the table {@link BrokerSettings} gathers: the broker-wide defaults of
 * topic configs, and retention checks. Each is declared once, with its default, what it allows and its
 * documentation.
 */
public final class TopicDefaultSettings {

    public static final Setting<Integer> NUM_PARTITIONS = ofInt(
                    "num.partitions",
                    "1",
                    Group.TOPICS,
                    "Partitions of a topic created without a partition count (an auto-created topic).")
            .atLeast(1);

    public static final Setting<Boolean> AUTO_CREATE_TOPICS_ENABLE = ofBoolean(
            "auto.create.topics.enable",
            "true",
            Group.TOPICS,
            "Whether a metadata request that asks for a topic that does not exist creates it"
                    + " (with num.partitions and default.replication.factor), as Kafka does.");

    public static final Setting<Long> LOG_RETENTION_MS = ofLong(
                    "log.retention.ms",
                    null,
                    Group.TOPICS,
                    "How long records are kept before their segment may be deleted; -1 keeps them for good"
                            + " [retention.ms].")
            .atLeast(-1)
            .defaultIs("log.retention.minutes, else log.retention.hours");

    public static final Setting<Integer> LOG_RETENTION_MINUTES = ofInt(
                    "log.retention.minutes",
                    null,
                    Group.TOPICS,
                    "log.retention.ms in minutes, used when log.retention.ms is not set; -1 keeps records"
                            + " for good.")
            .atLeast(-1)
            .defaultIs("log.retention.hours");

    public static final Setting<Integer> LOG_RETENTION_HOURS = ofInt(
                    "log.retention.hours",
                    "168",
                    Group.TOPICS,
                    "log.retention.ms in hours, used when neither log.retention.ms nor"
                            + " log.retention.minutes is set; -1 keeps records for good.")
            .atLeast(-1);

    public static final Setting<Long> LOG_RETENTION_BYTES = ofLong(
                    "log.retention.bytes",
                    "-1",
                    Group.TOPICS,
                    "The size a partition's log may reach before its oldest segments are deleted; -1 for no"
                            + " limit [retention.bytes].")
            .atLeast(-1);

    public static final Setting<Integer> LOG_SEGMENT_BYTES = ofInt(
                    "log.segment.bytes",
                    "1073741824",
                    Group.TOPICS,
                    "The size at which a partition's active segment is rolled [segment.bytes].")
            .atLeast(RecordBatchHeader.HEADER_SIZE_BYTES);

    public static final Setting<Long> LOG_ROLL_MS = ofLong(
                    "log.roll.ms",
                    null,
                    Group.TOPICS,
                    "The age at which a partition's active segment is rolled even if not full, so that"
                            + " retention and compaction can reach its records [segment.ms].")
            .atLeast(1)
            .defaultIs("log.roll.hours");

    public static final Setting<Integer> LOG_ROLL_HOURS = ofInt(
                    "log.roll.hours", "168", Group.TOPICS, "log.roll.ms in hours, used when log.roll.ms is not set.")
            .atLeast(1);

    public static final Setting<Integer> MESSAGE_MAX_BYTES = ofInt(
                    "message.max.bytes",
                    "1048588",
                    Group.TOPICS,
                    "The largest record batch a partition accepts; a larger one is refused with"
                            + " MESSAGE_TOO_LARGE [max.message.bytes].")
            .atLeast(RecordBatchHeader.HEADER_SIZE_BYTES);

    public static final Setting<String> LOG_MESSAGE_TIMESTAMP_TYPE = ofString(
                    "log.message.timestamp.type",
                    "CreateTime",
                    Group.TOPICS,
                    "Whether a record keeps the producer's timestamp (CreateTime) or gets the broker's time"
                            + " of append (LogAppendTime) [message.timestamp.type].")
            .oneOf("CreateTime", "LogAppendTime");

    public static final Setting<List<String>> LOG_CLEANUP_POLICY = ofList(
                    "log.cleanup.policy",
                    "delete",
                    Group.TOPICS,
                    "What happens to old segments: delete (by retention), compact (keep the latest record of"
                            + " each key) or both [cleanup.policy].")
            .oneOf("delete", "compact");

    public static final Setting<Integer> LOG_INDEX_INTERVAL_BYTES = ofInt(
                    "log.index.interval.bytes",
                    "4096",
                    Group.TOPICS,
                    "Bytes of records between entries of a segment's offset and time indexes"
                            + " [index.interval.bytes].")
            .atLeast(0);

    public static final Setting<Long> LOG_CLEANER_DELETE_RETENTION_MS = ofLong(
                    "log.cleaner.delete.retention.ms",
                    "86400000",
                    Group.TOPICS,
                    "How long compaction keeps a tombstone (a record with a null value) after it reached"
                            + " the cleaned part of the log, so that consumers can see the delete"
                            + " [delete.retention.ms].")
            .atLeast(0);

    public static final Setting<Boolean> STRAIT_FLUSH_ON_ACK = ofBoolean(
            "strait.flush.on.ack",
            "false",
            Group.TOPICS,
            "Acknowledge acks=all only once every in-sync replica has fsynced the records: the"
                    + " leader fsyncs appends in groups and followers fsync what they fetched before"
                    + " fetching on, and the high watermark counts flushed records only, so even"
                    + " all nodes losing power at once loses no acknowledged record. Costs produce"
                    + " latency and throughput (docs/benchmarks.md) [flush.on.ack].");

    public static final Setting<Long> LOG_RETENTION_CHECK_INTERVAL_MS = ofLong(
                    "log.retention.check.interval.ms",
                    "300000",
                    Group.TOPICS,
                    "How often the broker deletes segments that retention no longer keeps.")
            .atLeast(1);

    /** This group's settings, in the order of the documentation. */
    static final List<Setting<?>> ALL = List.of(
            NUM_PARTITIONS,
            AUTO_CREATE_TOPICS_ENABLE,
            LOG_RETENTION_MS,
            LOG_RETENTION_MINUTES,
            LOG_RETENTION_HOURS,
            LOG_RETENTION_BYTES,
            LOG_SEGMENT_BYTES,
            LOG_ROLL_MS,
            LOG_ROLL_HOURS,
            MESSAGE_MAX_BYTES,
            LOG_MESSAGE_TIMESTAMP_TYPE,
            LOG_CLEANUP_POLICY,
            LOG_INDEX_INTERVAL_BYTES,
            LOG_CLEANER_DELETE_RETENTION_MS,
            STRAIT_FLUSH_ON_ACK,
            LOG_RETENTION_CHECK_INTERVAL_MS);

    /** The broker-level topic defaults that map one to one to a topic config, with its name. */
    private static final Map<Setting<?>, String> TOPIC_DEFAULT_NAMES = Map.of(
            TopicDefaultSettings.LOG_RETENTION_MS, "retention.ms",
            TopicDefaultSettings.LOG_RETENTION_BYTES, "retention.bytes",
            TopicDefaultSettings.LOG_SEGMENT_BYTES, "segment.bytes",
            TopicDefaultSettings.LOG_ROLL_MS, "segment.ms",
            TopicDefaultSettings.MESSAGE_MAX_BYTES, "max.message.bytes",
            TopicDefaultSettings.LOG_MESSAGE_TIMESTAMP_TYPE, "message.timestamp.type",
            TopicDefaultSettings.LOG_CLEANUP_POLICY, "cleanup.policy",
            TopicDefaultSettings.LOG_INDEX_INTERVAL_BYTES, "index.interval.bytes",
            TopicDefaultSettings.LOG_CLEANER_DELETE_RETENTION_MS, "delete.retention.ms",
            TopicDefaultSettings.STRAIT_FLUSH_ON_ACK, LogConfig.FLUSH_ON_ACK);

    private TopicDefaultSettings() {}

    /**
     * The topic defaults that {@code given} (the node's properties, parsed into {@code values}) sets, under topic
     * config names: Kafka's precedence (log.retention.ms over log.retention.minutes over log.retention.hours;
     * log.roll.ms over log.roll.hours), a negative retention time meaning "keep for good" (-1) whatever its unit.
     * Unset ones are left to the topic configs' own defaults.
     *
     * @throws ConfigException naming the broker setting whose value no topic config allows
     */
    static Map<String, String> topicDefaults(SettingValues values, Map<String, String> given) {
        Map<String, String> defaults = new LinkedHashMap<>();
        if (values.isSet(TopicDefaultSettings.LOG_RETENTION_HOURS)) {
            defaults.put("retention.ms", retentionMs(values.get(TopicDefaultSettings.LOG_RETENTION_HOURS), 3_600_000L));
        }
        if (values.isSet(TopicDefaultSettings.LOG_RETENTION_MINUTES)) {
            defaults.put("retention.ms", retentionMs(values.get(TopicDefaultSettings.LOG_RETENTION_MINUTES), 60_000L));
        }
        if (values.isSet(TopicDefaultSettings.LOG_ROLL_HOURS)) {
            defaults.put("segment.ms", Long.toString(values.get(TopicDefaultSettings.LOG_ROLL_HOURS) * 3_600_000L));
        }
        for (Map.Entry<Setting<?>, String> entry : TOPIC_DEFAULT_NAMES.entrySet()) {
            if (values.isSet(entry.getKey())) {
                defaults.put(
                        entry.getValue(),
                        Objects.requireNonNull(given.get(entry.getKey().name()), "a set setting has a value")
                                .trim());
            }
        }
        for (Map.Entry<String, String> entry : defaults.entrySet()) {
            try {
                TopicConfigs.validate(Map.of(entry.getKey(), entry.getValue()));
            } catch (IllegalArgumentException e) {
                String brokerName = TOPIC_DEFAULT_NAMES.entrySet().stream()
                        .filter(n -> n.getValue().equals(entry.getKey()))
                        .map(n -> n.getKey().name())
                        .findFirst()
                        .orElse(entry.getKey());
                // The topic config's own refusal names the topic config; the broker setting was what the user wrote.
                String reason = e.getCause() instanceof ConfigException refusal
                        ? refusal.reason() + " (as topic config " + entry.getKey() + ")"
                        : String.valueOf(e.getMessage());
                throw new ConfigException(brokerName, entry.getValue(), reason);
            }
        }
        return Collections.unmodifiableMap(defaults);
    }

    private static String retentionMs(int amount, long unitMs) {
        return amount < 0 ? "-1" : Long.toString(amount * unitMs);
    }
}
