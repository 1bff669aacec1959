package dev.strait.mirror.sync;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.config.SyncConfig;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.mirror.config.TopicSyncConfig;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.testkit.KafkaCluster;
import dev.strait.time.Await;
import dev.strait.time.Time;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Issue 21, "Scale", on Apache Kafka 4.1.1: a transactional source (a commit marker after every 10 records) leaves a
 * segment per marker; the mirror's map folds the oldest into checkpoints, and groups whose positions lie inside the
 * folded run are still synced to their exact target offsets (the sync loop reads that stretch of the target), and
 * translated exactly again from the persisted map, as {@code strait failover} does.
 */
class FoldedMapOnKafkaIT {
    private static final String TOPIC = "fold.orders";
    private static final int TRANSACTIONS = 400;
    private static KafkaCluster source;
    private static KafkaCluster target;

    @BeforeAll
    static void clusters() {
        source = KafkaCluster.start("fold-source", 1);
        target = KafkaCluster.start("fold-target", 1);
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

    /** Source offset of the k-th record: 10 records, then a commit marker. */
    private static long sourceOffsetOf(long k) {
        return k + k / 10;
    }

    @Test
    void groupsInsideTheFoldedRunAreSyncedExactly() throws Exception {
        // Given: 4,000 records per partition in 400 transactions over two partitions (400 holes in each partition's
        // source offsets: 400 segments before folding)
        source.createTopic(TOPIC, 2);
        Properties p = new Properties();
        p.put("bootstrap.servers", source.bootstrapServers());
        p.put("transactional.id", "fold-writer");
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.initTransactions();
            for (int t = 0; t < TRANSACTIONS; t++) {
                producer.beginTransaction();
                for (int i = 0; i < 20; i++) {
                    producer.send(new ProducerRecord<>(
                            TOPIC, i % 2, null, ("r" + (t * 20 + i)).getBytes(StandardCharsets.UTF_8)));
                }
                producer.commitTransaction();
            }
        }
        // and groups that consumed 7, 1,234, 2,500, 3,333 and all 4,000 records of partition 0, half as many of 1
        long[] consumed = {7, 1_234, 2_500, 3_333, 4_000};
        try (Admin admin = source.admin()) {
            for (int g = 0; g < consumed.length; g++) {
                admin.alterConsumerGroupOffsets(
                                "fold-g" + g,
                                Map.of(
                                        new TopicPartition(TOPIC, 0),
                                        new OffsetAndMetadata(sourceOffsetOf(consumed[g])),
                                        new TopicPartition(TOPIC, 1),
                                        new OffsetAndMetadata(sourceOffsetOf(consumed[g] / 2))))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
        }

        // When: the mirror copies them with group sync on (the target holds the records at 0..3999)
        Properties consumer = new Properties();
        consumer.put("bootstrap.servers", source.bootstrapServers());
        consumer.put("group.id", "fold-mirror");
        consumer.put("isolation.level", "read_committed");
        Properties producer = new Properties();
        producer.put("bootstrap.servers", target.bootstrapServers());
        MirrorConfig settings = MirrorConfig.builder()
                .consumerConfig(consumer)
                .producerConfig(producer)
                .include("fold\\..*")
                .offsetCommitIntervalMs(1000)
                .sync(new SyncConfig(
                        GroupFilter.of("fold-g.*", null, "--groups", "--groups.exclude"),
                        500,
                        true,
                        SyncConfig.DEFAULT_SYNC_TOPIC,
                        TopicSyncConfig.defaults()))
                .build();
        MirrorEngine engine = new MirrorEngine(settings, new MirrorMetrics(new MetricRegistry()), Time.SYSTEM);
        engine.start();
        try {
            // Then: each group is synced to the target offset of its first unconsumed record, exactly (the stretches
            // of both partitions read in one fetch)
            for (int g = 0; g < consumed.length; g++) {
                long expected = consumed[g];
                String group = "fold-g" + g;
                Await.until(
                        group + " at target offset " + expected,
                        Duration.ofSeconds(120),
                        () -> Map.of(0, expected, 1, expected / 2).equals(target.committedOffsets(group, TOPIC)));
            }
        } finally {
            engine.requestStop();
            assertThat(engine.awaitTermination(Duration.ofSeconds(90))).isTrue();
        }

        // And: the persisted map is folded, and translates every group exactly again (reading the target)
        Properties targetClient = new Properties();
        targetClient.put("bootstrap.servers", target.bootstrapServers());
        try (SyncTopic topic = new SyncTopic(SyncRecords.DEFAULT_TOPIC, targetClient, Time.SYSTEM);
                TargetReader reader = new TargetReader(targetClient, sourceClusterId(), Time.SYSTEM, 30_000)) {
            OffsetMap map = SyncContents.read(topic).offsetMap(sourceClusterId(), OffsetMap.DEFAULT_MAX_SEGMENTS);
            TopicPartition tp = new TopicPartition(TOPIC, 0);
            TargetHistory h = map.existing(tp);
            assertThat(h.checkpoints()).as("checkpoints of the folded run").isPositive();
            assertThat(h.segments()).as("exact segments").isLessThanOrEqualTo(2 * OffsetMap.FOLD_WINDOW);
            TranslationRound round =
                    new TranslationRound(map, TopicRenamer.identity(), Map.of(tp, 0L), Map.of(tp, 4_000L), Map.of());
            BelowResolver below = new BelowResolver(reader).from(map);
            for (long k : consumed) {
                Map<TopicPartition, Long> committed = new HashMap<>();
                committed.put(tp, sourceOffsetOf(k));
                Translation t = below.resolve(round, round.translate(committed), committed, Map.of(tp, 0L))
                        .get(tp);
                assertThat(t).as("consumed %d", k).isEqualTo(new Translation(tp, k, 0, false, 0));
            }
            assertThat(below.reads()).as("stretches read").isPositive();
        }
    }

    private static String sourceClusterId() throws Exception {
        try (Admin admin = source.admin()) {
            return admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
        }
    }
}
