package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.KafkaSecurity;
import dev.strait.testkit.TeeOutputStream;
import dev.strait.time.Await;
import dev.strait.time.Time;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The mirror engine between two Apache Kafka 4.1.1 clusters secured as production ones are: SASL_SSL with
 * SCRAM-SHA-512, StandardAuthorizer, no ACL means no access. The mirror's principal gets exactly the ACLs
 * docs/operating.md lists for it, and no more.
 */
class MirrorOnSecuredKafkaIT {
    private static final String MIRROR_USER = "strait-mirror";
    private static final String MIRROR_PASSWORD = "mirror-Secret-7f3a";
    private static final String ADMIN_PASSWORD = "admin-Secret-91c2";

    private static KafkaCluster source;
    private static KafkaCluster target;
    private static PrintStream originalErr;
    private static PrintStream originalOut;
    private static final ByteArrayOutputStream LOG = new ByteArrayOutputStream();

    @BeforeAll
    static void startClusters() {
        // Everything the engine and the clients log during the class, to check no secret is in it.
        originalErr = System.err;
        originalOut = System.out;
        System.setErr(new PrintStream(new TeeOutputStream(originalErr, LOG), true, StandardCharsets.UTF_8));
        System.setOut(new PrintStream(new TeeOutputStream(originalOut, LOG), true, StandardCharsets.UTF_8));
        // Both at once: starting two child JVMs is most of this class's time.
        CompletableFuture<KafkaCluster> sourceStart = CompletableFuture.supplyAsync(() -> KafkaCluster.startSecured(
                "secured-source",
                1,
                KafkaSecurity.saslSsl("admin", ADMIN_PASSWORD, Map.of(MIRROR_USER, MIRROR_PASSWORD))));
        CompletableFuture<KafkaCluster> targetStart = CompletableFuture.supplyAsync(() -> KafkaCluster.startSecured(
                "secured-target",
                1,
                KafkaSecurity.saslSsl("admin", ADMIN_PASSWORD, Map.of(MIRROR_USER, MIRROR_PASSWORD))));
        try {
            source = sourceStart.join();
        } finally {
            target = targetStart.join();
        }
    }

    @AfterAll
    static void stopClusters() {
        try {
            String log;
            synchronized (LOG) {
                log = LOG.toString(StandardCharsets.UTF_8);
            }
            assertThat(log).as("the mirror logged something").contains("Mirroring topics matching");
            assertThat(log)
                    .as("no password in the logs")
                    .doesNotContain(MIRROR_PASSWORD)
                    .doesNotContain(ADMIN_PASSWORD);
        } finally {
            System.setErr(originalErr);
            System.setOut(originalOut);
            if (source != null) {
                source.close();
            }
            if (target != null) {
                target.close();
            }
        }
    }

    @Test
    void mirrorsWithExactlyTheDocumentedAcls() throws Exception {
        // Given: the ACLs of docs/operating.md for topic orders and group g-orders, nothing else
        String topic = "orders";
        source.createTopic(topic, 2);
        produce(topic, 0, 300, 2);
        grant(source, topic, "g-orders", AclOperation.READ, AclOperation.DESCRIBE_CONFIGS);
        grant(target, topic, null, AclOperation.CREATE, AclOperation.WRITE, AclOperation.DESCRIBE_CONFIGS);

        // When
        MirrorEngine engine = start(settings("g-orders", topic));
        try {
            Await.until(
                    "300 records mirrored and committed",
                    Duration.ofSeconds(60),
                    () -> target.endOffsetSum(topic) >= 300 && sum(source.committedOffsets("g-orders", topic)) == 300);
        } finally {
            MirrorFixture.stop(engine);
        }

        // Then
        assertThat(engine.failure()).isNull();
        assertThat(readAll(target, topic)).isEqualTo(readAll(source, topic));
        String log;
        synchronized (LOG) {
            log = LOG.toString(StandardCharsets.UTF_8);
        }
        assertThat(log)
                .as("the documented ACLs cover the topic config reads")
                .doesNotContain("Could not read configs of source topic " + topic)
                .doesNotContain("Could not read max.message.bytes of target topic " + topic);
    }

