package dev.strait.testkit;

/**
 * One source and one target cluster shared by every test in a test JVM that does not stop or kill
 * brokers, so the suite pays the start-up cost once. Tests keep apart by using their own topics and
 * group ids. The clusters are killed and their directories deleted when the JVM exits.
 */
public final class SharedClusters {
    private static KafkaCluster source;
    private static KafkaCluster target;

    private SharedClusters() {
    }

    public static synchronized KafkaCluster source() {
        if (source == null) {
            source = KafkaCluster.start("shared-source", 1);
            Runtime.getRuntime().addShutdownHook(new Thread(source::close, "close-shared-source"));
        }
        return source;
    }

    public static synchronized KafkaCluster target() {
        if (target == null) {
            target = KafkaCluster.start("shared-target", 1);
            Runtime.getRuntime().addShutdownHook(new Thread(target::close, "close-shared-target"));
        }
        return target;
    }
}
