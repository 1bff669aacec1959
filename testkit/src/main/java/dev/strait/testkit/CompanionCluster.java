package dev.strait.testkit;

import java.util.Map;

import dev.strait.broker.server.EmbeddedCluster;

/**
 * Strait's companion broker as a {@link TestCluster}: an {@link EmbeddedCluster} inside the test JVM on an
 * ephemeral 127.0.0.1 port, so a suite written against Apache Kafka runs unchanged against our broker.
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
        brokerConfig.forEach(builder::brokerConfig);
        return new CompanionCluster(name, builder.start());
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public Kind kind() {
        return Kind.COMPANION;
    }

    @Override
    public String bootstrapServers() {
        return cluster.bootstrapServers();
    }

    @Override
    public int size() {
        return 1;
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
    public void close() {
        cluster.close();
    }

    @Override
    public String toString() {
        return "companion cluster " + name + " at " + bootstrapServers();
    }
}