    @Test
    void withoutWriteOnTheTargetTopicTheMirrorStopsWithOneLineAndCommitsNothingPastTheRefusedRecord() throws Exception {
        // Given: the documented ACLs; 100 records mirrored
        String topic = "payments";
        source.createTopic(topic, 1);
        produce(topic, 0, 100, 1);
        grant(source, topic, "g-payments", AclOperation.READ, AclOperation.DESCRIBE_CONFIGS);
        grant(target, topic, null, AclOperation.CREATE, AclOperation.WRITE, AclOperation.DESCRIBE_CONFIGS);
        MirrorEngine engine = start(settings("g-payments", topic));
        try {
            Await.until(
                    "the first 100 records mirrored and committed",
                    Duration.ofSeconds(60),
                    () -> sum(source.committedOffsets("g-payments", topic)) == 100);

            // When: WRITE on the target topic is revoked, and more records arrive
            try (Admin admin = target.admin()) {
                admin.deleteAcls(List.of(new AclBindingFilter(
                                new ResourcePattern(ResourceType.TOPIC, topic, PatternType.LITERAL).toFilter(),
                                new AccessControlEntry(
                                                "User:" + MIRROR_USER, "*", AclOperation.WRITE, AclPermissionType.ALLOW)
                                        .toFilter())))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            produce(topic, 100, 100, 1);
            assertThat(engine.awaitTermination(Duration.ofSeconds(90)))
                    .as("the mirror stops by itself")
                    .isTrue();
        } finally {
            MirrorFixture.stop(engine);
        }

        // Then
        Throwable failure = engine.failure();
        assertThat(failure).as("the mirror failed").isNotNull();
        String message = failure.getMessage();
        assertThat(message)
                .doesNotContain("\n")
                .contains("WRITE on topic " + topic)
                .contains("kafka-acls")
                .doesNotContain(MIRROR_PASSWORD);
        long committed = sum(source.committedOffsets("g-payments", topic));
        assertThat(committed)
                .as("committed: everything before the refused record, nothing past it")
                .isBetween(100L, 199L)
                .isEqualTo(target.endOffsetSum(topic));
        assertThat(message).as(message).contains(topic + "-0@" + committed);
    }

    @Test
    void withoutReadOnTheGroupTheMirrorStopsWithOneLineNamingIt() throws Exception {
        // Given: the documented ACLs but READ on the group
        String topic = "refunds";
        source.createTopic(topic, 1);
        produce(topic, 0, 10, 1);
        grant(source, topic, null, AclOperation.READ, AclOperation.DESCRIBE_CONFIGS);
        grant(target, topic, null, AclOperation.CREATE, AclOperation.WRITE, AclOperation.DESCRIBE_CONFIGS);

        // When
        MirrorEngine engine = start(settings("g-refunds", topic));
        try {
            assertThat(engine.awaitTermination(Duration.ofSeconds(90)))
                    .as("the mirror stops by itself")
                    .isTrue();
        } finally {
            MirrorFixture.stop(engine);
        }

        // Then
        Throwable failure = engine.failure();
        assertThat(failure).as("the mirror failed").isNotNull();
        assertThat(failure.getMessage())
                .doesNotContain("\n")
                .contains("source cluster denied")
                .contains("READ on group g-refunds")
                .contains("--operation Read --group g-refunds")
                .doesNotContain(MIRROR_PASSWORD);
        assertThat(target.endOffsetSum(topic)).as("nothing mirrored").isZero();
        assertThat(source.committedOffsets("g-refunds", topic))
                .as("nothing committed")
                .isEmpty();
    }

    private static MirrorConfig settings(String group, String include) {
        Properties consumer = source.clientProperties(MIRROR_USER, MIRROR_PASSWORD);
        consumer.put("group.id", group);
        consumer.put("metadata.max.age.ms", "1000");
        Properties producer = target.clientProperties(MIRROR_USER, MIRROR_PASSWORD);
        return MirrorConfig.builder()
                .consumerConfig(consumer)
                .producerConfig(producer)
                .include(include)
                .offsetCommitIntervalMs(500)
                .build();
    }

    private static MirrorEngine start(MirrorConfig settings) {
        MirrorEngine engine = new MirrorEngine(settings, new MirrorMetrics(new MetricRegistry()), Time.SYSTEM);
        engine.start();
        return engine;
    }

    /** ALLOW for the mirror's principal: {@code topicOps} on the literal topic, READ on the group if named. */
    private static void grant(KafkaCluster cluster, String topic, String group, AclOperation... topicOps)
            throws Exception {
        List<AclBinding> acls = new ArrayList<>();
        for (AclOperation op : topicOps) {
            acls.add(allow(ResourceType.TOPIC, topic, op));
        }
        if (group != null) {
            acls.add(allow(ResourceType.GROUP, group, AclOperation.READ));
        }
        try (Admin admin = cluster.admin()) {
            admin.createAcls(acls).all().get(30, TimeUnit.SECONDS);
        }
    }

    private static AclBinding allow(ResourceType type, String name, AclOperation op) {
        return new AclBinding(
                new ResourcePattern(type, name, PatternType.LITERAL),
                new AccessControlEntry("User:" + MIRROR_USER, "*", op, AclPermissionType.ALLOW));
    }

    private static void produce(String topic, int from, int count, int partitions) {
        Properties props = source.clientProperties();
        props.put("acks", "all");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer())) {
            for (int i = from; i < from + count; i++) {
                producer.send(new ProducerRecord<>(
                        topic,
                        i % partitions,
                        ("k" + i).getBytes(StandardCharsets.UTF_8),
                        ("v" + i).getBytes(StandardCharsets.UTF_8)));
            }
            producer.flush();
        }
    }

    /** Each partition's values in offset order, read as the admin. */
    private static Map<Integer, List<String>> readAll(KafkaCluster cluster, String topic) {
        Properties props = cluster.clientProperties();
        Map<Integer, List<String>> out = new HashMap<>();
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> partitions = consumer.partitionsFor(topic, Duration.ofSeconds(30)).stream()
                    .map(p -> new TopicPartition(topic, p.partition()))
                    .toList();
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> end = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            Await.until("read " + topic + " on " + cluster.name(), Duration.ofSeconds(60), () -> {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    out.computeIfAbsent(r.partition(), p -> new ArrayList<>())
                            .add(new String(r.value(), StandardCharsets.UTF_8));
                }
                return partitions.stream().allMatch(tp -> consumer.position(tp) >= end.get(tp));
            });
        }
        return out;
    }

    private static long sum(Map<Integer, Long> offsets) {
        return offsets.values().stream().mapToLong(Long::longValue).sum();
    }
}
