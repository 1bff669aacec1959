package dev.strait.broker.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.jspecify.annotations.Nullable;

/**
 * A broker cluster inside this JVM for tests and embedding, listening on ephemeral 127.0.0.1 ports:
 * <pre>{@code
 * try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(1).start()) {
 *     String bootstrap = cluster.bootstrapServers();
 * }
 * }</pre>
 * Node {@code i} has node id {@code i}, its data in {@code <dataDir>/node-<i>}, and keeps its ports across
 * {@link #stop(int)} / {@link #resume(int)}, {@link #kill(int)} and {@link #restart(int)}. One node runs alone
 * with its metadata in a file; several nodes are each broker and controller voter of one quorum (KRaft's combined
 * mode), with topics (the offsets topic too) replicated {@code min(3, nodes)} times unless told otherwise
 * ({@code default.replication.factor}, {@code offsets.topic.replication.factor}). Closing deletes the data
 * directory if the cluster created it.
 */
public final class EmbeddedCluster implements AutoCloseable {

    private final Path dataDir;
    private final boolean ownsDataDir;
    private final Map<String, String> brokerConfigs;
    private final BrokerServer[] brokers;
    private final int[] ports;

    private final int[] controllerPorts;
    private final String clientListener;
    /** A second broker listener replicas fetch from, or null; its ports stay fixed across restarts. */
    private final @Nullable String replicationListener;

    private final int[] replicationPorts;

    private EmbeddedCluster(
            Path dataDir,
            boolean ownsDataDir,
            Map<String, String> brokerConfigs,
            int nodes,
            String clientListener,
            @Nullable String replicationListener) {
        this.clientListener = clientListener;
        this.replicationListener = replicationListener;
        this.replicationPorts = new int[nodes];
        if (replicationListener != null) {
            for (int i = 0; i < nodes; i++) {
                replicationPorts[i] = LoopbackPorts.reserve();
            }
        }
        this.dataDir = dataDir;
        this.ownsDataDir = ownsDataDir;
        this.brokerConfigs = brokerConfigs;
        this.brokers = new BrokerServer[nodes];
        this.ports = new int[nodes];
        this.controllerPorts = new int[nodes];
        // A quorum's voters must know each other's addresses before any of them starts, and every node restarts
        // on its old ports: both are named before they bind.
        for (int i = 0; i < nodes; i++) {
            ports[i] = LoopbackPorts.reserve();
            controllerPorts[i] = nodes > 1 ? LoopbackPorts.reserve() : 0;
        }
    }

    /**
     * Starts every node. The nodes of a quorum start together: each waits, bounded, until a controller is
     * elected and has registered it, which needs a majority of the others.
     */
    private void startAll() {
        List<Integer> all = new ArrayList<>();
        for (int i = 0; i < brokers.length; i++) {
            all.add(i);
        }
        startTogether(all);
    }

