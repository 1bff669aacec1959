package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.config.SyncConfig;
import dev.strait.mirror.config.TopicConfigFilter;
import dev.strait.mirror.config.TopicSyncConfig;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.provenance.Provenance;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.TestProducer;
import dev.strait.testkit.TopicReader;
import dev.strait.time.Await;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The target kept in step with the source while the mirror runs: topic settings (with MirrorMaker 2's
 * exclusions), partition counts and READ/DESCRIBE ACLs, on two Apache Kafka 4.1.1 clusters with
 * StandardAuthorizer (the anonymous principal is a super user, so everything else works as without one).
 */
class TargetInStepIT {
    private static final Map<String, String> AUTHORIZER = Map.of(
            "authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer",
            "super.users", "User:ANONYMOUS");
    private static KafkaCluster source;
    private static KafkaCluster target;

    @BeforeAll
    static void clusters() {
        source = KafkaCluster.start("instep-source", 1, AUTHORIZER);
        target = KafkaCluster.start("instep-target", 1, AUTHORIZER);
    }

    @AfterAll
    static void close() {
        if (source != null) {
            source.close();
        }
        if (target != null) {
            target.close();
        }
    }

    private static MirrorConfig settings(String group, String include, TopicSyncConfig topics) {
        Properties consumer = new Properties();
        consumer.put("bootstrap.servers", source.bootstrapServers());
        consumer.put("group.id", group);
        consumer.put("metadata.max.age.ms", "1000");
        Properties producer = new Properties();
        producer.put("bootstrap.servers", target.bootstrapServers());
        return MirrorConfig.builder()
                .consumerConfig(consumer)
                .producerConfig(producer)
                .include(include)
                .offsetCommitIntervalMs(1000)
                .sync(new SyncConfig(null, 1000, true, SyncConfig.DEFAULT_SYNC_TOPIC, topics))
                .build();
    }

    private static TopicSyncConfig everySecond(boolean acls, String extraExcludes) {
        return new TopicSyncConfig(true, true, acls, 1000, TopicConfigFilter.withExtra(extraExcludes));
    }

    private static MirrorEngine start(MirrorConfig settings) {
        MirrorEngine engine = new MirrorEngine(settings, new MirrorMetrics(new MetricRegistry()), Time.SYSTEM);
        engine.start();
        return engine;
    }

    private static void stop(MirrorEngine engine) throws InterruptedException {
        engine.requestStop();
        assertThat(engine.awaitTermination(Duration.ofSeconds(90))).isTrue();
    }

