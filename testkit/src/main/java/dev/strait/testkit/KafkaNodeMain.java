package dev.strait.testkit;

import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Entry point of a child JVM that runs one Apache Kafka KRaft node: formats its log directory on the
 * first start (as {@code kafka-storage format} would), then hands over to {@code kafka.Kafka}.
 *
 * <p>Arguments: {@code <server.properties> <cluster-id> <log-dir>}.
 */
public final class KafkaNodeMain {
    private KafkaNodeMain() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 3) {
            System.err.println("usage: KafkaNodeMain <server.properties> <cluster-id> <log-dir>");
            System.exit(2);
        }
        String config = args[0];
        String clusterId = args[1];
        Path logDir = Path.of(args[2]);
        if (!Files.exists(logDir.resolve("meta.properties"))) {
            PrintStream out = System.out;
            int rc = kafka.tools.StorageTool.execute(
                new String[] {"format", "-t", clusterId, "-c", config, "--ignore-formatted"}, out);
            if (rc != 0) {
                System.err.println("formatting " + logDir + " failed with code " + rc);
                System.exit(rc);
            }
        }
        kafka.Kafka.main(new String[] {config});
    }
}
