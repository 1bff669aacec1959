package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.log.LogConfig;
import dev.strait.broker.log.PartitionLog;
import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.partition.Partition;
import dev.strait.time.Await;
import dev.strait.time.Time;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.errors.NotEnoughReplicasException;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three brokers in one JVM with the test controller: replication end to end through the real Kafka clients.
 * Waits are bounded polls of observable state, never fixed sleeps.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ReplicatedClusterIT {

    private TestCluster cluster;

    @BeforeEach
    void startCluster() {
        cluster = new TestCluster(
                3,
                Map.of(
                        "replica.lag.time.max.ms",
                        "3000",
                        "offsets.topic.num.partitions",
                        "3",
                        "default.replication.factor",
                        "3",
                        "group.initial.rebalance.delay.ms",
                        "0"));
    }

    @AfterEach
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private void createTopic(String name, int minInsync) throws Exception {
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(name, 1, (short) 3)
                            .configs(Map.of("min.insync.replicas", Integer.toString(minInsync)))))
                    .all()
                    .get();
        }
        TopicPartition tp = new TopicPartition(name, 0);
        waitFor("replicas of " + tp + " on all nodes", () -> {
            for (int i = 0; i < cluster.size(); i++) {
                if (cluster.broker(i) != null
                        && cluster.broker(i).replicaManager().partition(tp).isEmpty()) {
                    return false;
                }
            }
            return true;
        });
    }

    private KafkaProducer<String, String> producer() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "100");
        props.put("metadata.max.age.ms", "1000");
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    /** acks=all, not idempotent, no retries: a retriable error reaches the caller. */
    private KafkaProducer<String, String> producerWithoutRetries() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        props.put(ProducerConfig.RETRIES_CONFIG, "0");
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    private List<String> consumeAll(String topic, int expected) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            TopicPartition tp = new TopicPartition(topic, 0);
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (values.size() < expected && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                    values.add(record.value());
                }
            }
        }
        return values;
    }

    private void produce(KafkaProducer<String, String> producer, String topic, int from, int to) throws Exception {
        List<java.util.concurrent.Future<RecordMetadata>> sent = new ArrayList<>();
        for (int i = from; i < to; i++) {
            sent.add(producer.send(new ProducerRecord<>(topic, 0, "k" + i, "v" + i)));
        }
        for (java.util.concurrent.Future<RecordMetadata> future : sent) {
            future.get(90, TimeUnit.SECONDS);
        }
    }

    private static List<String> expectedValues(int count) {
        List<String> expected = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            expected.add("v" + i);
        }
        return expected;
    }

    private PartitionState state(String topic) {
        return cluster.controller().state(topic, 0).orElseThrow();
    }

    private Optional<Partition> replica(int node, String topic) {
        BrokerServer broker = cluster.broker(node);
        return broker == null ? Optional.empty() : broker.replicaManager().partition(new TopicPartition(topic, 0));
    }

    /** Waits until every running replica has the leader's log end offset as its log end and high watermark. */
    private void waitForReplicasInSync(String topic) {
        waitFor("replicas of " + topic + " in sync", () -> {
            int leader = state(topic).leader();
            Optional<Partition> leaderReplica = replica(leader, topic);
            if (leaderReplica.isEmpty()) {
                return false;
            }
            long end = leaderReplica.get().logEndOffset();
            for (int i = 0; i < cluster.size(); i++) {
                Optional<Partition> r = replica(i, topic);
                if (cluster.broker(i) != null
                        && (r.isEmpty()
                                || r.get().logEndOffset() != end
                                || r.get().highWatermark() != end)) {
                    return false;
                }
            }
            return true;
        });
    }

    /** The bytes of a replica's segment files, concatenated in offset order. */
    private byte[] logBytes(int node, String topic) {
        Path dir = cluster.logDir(node).resolve(topic + "-0");
        try (Stream<Path> files = Files.list(dir)) {
            List<Path> segments = files.filter(f -> f.getFileName().toString().endsWith(".log"))
                    .sorted()
                    .toList();
            java.io.ByteArrayOutputStream out = new java.io.ByteArrayOutputStream();
            for (Path segment : segments) {
                out.write(Files.readAllBytes(segment));
            }
            return out.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void waitFor(String what, BooleanSupplier condition) {
        Await.until(what, Duration.ofSeconds(60), condition);
    }

    @Test
    void acksAllRoundTripLeavesIdenticalReplicas() throws Exception {
        // Given
        createTopic("replicated", 2);
        // When
        try (KafkaProducer<String, String> producer = producer()) {
            produce(producer, "replicated", 0, 300);
        }
        // Then
        assertThat(consumeAll("replicated", 300)).containsExactlyElementsOf(expectedValues(300));
        waitForReplicasInSync("replicated");
        byte[] leaderLog = logBytes(state("replicated").leader(), "replicated");
        assertThat(leaderLog.length).isGreaterThan(0);
        for (int i = 0; i < 3; i++) {
            assertThat(Arrays.equals(logBytes(i, "replicated"), leaderLog))
                    .as("log of node " + i)
                    .isTrue();
        }
    }

    @Test
    void leaderFailoverLosesNothingAcknowledgedAndDuplicatesNothing() throws Exception {
        // Given
        createTopic("failover", 2);
        try (KafkaProducer<String, String> producer = producer()) {
            produce(producer, "failover", 0, 200);
            int oldLeader = state("failover").leader();
            int oldEpoch = state("failover").leaderEpoch();
            // When: the leader stops; the controller elects an ISR member in a new epoch
            cluster.stop(oldLeader);
            assertThat(state("failover").leader()).isNotEqualTo(oldLeader).isNotEqualTo(-1);
            assertThat(state("failover").leaderEpoch()).isGreaterThan(oldEpoch);
            produce(producer, "failover", 200, 400);
        }
        // Then
        assertThat(consumeAll("failover", 400)).containsExactlyElementsOf(expectedValues(400));
    }

    @Test
    void isrShrinksWhenAFollowerStopsAndExpandsWhenItReturns() throws Exception {
        // Given
        createTopic("isr2", 2);
        createTopic("isr3", 3);
        try (KafkaProducer<String, String> producer = producer()) {
            produce(producer, "isr2", 0, 10);
            produce(producer, "isr3", 0, 10);
            int follower = state("isr3").replicas().stream()
                    .filter(r -> r != state("isr3").leader())
                    .findFirst()
                    .orElseThrow();
            // When
            cluster.stop(follower);
            waitFor(
                    "ISR without " + follower,
                    () -> !state("isr3").isr().contains(follower)
                            && !state("isr2").isr().contains(follower));
            // Then: min.insync.replicas=2 still takes acks=all, 3 refuses
            produce(producer, "isr2", 10, 20);
            try (KafkaProducer<String, String> once = producerWithoutRetries()) {
                assertThatThrownBy(() -> once.send(new ProducerRecord<>("isr3", 0, "k", "refused"))
                                .get(30, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .hasCauseInstanceOf(NotEnoughReplicasException.class);
            }
            // When
            cluster.start(follower);
            // Then
            waitFor(
                    "ISR with " + follower,
                    () -> state("isr3").isr().contains(follower)
                            && state("isr2").isr().contains(follower));
            produce(producer, "isr3", 10, 20);
        }
        assertThat(consumeAll("isr2", 20)).containsExactlyElementsOf(expectedValues(20));
        assertThat(consumeAll("isr3", 20)).containsExactlyElementsOf(expectedValues(20));
    }

    @Test
    void aFollowerWithADivergentTailTruncatesWhereTheLeaderEpochEndedAndEndsIdentical() throws Exception {
        // Given: three replicas in sync at offset 50 in epoch 0
        createTopic("diverge", 1);
        try (KafkaProducer<String, String> producer = producer()) {
            produce(producer, "diverge", 0, 50);
            waitForReplicasInSync("diverge");
            int leader = state("diverge").leader();
            int follower = state("diverge").replicas().stream()
                    .filter(r -> r != leader)
                    .findFirst()
                    .orElseThrow();
            cluster.stop(follower);
            // the leader moves on to a new epoch and writes in it
            cluster.controller().electLeader("diverge", 0, leader);
            int newEpoch = state("diverge").leaderEpoch();
            waitFor(
                    "leader in epoch " + newEpoch,
                    () -> replica(leader, "diverge").map(Partition::leaderEpoch).orElse(-1) == newEpoch);
            produce(producer, "diverge", 50, 80);
            // the stopped follower got a tail in the old epoch that the leader never had
            Path dir = cluster.logDir(follower).resolve("diverge-0");
            try (PartitionLog log = PartitionLog.open(dir, LogConfig.defaults(), Time.SYSTEM)) {
                SimpleRecord[] bad = new SimpleRecord[20];
                for (int i = 0; i < bad.length; i++) {
                    bad[i] = new SimpleRecord(
                            System.currentTimeMillis(),
                            ("k" + i).getBytes(StandardCharsets.UTF_8),
                            ("divergent" + i).getBytes(StandardCharsets.UTF_8));
                }
                log.append(MemoryRecords.withRecords(Compression.NONE, bad).buffer(), 0);
                assertThat(log.logEndOffset()).isEqualTo(70);
            }
            // When
            cluster.start(follower);
            // Then
            waitFor("follower back in the ISR", () -> state("diverge").isr().contains(follower));
            waitForReplicasInSync("diverge");
            assertThat(replica(follower, "diverge").orElseThrow().logEndOffset())
                    .isEqualTo(80);
            assertThat(Arrays.equals(logBytes(follower, "diverge"), logBytes(leader, "diverge")))
                    .isTrue();
        }
        assertThat(consumeAll("diverge", 80)).containsExactlyElementsOf(expectedValues(80));
    }

    @Test
    void groupCoordinationMovesWithLeadershipOfTheOffsetsPartition() throws Exception {
        // Given: a group that committed offsets on the coordinator of its offsets partition
        createTopic("grouped", 1);
        String group = "moving-group";
        int offsetsPartition = (group.hashCode() & 0x7fffffff) % 3;
        waitFor(
                "offsets partition led",
                () -> cluster.controller()
                        .state("__consumer_offsets", offsetsPartition)
                        .map(PartitionState::hasLeader)
                        .orElse(false));
        try (KafkaProducer<String, String> producer = producer()) {
            produce(producer, "grouped", 0, 20);
        }
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<String> values = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of("grouped"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (values.size() < 20 && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> values.add(r.value()));
            }
            consumer.commitSync();
        }
        assertThat(values).containsExactlyElementsOf(expectedValues(20));
        int coordinator = cluster.controller()
                .state("__consumer_offsets", offsetsPartition)
                .orElseThrow()
                .leader();
        waitFor("offsets commit replicated", () -> {
            for (int i = 0; i < 3; i++) {
                Optional<Partition> r = cluster.broker(i)
                        .replicaManager()
                        .partition(new TopicPartition("__consumer_offsets", offsetsPartition));
                if (r.isEmpty()
                        || r.get().logEndOffset() == 0
                        || r.get().highWatermark() != r.get().logEndOffset()) {
                    return false;
                }
            }
            return true;
        });
        // When: the coordinator's broker stops and another replica of the offsets partition leads it
        cluster.stop(coordinator);
        int successor = cluster.controller()
                .state("__consumer_offsets", offsetsPartition)
                .orElseThrow()
                .leader();
        assertThat(successor).isNotIn(coordinator, -1);
        // Then: the new coordinator serves the committed offsets and the group carries on there
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()))) {
            waitFor("offsets served by broker " + successor, () -> {
                try {
                    var offsets = admin.listConsumerGroupOffsets(group)
                            .partitionsToOffsetAndMetadata()
                            .get(30, TimeUnit.SECONDS);
                    var committed = offsets.get(new TopicPartition("grouped", 0));
                    return committed != null && committed.offset() == 20;
                } catch (Exception e) {
                    return false;
                }
            });
            assertThat(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS))
                    .extracting(n -> n.id())
                    .doesNotContain(coordinator);
        }
        try (KafkaProducer<String, String> producer = producer()) {
            produce(producer, "grouped", 20, 30);
        }
        List<String> more = new ArrayList<>();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            consumer.subscribe(List.of("grouped"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (more.size() < 10 && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(r -> more.add(r.value()));
            }
            consumer.commitSync();
        }
        assertThat(more).containsExactly("v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29");
    }

    @Test
    void aFollowerThatStopsFetchingLeavesTheIsrAfterTheLagTimeAndReturnsWhenCaughtUp() throws Exception {
        // Given
        createTopic("lagging", 2);
        try (KafkaProducer<String, String> producer = producer()) {
            produce(producer, "lagging", 0, 10);
            int leader = state("lagging").leader();
            int follower = state("lagging").replicas().stream()
                    .filter(r -> r != leader)
                    .findFirst()
                    .orElseThrow();
            // When: the follower is alive but cannot reach the leader
            cluster.cut(follower, leader);
            // Then: the leader proposes the shrink after replica.lag.time.max.ms, and acks=all goes on with two
            waitFor("ISR without " + follower, () -> !state("lagging").isr().contains(follower));
            assertThat(state("lagging").leader()).isEqualTo(leader);
            produce(producer, "lagging", 10, 20);
            // When
            cluster.heal(follower, leader);
            // Then
            waitFor("ISR with " + follower, () -> state("lagging").isr().contains(follower));
            waitForReplicasInSync("lagging");
            assertThat(Arrays.equals(logBytes(follower, "lagging"), logBytes(leader, "lagging")))
                    .isTrue();
        }
        assertThat(consumeAll("lagging", 20)).containsExactlyElementsOf(expectedValues(20));
    }

    @Test
    void deleteRecordsOnTheLeaderMovesTheLogStartOfTheFollowers() throws Exception {
        // Given
        createTopic("trimmed", 2);
        try (KafkaProducer<String, String> producer = producer()) {
            produce(producer, "trimmed", 0, 30);
        }
        waitForReplicasInSync("trimmed");
        // When
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()))) {
            admin.deleteRecords(Map.of(
                            new TopicPartition("trimmed", 0),
                            org.apache.kafka.clients.admin.RecordsToDelete.beforeOffset(20)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        // Then: every replica starts at 20 once the followers fetched again
        try (KafkaProducer<String, String> producer = producer()) {
            produce(producer, "trimmed", 30, 31);
        }
        waitFor("log start 20 everywhere", () -> {
            for (int i = 0; i < 3; i++) {
                if (replica(i, "trimmed").map(Partition::logStartOffset).orElse(-1L) != 20) {
                    return false;
                }
            }
            return true;
        });
    }

    @Test
    void aFollowerBehindTheLeadersLogStartStartsOverThere() throws Exception {
        // Given: a follower stopped at offset 10, then the leader wrote up to 30 and deleted records before 25
        createTopic("restarting", 1);
        try (KafkaProducer<String, String> producer = producer()) {
            produce(producer, "restarting", 0, 10);
            waitForReplicasInSync("restarting");
            int leader = state("restarting").leader();
            int follower = state("restarting").replicas().stream()
                    .filter(r -> r != leader)
                    .findFirst()
                    .orElseThrow();
            cluster.stop(follower);
            produce(producer, "restarting", 10, 30);
            waitForReplicasInSync("restarting");
            try (Admin admin =
                    Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()))) {
                admin.deleteRecords(Map.of(
                                new TopicPartition("restarting", 0),
                                org.apache.kafka.clients.admin.RecordsToDelete.beforeOffset(25)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            // When
            cluster.start(follower);
            // Then
            waitFor("follower back in the ISR", () -> state("restarting").isr().contains(follower));
            waitForReplicasInSync("restarting");
            assertThat(replica(follower, "restarting").orElseThrow().logStartOffset())
                    .isEqualTo(25);
            assertThat(replica(follower, "restarting").orElseThrow().logEndOffset())
                    .isEqualTo(30);
        }
    }
}
