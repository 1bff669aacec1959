package dev.strait.broker.server;

import static dev.strait.settings.Setting.ofInt;
import static dev.strait.settings.Setting.ofList;
import static dev.strait.settings.Setting.ofString;

import dev.strait.broker.server.BrokerSettings.Group;
import dev.strait.settings.Setting;
import java.util.List;

/**
 * The settings of {@link Group#NODE} in the table {@link BrokerSettings} gathers: node.id, listeners, log.dirs and
 * how the node serves requests and metrics. Each is declared once, with its default, what it allows and its
 * documentation.
 */
public final class NodeSettings {

    public static final Setting<Integer> NODE_ID = ofInt(
                    "node.id",
                    null,
                    Group.NODE,
                    "This node's id, unique in the cluster; a voter's id is the id of"
                            + " its own entry in controller.quorum.voters.")
            .atLeast(0)
            .set("1");

    public static final Setting<List<String>> LISTENERS = ofList(
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

    public static final Setting<List<String>> LOG_DIRS = ofList(
                    "log.dirs",
                    null,
                    Group.NODE,
                    "The directory that holds the node's partitions and, unless metadata.log.dir is set,"
                            + " its metadata log. Only the first of a list is used yet (a warning says so).")
            .defaultIs("log.dir")
            .set("/tmp/strait-broker-1");

    public static final Setting<String> LOG_DIR =
            ofString("log.dir", "/tmp/strait-logs", Group.NODE, "The log directory when log.dirs is not set.");

    public static final Setting<Integer> NUM_NETWORK_THREADS = ofInt(
                    "num.network.threads",
                    "3",
                    Group.NODE,
                    "Threads that read requests from the connections and write the responses back.")
            .atLeast(1);

    public static final Setting<Integer> NUM_IO_THREADS = ofInt(
                    "num.io.threads", "8", Group.NODE, "Threads that handle the requests the network threads read.")
            .atLeast(1);

    public static final Setting<Integer> QUEUED_MAX_REQUESTS = ofInt(
                    "queued.max.requests",
                    "500",
                    Group.NODE,
                    "Requests read but not yet handled; when the queue is full the network threads stop"
                            + " reading until the I/O threads catch up.")
            .atLeast(1);

    public static final Setting<Integer> SOCKET_REQUEST_MAX_BYTES = ofInt(
                    "socket.request.max.bytes",
                    "104857600",
                    Group.NODE,
                    "The largest request the node reads; a connection that sends a larger one is closed.")
            .atLeast(1);

    public static final Setting<Integer> STRAIT_METRICS_PORT = ofInt(
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

    public static final Setting<String> STRAIT_METRICS_HOST = ofString(
            "strait.metrics.host",
            "0.0.0.0",
            Group.NODE,
            "The address the metrics endpoint (strait.metrics.port) binds to.");

    /** This group's settings, in the order of the documentation. */
    static final List<Setting<?>> ALL = List.of(
            NODE_ID,
            LISTENERS,
            LOG_DIRS,
            LOG_DIR,
            NUM_NETWORK_THREADS,
            NUM_IO_THREADS,
            QUEUED_MAX_REQUESTS,
            SOCKET_REQUEST_MAX_BYTES,
            STRAIT_METRICS_PORT,
            STRAIT_METRICS_HOST);

    private NodeSettings() {}
}
