package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * A classic group's metadata (generation, members, assignments) is persisted in __consumer_offsets, so a broker
 * restart does not force a rebalance: the real kafka-clients 4.1.1 consumer keeps its member id and generation.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class GroupRestartIT {

    private static final long TIMEOUT_S = 30;
    private static final String GROUP = "restart-group";
    private static final String TOPIC = "restart-in";

    @Test
    void aStableGroupStaysStableAcrossABrokerRestartWithoutARebalance() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder()
                .brokerConfig("group.initial.rebalance.delay.ms", "0")
                .start()) {
            try (Admin admin = admin(cluster)) {
                admin.createTopics(List.of(new NewTopic(TOPIC, 2, (short) 1)))
                        .all()
                        .get(TIMEOUT_S, TimeUnit.SECONDS);
            }
            AtomicInteger assignments = new AtomicInteger();
            List<ConsumerRecord<String, String>> consumed = new ArrayList<>();
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps(cluster))) {
                // Given: a Stable group with one member that consumed and committed
                consumer.subscribe(List.of(TOPIC), new ConsumerRebalanceListener() {
                    @Override
                    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {}

                    @Override
                    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                        assignments.incrementAndGet();
                    }
                });
                produce(cluster, 0, 5);
                pollUntil(consumer, consumed, 5);
                consumer.commitSync();
                ConsumerGroupMetadata before = consumer.groupMetadata();
                assertThat(before.generationId()).isPositive();
                assertThat(assignments.get()).isEqualTo(1);

                // When
                cluster.restart();

                // Then: the coordinator knows the group before the consumer is back
                try (Admin admin = admin(cluster)) {
                    ConsumerGroupDescription group = admin.describeConsumerGroups(List.of(GROUP))
                            .all()
                            .get(TIMEOUT_S, TimeUnit.SECONDS)
                            .get(GROUP);
                    assertThat(group.groupState()).isEqualTo(GroupState.STABLE);
                    assertThat(group.members())
                            .extracting(MemberDescription::consumerId)
                            .containsExactly(before.memberId());
                    assertThat(group.members().iterator().next().assignment().topicPartitions())
                            .containsExactlyInAnyOrder(new TopicPartition(TOPIC, 0), new TopicPartition(TOPIC, 1));
                }
                // ... and the consumer carries on in the same generation
                produce(cluster, 5, 5);
                pollUntil(consumer, consumed, 10);
                consumer.commitSync();
                ConsumerGroupMetadata after = consumer.groupMetadata();
                assertThat(after.memberId()).isEqualTo(before.memberId());
                assertThat(after.generationId()).isEqualTo(before.generationId());
                assertThat(assignments.get())
                        .as("no rebalance after the restart")
                        .isEqualTo(1);
            }
            assertThat(consumed)
                    .extracting(ConsumerRecord::value)
                    .containsExactlyInAnyOrder("v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9");
            try (Admin admin = admin(cluster)) {
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(GROUP)
                        .partitionsToOffsetAndMetadata()
                        .get(TIMEOUT_S, TimeUnit.SECONDS);
                assertThat(committed.values().stream()
                                .mapToLong(OffsetAndMetadata::offset)
                                .sum())
                        .isEqualTo(10);
            }
        }
    }

    private static void produce(EmbeddedCluster cluster, int from, int count) throws Exception {
        try (KafkaProducer<String, String> producer =
                KafkaClientsRoundTripIT.producer(cluster.bootstrapServers(), Map.of())) {
            for (int i = from; i < from + count; i++) {
                producer.send(new ProducerRecord<>(TOPIC, i % 2, "k" + i, "v" + i))
                        .get(TIMEOUT_S, TimeUnit.SECONDS);
            }
        }
    }

    private static void pollUntil(
            KafkaConsumer<String, String> consumer, List<ConsumerRecord<String, String>> consumed, int total) {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(TIMEOUT_S);
        while (consumed.size() < total && System.nanoTime() < deadline) {
            consumer.poll(Duration.ofMillis(200)).forEach(consumed::add);
        }
        assertThat(consumed).hasSize(total);
    }

    private static Properties consumerProps(EmbeddedCluster cluster) {
        Properties props = KafkaClientsRoundTripIT.consumerProps(cluster.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "30000");
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
        // While the only broker is down the 4.1 client may rebootstrap; its metadata then briefly lacks the topic's
        // partitions and it rejoins for "metadata has changed", which is client behaviour (Kafka would see the same)
        // and not what this test is about.
        props.put(CommonClientConfigs.METADATA_RECOVERY_STRATEGY_CONFIG, "none");
        return props;
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
