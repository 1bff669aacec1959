package dev.strait.broker.server;

import static dev.strait.settings.Setting.ofList;
import static dev.strait.settings.Setting.ofLong;
import static dev.strait.settings.Setting.ofString;

import dev.strait.broker.server.BrokerSettings.Group;
import dev.strait.settings.Setting;
import java.util.List;

/**
 * The settings of {@link Group#CLUSTER} in the table {@link BrokerSettings} gathers: a replicated cluster: roles,
 * the controller quorum, advertised listeners, metadata log and snapshots, broker sessions. Each is declared once,
 * with its default, what it allows and its documentation.
 */
public final class ClusterSettings {

    public static final Setting<List<String>> PROCESS_ROLES = ofList(
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

    public static final Setting<List<String>> CONTROLLER_QUORUM_VOTERS = ofList(
                    "controller.quorum.voters",
                    null,
                    Group.CLUSTER,
                    "The controller quorum, id@host:port for each voter, comma separated; the same on every"
                            + " node. A voter binds the port of its own entry.")
            .defaultIs("none (a standalone node)")
            .example("1@host1:9093,2@host2:9093,3@host3:9093");

    public static final Setting<List<String>> CONTROLLER_LISTENER_NAMES = ofList(
                    "controller.listener.names",
                    null,
                    Group.CLUSTER,
                    "The name of the controller listener among listeners; required with"
                            + " controller.quorum.voters. Its port may be 0 on a voter, which then binds the"
                            + " port its controller.quorum.voters entry names.")
            .example("CONTROLLER");

    public static final Setting<List<String>> ADVERTISED_LISTENERS = ofList(
                    "advertised.listeners",
                    null,
                    Group.CLUSTER,
                    "The addresses clients and other brokers are told to reach each broker listener at, as"
                            + " NAME://host:port, comma separated, when they differ from the address the node"
                            + " binds (0.0.0.0, a container, a proxy). Each must name a host and a port (not"
                            + " 0.0.0.0 or 0).")
            .defaultIs("each listener's own address")
            .example("PLAINTEXT://host1:9092");

    public static final Setting<String> METADATA_LOG_DIR = ofString(
                    "metadata.log.dir",
                    null,
                    Group.CLUSTER,
                    "Where the replicated metadata log (and its snapshots) lives.")
            .defaultIs("<the first of log.dirs>/__cluster_metadata-0");

    public static final Setting<String> STRAIT_BOOT_ID_FILE = ofString(
            "strait.boot.id.file",
            "/proc/sys/kernel/random/boot_id",
            Group.CLUSTER,
            "The file naming the machine's current boot. A node that stopped without a clean shutdown"
                    + " but in the boot still running lost no write (the page cache kept them), so it"
                    + " registers as after a clean shutdown and stays an eligible leader; after a"
                    + " reboot it is taken out of every ISR and ELR (KIP-966). Change only to simulate"
                    + " a power loss in tests.");

    public static final Setting<Long> METADATA_LOG_MAX_RECORD_BYTES_BETWEEN_SNAPSHOTS = ofLong(
                    "metadata.log.max.record.bytes.between.snapshots",
                    "20971520",
                    Group.CLUSTER,
                    "A node snapshots its metadata image, and truncates the metadata log behind the"
                            + " snapshot, once this many bytes of records were committed since its latest"
                            + " snapshot.")
            .atLeast(1);

    public static final Setting<Long> METADATA_LOG_MAX_SNAPSHOT_INTERVAL_MS = ofLong(
                    "metadata.log.max.snapshot.interval.ms",
                    "3600000",
                    Group.CLUSTER,
                    "A node also snapshots this long after its latest snapshot if anything was committed"
                            + " since; 0 turns this timer off.")
            .atLeast(0);

    public static final Setting<Long> BROKER_SESSION_TIMEOUT_MS = ofLong(
                    "broker.session.timeout.ms",
                    "9000",
                    Group.CLUSTER,
                    "A broker that has not heartbeated to the active controller for this long is fenced:"
                            + " its partitions elect other leaders, and it leaves their in-sync replicas unless it"
                            + " is the last one.")
            .atLeast(1);

    public static final Setting<Long> BROKER_HEARTBEAT_INTERVAL_MS = ofLong(
                    "broker.heartbeat.interval.ms",
                    "2000",
                    Group.CLUSTER,
                    "How often a broker heartbeats to the active controller; must be below"
                            + " broker.session.timeout.ms.")
            .atLeast(1);

    /** This group's settings, in the order of the documentation. */
    static final List<Setting<?>> ALL = List.of(
            PROCESS_ROLES,
            CONTROLLER_QUORUM_VOTERS,
            CONTROLLER_LISTENER_NAMES,
            ADVERTISED_LISTENERS,
            METADATA_LOG_DIR,
            STRAIT_BOOT_ID_FILE,
            METADATA_LOG_MAX_RECORD_BYTES_BETWEEN_SNAPSHOTS,
            METADATA_LOG_MAX_SNAPSHOT_INTERVAL_MS,
            BROKER_SESSION_TIMEOUT_MS,
            BROKER_HEARTBEAT_INTERVAL_MS);

    private ClusterSettings() {}
}
