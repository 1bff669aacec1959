package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.SharedClusters;
import dev.strait.testkit.TestCluster;
import dev.strait.testkit.TestProducer;
import dev.strait.testkit.TopicReader;
import dev.strait.time.Await;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code bin/mirror-maker --offset.preserving} (its main class in a child JVM) from Apache Kafka 4.1.1 to a
 * three-node companion cluster: the companion copies the records at their source offsets, this process creates and
 * grows the mirror topics, copies group offsets verbatim and reports the lag; against an Apache Kafka target it
 * refuses with one line and exit code 2.
 */
class OffsetPreservingMirrorIT {
    @TempDir
    Path dir;

    @Test
    void theMatchingTopicsBecomeMirrorTopicsWithIdenticalOffsetsAndTheGroupsFollowVerbatim() throws Exception {
        KafkaCluster source = SharedClusters.source();
        TestCluster target = SharedClusters.target(TestCluster.Kind.COMPANION_CLUSTER);
        // Given: a topic with records and a group's commits on the source, and an ordinary topic on the target under
        // the name of another matching source topic
        source.createTopic("op.orders", 3, Map.of("retention.ms", "86400000"));
        source.createTopic("op.taken", 1);
        target.createTopic("op.taken", 1);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce("op.orders", 3, 500);
            producer.produce("op.taken", 1, 10);
        }
        TopicPartition p0 = new TopicPartition("op.orders", 0);
        TopicPartition p1 = new TopicPartition("op.orders", 1);
        TopicPartition p2 = new TopicPartition("op.orders", 2);
        try (Admin admin = source.admin()) {
            admin.alterConsumerGroupOffsets(
                            "op-app",
                            Map.of(
                                    p0, new OffsetAndMetadata(120),
                                    p1, new OffsetAndMetadata(300),
                                    p2, new OffsetAndMetadata(500)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        // and a group on the new consumer protocol (KIP-848) that consumed and committed, then left
        commitAsConsumerProtocolGroup(source.bootstrapServers(), "op-848", Map.of(p0, 50L, p1, 60L, p2, 70L));
        int metricsPort = KafkaCluster.freePort();
        String sourceForBrokers = source.bootstrapServers().replace("127.0.0.1", "localhost");

        // When
        try (MirrorProcess mirror = MirrorProcess.start(
                dir,
                "mirror",
                List.of(
                        "--consumer.config",
                        properties(
                                "c.properties",
                                "bootstrap.servers=" + source.bootstrapServers(),
                                "group.id=op-mirror",
                                // New topics are found on the consumer's metadata refresh, as in the ordinary mirror.
                                "metadata.max.age.ms=1000"),
                        "--producer.config",
                        properties("p.properties", "bootstrap.servers=" + target.bootstrapServers()),
                        "--whitelist",
                        "op\\..*",
                        "--offset.preserving",
                        "--offset.preserving.source.bootstrap",
                        sourceForBrokers,
                        "--groups",
                        "op-.*",
                        "--sync.group.offsets.interval.ms",
                        "500",
                        "--sync.topics.interval.ms",
                        "1000",
                        "--metrics.port",
                        String.valueOf(metricsPort),
                        "--jmx",
                        "false"))) {
            try (Admin targetAdmin = target.admin();
                    Admin sourceAdmin = source.admin()) {
                // Then: the records are on the target at the source's offsets
                awaitSameEnds(sourceAdmin, targetAdmin, "op.orders", 3, mirror);
                assertSameRecordsAtSameOffsets(source, target, "op.orders");
                assertThat(topicConfig(targetAdmin, "op.orders", "strait.mirror.source.bootstrap.servers"))
                        .isEqualTo(sourceForBrokers);
                assertThat(topicConfig(targetAdmin, "op.orders", "strait.mirror.source.topic.id"))
                        .isEqualTo(sourceAdmin
                                .describeTopics(List.of("op.orders"))
                                .allTopicNames()
                                .get(30, TimeUnit.SECONDS)
                                .get("op.orders")
                                .topicId()
                                .toString());
                assertThat(topicConfig(targetAdmin, "op.orders", "retention.ms"))
                        .isEqualTo("86400000");

                // And: the group's offsets, verbatim
                Await.until(
                        "op-app's offsets on the target",
                        Duration.ofSeconds(60),
                        () -> target.committedOffsets("op-app", "op.orders").equals(Map.of(0, 120L, 1, 300L, 2, 500L)));
                Await.until(
                        "op-848's offsets on the target",
                        Duration.ofSeconds(60),
                        () -> target.committedOffsets("op-848", "op.orders").equals(Map.of(0, 50L, 1, 60L, 2, 70L)));

                // And: the exact lag, 0 per partition, where the ordinary mirror reports it
                Await.until("lag 0 on every partition", Duration.ofSeconds(30), () -> {
                    String metrics = get(metricsPort, "/metrics");
                    return metrics.contains(
                                    "strait_mirror_partition_consumer_lag_records{topic=\"op.orders\",partition=\"0\"} 0")
                            && metrics.contains(
                                    "strait_mirror_partition_consumer_lag_records{topic=\"op.orders\",partition=\"2\"} 0")
                            && metrics.contains("strait_mirror_linked_topics 1");
                });

                // And: the ordinary topic of a matching name is reported and left alone
                assertThat(get(metricsPort, "/healthz"))
                        .contains("skipped op.taken: exists on the target and is not a mirror topic");
                assertThat(topicConfig(targetAdmin, "op.taken", "strait.mirror.source.bootstrap.servers"))
                        .isEmpty();
                assertThat(target.endOffsetSum("op.taken")).isZero();

                // When: a setting changes on the source
                sourceAdmin
                        .incrementalAlterConfigs(Map.of(
                                new ConfigResource(ConfigResource.Type.TOPIC, "op.orders"),
                                List.of(new AlterConfigOp(
                                        new ConfigEntry("retention.ms", "172800000"), AlterConfigOp.OpType.SET))))
                        .all()
                        .get(30, TimeUnit.SECONDS);

                // Then: the mirror topic follows, as the ordinary mirror's topics do
                Await.until("retention.ms synced", Duration.ofSeconds(60), () -> {
                    try {
                        return "172800000".equals(topicConfig(targetAdmin, "op.orders", "retention.ms"));
                    } catch (Exception e) {
                        return false;
                    }
                });

                // When: the source topic grows, and a new matching topic appears
                sourceAdmin
                        .createPartitions(Map.of("op.orders", NewPartitions.increaseTo(4)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
                KafkaCluster.awaitWritable(sourceAdmin, "op.orders", 4);
                source.createTopic("op.late", 2);
                try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
                    producer.produce("op.orders", 4, 500, 100);
                    producer.produce("op.late", 2, 300);
                }

                // Then: both are mirrored, at the source's offsets
                awaitSameEnds(sourceAdmin, targetAdmin, "op.orders", 4, mirror);
                awaitSameEnds(sourceAdmin, targetAdmin, "op.late", 2, mirror);
                assertSameRecordsAtSameOffsets(source, target, "op.orders");
                assertSameRecordsAtSameOffsets(source, target, "op.late");

                // And: the record-copying engine never ran: its group never read the source
                assertThat(sourceAdmin.listGroups().all().get(30, TimeUnit.SECONDS))
                        .noneMatch(g -> g.groupId().equals("op-mirror"));
            }
            // 143: the JVM reports the SIGTERM when the shutdown hook finishes before the main thread exits.
            assertThat(mirror.terminate(60)).as(mirror.log()).isIn(0, 143);
            assertThat(mirror.log()).contains("Mirror stopped");
        }
    }

    @Test
    void againstAnApacheKafkaTargetTheCommandRefusesWithOneLineAndExitCodeTwo() throws Exception {
        KafkaCluster source = SharedClusters.source();
        KafkaCluster target = SharedClusters.target();
        List<String> cmd = MirrorProcess.java("-Xmx256m");
        cmd.addAll(List.of(
                "-cp",
                MirrorProcess.classPath(),
                MirrorMakerMain.class.getName(),
                "--consumer.config",
                properties("c.properties", "bootstrap.servers=" + source.bootstrapServers(), "group.id=op-refused"),
                "--producer.config",
                properties("p.properties", "bootstrap.servers=" + target.bootstrapServers()),
                "--whitelist",
                "op\\..*",
                "--offset.preserving"));
        Path out = dir.resolve("out.txt");
        Path err = dir.resolve("err.txt");
        Process p = new ProcessBuilder(cmd)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile())
                .start();
        try {
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).isTrue();
        } finally {
            p.destroyForcibly();
        }

        String stderr = Files.readString(err, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(stderr).isEqualTo(2);
        assertThat(stderr.strip().lines()).as(stderr).hasSize(1);
        assertThat(stderr)
                .startsWith("mirror-maker: error: --offset.preserving needs a Strait companion cluster as the target, "
                        + "and " + target.bootstrapServers() + " is not one");
        assertThat(Files.readString(out, StandardCharsets.UTF_8)).isEmpty();
    }

    private String properties(String name, String... lines) throws IOException {
        Path p = dir.resolve(name);
        Files.writeString(p, String.join("\n", lines) + "\n", StandardCharsets.UTF_8);
        return p.toString();
    }

    private static void awaitSameEnds(Admin source, Admin target, String topic, int partitions, MirrorProcess mirror) {
        Map<TopicPartition, Long> sourceEnds = ends(source, topic, partitions);
        assertThat(sourceEnds).as("source ends of " + topic).hasSize(partitions);
        Await.until(
                topic + " copied to " + sourceEnds + " (mirror log: " + mirror.log() + ")",
                Duration.ofSeconds(90),
                () -> sourceEnds.equals(ends(target, topic, partitions)));
    }

    private static Map<TopicPartition, Long> ends(Admin admin, String topic, int partitions) {
        Map<TopicPartition, OffsetSpec> specs =
                new TreeMap<>(java.util.Comparator.comparingInt(TopicPartition::partition));
        for (int p = 0; p < partitions; p++) {
            specs.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        try {
            Map<TopicPartition, Long> out = new java.util.HashMap<>();
            admin.listOffsets(specs).all().get(10, TimeUnit.SECONDS).forEach((tp, i) -> out.put(tp, i.offset()));
            return out;
        } catch (Exception e) {
            return Map.of();
        }
    }

    /** Every record of the source is on the target at the same partition and offset, with the same key and value. */
    private static void assertSameRecordsAtSameOffsets(TestCluster source, TestCluster target, String topic) {
        Map<Integer, List<String>> src = flatten(TopicReader.readAll(source.bootstrapServers(), topic));
        Map<Integer, List<String>> dst = flatten(TopicReader.readAll(target.bootstrapServers(), topic));
        assertThat(dst).as(topic).isEqualTo(src);
        assertThat(src.values().stream().mapToLong(List::size).sum())
                .as(topic + " has records")
                .isPositive();
    }

    private static Map<Integer, List<String>> flatten(Map<Integer, List<ConsumerRecord<byte[], byte[]>>> records) {
        Map<Integer, List<String>> out = new TreeMap<>();
        records.forEach((partition, list) -> {
            List<String> rows = new ArrayList<>();
            for (ConsumerRecord<byte[], byte[]> r : list) {
                rows.add(r.offset() + " " + r.timestamp() + " " + java.util.Arrays.hashCode(r.key()) + " "
                        + java.util.Arrays.hashCode(r.value()));
            }
            out.put(partition, rows);
        });
        return out;
    }

    private static String topicConfig(Admin admin, String topic, String name) throws Exception {
        ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        var entry = admin.describeConfigs(List.of(r))
                .all()
                .get(30, TimeUnit.SECONDS)
                .get(r)
                .get(name);
        return entry == null ? null : entry.value();
    }

    private static String get(int port, String path) {
        try {
            HttpResponse<String> response = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                    .timeout(Duration.ofSeconds(5))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            return response.body();
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    /** A consumer of the KIP-848 protocol joins {@code group}, reads, commits {@code offsets} and leaves. */
    private static void commitAsConsumerProtocolGroup(
            String bootstrap, String group, Map<TopicPartition, Long> offsets) {
        java.util.Properties props = new java.util.Properties();
        props.put(org.apache.kafka.clients.consumer.ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(org.apache.kafka.clients.consumer.ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(org.apache.kafka.clients.consumer.ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        props.put(org.apache.kafka.clients.consumer.ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(org.apache.kafka.clients.consumer.ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(
                org.apache.kafka.clients.consumer.ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG,
                org.apache.kafka.common.serialization.ByteArrayDeserializer.class.getName());
        props.put(
                org.apache.kafka.clients.consumer.ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG,
                org.apache.kafka.common.serialization.ByteArrayDeserializer.class.getName());
        try (org.apache.kafka.clients.consumer.KafkaConsumer<byte[], byte[]> consumer =
                new org.apache.kafka.clients.consumer.KafkaConsumer<>(props)) {
            consumer.subscribe(List.of(offsets.keySet().iterator().next().topic()));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (consumer.assignment().size() < offsets.size() && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200));
            }
            assertThat(consumer.assignment())
                    .as("the KIP-848 member's assignment")
                    .hasSize(offsets.size());
            Map<TopicPartition, OffsetAndMetadata> commit = new java.util.HashMap<>();
            offsets.forEach((tp, offset) -> commit.put(tp, new OffsetAndMetadata(offset)));
            consumer.commitSync(commit, Duration.ofSeconds(30));
        }
    }
}
