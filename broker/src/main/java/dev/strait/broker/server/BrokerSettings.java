package dev.strait.broker.server;

import static dev.strait.broker.server.BrokerSetting.ofBoolean;
import static dev.strait.broker.server.BrokerSetting.ofClass;
import static dev.strait.broker.server.BrokerSetting.ofDouble;
import static dev.strait.broker.server.BrokerSetting.ofInt;
import static dev.strait.broker.server.BrokerSetting.ofList;
import static dev.strait.broker.server.BrokerSetting.ofLong;
import static dev.strait.broker.server.BrokerSetting.ofPassword;
import static dev.strait.broker.server.BrokerSetting.ofString;

import dev.strait.broker.log.RecordBatchHeader;
import dev.strait.broker.protocol.ScramBootstrap;
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
 * <p>Each setting is a constant of its Java type ({@code BrokerSetting<Integer> NODE_ID}...), so that
 * {@link BrokerConfig} reads values by constant rather than by name, and {@link #all()} lists the constants in the
 * order of the documentation.
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

    /** Kafka's authorizer, which this broker implements over the ACLs in its metadata. */
    static final String KAFKA_STANDARD_AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
    /** The same authorizer under its own class name (a literal, so that rendering the docs loads no Kafka class). */
    static final String STRAIT_AUTHORIZER = "dev.strait.broker.security.AclAuthorizer";

    private static final String LISTENER_PREFIX = "listener.name.";

    // ---------------------------------------------------------------- the node
    public static final BrokerSetting<Integer> NODE_ID = ofInt(
                    "node.id",
                    null,
                    Group.NODE,
                    "This node's id, unique in the cluster; a voter's id is the id of"
                            + " its own entry in controller.quorum.voters.")
            .atLeast(0)
            .set("1");

    public static final BrokerSetting<List<String>> LISTENERS = ofList(
                    "listeners",
                    "PLAINTEXT://127.0.0.1:9092",
                    Group.NODE,
                    "Where the node listens, as NAME://host:port, comma separated: one or more broker"
                            + " listeners (e.g. one for clients, one for replication), and on a cluster node"
                            + " also the controller listener that controller.listener.names names. An empty host binds every interface; port 0 picks a free port. A"
                            + " listener speaks the security protocol listener.security.protocol.map gives"
                            + " it, or the one it is named after (PLAINTEXT, SSL, SASL_PLAINTEXT,"
                            + " SASL_SSL).")
            .set("PLAINTEXT://127.0.0.1:9092");

    public static final BrokerSetting<List<String>> LOG_DIRS = ofList(
                    "log.dirs",
                    null,
                    Group.NODE,
                    "The directory that holds the node's partitions and, unless metadata.log.dir is set,"
                            + " its metadata log. Only the first of a list is used yet (a warning says so).")
            .defaultIs("log.dir")
            .set("/tmp/strait-broker-1");

    public static final BrokerSetting<String> LOG_DIR =
            ofString("log.dir", "/tmp/strait-logs", Group.NODE, "The log directory when log.dirs is not set.");

    public static final BrokerSetting<Integer> NUM_NETWORK_THREADS = ofInt(
                    "num.network.threads",
                    "3",
                    Group.NODE,
                    "Threads that read requests from the connections and write the responses back.")
            .atLeast(1);

    public static final BrokerSetting<Integer> NUM_IO_THREADS = ofInt(
                    "num.io.threads", "8", Group.NODE, "Threads that handle the requests the network threads read.")
            .atLeast(1);

    public static final BrokerSetting<Integer> QUEUED_MAX_REQUESTS = ofInt(
                    "queued.max.requests",
                    "500",
                    Group.NODE,
                    "Requests read but not yet handled; when the queue is full the network threads stop"
                            + " reading until the I/O threads catch up.")
            .atLeast(1);

    public static final BrokerSetting<Integer> SOCKET_REQUEST_MAX_BYTES = ofInt(
                    "socket.request.max.bytes",
                    "104857600",
                    Group.NODE,
                    "The largest request the node reads; a connection that sends a larger one is closed.")
            .atLeast(1);

    public static final BrokerSetting<Integer> STRAIT_METRICS_PORT = ofInt(
                    "strait.metrics.port",
                    "-1",
                    Group.NODE,
                    "Serves the node's metrics (strait_broker_*: partitions led, under-replicated and"
                            + " under-min-ISR partitions, offline partitions, ISR shrinks and expansions,"
                            + " requests and their latency per API, active controller, applied metadata"
                            + " offset, fenced) as Prometheus text on http://<strait.metrics.host>:<port>"
                            + "/metrics; -1 serves none, 0 picks a free port.")
            .atLeast(-1)
            .example("9404");

    public static final BrokerSetting<String> STRAIT_METRICS_HOST = ofString(
            "strait.metrics.host",
            "0.0.0.0",
            Group.NODE,
            "The address the metrics endpoint (strait.metrics.port) binds to.");

    // ---------------------------------------------------------------- the cluster
    public static final BrokerSetting<List<String>> PROCESS_ROLES = ofList(
                    "process.roles",
                    null,
                    Group.CLUSTER,
                    "The node's roles in a cluster: broker,controller (a broker and a voter of the"
                            + " controller quorum) or broker (a broker that follows the quorum). A"
                            + " controller-only node is not supported yet. Required with"
                            + " controller.quorum.voters.")
            .oneOf("broker", "controller")
            .anyCase()
            .defaultIs("none (a standalone node)")
            .example("broker,controller");

    public static final BrokerSetting<List<String>> CONTROLLER_QUORUM_VOTERS = ofList(
                    "controller.quorum.voters",
                    null,
                    Group.CLUSTER,
                    "The controller quorum, id@host:port for each voter, comma separated; the same on every"
                            + " node. A voter binds the port of its own entry.")
            .defaultIs("none (a standalone node)")
            .example("1@host1:9093,2@host2:9093,3@host3:9093");

    public static final BrokerSetting<List<String>> CONTROLLER_LISTENER_NAMES = ofList(
                    "controller.listener.names",
                    null,
                    Group.CLUSTER,
                    "The name of the controller listener among listeners; required with"
                            + " controller.quorum.voters. Its port may be 0 on a voter, which then binds the"
                            + " port its controller.quorum.voters entry names.")
            .example("CONTROLLER");

    public static final BrokerSetting<List<String>> ADVERTISED_LISTENERS = ofList(
                    "advertised.listeners",
                    null,
                    Group.CLUSTER,
                    "The addresses clients and other brokers are told to reach each broker listener at, as"
                            + " NAME://host:port, comma separated, when they differ from the address the node"
                            + " binds (0.0.0.0, a container, a proxy). Each must name a host and a port (not"
                            + " 0.0.0.0 or 0).")
            .defaultIs("each listener's own address")
            .example("PLAINTEXT://host1:9092");

    public static final BrokerSetting<String> METADATA_LOG_DIR = ofString(
                    "metadata.log.dir",
                    null,
                    Group.CLUSTER,
                    "Where the replicated metadata log (and its snapshots) lives.")
            .defaultIs("<the first of log.dirs>/__cluster_metadata-0");

    public static final BrokerSetting<String> STRAIT_BOOT_ID_FILE = ofString(
            "strait.boot.id.file",
            "/proc/sys/kernel/random/boot_id",
            Group.CLUSTER,
            "The file naming the machine's current boot. A node that stopped without a clean shutdown"
                    + " but in the boot still running lost no write (the page cache kept them), so it"
                    + " registers as after a clean shutdown and stays an eligible leader; after a"
                    + " reboot it is taken out of every ISR and ELR (KIP-966). Change only to simulate"
                    + " a power loss in tests.");

    public static final BrokerSetting<Long> METADATA_LOG_MAX_RECORD_BYTES_BETWEEN_SNAPSHOTS = ofLong(
                    "metadata.log.max.record.bytes.between.snapshots",
                    "20971520",
                    Group.CLUSTER,
                    "A node snapshots its metadata image, and truncates the metadata log behind the"
                            + " snapshot, once this many bytes of records were committed since its latest"
                            + " snapshot.")
            .atLeast(1);

    public static final BrokerSetting<Long> METADATA_LOG_MAX_SNAPSHOT_INTERVAL_MS = ofLong(
                    "metadata.log.max.snapshot.interval.ms",
                    "3600000",
                    Group.CLUSTER,
                    "A node also snapshots this long after its latest snapshot if anything was committed"
                            + " since; 0 turns this timer off.")
            .atLeast(0);

    public static final BrokerSetting<Long> BROKER_SESSION_TIMEOUT_MS = ofLong(
                    "broker.session.timeout.ms",
                    "9000",
                    Group.CLUSTER,
                    "A broker that has not heartbeated to the active controller for this long is fenced:"
                            + " its partitions elect other leaders, and it leaves their in-sync replicas unless it"
                            + " is the last one.")
            .atLeast(1);

    public static final BrokerSetting<Long> BROKER_HEARTBEAT_INTERVAL_MS = ofLong(
                    "broker.heartbeat.interval.ms",
                    "2000",
                    Group.CLUSTER,
                    "How often a broker heartbeats to the active controller; must be below"
                            + " broker.session.timeout.ms.")
            .atLeast(1);

    // ---------------------------------------------------------------- replication
    public static final BrokerSetting<Integer> DEFAULT_REPLICATION_FACTOR = ofInt(
                    "default.replication.factor",
                    "1",
                    Group.REPLICATION,
                    "Replicas of each partition of a topic created without a replication factor.")
            .atLeast(1);

    public static final BrokerSetting<Integer> MIN_INSYNC_REPLICAS = ofInt(
                    "min.insync.replicas",
                    "1",
                    Group.REPLICATION,
                    "The in-sync replicas an acks=all produce needs: with fewer, it is refused with"
                            + " NOT_ENOUGH_REPLICAS. A topic may override it [min.insync.replicas].")
            .atLeast(1);

    public static final BrokerSetting<Boolean> UNCLEAN_LEADER_ELECTION_ENABLE = ofBoolean(
                    "unclean.leader.election.enable",
                    "false",
                    Group.REPLICATION,
                    "Only false is supported: a replica outside the in-sync replicas never becomes leader,"
                            + " so an acknowledged record is never given up for availability.")
            .checked(v -> Boolean.TRUE.equals(v)
                    ? "not supported: leaders are elected from the in-sync replicas only"
                    : null);

    public static final BrokerSetting<Long> REPLICA_LAG_TIME_MAX_MS = ofLong(
                    "replica.lag.time.max.ms",
                    "30000",
                    Group.REPLICATION,
                    "A follower that has not caught up with the leader's log end for this long leaves the"
                            + " in-sync replicas.")
            .atLeast(1);

    public static final BrokerSetting<Integer> MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS = ofInt(
                    "max.incremental.fetch.session.cache.slots",
                    "1000",
                    Group.REPLICATION,
                    "How many incremental fetch sessions (KIP-227) this node keeps: a consumer of many"
                            + " partitions then names only those whose position changed. 0 turns them off"
                            + " (every fetch is a full fetch).")
            .atLeast(0);

    public static final BrokerSetting<Integer> REPLICA_FETCH_MAX_BYTES = ofInt(
                    "replica.fetch.max.bytes",
                    "1048576",
                    Group.REPLICATION,
                    "Bytes per partition a follower asks for in one fetch.")
            .atLeast(1);

    public static final BrokerSetting<Integer> REPLICA_FETCH_MIN_BYTES = ofInt(
                    "replica.fetch.min.bytes",
                    "1",
                    Group.REPLICATION,
                    "Bytes a follower's fetch waits for, up to replica.fetch.wait.max.ms.")
            .atLeast(1);

    public static final BrokerSetting<Integer> REPLICA_FETCH_WAIT_MAX_MS = ofInt(
                    "replica.fetch.wait.max.ms",
                    "500",
                    Group.REPLICATION,
                    "How long the leader may hold a follower's fetch waiting for new records.")
            .atLeast(0);

    public static final BrokerSetting<Integer> REPLICA_FETCH_BACKOFF_MS = ofInt(
                    "replica.fetch.backoff.ms",
                    "1000",
                    Group.REPLICATION,
                    "A follower's pause after a failed fetch before it tries again.")
            .atLeast(0);

    public static final BrokerSetting<Integer> REPLICA_SOCKET_TIMEOUT_MS = ofInt(
                    "replica.socket.timeout.ms",
                    "30000",
                    Group.REPLICATION,
                    "How long a follower waits for the answer to one of its requests to the leader.")
            .atLeast(1);

    // ---------------------------------------------------------------- topic defaults
    public static final BrokerSetting<Integer> NUM_PARTITIONS = ofInt(
                    "num.partitions",
                    "1",
                    Group.TOPICS,
                    "Partitions of a topic created without a partition count (an auto-created topic).")
            .atLeast(1);

    public static final BrokerSetting<Boolean> AUTO_CREATE_TOPICS_ENABLE = ofBoolean(
            "auto.create.topics.enable",
            "true",
            Group.TOPICS,
            "Whether a metadata request that asks for a topic that does not exist creates it"
                    + " (with num.partitions and default.replication.factor), as Kafka does.");

    public static final BrokerSetting<Long> LOG_RETENTION_MS = ofLong(
                    "log.retention.ms",
                    null,
                    Group.TOPICS,
                    "How long records are kept before their segment may be deleted; -1 keeps them for good"
                            + " [retention.ms].")
            .atLeast(-1)
            .defaultIs("log.retention.minutes, else log.retention.hours");

    public static final BrokerSetting<Integer> LOG_RETENTION_MINUTES = ofInt(
                    "log.retention.minutes",
                    null,
                    Group.TOPICS,
                    "log.retention.ms in minutes, used when log.retention.ms is not set; -1 keeps records"
                            + " for good.")
            .atLeast(-1)
            .defaultIs("log.retention.hours");

    public static final BrokerSetting<Integer> LOG_RETENTION_HOURS = ofInt(
                    "log.retention.hours",
                    "168",
                    Group.TOPICS,
                    "log.retention.ms in hours, used when neither log.retention.ms nor"
                            + " log.retention.minutes is set; -1 keeps records for good.")
            .atLeast(-1);

    public static final BrokerSetting<Long> LOG_RETENTION_BYTES = ofLong(
                    "log.retention.bytes",
                    "-1",
                    Group.TOPICS,
                    "The size a partition's log may reach before its oldest segments are deleted; -1 for no"
                            + " limit [retention.bytes].")
            .atLeast(-1);

    public static final BrokerSetting<Integer> LOG_SEGMENT_BYTES = ofInt(
                    "log.segment.bytes",
                    "1073741824",
                    Group.TOPICS,
                    "The size at which a partition's active segment is rolled [segment.bytes].")
            .atLeast(RecordBatchHeader.HEADER_SIZE_BYTES);

    public static final BrokerSetting<Long> LOG_ROLL_MS = ofLong(
                    "log.roll.ms",
                    null,
                    Group.TOPICS,
                    "The age at which a partition's active segment is rolled even if not full, so that"
                            + " retention and compaction can reach its records [segment.ms].")
            .atLeast(1)
            .defaultIs("log.roll.hours");

    public static final BrokerSetting<Integer> LOG_ROLL_HOURS = ofInt(
                    "log.roll.hours", "168", Group.TOPICS, "log.roll.ms in hours, used when log.roll.ms is not set.")
            .atLeast(1);

    public static final BrokerSetting<Integer> MESSAGE_MAX_BYTES = ofInt(
                    "message.max.bytes",
                    "1048588",
                    Group.TOPICS,
                    "The largest record batch a partition accepts; a larger one is refused with"
                            + " MESSAGE_TOO_LARGE [max.message.bytes].")
            .atLeast(RecordBatchHeader.HEADER_SIZE_BYTES);

    public static final BrokerSetting<String> LOG_MESSAGE_TIMESTAMP_TYPE = ofString(
                    "log.message.timestamp.type",
                    "CreateTime",
                    Group.TOPICS,
                    "Whether a record keeps the producer's timestamp (CreateTime) or gets the broker's time"
                            + " of append (LogAppendTime) [message.timestamp.type].")
            .oneOf("CreateTime", "LogAppendTime");

    public static final BrokerSetting<List<String>> LOG_CLEANUP_POLICY = ofList(
                    "log.cleanup.policy",
                    "delete",
                    Group.TOPICS,
                    "What happens to old segments: delete (by retention), compact (keep the latest record of"
                            + " each key) or both [cleanup.policy].")
            .oneOf("delete", "compact");

    public static final BrokerSetting<Integer> LOG_INDEX_INTERVAL_BYTES = ofInt(
                    "log.index.interval.bytes",
                    "4096",
                    Group.TOPICS,
                    "Bytes of records between entries of a segment's offset and time indexes"
                            + " [index.interval.bytes].")
            .atLeast(0);

    public static final BrokerSetting<Long> LOG_CLEANER_DELETE_RETENTION_MS = ofLong(
                    "log.cleaner.delete.retention.ms",
                    "86400000",
                    Group.TOPICS,
                    "How long compaction keeps a tombstone (a record with a null value) after it reached"
                            + " the cleaned part of the log, so that consumers can see the delete"
                            + " [delete.retention.ms].")
            .atLeast(0);

    public static final BrokerSetting<Boolean> STRAIT_FLUSH_ON_ACK = ofBoolean(
            "strait.flush.on.ack",
            "false",
            Group.TOPICS,
            "Acknowledge acks=all only once every in-sync replica has fsynced the records: the"
                    + " leader fsyncs appends in groups and followers fsync what they fetched before"
                    + " fetching on, and the high watermark counts flushed records only, so even"
                    + " all nodes losing power at once loses no acknowledged record. Costs produce"
                    + " latency and throughput (docs/benchmarks.md) [flush.on.ack].");

    public static final BrokerSetting<Long> LOG_RETENTION_CHECK_INTERVAL_MS = ofLong(
                    "log.retention.check.interval.ms",
                    "300000",
                    Group.TOPICS,
                    "How often the broker deletes segments that retention no longer keeps.")
            .atLeast(1);

    // ---------------------------------------------------------------- compaction
    public static final BrokerSetting<Boolean> LOG_CLEANER_ENABLE = ofBoolean(
            "log.cleaner.enable",
            "true",
            Group.COMPACTION,
            "Whether topics with cleanup.policy compact are compacted.");

    public static final BrokerSetting<Long> LOG_CLEANER_BACKOFF_MS = ofLong(
                    "log.cleaner.backoff.ms", "15000", Group.COMPACTION, "The cleaner's pause between rounds.")
            .atLeast(1);

    public static final BrokerSetting<Long> LOG_CLEANER_DEDUPE_BUFFER_SIZE = ofLong(
                    "log.cleaner.dedupe.buffer.size",
                    "134217728",
                    Group.COMPACTION,
                    "Memory for the map from key to latest offset that a cleaning pass builds.")
            .atLeast(1);

    public static final BrokerSetting<Double> LOG_CLEANER_IO_MAX_BYTES_PER_SECOND = ofDouble(
                    "log.cleaner.io.max.bytes.per.second",
                    null,
                    Group.COMPACTION,
                    "A cap on the cleaner's reads plus writes, in bytes per second.")
            .atLeast(1)
            .defaultIs("no limit");

    // ---------------------------------------------------------------- consumer groups
    public static final BrokerSetting<Integer> OFFSETS_TOPIC_NUM_PARTITIONS = ofInt(
                    "offsets.topic.num.partitions",
                    "5",
                    Group.GROUPS,
                    "Partitions of __consumer_offsets; only read when the topic is created.")
            .atLeast(1);

    public static final BrokerSetting<Integer> OFFSETS_TOPIC_REPLICATION_FACTOR = ofInt(
                    "offsets.topic.replication.factor",
                    "3",
                    Group.GROUPS,
                    "Replicas of each partition of __consumer_offsets, which is created once that many"
                            + " brokers registered (until then group and offset requests answer"
                            + " COORDINATOR_NOT_AVAILABLE and clients retry). A standalone node only takes 1.")
            .between(1, Short.MAX_VALUE)
            .defaultIs("3 in a cluster, as Kafka; 1 on a standalone node");

    public static final BrokerSetting<Integer> OFFSETS_TOPIC_SEGMENT_BYTES = ofInt(
                    "offsets.topic.segment.bytes",
                    "104857600",
                    Group.GROUPS,
                    "The segment size of __consumer_offsets, which is compacted.")
            .atLeast(1);

    public static final BrokerSetting<Integer> GROUP_INITIAL_REBALANCE_DELAY_MS = ofInt(
                    "group.initial.rebalance.delay.ms",
                    "3000",
                    Group.GROUPS,
                    "How long the first rebalance of an empty group waits for more members to join.")
            .atLeast(0);

    public static final BrokerSetting<Integer> GROUP_MIN_SESSION_TIMEOUT_MS = ofInt(
                    "group.min.session.timeout.ms",
                    "6000",
                    Group.GROUPS,
                    "The shortest session timeout a group member may ask for.")
            .atLeast(0);

    public static final BrokerSetting<Integer> GROUP_MAX_SESSION_TIMEOUT_MS = ofInt(
                    "group.max.session.timeout.ms",
                    "1800000",
                    Group.GROUPS,
                    "The longest session timeout a group member may ask for.")
            .atLeast(1);

    // ---------------------------------------------------------------- security
    public static final BrokerSetting<List<String>> LISTENER_SECURITY_PROTOCOL_MAP = ofList(
                    "listener.security.protocol.map",
                    null,
                    Group.SECURITY,
                    "Each listener's security protocol, as NAME:PROTOCOL, comma separated; protocols are"
                            + " PLAINTEXT, SSL, SASL_PLAINTEXT and SASL_SSL. The controller listener speaks"
                            + " PLAINTEXT or SSL (mutual TLS with ssl.client.auth=required); SASL on the"
                            + " controller wire is not supported. Once the map is set, or any listener is"
                            + " secured, it must name the controller listener.")
            .defaultIs("a listener named after a protocol speaks it; the controller listener PLAINTEXT")
            .example("SASL_SSL:SASL_SSL,CONTROLLER:SSL");

    public static final BrokerSetting<String> INTER_BROKER_LISTENER_NAME = ofString(
                    "inter.broker.listener.name",
                    null,
                    Group.SECURITY,
                    "The broker listener replica fetchers and other broker-to-broker clients connect to,"
                            + " with that listener's credentials; set this or security.inter.broker.protocol,"
                            + " not both.")
            .defaultIs("the only broker listener, else the one named PLAINTEXT");

    public static final BrokerSetting<String> SECURITY_INTER_BROKER_PROTOCOL = ofString(
                    "security.inter.broker.protocol",
                    null,
                    Group.SECURITY,
                    "The security protocol replica fetchers speak: picks the broker listener named like"
                            + " it, else the one broker listener speaking it.")
            .oneOf("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
            .anyCase()
            .defaultIs("the inter-broker listener's");

    public static final BrokerSetting<List<String>> SASL_ENABLED_MECHANISMS = ofList(
                    "sasl.enabled.mechanisms",
                    null,
                    Group.SECURITY,
                    "The SASL mechanisms a SASL listener offers; required there (Kafka's default, GSSAPI, is"
                            + " not supported). PLAIN checks the user_<name>=\"<password>\" options of the"
                            + " listener's JAAS entry; SCRAM checks the credentials in the cluster metadata"
                            + " (kafka-configs --alter --add-config SCRAM-SHA-512=[password=...]). Per"
                            + " listener as listener.name.<listener>.sasl.enabled.mechanisms.")
            .oneOf("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
            .anyCase()
            .in(Scope.LISTENER)
            .example("SCRAM-SHA-512");

    public static final BrokerSetting<String> SASL_MECHANISM_INTER_BROKER_PROTOCOL = ofString(
                    "sasl.mechanism.inter.broker.protocol",
                    null,
                    Group.SECURITY,
                    "The mechanism a replica fetcher authenticates with over a SASL listener, as the"
                            + " username and password of the listener's JAAS entry for it; required when"
                            + " the inter-broker listener uses SASL, and one of its sasl.enabled.mechanisms.")
            .oneOf("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
            .anyCase()
            .example("SCRAM-SHA-512");

    public static final BrokerSetting<String> SASL_JAAS_CONFIG = ofPassword(
                    "sasl.jaas.config",
                    null,
                    Group.SECURITY,
                    "A listener's JAAS entry for one mechanism, only as"
                            + " listener.name.<listener>.<mechanism>.sasl.jaas.config (mechanism in lower"
                            + " case, e.g. listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config). PLAIN's"
                            + " lists the users as user_<name>=\"<password>\"; its username and password are"
                            + " what this broker's replica fetchers authenticate with.")
            .in(Scope.LISTENER_MECHANISM);

    public static final BrokerSetting<String> STRAIT_BOOTSTRAP_SCRAM_CREDENTIALS = ofPassword(
                    "strait.bootstrap.scram.credentials",
                    null,
                    Group.SECURITY,
                    "SCRAM users to create when the cluster's metadata first accepts writes, as kafka-storage"
                            + " format --add-scram would: MECHANISM=[name=<user>,password=<password>],"
                            + " separated by ';'. A user who already has a credential of that mechanism is"
                            + " left alone, so a password changed later stays changed.")
            .checked(BrokerSettings::scramRefusal)
            .example("SCRAM-SHA-512=[name=admin,password=admin-secret]");

    public static final BrokerSetting<String> AUTHORIZER_CLASS_NAME = ofClass(
                    "authorizer.class.name",
                    "",
                    Group.SECURITY,
                    "Empty: every request is allowed. Kafka's StandardAuthorizer: requests are checked"
                            + " against the ACLs in the cluster metadata (kafka-acls), with super.users"
                            + " allowed everything.")
            .oneOf("", KAFKA_STANDARD_AUTHORIZER, STRAIT_AUTHORIZER)
            .example(KAFKA_STANDARD_AUTHORIZER);

    public static final BrokerSetting<String> SUPER_USERS = ofString(
                    "super.users",
                    null,
                    Group.SECURITY,
                    "Principals allowed everything by the authorizer, as User:<name>, separated by ';'."
                            + " Replica fetchers and controller peers authenticate as such a principal (or"
                            + " one granted CLUSTER_ACTION).")
            .example("User:admin;User:broker");

    public static final BrokerSetting<Boolean> ALLOW_EVERYONE_IF_NO_ACL_FOUND = ofBoolean(
            "allow.everyone.if.no.acl.found",
            "false",
            Group.SECURITY,
            "Whether the authorizer allows a request on a resource that no ACL matches.");

    // ---------------------------------------------------------------- TLS
    public static final BrokerSetting<String> SSL_KEYSTORE_LOCATION = ofString(
                    "ssl.keystore.location",
                    null,
                    Group.TLS,
                    "The key store with this node's key and certificate; required on a TLS listener.")
            .in(Scope.LISTENER);

    public static final BrokerSetting<String> SSL_KEYSTORE_PASSWORD = ofPassword(
                    "ssl.keystore.password", null, Group.TLS, "The key store's password.")
            .in(Scope.LISTENER);

    public static final BrokerSetting<String> SSL_KEYSTORE_TYPE = ofString(
                    "ssl.keystore.type", "JKS", Group.TLS, "The key store's format: JKS, PKCS12 or PEM.")
            .in(Scope.LISTENER);

    public static final BrokerSetting<String> SSL_KEY_PASSWORD = ofPassword(
                    "ssl.key.password", null, Group.TLS, "The password of the key in the key store.")
            .in(Scope.LISTENER);

    public static final BrokerSetting<String> SSL_KEYSTORE_KEY = ofPassword(
                    "ssl.keystore.key",
                    null,
                    Group.TLS,
                    "The private key in PEM, inline, instead of ssl.keystore.location (with"
                            + " ssl.keystore.type=PEM).")
            .in(Scope.LISTENER);

    public static final BrokerSetting<String> SSL_KEYSTORE_CERTIFICATE_CHAIN = ofPassword(
                    "ssl.keystore.certificate.chain",
                    null,
                    Group.TLS,
                    "The certificate chain of ssl.keystore.key in PEM, inline.")
            .in(Scope.LISTENER);

    public static final BrokerSetting<String> SSL_TRUSTSTORE_LOCATION = ofString(
                    "ssl.truststore.location",
                    null,
                    Group.TLS,
                    "The trust store with the certificate authorities this node trusts: clients' and peers'"
                            + " certificates with ssl.client.auth, and the leaders' when a follower fetches"
                            + " over TLS.")
            .in(Scope.LISTENER);

    public static final BrokerSetting<String> SSL_TRUSTSTORE_PASSWORD = ofPassword(
                    "ssl.truststore.password", null, Group.TLS, "The trust store's password.")
            .in(Scope.LISTENER);

    public static final BrokerSetting<String> SSL_TRUSTSTORE_TYPE = ofString(
                    "ssl.truststore.type", "JKS", Group.TLS, "The trust store's format: JKS, PKCS12 or PEM.")
            .in(Scope.LISTENER);

    public static final BrokerSetting<String> SSL_TRUSTSTORE_CERTIFICATES = ofPassword(
                    "ssl.truststore.certificates",
                    null,
                    Group.TLS,
                    "Trusted certificates in PEM, inline, instead of ssl.truststore.location (with"
                            + " ssl.truststore.type=PEM).")
            .in(Scope.LISTENER);

    public static final BrokerSetting<String> SSL_CLIENT_AUTH = ofString(
                    "ssl.client.auth",
                    "none",
                    Group.TLS,
                    "Whether a TLS client must present a certificate (required), may (requested) or is not"
                            + " asked (none). On the controller listener, required makes each peer known by"
                            + " its certificate, whose principal must be a super user.")
            .oneOf("required", "requested", "none")
            .in(Scope.LISTENER);

    public static final BrokerSetting<String> SSL_PRINCIPAL_MAPPING_RULES = ofString(
                    "ssl.principal.mapping.rules",
                    "DEFAULT",
                    Group.TLS,
                    "Rules that map a client certificate's subject to the principal's name, as Kafka's (e.g."
                            + " RULE:^CN=([^,]*),.*$/$1/,DEFAULT makes CN=host1,O=example User:host1);"
                            + " DEFAULT keeps the whole subject.")
            .in(Scope.LISTENER);

    public static final BrokerSetting<String> SSL_ENDPOINT_IDENTIFICATION_ALGORITHM = ofString(
                    "ssl.endpoint.identification.algorithm",
                    "https",
                    Group.TLS,
                    "How this node, as a TLS client (a follower fetching, a controller peer), checks that"
                            + " the certificate names the host it dialed: https, or empty not to check.")
            .in(Scope.LISTENER);

    public static final BrokerSetting<String> SSL_PROTOCOL = ofString(
                    "ssl.protocol", "TLSv1.3", Group.TLS, "The TLS protocol of the SSLContext.")
            .in(Scope.LISTENER);

    public static final BrokerSetting<List<String>> SSL_ENABLED_PROTOCOLS = ofList(
                    "ssl.enabled.protocols",
                    "TLSv1.2,TLSv1.3",
                    Group.TLS,
                    "The TLS protocol versions connections may use.")
            .in(Scope.LISTENER);

    public static final BrokerSetting<List<String>> SSL_CIPHER_SUITES = ofList(
                    "ssl.cipher.suites", null, Group.TLS, "The cipher suites connections may use.")
            .defaultIs("the JVM's")
            .in(Scope.LISTENER);

    public static final BrokerSetting<String> SSL_PROVIDER = ofString(
                    "ssl.provider", null, Group.TLS, "The security provider of the SSLContext.")
            .defaultIs("the JVM's")
            .in(Scope.LISTENER);

    public static final BrokerSetting<String> SSL_KEYMANAGER_ALGORITHM = ofString(
                    "ssl.keymanager.algorithm", "SunX509", Group.TLS, "The key manager factory's algorithm.")
            .in(Scope.LISTENER);

    public static final BrokerSetting<String> SSL_TRUSTMANAGER_ALGORITHM = ofString(
                    "ssl.trustmanager.algorithm", "PKIX", Group.TLS, "The trust manager factory's algorithm.")
            .in(Scope.LISTENER);

    public static final BrokerSetting<String> SSL_SECURE_RANDOM_IMPLEMENTATION = ofString(
                    "ssl.secure.random.implementation", null, Group.TLS, "The SecureRandom algorithm TLS uses.")
            .defaultIs("the JVM's")
            .in(Scope.LISTENER);

    public static final BrokerSetting<String> SSL_ENGINE_FACTORY_CLASS = ofClass(
                    "ssl.engine.factory.class",
                    null,
                    Group.TLS,
                    "A class implementing Kafka's SslEngineFactory, to make TLS engines instead of Kafka's"
                            + " default one.")
            .defaultIs("Kafka's DefaultSslEngineFactory")
            .in(Scope.LISTENER);

    private static final List<BrokerSetting<?>> ALL = List.of(
            NODE_ID,
            LISTENERS,
            LOG_DIRS,
            LOG_DIR,
            NUM_NETWORK_THREADS,
            NUM_IO_THREADS,
            QUEUED_MAX_REQUESTS,
            SOCKET_REQUEST_MAX_BYTES,
            STRAIT_METRICS_PORT,
            STRAIT_METRICS_HOST,
            PROCESS_ROLES,
            CONTROLLER_QUORUM_VOTERS,
            CONTROLLER_LISTENER_NAMES,
            ADVERTISED_LISTENERS,
            METADATA_LOG_DIR,
            STRAIT_BOOT_ID_FILE,
            METADATA_LOG_MAX_RECORD_BYTES_BETWEEN_SNAPSHOTS,
            METADATA_LOG_MAX_SNAPSHOT_INTERVAL_MS,
            BROKER_SESSION_TIMEOUT_MS,
            BROKER_HEARTBEAT_INTERVAL_MS,
            DEFAULT_REPLICATION_FACTOR,
            MIN_INSYNC_REPLICAS,
            UNCLEAN_LEADER_ELECTION_ENABLE,
            REPLICA_LAG_TIME_MAX_MS,
            MAX_INCREMENTAL_FETCH_SESSION_CACHE_SLOTS,
            REPLICA_FETCH_MAX_BYTES,
            REPLICA_FETCH_MIN_BYTES,
            REPLICA_FETCH_WAIT_MAX_MS,
            REPLICA_FETCH_BACKOFF_MS,
            REPLICA_SOCKET_TIMEOUT_MS,
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
            LOG_RETENTION_CHECK_INTERVAL_MS,
            LOG_CLEANER_ENABLE,
            LOG_CLEANER_BACKOFF_MS,
            LOG_CLEANER_DEDUPE_BUFFER_SIZE,
            LOG_CLEANER_IO_MAX_BYTES_PER_SECOND,
            OFFSETS_TOPIC_NUM_PARTITIONS,
            OFFSETS_TOPIC_REPLICATION_FACTOR,
            OFFSETS_TOPIC_SEGMENT_BYTES,
            GROUP_INITIAL_REBALANCE_DELAY_MS,
            GROUP_MIN_SESSION_TIMEOUT_MS,
            GROUP_MAX_SESSION_TIMEOUT_MS,
            LISTENER_SECURITY_PROTOCOL_MAP,
            INTER_BROKER_LISTENER_NAME,
            SECURITY_INTER_BROKER_PROTOCOL,
            SASL_ENABLED_MECHANISMS,
            SASL_MECHANISM_INTER_BROKER_PROTOCOL,
            SASL_JAAS_CONFIG,
            STRAIT_BOOTSTRAP_SCRAM_CREDENTIALS,
            AUTHORIZER_CLASS_NAME,
            SUPER_USERS,
            ALLOW_EVERYONE_IF_NO_ACL_FOUND,
            SSL_KEYSTORE_LOCATION,
            SSL_KEYSTORE_PASSWORD,
            SSL_KEYSTORE_TYPE,
            SSL_KEY_PASSWORD,
            SSL_KEYSTORE_KEY,
            SSL_KEYSTORE_CERTIFICATE_CHAIN,
            SSL_TRUSTSTORE_LOCATION,
            SSL_TRUSTSTORE_PASSWORD,
            SSL_TRUSTSTORE_TYPE,
            SSL_TRUSTSTORE_CERTIFICATES,
            SSL_CLIENT_AUTH,
            SSL_PRINCIPAL_MAPPING_RULES,
            SSL_ENDPOINT_IDENTIFICATION_ALGORITHM,
            SSL_PROTOCOL,
            SSL_ENABLED_PROTOCOLS,
            SSL_CIPHER_SUITES,
            SSL_PROVIDER,
            SSL_KEYMANAGER_ALGORITHM,
            SSL_TRUSTMANAGER_ALGORITHM,
            SSL_SECURE_RANDOM_IMPLEMENTATION,
            SSL_ENGINE_FACTORY_CLASS);

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

    /** Why {@code strait.bootstrap.scram.credentials} is refused (never with a password), or null. */
    private static String scramRefusal(String value) {
        try {
            ScramBootstrap.parse(value);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
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
