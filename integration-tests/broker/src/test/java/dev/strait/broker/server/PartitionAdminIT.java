package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.CreatePartitionsOptions;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.OffsetOutOfRangeException;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** CreatePartitions and DeleteRecords through the real kafka-clients 4.1.1 Admin, producer and consumer. */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class PartitionAdminIT {

    private static final long TIMEOUT_S = 20;

    @Test
    void createPartitionsGrowsATopicAndTheNewPartitionServesRecordsAcrossARestart() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(1).start()) {
            // Given
            try (Admin admin = admin(cluster)) {
                admin.createTopics(List.of(new NewTopic("grow", 2, (short) 1)))
                        .all()
                        .get(TIMEOUT_S, TimeUnit.SECONDS);

                // validateOnly changes nothing
                admin.createPartitions(
                                Map.of("grow", NewPartitions.increaseTo(4)),
                                new CreatePartitionsOptions().validateOnly(true))
                        .all()
                        .get(TIMEOUT_S, TimeUnit.SECONDS);
                assertThat(partitionCount(admin, "grow")).isEqualTo(2);

                // When
                admin.createPartitions(Map.of("grow", NewPartitions.increaseTo(4)))
                        .all()
                        .get(TIMEOUT_S, TimeUnit.SECONDS);

                // Then
                assertThat(partitionCount(admin, "grow")).isEqualTo(4);
                assertThatThrownBy(() -> createPartitions(admin, "grow", NewPartitions.increaseTo(3)))
                        .hasCauseInstanceOf(InvalidPartitionsException.class)
                        .hasMessageContaining("would not be an increase");
                assertThatThrownBy(() -> createPartitions(admin, "grow", NewPartitions.increaseTo(4)))
                        .hasCauseInstanceOf(InvalidPartitionsException.class)
                        .hasMessageContaining("already has 4 partition(s)");
                assertThatThrownBy(() -> createPartitions(admin, "missing", NewPartitions.increaseTo(4)))
                        .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
                assertThatThrownBy(
                                () -> createPartitions(admin, "grow", NewPartitions.increaseTo(5, List.of(List.of(7)))))
                        .hasCauseInstanceOf(InvalidReplicaAssignmentException.class)
                        .hasMessageContaining("broker 7");
                assertThatThrownBy(
                                () -> createPartitions(admin, "grow", NewPartitions.increaseTo(6, List.of(List.of(0)))))
                        .hasCauseInstanceOf(InvalidReplicaAssignmentException.class)
                        .hasMessageContaining("only 1 assignment(s)");
                assertThatThrownBy(() -> createPartitions(admin, "__consumer_offsets", NewPartitions.increaseTo(9)))
                        .hasMessageContaining("internal topic");
                // an assignment to this node is accepted
                createPartitions(admin, "grow", NewPartitions.increaseTo(5, List.of(List.of(0))));
                assertThat(partitionCount(admin, "grow")).isEqualTo(5);
            }
            try (KafkaProducer<String, String> producer =
                    KafkaClientsRoundTripIT.producer(cluster.bootstrapServers(), Map.of())) {
                for (int i = 0; i < 3; i++) {
                    RecordMetadata sent = producer.send(new ProducerRecord<>("grow", 4, "k" + i, "new-" + i))
                            .get(TIMEOUT_S, TimeUnit.SECONDS);
                    assertThat(sent.partition()).isEqualTo(4);
                    assertThat(sent.offset()).isEqualTo(i);
                }
            }
            assertThat(KafkaClientsRoundTripIT.consumeFromStart(
                            cluster.bootstrapServers(), new TopicPartition("grow", 4), 3))
                    .extracting(ConsumerRecord::value)
                    .containsExactly("new-0", "new-1", "new-2");

            // When
            cluster.restart();

            // Then
            try (Admin admin = admin(cluster)) {
                assertThat(partitionCount(admin, "grow")).isEqualTo(5);
            }
            assertThat(KafkaClientsRoundTripIT.consumeFromStart(
                            cluster.bootstrapServers(), new TopicPartition("grow", 4), 3))
                    .extracting(ConsumerRecord::value)
                    .containsExactly("new-0", "new-1", "new-2");
        }
    }

    @Test
    void deleteRecordsMovesTheLogStartOffsetDurablyAndDeletesWholeSegments() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(1).start();
                Admin admin = admin(cluster)) {
            // Given: 20 records, one per batch, in small segments
            TopicPartition tp = new TopicPartition("trim", 0);
            admin.createTopics(List.of(new NewTopic("trim", 1, (short) 1).configs(Map.of("segment.bytes", "300"))))
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
            try (KafkaProducer<String, String> producer =
                    KafkaClientsRoundTripIT.producer(cluster.bootstrapServers(), Map.of())) {
                for (int i = 0; i < 20; i++) {
                    producer.send(new ProducerRecord<>("trim", 0, "k" + i, "v" + i))
                            .get(TIMEOUT_S, TimeUnit.SECONDS);
                }
            }
            Path partitionDir = cluster.dataDir().resolve("node-0").resolve("trim-0");
            int segmentsBefore = logFiles(partitionDir);
            assertThat(segmentsBefore).isGreaterThan(3);

            // When
            long lowWatermark = admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(12)))
                    .lowWatermarks()
                    .get(tp)
                    .get(TIMEOUT_S, TimeUnit.SECONDS)
                    .lowWatermark();

            // Then
            assertThat(lowWatermark).isEqualTo(12);
            assertThat(earliest(admin, tp)).isEqualTo(12);
            assertThat(logFiles(partitionDir)).isLessThan(segmentsBefore);
            assertThat(consumeWithReset(cluster, tp, 2, 8))
                    .extracting(ConsumerRecord::offset)
                    .containsExactly(12L, 13L, 14L, 15L, 16L, 17L, 18L, 19L);
            assertThatThrownBy(() -> admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(21)))
                            .all()
                            .get(TIMEOUT_S, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(org.apache.kafka.common.errors.OffsetOutOfRangeException.class);
            // a lower offset than the current start leaves it where it is
            assertThat(admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(5)))
                            .lowWatermarks()
                            .get(tp)
                            .get(TIMEOUT_S, TimeUnit.SECONDS)
                            .lowWatermark())
                    .isEqualTo(12);

            // When
            cluster.restart();

            // Then
            try (Admin after = admin(cluster)) {
                assertThat(earliest(after, tp)).isEqualTo(12);
                assertThat(consumeWithReset(cluster, tp, 0, 8))
                        .extracting(ConsumerRecord::offset)
                        .first()
                        .isEqualTo(12L);
                // -1 means the high watermark
                assertThat(after.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(-1)))
                                .lowWatermarks()
                                .get(tp)
                                .get(TIMEOUT_S, TimeUnit.SECONDS)
                                .lowWatermark())
                        .isEqualTo(20);
                assertThat(earliest(after, tp)).isEqualTo(20);
            }
            try (KafkaProducer<String, String> producer =
                    KafkaClientsRoundTripIT.producer(cluster.bootstrapServers(), Map.of())) {
                assertThat(producer.send(new ProducerRecord<>("trim", 0, "k", "after"))
                                .get(TIMEOUT_S, TimeUnit.SECONDS)
                                .offset())
                        .isEqualTo(20);
            }
            assertThat(consumeWithReset(cluster, tp, 3, 1))
                    .extracting(ConsumerRecord::value)
                    .containsExactly("after");
        }
    }

    @Test
    void aGroupWhoseCommittedOffsetWasDeletedGetsOffsetOutOfRangeWithAutoOffsetResetNone() throws Exception {
        // Given: 200 records, a group committed at 100, then records before 150 deleted (the mirror's truncation case)
        TopicPartition tp = new TopicPartition("truncated", 0);
        try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(1).start();
                Admin admin = admin(cluster)) {
            admin.createTopics(List.of(new NewTopic("truncated", 1, (short) 1)))
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
            try (KafkaProducer<String, String> producer =
                    KafkaClientsRoundTripIT.producer(cluster.bootstrapServers(), Map.of())) {
                for (int i = 0; i < 200; i++) {
                    producer.send(new ProducerRecord<>("truncated", 0, "k" + i, "v" + i));
                }
                producer.flush();
            }
            admin.alterConsumerGroupOffsets("truncated-group", Map.of(tp, new OffsetAndMetadata(100)))
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
            admin.deleteRecords(Map.of(tp, RecordsToDelete.beforeOffset(150)))
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);

            // When
            Properties props = KafkaClientsRoundTripIT.consumerProps(cluster.bootstrapServers());
            props.put(ConsumerConfig.GROUP_ID_CONFIG, "truncated-group");
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "none");
            OffsetOutOfRangeException thrown = null;
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
                consumer.assign(List.of(tp));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
                while (thrown == null && System.nanoTime() < deadline) {
                    try {
                        assertThat(consumer.poll(Duration.ofMillis(200))).isEmpty();
                    } catch (OffsetOutOfRangeException e) {
                        thrown = e;
                    }
                }
            }

            // Then: the consumer learns the lost range from the broker
            assertThat(thrown).isNotNull();
            assertThat(thrown.offsetOutOfRangePartitions()).containsEntry(tp, 100L);
            assertThat(earliest(admin, tp)).isEqualTo(150);
        }
    }

    /** Seeks to {@code offset} (below the log start) with auto.offset.reset=earliest and reads {@code expected}. */
    private static List<ConsumerRecord<String, String>> consumeWithReset(
            EmbeddedCluster cluster, TopicPartition tp, long offset, int expected) {
        Properties props = KafkaClientsRoundTripIT.consumerProps(cluster.bootstrapServers());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, offset);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
            while (records.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    private static long earliest(Admin admin, TopicPartition tp) throws Exception {
        return admin.listOffsets(Map.of(tp, OffsetSpec.earliest()))
                .partitionResult(tp)
                .get(TIMEOUT_S, TimeUnit.SECONDS)
                .offset();
    }

    private static int logFiles(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            return (int) files.filter(f -> f.getFileName().toString().endsWith(".log"))
                    .count();
        }
    }

    private static void createPartitions(Admin admin, String topic, NewPartitions partitions) throws Exception {
        admin.createPartitions(Map.of(topic, partitions)).all().get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    private static int partitionCount(Admin admin, String topic) throws Exception {
        return admin.describeTopics(List.of(topic))
                .allTopicNames()
                .get(TIMEOUT_S, TimeUnit.SECONDS)
                .get(topic)
                .partitions()
                .size();
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
