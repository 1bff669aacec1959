package dev.strait.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The two mirrors that bin/bench, bin/bench failover and bin/bench mirror-topics race, started as users start them:
 * Strait's {@code bin/mirror-maker} script with a consumer and a producer config, and Kafka's MirrorMaker 2 in
 * dedicated mode (a child JVM on this module's class path) with one properties file. The modes differ only in the
 * flags and settings they pass, so a difference in the results comes from those and not from copied set-up.
 */
final class MirrorCommands {
    /** One-node source and target clusters: MirrorMaker 2's internal topics cannot have the default 3 replicas. */
    private static final List<String> MM2_ONE_REPLICA = List.of(
            "replication.factor=1",
            "checkpoints.topic.replication.factor=1",
            "heartbeats.topic.replication.factor=1",
            "offset-syncs.topic.replication.factor=1",
            "offset.storage.replication.factor=1",
            "status.storage.replication.factor=1",
            "config.storage.replication.factor=1");

    private MirrorCommands() {}

    /** Strait's consumer config: the source, read from the start by {@code group}. */
    static Path straitConsumerConfig(Path file, String sourceBootstrap, String group) throws IOException {
        Files.writeString(
                file,
                "bootstrap.servers=" + sourceBootstrap + "\ngroup.id=" + group + "\nauto.offset.reset=earliest\n");
        return file;
    }

    /** Strait's producer config: the target, with the mirror's own producer defaults. */
    static Path straitProducerConfig(Path file, String targetBootstrap) throws IOException {
        Files.writeString(file, "bootstrap.servers=" + targetBootstrap + "\n");
        return file;
    }

    /**
     * {@code bin/mirror-maker} of the checkout {@code repo} copying {@code topic}, then {@code flags}, with JMX off.
     * The script execs the JVM, so the process started is the mirror itself (its heap and JVM defaults included).
     */
    static List<String> strait(Path repo, Path consumerConfig, Path producerConfig, String topic, String... flags) {
        List<String> cmd = new ArrayList<>(List.of(
                "bash",
                repo.resolve("bin").resolve("mirror-maker").toString(),
                "--consumer.config",
                consumerConfig.toString(),
                "--producer.config",
                producerConfig.toString(),
                "--whitelist",
                topic));
        cmd.addAll(List.of(flags));
        cmd.addAll(List.of("--jmx", "false"));
        return List.copyOf(cmd);
    }

    /**
     * MirrorMaker 2's dedicated-mode config: {@code topic} copied one way, source to target, then {@code settings},
     * then the replication factors of one-node clusters.
     */
    static Path mm2Config(
            Path file, String sourceBootstrap, String targetBootstrap, String topic, List<String> settings)
            throws IOException {
        List<String> lines = new ArrayList<>(List.of(
                "clusters=source,target",
                "source.bootstrap.servers=" + sourceBootstrap,
                "target.bootstrap.servers=" + targetBootstrap,
                "source->target.enabled=true",
                "target->source.enabled=false",
                "source->target.topics=" + topic));
        lines.addAll(settings);
        lines.addAll(MM2_ONE_REPLICA);
        lines.add("");
        Files.writeString(file, String.join("\n", lines));
        return file;
    }

    /** MirrorMaker 2 in dedicated mode on {@code config}, with at most {@code maxHeap} (an -Xmx value) of heap. */
    static List<String> mm2(String maxHeap, Path config) {
        return List.of(
                BrokerNode.java(),
                "-Xms256M",
                "-Xmx" + maxHeap,
                "-cp",
                System.getProperty("java.class.path"),
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "org.apache.kafka.connect.mirror.MirrorMaker",
                config.toString());
    }
}
