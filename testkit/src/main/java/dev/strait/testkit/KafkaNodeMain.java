package dev.strait.testkit;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Entry point of a child JVM that runs one Apache Kafka KRaft node: formats its log directory on the
 * first start (as {@code kafka-storage format} would), then hands over to {@code kafka.Kafka}.
 *
 * <p>Arguments: {@code <server.properties> <cluster-id> <log-dir> [format arguments, e.g. --add-scram ...]}.
 */
public final class KafkaNodeMain {
    private KafkaNodeMain() {}

    public static void main(String[] args) throws Exception {
        if (args.length < 3) {
            System.err.println("usage: KafkaNodeMain <server.properties> <cluster-id> <log-dir> [format args]");
            System.exit(2);
        }
        String config = args[0];
        String clusterId = args[1];
        Path logDir = Path.of(args[2]);
        if (!Files.exists(logDir.resolve("meta.properties"))) {
            PrintStream out = System.out;
            java.util.List<String> format = new java.util.ArrayList<>(
                    java.util.List.of("format", "-t", clusterId, "-c", config, "--ignore-formatted"));
            format.addAll(java.util.Arrays.asList(args).subList(3, args.length));
            int rc = kafka.tools.StorageTool.execute(format.toArray(new String[0]), out);
            if (rc != 0) {
                System.err.println("formatting " + logDir + " failed with code " + rc);
                System.exit(rc);
            }
        }
        kafka.Kafka.main(new String[] {config});
    }
}
