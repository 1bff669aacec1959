package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Consumer groups (classic protocol) and committed offsets with the real kafka-clients 4.1.1 clients. */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class ConsumerGroupIT {

    private static final long WAIT_MS = 40_000;
    private static EmbeddedCluster cluster;
    private static Admin admin;

    @BeforeAll
    static void startCluster() {
        cluster = EmbeddedCluster.builder()
                .brokerConfig("group.initial.rebalance.delay.ms", "0")
                .start();
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()));
    }

    @AfterAll
    static void stopCluster() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private static void createTopic(String topic, int partitions) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                .all()
                .get(20, TimeUnit.SECONDS);
    }

    private static KafkaConsumer<String, String> consumer(String group, String instanceId) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "300");
        props.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG, "30000");
        if (instanceId != null) {
            props.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, instanceId);
        }
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    private static void produce(String topic, int partitions, String prefix, int count) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, i % partitions, null, prefix + i))
                        .get(20, TimeUnit.SECONDS);
            }
        }
    }

    /** Polls every consumer round-robin, committing synchronously after processing, until the condition holds. */
    private static void pollUntil(
            List<KafkaConsumer<String, String>> consumers, List<String> consumed, BooleanSupplier done) {
        long deadline = System.currentTimeMillis() + WAIT_MS;
        while (!done.getAsBoolean()) {
            assertThat(System.currentTimeMillis())
                    .as("condition not reached in time; consumed %s", consumed)
                    .isLessThan(deadline);
            for (KafkaConsumer<String, String> consumer : consumers) {
                var records = consumer.poll(Duration.ofMillis(50));
                for (ConsumerRecord<String, String> record : records) {
                    consumed.add(record.value());
                }
                if (!records.isEmpty()) {
                    consumer.commitSync(Duration.ofSeconds(10));
                }
            }
        }
    }

    private static boolean eachHas(List<KafkaConsumer<String, String>> consumers, int partitions) {
        Set<TopicPartition> all = new HashSet<>();
        for (KafkaConsumer<String, String> consumer : consumers) {
            if (consumer.assignment().size() != partitions) {
                return false;
            }
            all.addAll(consumer.assignment());
        }
        return all.size() == partitions * consumers.size();
    }

    @Test
    void threeConsumersShareSixPartitionsAndTheRemainingTwoTakeOverExactlyOnce() throws Exception {
        String topic = "group-six";
        createTopic(topic, 6);
        List<String> consumed = new ArrayList<>();
        List<KafkaConsumer<String, String>> consumers = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                KafkaConsumer<String, String> consumer = consumer("g-six", null);
                consumer.subscribe(List.of(topic));
                consumers.add(consumer);
            }
            pollUntil(consumers, consumed, () -> eachHas(consumers, 2));
            produce(topic, 6, "before-", 60);
            pollUntil(consumers, consumed, () -> consumed.size() >= 60);

            KafkaConsumer<String, String> leaving = consumers.remove(2);
            leaving.close(Duration.ofSeconds(10));
            pollUntil(consumers, consumed, () -> eachHas(consumers, 3));
            produce(topic, 6, "after-", 60);
            pollUntil(consumers, consumed, () -> consumed.size() >= 120);
            long quiet = System.currentTimeMillis() + 1000;
            pollUntil(consumers, consumed, () -> System.currentTimeMillis() > quiet);
        } finally {
            for (KafkaConsumer<String, String> consumer : consumers) {
                consumer.close(Duration.ofSeconds(5));
            }
        }
        assertThat(consumed).hasSize(120).doesNotHaveDuplicates();
    }

    private static List<String> consumeExactly(String group, String topic, int expected) {
        List<String> consumed = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = consumer(group, null)) {
            consumer.subscribe(List.of(topic));
            pollUntil(List.of(consumer), consumed, () -> consumed.size() >= expected);
            long quiet = System.currentTimeMillis() + 1000;
            pollUntil(List.of(consumer), consumed, () -> System.currentTimeMillis() > quiet);
        }
        return consumed;
    }

    @Test
    void aNewConsumerResumesFromCommittedOffsetsAlsoAfterARestart() throws Exception {
        String topic = "group-resume";
        createTopic(topic, 2);
        produce(topic, 2, "a-", 10);
        assertThat(consumeExactly("g-resume", topic, 10)).hasSize(10);

        produce(topic, 2, "b-", 5);
        assertThat(consumeExactly("g-resume", topic, 5)).containsExactlyInAnyOrder("b-0", "b-1", "b-2", "b-3", "b-4");

        cluster.restart();
        Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets("g-resume")
                .partitionsToOffsetAndMetadata()
                .get(20, TimeUnit.SECONDS);
        assertThat(committed).containsOnlyKeys(new TopicPartition(topic, 0), new TopicPartition(topic, 1));
        assertThat(committed.values()).extracting(OffsetAndMetadata::offset).containsOnly(8L, 7L);
        produce(topic, 2, "c-", 3);
        assertThat(consumeExactly("g-resume", topic, 3)).containsExactlyInAnyOrder("c-0", "c-1", "c-2");
    }

    @Test
    void adminListsDescribesAltersAndDeletesGroups() throws Exception {
        String topic = "group-admin";
        createTopic(topic, 3);
        produce(topic, 3, "x-", 6);
        List<String> consumed = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = consumer("g-admin", null)) {
            consumer.subscribe(List.of(topic));
            pollUntil(List.of(consumer), consumed, () -> consumed.size() >= 6);

            Collection<GroupListing> groups = admin.listGroups().all().get(20, TimeUnit.SECONDS);
            assertThat(groups).extracting(GroupListing::groupId).contains("g-admin");
            assertThat(admin.listConsumerGroups().all().get(20, TimeUnit.SECONDS))
                    .extracting(l -> l.groupId())
                    .contains("g-admin");
            ConsumerGroupDescription description = admin.describeConsumerGroups(List.of("g-admin"))
                    .describedGroups()
                    .get("g-admin")
                    .get(20, TimeUnit.SECONDS);
            assertThat(description.groupState()).isEqualTo(GroupState.STABLE);
            assertThat(description.members()).hasSize(1);
            MemberDescription member = description.members().iterator().next();
            assertThat(member.assignment().topicPartitions())
                    .containsExactlyInAnyOrder(
                            new TopicPartition(topic, 0), new TopicPartition(topic, 1), new TopicPartition(topic, 2));
            assertThat(admin.listConsumerGroupOffsets("g-admin")
                            .partitionsToOffsetAndMetadata()
                            .get(20, TimeUnit.SECONDS)
                            .values())
                    .extracting(OffsetAndMetadata::offset)
                    .containsOnly(2L);
        }

        Map<TopicPartition, OffsetAndMetadata> altered = new HashMap<>();
        altered.put(new TopicPartition(topic, 0), new OffsetAndMetadata(1L, "m"));
        admin.alterConsumerGroupOffsets("g-admin", altered).all().get(20, TimeUnit.SECONDS);
        Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets("g-admin")
                .partitionsToOffsetAndMetadata()
                .get(20, TimeUnit.SECONDS);
        assertThat(offsets.get(new TopicPartition(topic, 0)).offset()).isEqualTo(1L);
        assertThat(offsets.get(new TopicPartition(topic, 0)).metadata()).isEqualTo("m");
        assertThat(offsets.get(new TopicPartition(topic, 1)).offset()).isEqualTo(2L);
        ConsumerGroupDescription empty = admin.describeConsumerGroups(List.of("g-admin"))
                .describedGroups()
                .get("g-admin")
                .get(20, TimeUnit.SECONDS);
        assertThat(empty.groupState()).isEqualTo(GroupState.EMPTY);

        admin.deleteConsumerGroups(List.of("g-admin")).all().get(20, TimeUnit.SECONDS);
        assertThat(admin.listConsumerGroups().all().get(20, TimeUnit.SECONDS))
                .extracting(l -> l.groupId())
                .doesNotContain("g-admin");
        assertThat(admin.listConsumerGroupOffsets("g-admin")
                        .partitionsToOffsetAndMetadata()
                        .get(20, TimeUnit.SECONDS))
                .isEmpty();
    }

    @Test
    void offsetsTopicIsInternal() throws Exception {
        assertThat(admin.listTopics().names().get(20, TimeUnit.SECONDS)).doesNotContain("__consumer_offsets");
    }

    @Test
    void aStaticMemberRejoiningQuicklyKeepsItsAssignmentWithoutRebalancingTheOthers() throws Exception {
        String topic = "group-static";
        createTopic(topic, 4);
        AtomicInteger otherRebalances = new AtomicInteger();
        KafkaConsumer<String, String> other = consumer("g-static", "static-b");
        KafkaConsumer<String, String> first = consumer("g-static", "static-a");
        KafkaConsumer<String, String> second = null;
        List<String> consumed = new ArrayList<>();
        try {
            other.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    if (!partitions.isEmpty()) {
                        otherRebalances.incrementAndGet();
                    }
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    if (!partitions.isEmpty()) {
                        otherRebalances.incrementAndGet();
                    }
                }
            });
            first.subscribe(List.of(topic));
            List<KafkaConsumer<String, String>> both = List.of(other, first);
            pollUntil(both, consumed, () -> eachHas(both, 2));
            Set<TopicPartition> firstAssignment = Set.copyOf(first.assignment());
            Set<TopicPartition> otherAssignment = Set.copyOf(other.assignment());
            int rebalancesBefore = otherRebalances.get();

            first.close(Duration.ofSeconds(5));
            first = null;
            second = consumer("g-static", "static-a");
            second.subscribe(List.of(topic));
            KafkaConsumer<String, String> rejoined = second;
            pollUntil(
                    List.of(other, rejoined),
                    consumed,
                    () -> rejoined.assignment().size() == 2);
            long quiet = System.currentTimeMillis() + 1500;
            pollUntil(List.of(other, rejoined), consumed, () -> System.currentTimeMillis() > quiet);

            assertThat(rejoined.assignment()).isEqualTo(firstAssignment);
            assertThat(other.assignment()).isEqualTo(otherAssignment);
            assertThat(otherRebalances.get()).isEqualTo(rebalancesBefore);
        } finally {
            other.close(Duration.ofSeconds(5));
            if (first != null) {
                first.close(Duration.ofSeconds(5));
            }
            if (second != null) {
                second.close(Duration.ofSeconds(5));
            }
        }
    }
}
