package dev.strait.testkit;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;

/**
 * One source and one target cluster of each kind shared by every test in a test JVM that does not stop or
 * kill brokers, so the suite pays the start-up cost once. Tests keep apart by using their own topics and
 * group ids. The clusters are closed (Kafka nodes killed) and their directories deleted when the JVM exits.
 */
public final class SharedClusters {
    private static final Map<TestCluster.Kind, TestCluster> SOURCES = new EnumMap<>(TestCluster.Kind.class);
    private static final Map<TestCluster.Kind, TestCluster> TARGETS = new EnumMap<>(TestCluster.Kind.class);

    private SharedClusters() {}

    /** The shared Apache Kafka source cluster. */
    public static KafkaCluster source() {
        return (KafkaCluster) source(TestCluster.Kind.KAFKA);
    }

    /** The shared Apache Kafka target cluster. */
    public static KafkaCluster target() {
        return (KafkaCluster) target(TestCluster.Kind.KAFKA);
    }

    public static synchronized TestCluster source(TestCluster.Kind kind) {
        return SOURCES.computeIfAbsent(kind, k -> started(k, "shared-source"));
    }

    public static synchronized TestCluster target(TestCluster.Kind kind) {
        return TARGETS.computeIfAbsent(kind, k -> started(k, "shared-target"));
    }

    private static TestCluster started(TestCluster.Kind kind, String name) {
        TestCluster cluster = kind.start(name + "-" + kind.name().toLowerCase(Locale.ROOT));
        Runtime.getRuntime().addShutdownHook(new Thread(cluster::close, "close-" + name));
        return cluster;
    }
}
