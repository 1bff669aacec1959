package dev.strait.broker.server;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.stream.Stream;

/**
 * A broker cluster inside this JVM for tests and embedding, listening on ephemeral 127.0.0.1 ports:
 * <pre>{@code
 * try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(1).start()) {
 *     String bootstrap = cluster.bootstrapServers();
 * }
 * }</pre>
 * Node {@code i} has node id {@code i}, its data in {@code <dataDir>/node-<i>}, and keeps its port across
 * {@link #stop(int)} / {@link #resume(int)} and {@link #restart(int)}. Only one node is supported until the
 * controller quorum exists (the nodes of a cluster need a shared metadata source); the per-node handling is ready
 * for more. Closing deletes the data directory if the cluster created it.
 */
public final class EmbeddedCluster implements AutoCloseable {

    private final Path dataDir;
    private final boolean ownsDataDir;
    private final Map<String, String> brokerConfigs;
    private final BrokerServer[] brokers;
    private final int[] ports;

    private EmbeddedCluster(Path dataDir, boolean ownsDataDir, Map<String, String> brokerConfigs, int nodes) {
        this.dataDir = dataDir;
        this.ownsDataDir = ownsDataDir;
        this.brokerConfigs = brokerConfigs;
        this.brokers = new BrokerServer[nodes];
        this.ports = new int[nodes];
    }

    public static Builder builder() {
        return new Builder();
    }

    /** Builder; all settings optional. */
    public static final class Builder {
        private int nodes = 1;
        private Path dataDir;
        private final Map<String, String> brokerConfigs = new LinkedHashMap<>();

        public Builder nodes(int count) {
            if (count != 1) {
                throw new IllegalArgumentException("only 1 node is supported until the controller quorum exists, got "
                        + count);
            }
            this.nodes = count;
            return this;
        }

        /** Keep data here instead of a temporary directory (not deleted on close). */
        public Builder dataDir(Path dir) {
            this.dataDir = dir;
            return this;
        }

        /** Any broker config by its Kafka name. */
        public Builder brokerConfig(String name, String value) {
            brokerConfigs.put(name, value);
            return this;
        }

        public EmbeddedCluster start() {
            boolean owns = dataDir == null;
            Path dir;
            try {
                dir = owns ? Files.createTempDirectory("strait-cluster-") : dataDir;
            } catch (IOException e) {
                throw new UncheckedIOException("cannot create a data directory", e);
            }
            EmbeddedCluster cluster = new EmbeddedCluster(dir, owns, Map.copyOf(brokerConfigs), nodes);
            try {
                for (int i = 0; i < nodes; i++) {
                    cluster.startBroker(i);
                }
            } catch (RuntimeException e) {
                cluster.close();
                throw e;
            }
            return cluster;
        }

        int nodes() {
            return nodes;
        }
    }

    private void startBroker(int nodeId) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("node.id", Integer.toString(nodeId));
        props.put("listeners", "PLAINTEXT://127.0.0.1:" + ports[nodeId]);
        props.put("log.dirs", dataDir.resolve("node-" + nodeId).toString());
        props.put("num.network.threads", "2");
        props.put("num.io.threads", "4");
        props.putAll(brokerConfigs);
        brokers[nodeId] = new BrokerServer(BrokerConfig.from(props)).start();
        ports[nodeId] = brokers[nodeId].boundPort();
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

    /** Starts the nodes stopped by {@link #stop()} on their old ports with their data. */
    public synchronized void resume() {
        for (int i = 0; i < brokers.length; i++) {
            resume(i);
        }
    }

    /** Starts a node stopped by {@link #stop(int)}; a running node is left alone. */
    public synchronized void resume(int nodeId) {
        if (brokers[nodeId] == null) {
            startBroker(nodeId);
        }
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
