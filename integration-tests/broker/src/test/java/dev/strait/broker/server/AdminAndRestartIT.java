package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.DescribeClusterResult;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidConfigurationException;
import org.apache.kafka.common.errors.InvalidReplicationFactorException;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Admin operations and restart, with the real kafka-clients 4.1.1 Admin, producer and consumer. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class AdminAndRestartIT {

    private static final long TIMEOUT_S = 20;

    @Test
    void adminManagesTopicsConfigsAndOffsets() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(1).start();
                Admin admin = admin(cluster)) {
            // Create, with a config override; duplicates and replication > 1 are refused
            admin.createTopics(List.of(new NewTopic("orders", 3, (short) 1).configs(Map.of("retention.ms", "3600000"))))
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
            assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("orders", 1, (short) 1)))
                            .all()
                            .get(TIMEOUT_S, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicExistsException.class);
            assertThatThrownBy(() -> admin.createTopics(List.of(new NewTopic("replicated", 1, (short) 3)))
                            .all()
                            .get(TIMEOUT_S, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(InvalidReplicationFactorException.class);

            // Describe topics and cluster
            TopicDescription description = admin.describeTopics(List.of("orders"))
                    .allTopicNames()
                    .get(TIMEOUT_S, TimeUnit.SECONDS)
                    .get("orders");
            assertThat(description.partitions()).hasSize(3);
            assertThat(description.topicId()).isNotEqualTo(Uuid.ZERO_UUID);
            assertThat(description.partitions().get(0).leader().id()).isZero();
            assertThat(description.partitions().get(0).isr())
                    .extracting(n -> n.id())
                    .containsExactly(0);
            DescribeClusterResult clusterInfo = admin.describeCluster();
            assertThat(clusterInfo.nodes().get(TIMEOUT_S, TimeUnit.SECONDS)).hasSize(1);
            assertThat(clusterInfo.controller().get(TIMEOUT_S, TimeUnit.SECONDS).id())
                    .isZero();
            assertThat(clusterInfo.clusterId().get(TIMEOUT_S, TimeUnit.SECONDS)).isNotBlank();

            // Describe and alter configs
            ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, "orders");
            Config config = describe(admin, resource);
            assertThat(config.get("retention.ms").value()).isEqualTo("3600000");
            assertThat(config.get("retention.ms").source()).isEqualTo(ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG);
            assertThat(config.get("cleanup.policy").value()).isEqualTo("delete");
            assertThat(config.get("segment.bytes").source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
            admin.incrementalAlterConfigs(Map.of(
                            resource,
                            List.of(
                                    new AlterConfigOp(
                                            new ConfigEntry("max.message.bytes", "2000"), AlterConfigOp.OpType.SET),
                                    new AlterConfigOp(
                                            new ConfigEntry("retention.ms", ""), AlterConfigOp.OpType.DELETE))))
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
            config = describe(admin, resource);
            assertThat(config.get("max.message.bytes").value()).isEqualTo("2000");
            assertThat(config.get("retention.ms").source()).isEqualTo(ConfigEntry.ConfigSource.DEFAULT_CONFIG);
            assertThatThrownBy(() -> admin.incrementalAlterConfigs(Map.of(
                                    resource,
                                    List.of(new AlterConfigOp(
                                            new ConfigEntry("retention.ms", "soon"), AlterConfigOp.OpType.SET))))
                            .all()
                            .get(TIMEOUT_S, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(InvalidConfigurationException.class);

            // The new max.message.bytes is enforced on produce
            try (KafkaProducer<String, String> producer =
                    KafkaClientsRoundTripIT.producer(cluster.bootstrapServers(), Map.of("retries", "0"))) {
                assertThatThrownBy(() -> producer.send(new ProducerRecord<>("orders", 1, "k", "x".repeat(5000)))
                                .get(TIMEOUT_S, TimeUnit.SECONDS))
                        .hasCauseInstanceOf(RecordTooLargeException.class);
                // Records with timestamps 1000, 2000, 3000 for the offset lookups
                for (int i = 1; i <= 3; i++) {
                    producer.send(new ProducerRecord<>("orders", 0, i * 1000L, "k" + i, "v" + i))
                            .get(TIMEOUT_S, TimeUnit.SECONDS);
                }
            }

            // List offsets
            TopicPartition tp = new TopicPartition("orders", 0);
            assertThat(listOffset(admin, tp, OffsetSpec.earliest()).offset()).isZero();
            assertThat(listOffset(admin, tp, OffsetSpec.latest()).offset()).isEqualTo(3);
            ListOffsetsResultInfo byTime = listOffset(admin, tp, OffsetSpec.forTimestamp(1500));
            assertThat(byTime.offset()).isEqualTo(1);
            assertThat(byTime.timestamp()).isEqualTo(2000);
            assertThat(listOffset(admin, tp, OffsetSpec.forTimestamp(99_000)).offset())
                    .isEqualTo(-1);
            ListOffsetsResultInfo max = listOffset(admin, tp, OffsetSpec.maxTimestamp());
            assertThat(max.offset()).isEqualTo(2);
            assertThat(max.timestamp()).isEqualTo(3000);
            assertThat(listOffset(admin, new TopicPartition("orders", 2), OffsetSpec.maxTimestamp())
                            .offset())
                    .isEqualTo(-1);

            // Delete
            admin.deleteTopics(List.of("orders")).all().get(TIMEOUT_S, TimeUnit.SECONDS);
            assertThat(admin.listTopics().names().get(TIMEOUT_S, TimeUnit.SECONDS))
                    .doesNotContain("orders");
        }
    }

    @Test
    void restartKeepsTopicsAndRecords() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(1).start()) {
            // Given
            Uuid topicId;
            try (Admin admin = admin(cluster)) {
                admin.createTopics(List.of(
                                new NewTopic("durable", 2, (short) 1).configs(Map.of("retention.bytes", "123456789"))))
                        .all()
                        .get(TIMEOUT_S, TimeUnit.SECONDS);
                topicId = admin.describeTopics(List.of("durable"))
                        .allTopicNames()
                        .get(TIMEOUT_S, TimeUnit.SECONDS)
                        .get("durable")
                        .topicId();
            }
            try (KafkaProducer<String, String> producer =
                    KafkaClientsRoundTripIT.producer(cluster.bootstrapServers(), Map.of())) {
                for (int i = 0; i < 10; i++) {
                    producer.send(new ProducerRecord<>("durable", 1, "k" + i, "v" + i));
                }
                producer.flush();
            }

            // When
            cluster.restart();

            // Then
            try (Admin admin = admin(cluster)) {
                TopicDescription description = admin.describeTopics(List.of("durable"))
                        .allTopicNames()
                        .get(TIMEOUT_S, TimeUnit.SECONDS)
                        .get("durable");
                assertThat(description.topicId()).isEqualTo(topicId);
                assertThat(description.partitions()).hasSize(2);
                Config config = describe(admin, new ConfigResource(ConfigResource.Type.TOPIC, "durable"));
                assertThat(config.get("retention.bytes").value()).isEqualTo("123456789");
            }
            try (KafkaProducer<String, String> producer =
                    KafkaClientsRoundTripIT.producer(cluster.bootstrapServers(), Map.of())) {
                assertThat(producer.send(new ProducerRecord<>("durable", 1, "k10", "v10"))
                                .get(TIMEOUT_S, TimeUnit.SECONDS)
                                .offset())
                        .isEqualTo(10);
            }
            List<ConsumerRecord<String, String>> records = KafkaClientsRoundTripIT.consumeFromStart(
                    cluster.bootstrapServers(), new TopicPartition("durable", 1), 11);
            assertThat(records)
                    .extracting(ConsumerRecord::value)
                    .containsExactly("v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10");
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

    private static Config describe(Admin admin, ConfigResource resource)
            throws ExecutionException, InterruptedException, java.util.concurrent.TimeoutException {
        return admin.describeConfigs(List.of(resource))
                .all()
                .get(TIMEOUT_S, TimeUnit.SECONDS)
                .get(resource);
    }

    private static ListOffsetsResultInfo listOffset(Admin admin, TopicPartition tp, OffsetSpec spec) throws Exception {
        return admin.listOffsets(Map.of(tp, spec)).partitionResult(tp).get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    static Duration timeout() {
        return Duration.ofSeconds(TIMEOUT_S);
    }
}
