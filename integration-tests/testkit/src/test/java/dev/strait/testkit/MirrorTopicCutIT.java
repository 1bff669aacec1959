package dev.strait.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.server.EmbeddedCluster;
import dev.strait.time.Await;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The broker side of a mirror topic's failback, on two three-node companion clusters: a topic of cluster A is
 * mirrored to B, B is promoted, and both sides take records the other never sees. A's topic then becomes a mirror
 * of B's: paused, it refuses producers; the cut (strait.mirror.truncate.*) makes every replica of A save what lies
 * past the point where the two logs part and cut it; the copy then continues from B at B's offsets. A node
 * restarted afterwards does not cut again.
 */
class MirrorTopicCutIT {
    private static final TopicPartition TP = new TopicPartition("payments", 0);

    @Test
    void failbackCutSavesTheDivergentSuffixOnEveryReplicaAndTheCopyContinuesFromTheNewSource() throws Exception {
        try (EmbeddedCluster a = cluster();
                EmbeddedCluster b = cluster();
                Admin adminA = admin(a.bootstrapServers());
                Admin adminB = admin(b.bootstrapServers())) {
            // Given: payments copied from A to B, then B promoted; 30 records then land on A only, 20 on B only
            adminA.createTopics(List.of(new NewTopic(TP.topic(), 1, (short) 3)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            produce(a.bootstrapServers(), "before", 100);
            adminB.createTopics(List.of(new NewTopic(TP.topic(), 1, (short) 3)
                            .configs(Map.of("strait.mirror.source.bootstrap.servers", a.bootstrapServers()))))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            Await.until("copied to B", Duration.ofSeconds(60), () -> PartitionReads.end(adminB, TP) == 100);
            alter(adminB, Map.of("strait.mirror.state", "promoted"));
            // (once B's leader takes a produce, its fetcher, reading the same metadata, copies no more)
            Await.until("B takes producers", Duration.ofSeconds(30), () -> tryProduce(b.bootstrapServers()));
            produce(a.bootstrapServers(), "only-on-a", 30);
            produce(b.bootstrapServers(), "only-on-b", 19);
            String idOfB = adminB.describeTopics(List.of(TP.topic()))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(TP.topic())
                    .topicId()
                    .toString();

            // When: A's topic is made a paused mirror of B's
            alter(
                    adminA,
                    Map.of(
                            "strait.mirror.source.bootstrap.servers",
                            b.bootstrapServers(),
                            "strait.mirror.source.topic.id",
                            idOfB,
                            "strait.mirror.state",
                            "paused"));

            // Then: A refuses producers, and nothing is copied or cut yet
            Await.until("A refuses producers", Duration.ofSeconds(30), () -> !tryProduce(a.bootstrapServers()));
            // (a probe sent before the pause reached A's leader may have landed: it is A's own record, cut and kept)
            List<String> onA = PartitionReads.records(a.bootstrapServers(), TP, "read_uncommitted");
            assertThat(onA.size()).isBetween(130, 131);
            Thread.sleep(1000);
            assertThat(PartitionReads.end(adminA, TP))
                    .as("paused: nothing copied")
                    .isEqualTo(onA.size());

            // When: a follower of A crashes, then the cut at 100, where the two sides part, and copying again
            int leaderOfA = adminA.describeTopics(List.of(TP.topic()))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(TP.topic())
                    .partitions()
                    .get(0)
                    .leader()
                    .id();
            int away = (leaderOfA + 1) % 3;
            a.kill(away);
            alter(
                    adminA,
                    Map.of(
                            "strait.mirror.truncate.id", "failback-1",
                            "strait.mirror.truncate.offsets", "0:100",
                            "strait.mirror.state", "mirroring"));

            // Then: A holds B's records at B's offsets
            long endOfB = PartitionReads.end(adminB, TP);
            assertThat(endOfB).isEqualTo(120);
            Await.until(
                    "A copies B",
                    Duration.ofSeconds(60),
                    () -> PartitionReads.end(adminA, TP) == endOfB,
                    () -> "A ends at " + PartitionReads.end(adminA, TP));
            List<String> onB = PartitionReads.records(b.bootstrapServers(), TP, "read_uncommitted");
            assertThat(PartitionReads.records(a.bootstrapServers(), TP, "read_uncommitted"))
                    .isEqualTo(onB);
            assertThat(onB.subList(100, 120)).noneMatch(r -> r.contains("only-on-a"));
            // When: the crashed follower comes back, with the old suffix still in its log
            a.resume(away);

            // Then: it cuts too before it follows, and ends with B's records
            Await.until(
                    "the returned follower holds B's records",
                    Duration.ofSeconds(60),
                    () -> onB.equals(localRecords(a, away)),
                    () -> "it holds " + localRecords(a, away).size() + " records");
            // and every replica of A kept what it cut: the 30 records only A had, offsets 100 to 129
            for (int node = 0; node < 3; node++) {
                List<Path> saved = savedSuffixes(a, node);
                assertThat(saved).as("node %d", node).hasSize(1);
                assertThat(saved.get(0).getFileName().toString())
                        .isEqualTo("diverged-100-" + onA.size() + ".failback-1.batches");
                assertThat(savedRecords(saved.get(0)))
                        .as("node %d", node)
                        .isEqualTo(onA.subList(100, onA.size()))
                        .allMatch(r -> !r.contains("before") && !r.contains("only-on-b"));
            }

            // When: a node of A restarts, and B takes more records
            a.restart(1);
            produce(b.bootstrapServers(), "later-on-b", 10);

            // Then: nothing is cut again, and the copy goes on on every replica
            Await.until("A copies on", Duration.ofSeconds(60), () -> PartitionReads.end(adminA, TP) == 130);
            assertThat(PartitionReads.records(a.bootstrapServers(), TP, "read_uncommitted"))
                    .isEqualTo(PartitionReads.records(b.bootstrapServers(), TP, "read_uncommitted"));
            assertThat(savedSuffixes(a, 1)).hasSize(1);
        }
    }

    private static EmbeddedCluster cluster() {
        return EmbeddedCluster.builder()
                .nodes(3)
                .brokerConfig("min.insync.replicas", "2")
                .brokerConfig("broker.session.timeout.ms", "3000")
                .brokerConfig("broker.heartbeat.interval.ms", "500")
                .start();
    }

    private static List<Path> savedSuffixes(EmbeddedCluster cluster, int node) throws Exception {
        Path dir = cluster.dataDir().resolve("node-" + node).resolve(TP.topic() + "-" + TP.partition());
        try (Stream<Path> files = Files.list(dir)) {
            return files.filter(f -> f.getFileName().toString().endsWith(".batches"))
                    .toList();
        }
    }

    /** The records in one node's log files of the partition, read from its disk ({@code offset:value}). */
    private static List<String> localRecords(EmbeddedCluster cluster, int node) {
        Path dir = cluster.dataDir().resolve("node-" + node).resolve(TP.topic() + "-" + TP.partition());
        List<String> records = new ArrayList<>();
        try (Stream<Path> files = Files.list(dir)) {
            for (Path segment : files.filter(f -> f.getFileName().toString().endsWith(".log"))
                    .sorted()
                    .toList()) {
                records.addAll(savedRecords(segment));
            }
        } catch (Exception e) {
            return List.of(); // a segment rolled or truncated while read: ask again
        }
        return records;
    }

    /** The records of a saved suffix, as PartitionReads shows them ({@code offset:value}). */
    private static List<String> savedRecords(Path file) throws Exception {
        List<String> records = new ArrayList<>();
        MemoryRecords batches = MemoryRecords.readableRecords(ByteBuffer.wrap(Files.readAllBytes(file)));
        for (Record r : batches.records()) {
            records.add(r.offset() + ":" + StandardCharsets.UTF_8.decode(r.value()));
        }
        return records;
    }

    private static void alter(Admin admin, Map<String, String> configs) throws Exception {
        List<AlterConfigOp> ops = new ArrayList<>();
        configs.forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
        admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, TP.topic()), ops))
                .all()
                .get(30, TimeUnit.SECONDS);
    }

    private static boolean tryProduce(String bootstrapServers) {
        try (KafkaProducer<byte[], byte[]> producer = producer(bootstrapServers)) {
            producer.send(new ProducerRecord<>(
                            TP.topic(), TP.partition(), null, "probe".getBytes(StandardCharsets.UTF_8)))
                    .get(30, TimeUnit.SECONDS);
            return true;
        } catch (ExecutionException e) {
            return false;
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }

    private static void produce(String bootstrapServers, String prefix, int count) throws Exception {
        try (KafkaProducer<byte[], byte[]> producer = producer(bootstrapServers)) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(
                        TP.topic(), TP.partition(), null, (prefix + "-" + i).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrapServers) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "30000");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return new KafkaProducer<>(props);
    }

    private static Admin admin(String bootstrapServers) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers));
    }
}
