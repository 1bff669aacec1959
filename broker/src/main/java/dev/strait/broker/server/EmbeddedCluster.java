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
 * A broker cluster inside this JVM for tests and embedding, listening on an ephemeral 127.0.0.1 port:
 * <pre>{@code
 * try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(1).start()) {
 *     String bootstrap = cluster.bootstrapServers();
 * }
 * }</pre>
 * Only one node is supported until replication exists. {@link #restart()} keeps the data and the port.
 * Closing deletes the data directory if the cluster created it.
 */
public final class EmbeddedCluster implements AutoCloseable {

    private final Path dataDir;
    private final boolean ownsDataDir;
    private final Map<String, String> brokerConfigs;
    private BrokerServer broker;

    private EmbeddedCluster(Path dataDir, boolean ownsDataDir, Map<String, String> brokerConfigs) {
        this.dataDir = dataDir;
        this.ownsDataDir = ownsDataDir;
        this.brokerConfigs = brokerConfigs;
    }

    private int stoppedPort;

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
                throw new IllegalArgumentException("only 1 node is supported yet, got " + count);
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
            EmbeddedCluster cluster = new EmbeddedCluster(dir, owns, Map.copyOf(brokerConfigs));
            try {
                cluster.startBroker(0);
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

    private void startBroker(int port) {
        Map<String, String> props = new LinkedHashMap<>();
        props.put("node.id", "0");
        props.put("listeners", "PLAINTEXT://127.0.0.1:" + port);
        props.put("log.dirs", dataDir.resolve("node-0").toString());
        props.put("num.network.threads", "2");
        props.put("num.io.threads", "4");
        props.putAll(brokerConfigs);
        broker = new BrokerServer(BrokerConfig.from(props)).start();
    }

    /** {@code host:port} for {@code bootstrap.servers}. */
    public synchronized String bootstrapServers() {
        return broker != null ? broker.bootstrapServers() : "127.0.0.1:" + stoppedPort;
    }

    /** Stops the node and starts it again on the same port with the same data. */
    public synchronized void restart() {
        int port = broker.boundPort();
        broker.close();
        startBroker(port);
    }

    /** Stops the node, as a crash or an operator would; {@link #resume()} starts it again on the same port. */
    public synchronized void stop() {
        if (broker != null) {
            stoppedPort = broker.boundPort();
            broker.close();
            broker = null;
        }
    }

    /** Starts a node stopped by {@link #stop()} on its old port with its data. */
    public synchronized void resume() {
        if (broker == null) {
            startBroker(stoppedPort);
        }
    }

    public Path dataDir() {
        return dataDir;
    }

    @Override
    public synchronized void close() {
        if (broker != null) {
            broker.close();
            broker = null;
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