    @Test
    void aLogAppendTimeSourceKeepsItsTimestampsOnTheTarget() throws Exception {
        // Given: a source topic whose broker stamps every record with its own append time
        String topic = "lat.events";
        source.createTopic(topic, 2, Map.of("message.timestamp.type", "LogAppendTime"));
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 2, 2_000);
        }
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> original =
                TopicReader.readAll(source.bootstrapServers(), topic);
        long newest = original.values().stream()
                .flatMap(List::stream)
                .mapToLong(ConsumerRecord::timestamp)
                .max()
                .orElseThrow();
        assertThat(newest).as("the source stamped its own time").isGreaterThan(1_700_000_000_000L + 10_000_000L);
        // A target that stamped its own append time would now give every copy a later one.
        Await.until(
                "the clock passes the source's append times",
                Duration.ofSeconds(10),
                () -> System.currentTimeMillis() > newest + 1);

        // When
        MirrorEngine engine = start(settings("m-lat", "lat\\..*", everySecond(false, null)));
        try {
            Await.until(
                    "4,000 records on the target", Duration.ofSeconds(90), () -> target.endOffsetSum(topic) == 4_000);
        } finally {
            stop(engine);
        }

        // Then: every copy carries its source record's timestamp
        Map<String, Long> sourceTimes = new HashMap<>();
        original.values()
                .forEach(list -> list.forEach(r -> sourceTimes.put(r.partition() + "@" + r.offset(), r.timestamp())));
        long differing = 0;
        for (List<ConsumerRecord<byte[], byte[]>> list :
                TopicReader.readAll(target.bootstrapServers(), topic).values()) {
            for (ConsumerRecord<byte[], byte[]> r : list) {
                Provenance p = Provenance.from(r.headers());
                if (!sourceTimes.get(p.partition() + "@" + p.offset()).equals(r.timestamp())) {
                    differing++;
                }
            }
        }
        assertThat(differing).as("copies whose timestamp is not the source's").isZero();
        assertThat(targetConfig(topic, "message.timestamp.type")).isEqualTo("CreateTime");
    }

    @Test
    void settingsChangedOnTheSourceAppearOnTheTargetExceptTheExcludedOnes() throws Exception {
        String topic = "cfg.orders";
        source.createTopic(topic, 1, Map.of("retention.ms", "86400000"));
        MirrorEngine engine = start(settings("m-cfg", "cfg\\..*", everySecond(false, "max\\.compaction\\.lag\\.ms")));
        try {
            Await.until(
                    "the target topic exists with the source's retention",
                    Duration.ofSeconds(60),
                    () -> "86400000".equals(targetConfig(topic, "retention.ms")));
            // When: the source topic's settings change, including ones that must not be copied
            alterSource(
                    topic,
                    Map.of(
                            "retention.ms",
                            "3600000",
                            "max.message.bytes",
                            "2000000",
                            "min.insync.replicas",
                            "1",
                            "unclean.leader.election.enable",
                            "true",
                            "max.compaction.lag.ms",
                            "600000",
                            "message.timestamp.type",
                            "LogAppendTime"));
            // Then
            Await.until(
                    "retention.ms and max.message.bytes on the target",
                    Duration.ofSeconds(60),
                    () -> "3600000".equals(targetConfig(topic, "retention.ms"))
                            && "2000000".equals(targetConfig(topic, "max.message.bytes")));
        } finally {
            stop(engine);
        }
        Map<String, ConfigEntry> dynamic = targetDynamicConfigs(topic);
        assertThat(dynamic)
                .doesNotContainKeys("min.insync.replicas", "unclean.leader.election.enable", "max.compaction.lag.ms");
        assertThat(dynamic.get("message.timestamp.type").value()).isEqualTo("CreateTime");
    }

    @Test
    void partitionsAddedToTheSourceAreAddedToTheTargetAndKeepTheirNumbers() throws Exception {
        // Given: a mirrored topic of 2 partitions
        String topic = "grow.orders";
        source.createTopic(topic, 2);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 2, 500);
        }
        MirrorEngine engine = start(settings("m-grow", "grow\\..*", everySecond(false, null)));
        try {
            Await.until(
                    "1,000 records on the target", Duration.ofSeconds(60), () -> target.endOffsetSum(topic) == 1_000);
            // When: the source grows to 4 partitions and records go to the new ones
            try (Admin admin = source.admin()) {
                admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(4)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
                KafkaCluster.awaitWritable(admin, topic, 4);
            }
            try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
                producer.produce(topic, 4, 500, 500);
            }
            Await.until(
                    "3,000 records on the target", Duration.ofSeconds(90), () -> target.endOffsetSum(topic) == 3_000);
        } finally {
            stop(engine);
        }
        // Then: the target has 4 partitions and every record sits in the partition it came from
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> copy = TopicReader.readAll(target.bootstrapServers(), topic);
        assertThat(copy.keySet()).containsExactly(0, 1, 2, 3);
        copy.forEach((p, records) -> assertThat(records)
                .as("partition " + p)
                .allSatisfy(r ->
                        assertThat(Provenance.from(r.headers()).partition()).isEqualTo(p)));
        assertThat(copy.get(2)).hasSize(500);
        assertThat(copy.get(3)).hasSize(500);
    }

    @Test
    void readAndDescribeAclsOfMirroredTopicsAppearOnTheTargetButNeverWrite() throws Exception {
        String topic = "acl.orders";
        source.createTopic(topic, 1);
        createAcls(
                source,
                List.of(
                        acl(topic, PatternType.LITERAL, "User:alice", AclOperation.READ, AclPermissionType.ALLOW),
                        acl(topic, PatternType.LITERAL, "User:bob", AclOperation.WRITE, AclPermissionType.ALLOW),
                        acl("acl.", PatternType.PREFIXED, "User:carol", AclOperation.ALL, AclPermissionType.ALLOW)));
        MirrorEngine engine = start(settings("m-acl", "acl\\..*", everySecond(true, null)));
        try {
            Await.until(
                    "alice and carol on the target",
                    Duration.ofSeconds(60),
                    () -> targetAcls(topic).size() == 3);
            // When: an ACL is added on the source while the mirror runs
            createAcls(
                    source,
                    List.of(acl(
                            topic, PatternType.LITERAL, "User:dave", AclOperation.DESCRIBE, AclPermissionType.DENY)));
            Await.until(
                    "dave's ACL on the target",
                    Duration.ofSeconds(60),
                    () -> targetAcls(topic).size() == 4);
        } finally {
            stop(engine);
        }
        assertThat(targetAcls(topic))
                .containsExactlyInAnyOrder(
                        "User:alice READ ALLOW",
                        "User:carol READ ALLOW",
                        "User:carol DESCRIBE ALLOW",
                        "User:dave DESCRIBE DENY");
    }

    private static AclBinding acl(
            String name, PatternType type, String principal, AclOperation op, AclPermissionType permission) {
        return new AclBinding(
                new ResourcePattern(ResourceType.TOPIC, name, type),
                new AccessControlEntry(principal, "*", op, permission));
    }

    private static void createAcls(KafkaCluster cluster, List<AclBinding> acls) throws Exception {
        try (Admin admin = cluster.admin()) {
            admin.createAcls(acls).all().get(30, TimeUnit.SECONDS);
        }
    }

    private static Set<String> targetAcls(String topic) {
        try (Admin admin = target.admin()) {
            Collection<AclBinding> acls = admin.describeAcls(new AclBindingFilter(
                            new ResourcePatternFilter(ResourceType.TOPIC, topic, PatternType.ANY),
                            AccessControlEntryFilter.ANY))
                    .values()
                    .get(30, TimeUnit.SECONDS);
            return acls.stream()
                    .map(b -> b.entry().principal() + " " + b.entry().operation() + " "
                            + b.entry().permissionType())
                    .collect(Collectors.toSet());
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    private static void alterSource(String topic, Map<String, String> configs) throws Exception {
        ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        List<AlterConfigOp> ops = configs.entrySet().stream()
                .map(e -> new AlterConfigOp(new ConfigEntry(e.getKey(), e.getValue()), AlterConfigOp.OpType.SET))
                .toList();
        try (Admin admin = source.admin()) {
            admin.incrementalAlterConfigs(Map.of(r, ops)).all().get(30, TimeUnit.SECONDS);
        }
    }

    private static String targetConfig(String topic, String name) {
        ConfigEntry e = targetDynamicConfigs(topic).get(name);
        return e == null ? null : e.value();
    }

    private static Map<String, ConfigEntry> targetDynamicConfigs(String topic) {
        ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        try (Admin admin = target.admin()) {
            return admin.describeConfigs(List.of(r)).all().get(30, TimeUnit.SECONDS).get(r).entries().stream()
                    .filter(e -> e.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG)
                    .collect(Collectors.toMap(ConfigEntry::name, e -> e));
        } catch (java.util.concurrent.ExecutionException e) {
            if (e.getCause() instanceof org.apache.kafka.common.errors.UnknownTopicOrPartitionException) {
                return Map.of();
            }
            throw new IllegalStateException(e);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }
}
