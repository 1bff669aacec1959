package dev.strait.broker.partition;

import static dev.strait.settings.Setting.ofBoolean;
import static dev.strait.settings.Setting.ofDouble;
import static dev.strait.settings.Setting.ofInt;
import static dev.strait.settings.Setting.ofList;
import static dev.strait.settings.Setting.ofLong;
import static dev.strait.settings.Setting.ofString;

import dev.strait.broker.log.LogConfig;
import dev.strait.broker.log.RecordBatchHeader;
import dev.strait.broker.log.TimestampType;
import dev.strait.broker.metadata.MirrorTruncation;
import dev.strait.settings.Setting;
import dev.strait.settings.SettingGroup;
import dev.strait.settings.SettingTable;
import java.util.List;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The topic configs as a settings table: every topic config of Kafka 4.1.1 under its name, with Kafka's type,
 * default and checks, plus Strait's {@code flush.on.ack} and mirror-topic configs, each declared once as a
 * {@link Setting} of its Java type, with what the broker does with it. {@link TopicConfigs} (Kafka's term, and the
 * class callers know) parses and checks a topic's configs with this table, merges defaults and builds the
 * {@link LogConfig}; it keeps the names as plain strings because config maps travel by name (metadata records,
 * requests), while this class holds the declarations, as {@code BrokerSettings} gathers the broker's.
 *
 * <p>Kafka's bounds are kept but for two floors: {@code segment.bytes} and {@code max.message.bytes} may go down to
 * one batch header (Kafka: 1 MiB and 0), which tests and the offsets topic's {@code offsets.topic.segment.bytes}
 * use. The cross-check of {@code min.compaction.lag.ms} against {@code max.compaction.lag.ms} is
 * {@link TopicConfigs#validate}'s, since a table checks one value at a time. Stateless.
 */
public final class TopicConfigSettings {

    // Compiled once: every check below runs whenever a topic's configs are parsed
    private static final Pattern LINK_NAME = Pattern.compile("[A-Za-z0-9_-]*");
    private static final Pattern TOPIC_ID = Pattern.compile("[A-Za-z0-9_-]{22}");
    private static final Pattern TRUNCATION_ID = Pattern.compile("[A-Za-z0-9_.-]{0,64}");
    private static final Pattern PARTITION_BROKER = Pattern.compile("[0-9]+:[0-9]+");

    /** The groups of the reference's "Topic configs" section: what the broker does with a config. */
    public static final class Group {

        public static final SettingGroup LOG = new SettingGroup(
                "Acted on by the log", "The log applies these to a partition's segments, appends and cleaning.");

        public static final SettingGroup REPLICATION = new SettingGroup(
                "Acted on by replication", "The partition's leader applies these to produce requests.");

        public static final SettingGroup NOT_ACTED_ON = new SettingGroup(
                "Accepted, not acted on",
                "Accepted and checked as Kafka checks them, and shown by DescribeConfigs, but without effect here, as"
                        + " in a Kafka cluster without the feature behind them.");

        public static final SettingGroup TIERED_STORAGE = new SettingGroup(
                "Tiered storage",
                "Accepted and checked, without effect: this cluster has no tiered storage (remote.storage.enable is"
                        + " false).");

        public static final SettingGroup MIRROR = new SettingGroup(
                "Strait's mirror topics",
                "The source a mirror topic copies, byte for byte and at the same offsets, and a failback's cut;"
                        + " empty on every other topic.");

        private Group() {}
    }

    private static final String RECOMPRESSION_ONLY = "Used only when recompressing, which the broker never does.";

    // ---------------------------------------------------------------- acted on by the log

    public static final Setting<List<String>> CLEANUP_POLICY = ofList(
                    "cleanup.policy",
                    LogConfig.CleanupPolicy.DELETE.configValue(),
                    Group.LOG,
                    "Old segments are deleted by retention (delete), compacted to the latest record of each key"
                            + " (compact), or both.")
            .oneOf("delete", "compact")
            .checked(policies -> policies.isEmpty() ? "name at least one of delete and compact" : null)
            .allowedIs("delete, compact or both");

    public static final Setting<Long> DELETE_RETENTION_MS = ofLong(
                    "delete.retention.ms",
                    Long.toString(LogConfig.DEFAULT_DELETE_RETENTION_MS),
                    Group.LOG,
                    "How long compaction keeps a tombstone after it reached the cleaned part of the log.")
            .atLeast(0);

    public static final Setting<Long> RETENTION_MS = ofLong(
                    "retention.ms",
                    Long.toString(LogConfig.DEFAULT_RETENTION_MS),
                    Group.LOG,
                    "Segments whose records are all older are deleted; -1 keeps them for good.")
            .atLeast(-1);

    public static final Setting<Long> RETENTION_BYTES = ofLong(
                    "retention.bytes",
                    Long.toString(LogConfig.DEFAULT_RETENTION_BYTES),
                    Group.LOG,
                    "The oldest segments are deleted while a partition is larger; -1 for no limit.")
            .atLeast(-1);

    public static final Setting<Integer> SEGMENT_BYTES = ofInt(
                    "segment.bytes",
                    Integer.toString(LogConfig.DEFAULT_SEGMENT_BYTES),
                    Group.LOG,
                    "The active segment rolls at this size (the floor is one batch header, not Kafka's 1 MiB).")
            .atLeast(RecordBatchHeader.HEADER_SIZE_BYTES);

    public static final Setting<Long> SEGMENT_MS = ofLong(
                    "segment.ms",
                    Long.toString(LogConfig.DEFAULT_SEGMENT_MS),
                    Group.LOG,
                    "The active segment rolls at this age, on the next append.")
            .atLeast(1);

    public static final Setting<Integer> MAX_MESSAGE_BYTES = ofInt(
                    "max.message.bytes",
                    Integer.toString(LogConfig.DEFAULT_MAX_MESSAGE_BYTES),
                    Group.LOG,
                    "A larger record batch is refused with MESSAGE_TOO_LARGE (the floor is one batch header;"
                            + " Kafka's is 0).")
            .atLeast(RecordBatchHeader.HEADER_SIZE_BYTES);

    public static final Setting<String> MESSAGE_TIMESTAMP_TYPE = ofString(
                    "message.timestamp.type",
                    TimestampType.CREATE_TIME.configValue(),
                    Group.LOG,
                    "LogAppendTime stamps each batch with the leader's clock on append; CreateTime keeps the"
                            + " producer's.")
            .oneOf("CreateTime", "LogAppendTime");

    public static final Setting<Integer> INDEX_INTERVAL_BYTES = ofInt(
                    "index.interval.bytes",
                    Integer.toString(LogConfig.DEFAULT_INDEX_INTERVAL_BYTES),
                    Group.LOG,
                    "Bytes of records between entries of a segment's offset and time indexes.")
            .atLeast(0);

    public static final Setting<Long> MIN_COMPACTION_LAG_MS = ofLong(
                    "min.compaction.lag.ms",
                    Long.toString(LogConfig.DEFAULT_MIN_COMPACTION_LAG_MS),
                    Group.LOG,
                    "The cleaner leaves segments holding a younger record.")
            .atLeast(0)
            .allowedIs(">= 0, <= max.compaction.lag.ms");

    public static final Setting<Long> MAX_COMPACTION_LAG_MS = ofLong(
                    "max.compaction.lag.ms",
                    Long.toString(LogConfig.DEFAULT_MAX_COMPACTION_LAG_MS),
                    Group.LOG,
                    "A compacted topic's active segment rolls at this age, on the next append, so it gets"
                            + " compacted.")
            .atLeast(1);

    public static final Setting<Long> MESSAGE_TIMESTAMP_BEFORE_MAX_MS = ofLong(
                    "message.timestamp.before.max.ms",
                    Long.toString(LogConfig.DEFAULT_TIMESTAMP_BEFORE_MAX_MS),
                    Group.LOG,
                    "A CreateTime record stamped further in the past is refused with INVALID_TIMESTAMP.")
            .atLeast(0);

    public static final Setting<Long> MESSAGE_TIMESTAMP_AFTER_MAX_MS = ofLong(
                    "message.timestamp.after.max.ms",
                    Long.toString(LogConfig.DEFAULT_TIMESTAMP_AFTER_MAX_MS),
                    Group.LOG,
                    "A CreateTime record stamped further in the future is refused with INVALID_TIMESTAMP.")
            .atLeast(0);

    public static final Setting<Boolean> FLUSH_ON_ACK = ofBoolean(
            LogConfig.FLUSH_ON_ACK,
            "false",
            Group.LOG,
            "Strait's: acks=all is acknowledged only once every in-sync replica has fsynced the records.");

    // ---------------------------------------------------------------- acted on by replication

    public static final Setting<Integer> MIN_INSYNC_REPLICAS = ofInt(
                    "min.insync.replicas",
                    "1",
                    Group.REPLICATION,
                    "An acks=all produce with fewer in-sync replicas is refused with NOT_ENOUGH_REPLICAS.")
            .atLeast(1);

    // ---------------------------------------------------------------- accepted, not acted on

    public static final Setting<String> COMPRESSION_TYPE = ofString(
                    "compression.type",
                    "producer",
                    Group.NOT_ACTED_ON,
                    "Batches are stored as the producer compressed them, whatever the value (the broker never"
                            + " recompresses).")
            .oneOf("uncompressed", "zstd", "lz4", "snappy", "gzip", "producer");

    public static final Setting<Integer> COMPRESSION_GZIP_LEVEL = ofInt(
                    "compression.gzip.level", "-1", Group.NOT_ACTED_ON, RECOMPRESSION_ONLY)
            .between(-1, 9)
            .checked(level -> level == 0 ? "must be -1 or between 1 and 9" : null)
            .allowedIs("-1, or 1 to 9");

    public static final Setting<Integer> COMPRESSION_LZ4_LEVEL = ofInt(
                    "compression.lz4.level", "9", Group.NOT_ACTED_ON, RECOMPRESSION_ONLY)
            .between(1, 17);

    public static final Setting<Integer> COMPRESSION_ZSTD_LEVEL = ofInt(
                    "compression.zstd.level", "3", Group.NOT_ACTED_ON, RECOMPRESSION_ONLY)
            .between(-131072, 22);

    public static final Setting<Long> FILE_DELETE_DELAY_MS = ofLong(
                    "file.delete.delay.ms",
                    "60000",
                    Group.NOT_ACTED_ON,
                    "A deleted segment's files are removed at once.")
            .atLeast(0);

    public static final Setting<Long> FLUSH_MESSAGES = ofLong(
                    "flush.messages",
                    Long.toString(Long.MAX_VALUE),
                    Group.NOT_ACTED_ON,
                    "The log is not fsynced by message count; durability comes from replication, or from"
                            + " flush.on.ack.")
            .atLeast(1);

    public static final Setting<Long> FLUSH_MS = ofLong(
                    "flush.ms",
                    Long.toString(Long.MAX_VALUE),
                    Group.NOT_ACTED_ON,
                    "The log is not fsynced by age; durability comes from replication, or from flush.on.ack.")
            .atLeast(0);

    public static final Setting<List<String>> FOLLOWER_REPLICATION_THROTTLED_REPLICAS =
            throttledReplicas("follower.replication.throttled.replicas");

    public static final Setting<List<String>> LEADER_REPLICATION_THROTTLED_REPLICAS =
            throttledReplicas("leader.replication.throttled.replicas");

    public static final Setting<Double> MIN_CLEANABLE_DIRTY_RATIO = ofDouble(
                    "min.cleanable.dirty.ratio",
                    "0.5",
                    Group.NOT_ACTED_ON,
                    "The cleaner compacts every closed segment on each pass, whatever the ratio.")
            .between(0, 1);

    public static final Setting<Boolean> PREALLOCATE =
            ofBoolean("preallocate", "false", Group.NOT_ACTED_ON, "Segment files grow as they are written.");

    public static final Setting<Integer> SEGMENT_INDEX_BYTES = ofInt(
                    "segment.index.bytes", "10485760", Group.NOT_ACTED_ON, "Indexes grow as needed.")
            .atLeast(4);

    public static final Setting<Long> SEGMENT_JITTER_MS = ofLong(
                    "segment.jitter.ms", "0", Group.NOT_ACTED_ON, "Segments roll at segment.ms exactly.")
            .atLeast(0);

    public static final Setting<Boolean> UNCLEAN_LEADER_ELECTION_ENABLE = ofBoolean(
            "unclean.leader.election.enable",
            "false",
            Group.NOT_ACTED_ON,
            "The controller never elects a replica outside the ISR on its own, so an acknowledged record is never"
                    + " given up; kafka-leader-election --election-type UNCLEAN does it on request.");

    // ---------------------------------------------------------------- tiered storage

    public static final Setting<Long> LOCAL_RETENTION_BYTES = ofLong(
                    "local.retention.bytes",
                    "-2",
                    Group.TIERED_STORAGE,
                    "How much of a partition tiered storage keeps on local disk; -2 for retention.bytes.")
            .atLeast(-2);

    public static final Setting<Long> LOCAL_RETENTION_MS = ofLong(
                    "local.retention.ms",
                    "-2",
                    Group.TIERED_STORAGE,
                    "How long tiered storage keeps a segment on local disk; -2 for retention.ms.")
            .atLeast(-2);

    public static final Setting<Boolean> REMOTE_LOG_COPY_DISABLE = ofBoolean(
            "remote.log.copy.disable",
            "false",
            Group.TIERED_STORAGE,
            "Whether tiered storage stops copying segments to remote storage.");

    public static final Setting<Boolean> REMOTE_LOG_DELETE_ON_DISABLE = ofBoolean(
            "remote.log.delete.on.disable",
            "false",
            Group.TIERED_STORAGE,
            "Whether turning tiered storage off deletes the remote segments.");

    public static final Setting<Boolean> REMOTE_STORAGE_ENABLE = ofBoolean(
                    "remote.storage.enable",
                    "false",
                    Group.TIERED_STORAGE,
                    "true is refused with INVALID_CONFIG, as by a Kafka cluster without tiered storage.")
            // Kafka's answer on a cluster without tiered storage (LogConfig.validate)
            .checked(enable -> enable
                    ? "Tiered Storage functionality is disabled in the broker. Topic cannot be configured with remote"
                            + " log storage."
                    : null)
            .allowedIs("false");

    // ---------------------------------------------------------------- Strait's mirror topics

    public static final Setting<List<String>> MIRROR_SOURCE_BOOTSTRAP_SERVERS = ofList(
                    "strait.mirror.source.bootstrap.servers",
                    "",
                    Group.MIRROR,
                    "Makes the topic a mirror of the same topic on that cluster.")
            .checked(TopicConfigSettings::hostPortRefusal)
            .allowedIs("host:port,...");

    public static final Setting<String> MIRROR_LINK = ofString(
                    "strait.mirror.link",
                    "",
                    Group.MIRROR,
                    "Makes the topic a mirror through the link of that name (strait.mirror.link.<name>.*), instead"
                            + " of strait.mirror.source.bootstrap.servers.")
            .checked(name -> LINK_NAME.matcher(name).matches() ? null : "a link name is letters, digits, '_' and '-'")
            .allowedIs("a link name");

    public static final Setting<String> MIRROR_SOURCE_TOPIC = ofString(
            "strait.mirror.source.topic",
            "",
            Group.MIRROR,
            "The source topic a mirror topic copies; empty for the same name.");

    public static final Setting<String> MIRROR_SOURCE_TOPIC_ID = ofString(
                    "strait.mirror.source.topic.id",
                    "",
                    Group.MIRROR,
                    "The source topic's id when mirroring began: a source topic deleted and re-created is not"
                            + " copied on top.")
            .checked(id -> id.isEmpty() || TOPIC_ID.matcher(id).matches()
                    ? null
                    : "a topic id is 22 characters of base64url, as kafka-topics shows it")
            .allowedIs("a topic id");

    public static final Setting<String> MIRROR_STATE = ofString(
                    "strait.mirror.state",
                    "",
                    Group.MIRROR,
                    "A mirror topic's state: mirroring (read-only, copied from the source), paused (read-only, not"
                            + " copied: a failback sets it while it saves what only this side holds) or promoted (a"
                            + " topic of its own).")
            .oneOf(
                    "",
                    TopicConfigs.MIRROR_STATE_MIRRORING,
                    TopicConfigs.MIRROR_STATE_PAUSED,
                    TopicConfigs.MIRROR_STATE_PROMOTED);

    public static final Setting<String> MIRROR_TRUNCATE_OFFSETS = ofString(
                    MirrorTruncation.OFFSETS_CONFIG,
                    "",
                    Group.MIRROR,
                    "Where a failback cuts a mirror topic's partitions: each replica cuts its log there once per"
                            + " strait.mirror.truncate.id, keeping what it cut in a file beside the log.")
            .checked(TopicConfigSettings::truncationOffsetsRefusal)
            .allowedIs("partition:offset,...");

    public static final Setting<String> MIRROR_SOURCE_LINEAGE = ofString(
                    "strait.mirror.source.lineage",
                    "",
                    Group.MIRROR,
                    "Set by the partition leaders of a mirror topic, not by hand: per partition, the source topic's"
                            + " id, the offset where this copy began, and the source's leader epochs of the batches"
                            + " copied with the offset each began at (a copy rewrites the epoch field). A failback"
                            + " reads it to find where the two copies part, as a Kafka follower does with"
                            + " OffsetForLeaderEpoch. Written when the source's epoch changes.")
            .allowedIs("partition=topicId:start[:epoch@offset]...;...");

    public static final Setting<String> MIRROR_PROMOTED_OFFSETS = ofString(
                    "strait.mirror.promoted.offsets",
                    "",
                    Group.MIRROR,
                    "Set by strait failover --mirror-topics with the promote: each partition's end when it was"
                            + " promoted (the copy stops there, the topic's own records follow). A failback bounds"
                            + " the parting point by it.")
            .checked(TopicConfigSettings::truncationOffsetsRefusal)
            .allowedIs("partition:offset,...");

    public static final Setting<String> MIRROR_TRUNCATE_ID = ofString(
                    MirrorTruncation.ID_CONFIG,
                    "",
                    Group.MIRROR,
                    "Names one failback's cut, so each replica makes it once (a restart does not cut again).")
            .checked(id -> TRUNCATION_ID.matcher(id).matches()
                    ? null
                    : "a truncation id is at most 64 letters, digits, '_', '.' and '-'")
            .allowedIs("an id");

    /** Every topic config, in the order of the reference (grouped). */
    public static final SettingTable TABLE = new SettingTable(
            "topic",
            List.of(
                    CLEANUP_POLICY,
                    DELETE_RETENTION_MS,
                    RETENTION_MS,
                    RETENTION_BYTES,
                    SEGMENT_BYTES,
                    SEGMENT_MS,
                    MAX_MESSAGE_BYTES,
                    MESSAGE_TIMESTAMP_TYPE,
                    INDEX_INTERVAL_BYTES,
                    MIN_COMPACTION_LAG_MS,
                    MAX_COMPACTION_LAG_MS,
                    MESSAGE_TIMESTAMP_BEFORE_MAX_MS,
                    MESSAGE_TIMESTAMP_AFTER_MAX_MS,
                    FLUSH_ON_ACK,
                    MIN_INSYNC_REPLICAS,
                    COMPRESSION_TYPE,
                    COMPRESSION_GZIP_LEVEL,
                    COMPRESSION_LZ4_LEVEL,
                    COMPRESSION_ZSTD_LEVEL,
                    FILE_DELETE_DELAY_MS,
                    FLUSH_MESSAGES,
                    FLUSH_MS,
                    FOLLOWER_REPLICATION_THROTTLED_REPLICAS,
                    LEADER_REPLICATION_THROTTLED_REPLICAS,
                    MIN_CLEANABLE_DIRTY_RATIO,
                    PREALLOCATE,
                    SEGMENT_INDEX_BYTES,
                    SEGMENT_JITTER_MS,
                    UNCLEAN_LEADER_ELECTION_ENABLE,
                    LOCAL_RETENTION_BYTES,
                    LOCAL_RETENTION_MS,
                    REMOTE_LOG_COPY_DISABLE,
                    REMOTE_LOG_DELETE_ON_DISABLE,
                    REMOTE_STORAGE_ENABLE,
                    MIRROR_SOURCE_BOOTSTRAP_SERVERS,
                    MIRROR_LINK,
                    MIRROR_SOURCE_TOPIC,
                    MIRROR_SOURCE_TOPIC_ID,
                    MIRROR_STATE,
                    MIRROR_TRUNCATE_OFFSETS,
                    MIRROR_TRUNCATE_ID,
                    MIRROR_SOURCE_LINEAGE,
                    MIRROR_PROMOTED_OFFSETS));

    private TopicConfigSettings() {}

    /** Every topic config, in the order of the reference. */
    public static List<Setting<?>> all() {
        return TABLE.all();
    }

    /** Kafka's {@code *.replication.throttled.replicas}: {@code *}, or partition:broker pairs. */
    private static Setting<List<String>> throttledReplicas(String name) {
        return ofList(name, "", Group.NOT_ACTED_ON, "The broker has no replication quotas.")
                .checked(TopicConfigSettings::throttledReplicasRefusal)
                .allowedIs("* or partition:broker pairs");
    }

    private static @Nullable String throttledReplicasRefusal(List<String> replicas) {
        if (replicas.equals(List.of("*"))) {
            return null;
        }
        for (String pair : replicas) {
            if (!PARTITION_BROKER.matcher(pair).matches()) {
                return "must be * or a list of partition:broker pairs such as 0:101,1:102";
            }
        }
        return null;
    }

    private static @Nullable String hostPortRefusal(List<String> servers) {
        for (String server : servers) {
            int colon = server.lastIndexOf(':');
            if (colon <= 0) {
                return "'" + server + "' is not host:port";
            }
            int port;
            try {
                port = Integer.parseInt(server.substring(colon + 1));
            } catch (NumberFormatException e) {
                return "'" + server + "' has no port number";
            }
            if (port < 1 || port > 65_535) {
                return "'" + server + "' has port " + port + " outside 1-65535";
            }
        }
        return null;
    }

    private static @Nullable String truncationOffsetsRefusal(String offsets) {
        try {
            MirrorTruncation.parseOffsets(offsets);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }
}