    private void startTogether(List<Integer> nodeIds) {
        if (nodeIds.size() == 1) {
            startBroker(nodeIds.get(0));
            return;
        }
        List<Thread> starters = new ArrayList<>();
        List<RuntimeException> failures = java.util.Collections.synchronizedList(new ArrayList<>());
        // Filled by the starter threads and read after join(); the caller may hold this cluster's lock.
        BrokerServer[] started = new BrokerServer[brokers.length];
        for (int nodeId : nodeIds) {
            Thread starter = new Thread(
                    () -> {
                        try {
                            started[nodeId] = newBroker(nodeId).start();
                        } catch (RuntimeException e) {
                            failures.add(e);
                        }
                    },
                    "strait-embedded-start-" + nodeId);
            starter.start();
            starters.add(starter);
        }
        for (Thread starter : starters) {
            try {
                starter.join();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException("interrupted while starting the cluster", e);
            }
        }
        for (int nodeId : nodeIds) {
            if (started[nodeId] != null) {
                brokers[nodeId] = started[nodeId];
                ports[nodeId] = started[nodeId].boundPort();
            }
        }
        if (!failures.isEmpty()) {
            throw failures.get(0);
        }
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builder; all settings optional. */
    public static final class Builder {
        private int nodes = 1;
        /** Null: a temporary directory, deleted on close. */
        private @Nullable Path dataDir;

        private final Map<String, String> brokerConfigs = new LinkedHashMap<>();
        private String clientListener = "PLAINTEXT";
        private @Nullable String replicationListener;

        public Builder nodes(int count) {
            if (count < 1 || count > 9) {
                throw new IllegalArgumentException("nodes must be between 1 and 9, got " + count);
            }
            this.nodes = count;
            return this;
        }

        /** Keep data here instead of a temporary directory (not deleted on close). */
        public Builder dataDir(Path dir) {
            this.dataDir = dir;
            return this;
        }

        /**
         * The client listener's name (default PLAINTEXT), e.g. SASL_SSL; its security settings come as broker
         * configs ({@code ssl.*}, {@code sasl.*}, {@code listener.name.<name>.*}).
         */
        public Builder clientListener(String name) {
            this.clientListener = name;
            return this;
        }

        /**
         * A second broker listener after the client one, named as inter.broker.listener.name: replica fetchers use
         * it, clients the client listener. Its protocol and credentials come as broker configs
         * ({@code listener.security.protocol.map}, {@code listener.name.<name>.*}).
         */
        public Builder replicationListener(String name) {
            this.replicationListener = name;
            return this;
        }

        /** Any broker config by its Kafka name. */
        public Builder brokerConfig(String name, String value) {
            brokerConfigs.put(name, value);
            return this;
        }

        public EmbeddedCluster start() {
            Path given = dataDir;
            boolean owns = given == null;
            Path dir;
            try {
                dir = given == null ? Files.createTempDirectory("strait-cluster-") : given;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create a data directory", e);
            }
            boolean fresh = isEmpty(dir);
            for (int attempt = 1; ; attempt++) {
                EmbeddedCluster cluster = new EmbeddedCluster(
                        dir, owns, Map.copyOf(brokerConfigs), nodes, clientListener, replicationListener);
                try {
                    cluster.startAll();
                    return cluster;
                } catch (RuntimeException e) {
                    cluster.close();
                    // Another process may bind a reserved port before a node does. A cluster that held no data
                    // yet starts again on other ports; one with data keeps its ports and reports the failure.
                    if (!fresh || attempt == BIND_ATTEMPTS || !LoopbackPorts.isBindFailure(e)) {
                        throw e;
                    }
                    emptyDirectory(dir);
                }
            }
        }

        int nodes() {
            return nodes;
        }

        private static boolean isEmpty(Path dir) {
            if (!Files.isDirectory(dir)) {
                return true;
            }
            try (Stream<Path> entries = Files.list(dir)) {
                return entries.findAny().isEmpty();
            } catch (IOException e) {
                throw new UncheckedIOException("cannot list " + dir, e);
            }
        }
    }

    private static final int BIND_ATTEMPTS = 3;

    /** Deletes everything under the directory, keeping the directory itself. */
    private static void emptyDirectory(Path dir) {
        try {
            Files.createDirectories(dir);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot create " + dir, e);
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                if (!path.equals(dir)) {
                    Files.deleteIfExists(path);
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot empty " + dir, e);
        }
    }

    private void startBroker(int nodeId) {
        brokers[nodeId] = newBroker(nodeId).start();
        ports[nodeId] = brokers[nodeId].boundPort();
    }

    private BrokerServer newBroker(int nodeId) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("node.id", Integer.toString(nodeId));
        props.put("log.dirs", dataDir.resolve("node-" + nodeId).toString());
        props.put("num.network.threads", "2");
        props.put("num.io.threads", "4");
        String brokerListeners = clientListener + "://127.0.0.1:" + ports[nodeId];
        if (replicationListener != null) {
            brokerListeners += "," + replicationListener + "://127.0.0.1:" + replicationPorts[nodeId];
            props.put("inter.broker.listener.name", replicationListener);
        }
        if (brokers.length == 1) {
            props.put("listeners", brokerListeners);
        } else {
            StringBuilder voters = new StringBuilder();
            for (int i = 0; i < brokers.length; i++) {
                voters.append(i == 0 ? "" : ",").append(i).append("@127.0.0.1:").append(controllerPorts[i]);
            }
            props.put("process.roles", "broker,controller");
            props.put("listeners", brokerListeners + ",CONTROLLER://127.0.0.1:" + controllerPorts[nodeId]);
            props.put("controller.listener.names", "CONTROLLER");
            props.put("controller.quorum.voters", voters.toString());
            props.put("default.replication.factor", Integer.toString(Math.min(3, brokers.length)));
            // Kafka's default of 3 would leave a 2-node cluster without consumer groups.
            props.put("offsets.topic.replication.factor", Integer.toString(Math.min(3, brokers.length)));
        }
        props.putAll(brokerConfigs);
        return new BrokerServer(BrokerConfig.from(props));
    }

    /** {@code host:port,...} of every node, running or stopped, for {@code bootstrap.servers}. */
    public synchronized String bootstrapServers() {
        StringBuilder servers = new StringBuilder();
        for (int i = 0; i < brokers.length; i++) {
            if (servers.length() > 0) {
                servers.append(',');
            }
            servers.append(brokers[i] != null ? brokers[i].bootstrapServers() : "127.0.0.1:" + ports[i]);
        }
        return servers.toString();
    }

    /** {@code host:port,...} of every node's replication listener (see {@link Builder#replicationListener}). */
    public synchronized String replicationBootstrapServers() {
        if (replicationListener == null) {
            throw new IllegalStateException("the cluster has no replication listener");
        }
        StringBuilder servers = new StringBuilder();
        for (int i = 0; i < brokers.length; i++) {
            servers.append(i == 0 ? "" : ",").append("127.0.0.1:").append(replicationPorts[i]);
        }
        return servers.toString();
    }

    /** Number of nodes. */
    public int size() {
        return brokers.length;
    }

    /** Stops every node and starts it again on the same port with the same data. */
    public synchronized void restart() {
        for (int i = 0; i < brokers.length; i++) {
            restart(i);
        }
    }

    /** Stops a node and starts it again on the same port with the same data. */
    public synchronized void restart(int nodeId) {
        stop(nodeId);
        resume(nodeId);
    }

    /** Stops every node, as a crash or an operator would; {@link #resume()} starts them again. */
    public synchronized void stop() {
        for (int i = 0; i < brokers.length; i++) {
            stop(i);
        }
    }

    /** Stops one node; {@link #resume(int)} starts it again on its old port with its data. */
    public synchronized void stop(int nodeId) {
        if (brokers[nodeId] != null) {
            ports[nodeId] = brokers[nodeId].boundPort();
            brokers[nodeId].close();
            brokers[nodeId] = null;
        }
    }

    /**
     * Stops one node at once, without a controlled shutdown, as a crash would: its leaderships move only when the
     * controller misses its heartbeats. {@link #resume(int)} starts it again.
     */
    public synchronized void kill(int nodeId) {
        if (brokers[nodeId] != null) {
            ports[nodeId] = brokers[nodeId].boundPort();
            brokers[nodeId].halt();
            brokers[nodeId] = null;
        }
    }

    /** Starts the nodes stopped by {@link #stop()} on their old ports with their data. */
    public synchronized void resume() {
        List<Integer> stopped = new ArrayList<>();
        for (int i = 0; i < brokers.length; i++) {
            if (brokers[i] == null) {
                stopped.add(i);
            }
        }
        if (!stopped.isEmpty()) {
            startTogether(stopped);
        }
    }

    /** Starts a node stopped by {@link #stop(int)}; a running node is left alone. */
    public synchronized void resume(int nodeId) {
        if (brokers[nodeId] == null) {
            startBroker(nodeId);
        }
    }

    /** A running node, or null if it is stopped. */
    synchronized BrokerServer node(int nodeId) {
        return brokers[nodeId];
    }

    /** Whether a node is running. */
    public synchronized boolean isRunning(int nodeId) {
        return brokers[nodeId] != null;
    }

    public Path dataDir() {
        return dataDir;
    }

    @Override
    public synchronized void close() {
        for (int i = 0; i < brokers.length; i++) {
            if (brokers[i] != null) {
                brokers[i].close();
                brokers[i] = null;
            }
        }
        if (ownsDataDir && Files.exists(dataDir)) {
            try (Stream<Path> paths = Files.walk(dataDir)) {
                for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                    Files.deleteIfExists(path);
                }
            } catch (IOException e) {
                throw new UncheckedIOException("cannot delete " + dataDir, e);
            }
        }
    }
}
