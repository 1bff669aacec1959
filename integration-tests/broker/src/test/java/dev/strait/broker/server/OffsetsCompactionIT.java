package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The log cleaner keeps {@code __consumer_offsets} from growing without bound: many commits, compaction, restart,
 * and OffsetFetch still answers the latest commits. Real kafka-clients Admin against a node.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OffsetsCompactionIT {

    private static final long TIMEOUT_S = 20;
    private static final int COMMITS = 300;

    @TempDir
    Path dataDir;

    @Test
    void committedOffsetsAreCompactedAndTheLatestSurviveARestart() throws Exception {
        TopicPartition p0 = new TopicPartition("compacted-input", 0);
        TopicPartition p1 = new TopicPartition("compacted-input", 1);
        Path offsetsDir = dataDir.resolve("node-0").resolve("__consumer_offsets-0");

        // Given: 300 commits of two partitions for one group, with the cleaner off
        long uncompactedBytes;
        try (EmbeddedCluster cluster = cluster(false);
                Admin admin = admin(cluster)) {
            admin.createTopics(List.of(new NewTopic("compacted-input", 2, (short) 1)))
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
            for (int i = 1; i <= COMMITS; i++) {
                admin.alterConsumerGroupOffsets(
                                "compacting-group",
                                Map.of(
                                        p0,
                                        new OffsetAndMetadata(i),
                                        p1,
                                        new OffsetAndMetadata(10_000 + i, "meta-" + i)))
                        .all()
                        .get(TIMEOUT_S, TimeUnit.SECONDS);
            }
            uncompactedBytes = logBytes(offsetsDir);
            Config config = admin.describeConfigs(
                            List.of(new ConfigResource(ConfigResource.Type.TOPIC, "__consumer_offsets")))
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS)
                    .values()
                    .iterator()
                    .next();
            assertThat(config.get("cleanup.policy").value()).isEqualTo("compact");
            assertThat(config.get("segment.bytes").value()).isEqualTo("1024");
        }
        assertThat(uncompactedBytes).isGreaterThan(COMMITS * 100L);

        // When: the node runs with the cleaner on
        try (EmbeddedCluster cluster = cluster(true)) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
            long compactedBytes = logBytes(offsetsDir);
            while (compactedBytes > uncompactedBytes / 10 && System.nanoTime() < deadline) {
                Thread.sleep(100);
                compactedBytes = logBytes(offsetsDir);
            }

            // Then
            assertThat(compactedBytes)
                    .as("offsets log bytes after compaction, from %d", uncompactedBytes)
                    .isLessThanOrEqualTo(uncompactedBytes / 10);
            try (Admin admin = admin(cluster)) {
                assertThat(committed(admin))
                        .containsEntry(p0, new OffsetAndMetadata(COMMITS))
                        .containsEntry(p1, new OffsetAndMetadata(10_000 + COMMITS, "meta-" + COMMITS));
                admin.alterConsumerGroupOffsets("compacting-group", Map.of(p0, new OffsetAndMetadata(77_777)))
                        .all()
                        .get(TIMEOUT_S, TimeUnit.SECONDS);
            }

            // When
            cluster.restart();

            // Then: the group coordinator replays the compacted log
            try (Admin admin = admin(cluster)) {
                assertThat(committed(admin))
                        .containsEntry(p0, new OffsetAndMetadata(77_777))
                        .containsEntry(p1, new OffsetAndMetadata(10_000 + COMMITS, "meta-" + COMMITS));
            }
            assertThat(logBytes(offsetsDir)).isLessThan(uncompactedBytes / 5);
        }
    }

    @Test
    void aCompactedUserTopicKeepsTheLatestValuePerKeyAndRefusesRecordsWithoutKey() throws Exception {
        TopicPartition tp = new TopicPartition("kv", 0);
        try (EmbeddedCluster cluster = cluster(true);
                Admin admin = admin(cluster)) {
            // Given
            admin.createTopics(List.of(new NewTopic("kv", 1, (short) 1)
                            .configs(Map.of("cleanup.policy", "compact", "segment.bytes", "1024"))))
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
            Map<String, String> latest = new HashMap<>();
            try (KafkaProducer<String, String> producer =
                    KafkaClientsRoundTripIT.producer(cluster.bootstrapServers(), Map.of("linger.ms", "0"))) {
                for (int i = 0; i < 200; i++) {
                    String key = "key-" + (i % 5);
                    producer.send(new ProducerRecord<>("kv", 0, key, "value-" + i))
                            .get(TIMEOUT_S, TimeUnit.SECONDS);
                    latest.put(key, "value-" + i);
                }
                assertThatThrownBy(() -> producer.send(new ProducerRecord<>("kv", 0, null, "keyless"))
                                .get(TIMEOUT_S, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(InvalidRecordException.class)
                        .hasMessageContaining("without key");
            }
            Path dir = cluster.dataDir().resolve("node-0").resolve("kv-0");
            // Each of the 200 batches holds one record and is more than 70 bytes; the cleaner may already be at work.
            long writtenBytes = 200 * 70L;

            // When: the cleaner works
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
            while (logBytes(dir) > writtenBytes / 4 && System.nanoTime() < deadline) {
                Thread.sleep(100);
            }

            // Then
            assertThat(logBytes(dir)).isLessThanOrEqualTo(writtenBytes / 4);
            Map<String, String> read = new HashMap<>();
            int records = 0;
            long lastOffset = -1;
            Properties props = KafkaClientsRoundTripIT.consumerProps(cluster.bootstrapServers());
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
                consumer.assign(List.of(tp));
                consumer.seekToBeginning(List.of(tp));
                while (consumer.position(tp) < 200 && System.nanoTime() < deadline + TimeUnit.SECONDS.toNanos(20)) {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                        assertThat(record.offset()).isGreaterThan(lastOffset);
                        lastOffset = record.offset();
                        read.put(record.key(), record.value());
                        records++;
                    }
                }
            }
            assertThat(read).isEqualTo(latest);
            assertThat(lastOffset).isEqualTo(199);
            assertThat(records).isLessThan(50);
        }
    }

    private EmbeddedCluster cluster(boolean cleaner) {
        return EmbeddedCluster.builder()
                .nodes(1)
                .dataDir(dataDir)
                .brokerConfig("offsets.topic.num.partitions", "1")
                .brokerConfig("offsets.topic.segment.bytes", "1024")
                .brokerConfig("log.cleaner.enable", Boolean.toString(cleaner))
                .brokerConfig("log.cleaner.backoff.ms", "100")
                .start();
    }

    private static Map<TopicPartition, OffsetAndMetadata> committed(Admin admin) throws Exception {
        return admin.listConsumerGroupOffsets("compacting-group")
                .partitionsToOffsetAndMetadata()
                .get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    private static long logBytes(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            long total = 0;
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(".log"))
                    .toList()) {
                try {
                    total += Files.size(file);
                } catch (NoSuchFileException e) {
                    // replaced by the cleaner since the listing
                }
            }
            return total;
        }
    }

    private static Admin admin(EmbeddedCluster cluster) {
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                cluster.bootstrapServers(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                "15000",
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                "10000"));
    }
}
