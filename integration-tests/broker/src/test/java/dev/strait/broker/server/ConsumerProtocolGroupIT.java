package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.admin.GroupListing;
import org.apache.kafka.clients.admin.MemberDescription;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CommitFailedException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.consumer.SubscriptionPattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.GroupState;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupSubscribedToTopicException;
import org.apache.kafka.common.errors.InconsistentGroupProtocolException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Consumer groups of the KIP-848 protocol ({@code group.protocol=consumer}) with the unmodified kafka-clients 4.1.1
 * consumer and admin client against a one-node companion broker. Before issue 24 the broker did not serve
 * ConsumerGroupHeartbeat / ConsumerGroupDescribe: such a consumer failed with UnsupportedVersionException.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ConsumerProtocolGroupIT {

    static final long WAIT_MS = 60_000;
    private static EmbeddedCluster cluster;
    private static Admin admin;

    @BeforeAll
    static void startCluster() {
        cluster = EmbeddedCluster.builder()
                .brokerConfig("group.initial.rebalance.delay.ms", "0")
                .brokerConfig("group.consumer.heartbeat.interval.ms", "500")
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

    /** Who owns which partition, from the consumers' rebalance listeners; fails on a partition owned twice. */
    static final class Ownership {
        final Map<TopicPartition, String> owner = new ConcurrentHashMap<>();
        final List<String> violations = new ArrayList<>();

        ConsumerRebalanceListener listener(String name) {
            return new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    partitions.forEach(tp -> owner.remove(tp, name));
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    partitions.forEach(tp -> owner.remove(tp, name));
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    for (TopicPartition tp : partitions) {
                        String previous = owner.putIfAbsent(tp, name);
                        if (previous != null && !previous.equals(name)) {
                            violations.add(tp + " given to " + name + " while " + previous + " owns it");
                        }
                    }
                }
            };
        }

        Set<TopicPartition> of(String name) {
            Set<TopicPartition> owned = new HashSet<>();
            owner.forEach((tp, n) -> {
                if (n.equals(name)) {
                    owned.add(tp);
                }
            });
            return owned;
        }
    }

    static KafkaConsumer<String, String> consumer(String bootstrap, String group, String clientId) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    private static KafkaConsumer<String, String> classicConsumer(String group) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "300");
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    static void createTopic(Admin admin, String topic, int partitions, short replicas) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, partitions, replicas)))
                .all()
                .get(30, TimeUnit.SECONDS);
    }

    static void produce(String bootstrap, String topic, int partitions, String prefix, int count) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < count; i++) {
                producer.send(new ProducerRecord<>(topic, i % partitions, null, prefix + i))
                        .get(30, TimeUnit.SECONDS);
            }
        }
    }

    /**
     * Polls every consumer and commits what it read until {@code done} holds and every read record is committed. A
     * commit refused with a stale member epoch (the coordinator moved the member to a new epoch while the commit was
     * on its way, as Kafka's does) is made again after the next poll, which brings the new epoch, as an application
     * does with a CommitFailedException.
     */
    static void pollUntil(
            List<KafkaConsumer<String, String>> consumers, Collection<String> consumed, BooleanSupplier done) {
        long deadline = System.currentTimeMillis() + WAIT_MS;
        Set<KafkaConsumer<String, String>> uncommitted = new HashSet<>();
        while (!done.getAsBoolean() || !uncommitted.isEmpty()) {
            assertThat(System.currentTimeMillis())
                    .as("condition not reached in time; consumed %d", consumed.size())
                    .isLessThan(deadline);
            for (KafkaConsumer<String, String> consumer : consumers) {
                var records = consumer.poll(Duration.ofMillis(50));
                for (ConsumerRecord<String, String> record : records) {
                    consumed.add(record.value());
                }
                if (!records.isEmpty()) {
                    uncommitted.add(consumer);
                }
                if (uncommitted.contains(consumer)) {
                    try {
                        consumer.commitSync(Duration.ofSeconds(20));
                        uncommitted.remove(consumer);
                    } catch (CommitFailedException e) {
                        // again after the next poll
                    }
                }
            }
        }
    }

    private static Set<String> expected(String prefix, int count) {
        Set<String> values = new HashSet<>();
        for (int i = 0; i < count; i++) {
            values.add(prefix + i);
        }
        return values;
    }

    @Test
    void threeConsumersShareSixPartitionsRebalanceOnLeaveAndJoinAndNeverShareAPartition() throws Exception {
        // Given
        String topic = "kip848-rebalance";
        String group = "kip848-rebalance-group";
        createTopic(admin, topic, 6, (short) 1);
        produce(cluster.bootstrapServers(), topic, 6, "a-", 60);
        Ownership ownership = new Ownership();
        Set<String> consumed = ConcurrentHashMap.newKeySet();
        List<KafkaConsumer<String, String>> consumers = new ArrayList<>();
        try {
            for (String name : List.of("c1", "c2", "c3")) {
                KafkaConsumer<String, String> consumer = consumer(cluster.bootstrapServers(), group, name);
                consumer.subscribe(List.of(topic), ownership.listener(name));
                consumers.add(consumer);
            }

            // When: three members
            pollUntil(
                    consumers,
                    consumed,
                    () -> consumed.size() >= 60
                            && List.of("c1", "c2", "c3").stream()
                                    .allMatch(n -> ownership.of(n).size() == 2));

            // Then
            assertThat(consumed).containsAll(expected("a-", 60));

            // When: c3 leaves
            consumers.remove(2).close(Duration.ofSeconds(20));
            produce(cluster.bootstrapServers(), topic, 6, "b-", 30);
            pollUntil(
                    consumers,
                    consumed,
                    () -> consumed.containsAll(expected("b-", 30))
                            && ownership.of("c1").size() + ownership.of("c2").size() == 6
                            && ownership.of("c1").size() == 3);

            // When: c4 joins
            KafkaConsumer<String, String> c4 = consumer(cluster.bootstrapServers(), group, "c4");
            c4.subscribe(List.of(topic), ownership.listener("c4"));
            consumers.add(c4);
            produce(cluster.bootstrapServers(), topic, 6, "c-", 30);
            pollUntil(
                    consumers,
                    consumed,
                    () -> consumed.containsAll(expected("c-", 30))
                            && List.of("c1", "c2", "c4").stream()
                                    .allMatch(n -> ownership.of(n).size() == 2));

            // Then: no partition was ever owned by two members, every offset committed is read back
            assertThat(ownership.violations).isEmpty();
            Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(20, TimeUnit.SECONDS);
            assertThat(committed.values().stream()
                            .mapToLong(OffsetAndMetadata::offset)
                            .sum())
                    .isEqualTo(120);
            Map<TopicPartition, OffsetAndMetadata> seenByMember =
                    consumers.get(0).committed(ownership.of("c1"), Duration.ofSeconds(20));
            seenByMember.forEach((tp, offset) -> assertThat(offset.offset()).isEqualTo(20));
        } finally {
            consumers.forEach(c -> c.close(Duration.ofSeconds(5)));
        }
    }

    @Test
    void theAdminClientDescribesAndListsAConsumerGroup() throws Exception {
        // Given
        String topic = "kip848-describe";
        String group = "kip848-describe-group";
        createTopic(admin, topic, 4, (short) 1);
        Ownership ownership = new Ownership();
        List<KafkaConsumer<String, String>> consumers = new ArrayList<>();
        try {
            for (String name : List.of("d1", "d2")) {
                KafkaConsumer<String, String> consumer = consumer(cluster.bootstrapServers(), group, name);
                consumer.subscribe(List.of(topic), ownership.listener(name));
                consumers.add(consumer);
            }
            pollUntil(
                    consumers,
                    new ArrayList<>(),
                    () -> ownership.of("d1").size() == 2 && ownership.of("d2").size() == 2);

            // When
            ConsumerGroupDescription description = awaitStable(group, consumers);
            Collection<GroupListing> listings = admin.listGroups().all().get(20, TimeUnit.SECONDS);

            // Then
            assertThat(description.type()).isEqualTo(GroupType.CONSUMER);
            assertThat(description.groupState()).isEqualTo(GroupState.STABLE);
            assertThat(description.partitionAssignor()).isEqualTo("uniform");
            assertThat(description.groupEpoch())
                    .hasValueSatisfying(epoch -> assertThat(epoch).isGreaterThanOrEqualTo(2));
            assertThat(description.targetAssignmentEpoch()).isEqualTo(description.groupEpoch());
            assertThat(description.members()).hasSize(2);
            Set<TopicPartition> assigned = new HashSet<>();
            for (MemberDescription member : description.members()) {
                assertThat(member.assignment().topicPartitions()).hasSize(2);
                assertThat(member.memberEpoch()).isEqualTo(description.groupEpoch());
                assertThat(ownership.of(member.clientId()))
                        .isEqualTo(member.assignment().topicPartitions());
                assigned.addAll(member.assignment().topicPartitions());
            }
            assertThat(assigned).hasSize(4);
            assertThat(listings)
                    .filteredOn(l -> l.groupId().equals(group))
                    .singleElement()
                    .satisfies(l -> {
                        assertThat(l.type()).hasValue(GroupType.CONSUMER);
                        assertThat(l.protocol()).isEqualTo("consumer");
                        assertThat(l.groupState()).hasValue(GroupState.STABLE);
                    });
        } finally {
            consumers.forEach(c -> c.close(Duration.ofSeconds(5)));
        }
    }

    private static ConsumerGroupDescription awaitStable(String group, List<KafkaConsumer<String, String>> consumers)
            throws Exception {
        long deadline = System.currentTimeMillis() + WAIT_MS;
        while (true) {
            ConsumerGroupDescription description = admin.describeConsumerGroups(List.of(group))
                    .describedGroups()
                    .get(group)
                    .get(20, TimeUnit.SECONDS);
            if (description.groupState() == GroupState.STABLE || System.currentTimeMillis() > deadline) {
                return description;
            }
            consumers.forEach(c -> c.poll(Duration.ofMillis(50)));
        }
    }

    @Test
    void aRegexSubscriptionGetsNewMatchingTopicsAndNewPartitions() throws Exception {
        // Given: a member subscribed to a pattern the broker resolves (KIP-848 SubscribedTopicRegex)
        Ownership ownership = new Ownership();
        createTopic(admin, "kip848-re-1", 2, (short) 1);
        try (KafkaConsumer<String, String> consumer = consumer(cluster.bootstrapServers(), "kip848-re", "r1")) {
            consumer.subscribe(new SubscriptionPattern("kip848-re-.*"), ownership.listener("r1"));
            pollUntil(
                    List.of(consumer),
                    new ArrayList<>(),
                    () -> ownership.of("r1").size() == 2);

            // When: a matching topic appears, and the first one grows
            createTopic(admin, "kip848-re-2", 1, (short) 1);
            pollUntil(
                    List.of(consumer),
                    new ArrayList<>(),
                    () -> ownership.of("r1").size() == 3);
            admin.createPartitions(Map.of("kip848-re-1", NewPartitions.increaseTo(3)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            pollUntil(
                    List.of(consumer),
                    new ArrayList<>(),
                    () -> ownership.of("r1").size() == 4);

            // Then
            assertThat(ownership.of("r1"))
                    .containsExactlyInAnyOrder(
                            new TopicPartition("kip848-re-1", 0),
                            new TopicPartition("kip848-re-1", 1),
                            new TopicPartition("kip848-re-1", 2),
                            new TopicPartition("kip848-re-2", 0));
        }
    }

    @Test
    void offsetDeleteRefusesASubscribedTopicAndDeletesAnotherOnce() throws Exception {
        // Given: a consumer group whose one member reads "od.read" and committed there, and an offset committed by
        // the admin client on "od.other", which no member reads
        String bootstrap = cluster.bootstrapServers();
        String group = "kip848-offset-delete";
        createTopic(admin, "od.read", 1, (short) 1);
        createTopic(admin, "od.other", 1, (short) 1);
        produce(bootstrap, "od.read", 1, "r-", 5);
        TopicPartition read = new TopicPartition("od.read", 0);
        TopicPartition other = new TopicPartition("od.other", 0);
        try (KafkaConsumer<String, String> member = consumer(bootstrap, group, "od-member")) {
            member.subscribe(List.of("od.read"));
            Set<String> consumed = ConcurrentHashMap.newKeySet();
            pollUntil(List.of(member), consumed, () -> consumed.size() == 5);
            member.commitSync(Map.of(other, new OffsetAndMetadata(0)), Duration.ofSeconds(20));

            // When: OffsetDelete asks for both
            var result = admin.deleteConsumerGroupOffsets(group, Set.of(read, other));

            // Then: the subscribed topic's offset is refused and kept, the other one is deleted (on the old code the
            // whole request failed with GROUP_ID_NOT_FOUND: OffsetDelete looked for classic groups only)
            assertThatThrownBy(() -> result.partitionResult(read).get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(GroupSubscribedToTopicException.class);
            result.partitionResult(other).get(30, TimeUnit.SECONDS);
            Map<TopicPartition, OffsetAndMetadata> left = admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS);
            assertThat(left).containsOnlyKeys(read);
            assertThat(left.get(read).offset()).isEqualTo(5);
        }
    }

    @Test
    void aClassicConsumerCannotJoinAConsumerGroupNorAConsumerProtocolMemberAClassicGroup() throws Exception {
        // Given: a consumer group with a member, and a classic group with a member (each owns both partitions)
        String topic = "kip848-mixed";
        createTopic(admin, topic, 2, (short) 1);
        Ownership newGroup = new Ownership();
        Ownership oldGroup = new Ownership();
        try (KafkaConsumer<String, String> member = consumer(cluster.bootstrapServers(), "kip848-new", "m1");
                KafkaConsumer<String, String> classicMember = classicConsumer("kip848-old");
                KafkaConsumer<String, String> classicJoiner = classicConsumer("kip848-new");
                KafkaConsumer<String, String> newJoiner = consumer(cluster.bootstrapServers(), "kip848-old", "m2")) {
            member.subscribe(List.of(topic), newGroup.listener("m1"));
            classicMember.subscribe(List.of(topic), oldGroup.listener("old"));
            pollUntil(
                    List.of(member, classicMember),
                    new ArrayList<>(),
                    () -> newGroup.of("m1").size() == 2 && oldGroup.of("old").size() == 2);

            // When / Then
            classicJoiner.subscribe(List.of(topic));
            assertThatThrownBy(() -> pollForever(classicJoiner, List.of(member, classicMember)))
                    .isInstanceOf(InconsistentGroupProtocolException.class);
            newJoiner.subscribe(List.of(topic));
            assertThatThrownBy(() -> pollForever(newJoiner, List.of(member, classicMember)))
                    .isInstanceOf(GroupIdNotFoundException.class);
        }
    }

    /** Polls {@code joiner} (and keeps the others alive) until it throws, or fails the test after a while. */
    private static void pollForever(KafkaConsumer<String, String> joiner, List<KafkaConsumer<String, String>> others) {
        long deadline = System.currentTimeMillis() + WAIT_MS;
        Map<String, Integer> rounds = new HashMap<>();
        while (System.currentTimeMillis() < deadline) {
            joiner.poll(Duration.ofMillis(100));
            for (KafkaConsumer<String, String> other : others) {
                other.poll(Duration.ofMillis(10));
            }
            rounds.merge("rounds", 1, Integer::sum);
        }
        throw new AssertionError("the joiner was not refused after " + rounds + " polls");
    }
}
