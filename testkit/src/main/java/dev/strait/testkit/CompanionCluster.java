package dev.strait.testkit;

import dev.strait.broker.server.EmbeddedCluster;
import java.util.Map;

/**
 * Strait's companion broker as a {@link TestCluster}: an {@link EmbeddedCluster} of one or more nodes inside the
 * test JVM on 127.0.0.1, so a suite written against Apache Kafka runs unchanged against our broker.
 */
public final class CompanionCluster implements TestCluster {
    private final String name;
    private final EmbeddedCluster cluster;

    private CompanionCluster(String name, EmbeddedCluster cluster) {
        this.name = name;
        this.cluster = cluster;
    }

    public static CompanionCluster start(String name, int nodes) {
        return start(name, nodes, Map.of());
    }

    public static CompanionCluster start(String name, int nodes, Map<String, String> brokerConfig) {
        EmbeddedCluster.Builder builder = EmbeddedCluster.builder().nodes(nodes);
        if (nodes >= 3) {
            // Kafka's usual production settings, and failover fast enough for a test.
            builder.brokerConfig("min.insync.replicas", "2")
                    .brokerConfig("broker.session.timeout.ms", "3000")
                    .brokerConfig("broker.heartbeat.interval.ms", "500");
        }
        brokerConfig.forEach(builder::brokerConfig);
        return new CompanionCluster(name, builder.start());
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Kind kind() {
        return cluster.size() == 1 ? Kind.COMPANION : Kind.COMPANION_CLUSTER;
    }

    @Override
    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    @Override
    public int size() {
        return cluster.size();
    }

    @Override
    public void stopAll() {
        cluster.stop();
    }

    @Override
    public void restartAll() {
        cluster.resume();
    }

    @Override
    public void killNode(int index) {
        cluster.kill(index);
    }

    @Override
    public void restartNode(int index) {
        cluster.resume(index);
    }

    @Override
    public void close() {
        cluster.close();
    }

    @Override
    public String toString() {
        return "companion cluster " + name + " at " + bootstrapServers();
    }
}
