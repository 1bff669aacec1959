package dev.strait.bench;

import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.KafkaNodeMain;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.apache.kafka.common.Uuid;

/**
 * How to run one single-node broker of each kind as a child JVM on 127.0.0.1, in a fresh directory, with the
 * JVM options the bench gives both. Apache Kafka 4.1.1 runs as the testkit runs it ({@link KafkaNodeMain}: format,
 * then {@code kafka.Kafka}) but with the bench's JVM options instead of the testkit's small test heap; its log
 * directory is formatted by a separate, untimed child first, so start-up time compares serving, not formatting.
 * Strait's companion broker runs {@code dev.strait.broker.server.BrokerMain} as {@code bin/broker} does, but on
 * the same JVM options as Kafka (bin/strait's defaults are a smaller heap and ParallelGC).
 */
final class BrokerNode {
    enum Kind {
        KAFKA("Apache Kafka 4.1.1"),
        STRAIT("Strait broker");

        final String label;

        Kind(String label) {
            this.label = label;
        }

        /** {@code --only}: {@code strait}, {@code kafka}, or both in the order to run them. */
        static List<Kind> parseList(String value) {
            List<Kind> kinds = new ArrayList<>();
            for (String name : value.split(",")) {
                Kind kind = switch (name.trim()) {
                    case "strait" -> STRAIT;
                    case "kafka" -> KAFKA;
                    default ->
                        throw new IllegalArgumentException("--only takes strait, kafka or both in order, not " + value);
                };
                if (!kinds.contains(kind)) {
                    kinds.add(kind);
                }
            }
            return List.copyOf(kinds);
        }
    }

    /** The JVM options of every broker node, either kind: Kafka's start script's performance options. */
    static List<String> jvmOptions(String heap) {
        return List.of(
                "-Xmx" + heap,
                "-XX:+UseG1GC",
                "-XX:MaxGCPauseMillis=20",
                "-XX:InitiatingHeapOccupancyPercent=35",
                "-XX:+ExplicitGCInvokesConcurrent",
                "-Djava.awt.headless=true",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    }

    /** Settings both brokers get, under Kafka's names (both accept them). */
    private static final Map<String, String> COMMON = Map.of(
            "auto.create.topics.enable", "false",
            "num.partitions", "1",
            "offsets.topic.num.partitions", "5",
            "group.initial.rebalance.delay.ms", "0");

    final Kind kind;
    final int port;
    final Path dir;
    private final List<String> jvmOptions;

    BrokerNode(Kind kind, Path dir, List<String> jvmOptions) {
        this.kind = kind;
        this.dir = dir;
        this.port = KafkaCluster.freePort();
        this.jvmOptions = List.copyOf(jvmOptions);
    }

    String bootstrapServers() {
        return "127.0.0.1:" + port;
    }

    Path log() {
        return dir.resolve("broker.log");
    }

    /** Writes the config and, for Kafka, formats the log directory (not part of the timed start-up). */
    void prepare(ChildProcesses children) throws IOException, InterruptedException {
        if (children.isClosed()) {
            throw new IllegalStateException("the bench is shutting down");
        }
        Files.createDirectories(dir);
        Files.writeString(config(), properties(), StandardCharsets.UTF_8);
        if (kind == Kind.KAFKA) {
            List<String> cmd = new ArrayList<>(List.of(
                    java(),
                    "-cp",
                    KafkaCluster.kafkaClassPath(),
                    "kafka.tools.StorageTool",
                    "format",
                    "-t",
                    Uuid.randomUuid().toString(),
                    "-c",
                    config().toString(),
                    "--ignore-formatted"));
            ChildProcesses.Completed done = children.run(cmd, dir.resolve("format.log"), Duration.ofMinutes(2));
            if (done.exitCode() != 0) {
                throw new IllegalStateException("kafka-storage format failed:\n" + ChildProcesses.tail(done.log(), 20));
            }
        }
    }

    /** The broker's command line. */
    List<String> command() {
        List<String> cmd = new ArrayList<>();
        cmd.add(java());
        cmd.addAll(jvmOptions);
        cmd.add("-cp");
        if (kind == Kind.KAFKA) {
            cmd.add(KafkaCluster.kafkaClassPath());
            cmd.add(KafkaNodeMain.class.getName());
            cmd.add(config().toString());
            cmd.add("unused-cluster-id");
            cmd.add(dataDir().toString());
        } else {
            cmd.add(System.getProperty("java.class.path"));
            cmd.add("dev.strait.broker.server.BrokerMain");
            cmd.add(config().toString());
        }
        return cmd;
    }

    private Path config() {
        return dir.resolve("server.properties");
    }

    private Path dataDir() {
        return dir.resolve("data");
    }

    private String properties() {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("node.id", "1");
        p.put("log.dirs", dataDir().toString());
        if (kind == Kind.KAFKA) {
            int controllerPort = KafkaCluster.freePort();
            p.put("process.roles", "broker,controller");
            p.put("controller.quorum.voters", "1@127.0.0.1:" + controllerPort);
            p.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
            p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
            p.put("controller.listener.names", "CONTROLLER");
            p.put("inter.broker.listener.name", "PLAINTEXT");
            p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
            p.put("offsets.topic.replication.factor", "1");
            p.put("transaction.state.log.replication.factor", "1");
            p.put("transaction.state.log.min.isr", "1");
            p.put("share.coordinator.state.topic.replication.factor", "1");
            p.put("share.coordinator.state.topic.min.isr", "1");
            p.put("default.replication.factor", "1");
            p.put("min.insync.replicas", "1");
        } else {
            p.put("listeners", "PLAINTEXT://127.0.0.1:" + port);
        }
        p.putAll(COMMON);
        return p.entrySet().stream()
                .map(e -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining("\n", "", "\n"));
    }

    static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }
}
