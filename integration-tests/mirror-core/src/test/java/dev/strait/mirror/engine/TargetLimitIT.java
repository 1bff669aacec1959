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
import dev.strait.testkit.SharedClusters;
import dev.strait.testkit.TestProducer;
import dev.strait.testkit.TopicReader;
import dev.strait.time.Await;
import dev.strait.time.Time;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.junit.jupiter.api.Test;

/**
 * D3 on Apache Kafka 4.1.1: a source topic's max.message.bytes raised while the mirror runs (from the default
 * 1 MB to 2 MB); records of 1.5 MB then all reach the target, none failed as too large or skipped (the mirror runs
 * with --abort.on.send.failure=false, so a refused record would be skipped, not stop it).
 */
class TargetLimitIT {
    private static final int RAISED = 2 * 1024 * 1024;
    private static final int RECORD_BYTES = 1536 * 1024;

    private static MirrorConfig settings(String group, String topic, long topicSyncMs) {
        Properties consumer = new Properties();
        consumer.put("bootstrap.servers", SharedClusters.source().bootstrapServers());
        consumer.put("group.id", group);
        consumer.put("metadata.max.age.ms", "1000");
        Properties producer = new Properties();
        producer.put("bootstrap.servers", SharedClusters.target().bootstrapServers());
        // The producer's own limit on a request: an operator mirroring large records raises it as well.
        producer.put("max.request.size", String.valueOf(4 * 1024 * 1024));
        return MirrorConfig.builder()
                .consumerConfig(consumer)
                .producerConfig(producer)
                .include(topic)
                .offsetCommitIntervalMs(1000)
                .abortOnSendFailure(false)
                .sync(new SyncConfig(
                        null,
                        1000,
                        true,
                        SyncConfig.DEFAULT_SYNC_TOPIC,
                        new TopicSyncConfig(true, true, false, topicSyncMs, TopicConfigFilter.defaults())))
                .build();
    }

    @Test
    void recordsWithinALimitTheConfigSyncRaisedOnTheTargetAreCopied() throws Exception {
        // Given: a mirror copying a topic whose route learnt the target's default limit (1 MB)
        KafkaCluster source = SharedClusters.source();
        KafkaCluster target = SharedClusters.target();
        String topic = "limit.synced";
        source.createTopic(topic, 1);
        produceLarge(topic, 0, 1, 100);
        MirrorEngine engine = start(settings("m-limit-synced", topic, 1000));
        try {
            Await.until(
                    "the small record on the target", Duration.ofSeconds(60), () -> target.endOffsetSum(topic) == 1);

            // When: the source's limit is raised, the config sync raises the target's, then 1.5 MB records come
            raiseSourceLimit(topic);
            Await.until(
                    "max.message.bytes raised on the target",
                    Duration.ofSeconds(60),
                    () -> String.valueOf(RAISED).equals(targetLimit(target, topic)));
            produceLarge(topic, 1, 5, RECORD_BYTES);

            // Then
            Await.until(
                    "the 5 large records on the target (send errors so far: "
                            + engine.metrics().sendErrors() + ")",
                    Duration.ofSeconds(60),
                    () -> target.endOffsetSum(topic) == 6);
        } finally {
            MirrorFixture.stop(engine);
        }
        assertThat(engine.metrics().sendErrors())
                .as("records failed or skipped as too large")
                .isZero();
        assertCopiedInOrder(topic, 6);
    }

    @Test
    void recordsTheSourceTookRightAfterItsLimitWasRaisedAreCopiedBeforeTheNextSyncRound() throws Exception {
        // Given: a mirror whose topic sync runs only every 10 minutes
        KafkaCluster source = SharedClusters.source();
        KafkaCluster target = SharedClusters.target();
        String topic = "limit.early";
        source.createTopic(topic, 1);
        produceLarge(topic, 0, 1, 100);
        MirrorEngine engine = start(settings("m-limit-early", topic, 600_000));
        try {
            Await.until(
                    "the small record on the target", Duration.ofSeconds(60), () -> target.endOffsetSum(topic) == 1);

            // When: the source's limit is raised and large records follow at once
            raiseSourceLimit(topic);
            produceLarge(topic, 1, 5, RECORD_BYTES);

            // Then: the mirror syncs the topic's settings before it would refuse one
            Await.until(
                    "the 5 large records on the target (send errors so far: "
                            + engine.metrics().sendErrors() + ")",
                    Duration.ofSeconds(60),
                    () -> target.endOffsetSum(topic) == 6);
        } finally {
            MirrorFixture.stop(engine);
        }
        assertThat(engine.metrics().sendErrors())
                .as("records failed or skipped as too large")
                .isZero();
        assertThat(targetLimit(target, topic)).isEqualTo(String.valueOf(RAISED));
        assertCopiedInOrder(topic, 6);
    }

    private static MirrorEngine start(MirrorConfig settings) {
        MirrorEngine engine = new MirrorEngine(settings, new MirrorMetrics(new MetricRegistry()), Time.SYSTEM);
        engine.start();
        return engine;
    }

    private static void produceLarge(String topic, int from, int count, int bytes) {
        try (TestProducer producer = new TestProducer(Map.of(
                "bootstrap.servers",
                SharedClusters.source().bootstrapServers(),
                "max.request.size",
                String.valueOf(4 * 1024 * 1024)))) {
            // Random values: the mirror's producer compresses, and a compressible 1.5 MB record would fit in 1 MB.
            Random random = new Random(from);
            for (int i = from; i < from + count; i++) {
                byte[] value = new byte[bytes];
                random.nextBytes(value);
                producer.send(new ProducerRecord<>(
                        topic, 0, System.currentTimeMillis(), ("k-" + i).getBytes(StandardCharsets.UTF_8), value));
            }
        }
    }

    private static void raiseSourceLimit(String topic) throws Exception {
        ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        AlterConfigOp op = new AlterConfigOp(
                new ConfigEntry("max.message.bytes", String.valueOf(RAISED)), AlterConfigOp.OpType.SET);
        try (Admin admin = SharedClusters.source().admin()) {
            admin.incrementalAlterConfigs(Map.of(r, List.of(op))).all().get(30, TimeUnit.SECONDS);
        }
    }

    private static String targetLimit(KafkaCluster target, String topic) {
        ConfigResource r = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        try (Admin admin = target.admin()) {
            ConfigEntry e = admin.describeConfigs(List.of(r))
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .get(r)
                    .get("max.message.bytes");
            return e == null ? null : e.value();
        } catch (Exception e) {
            return null;
        }
    }

    private static void assertCopiedInOrder(String topic, int records) {
        List<ConsumerRecord<byte[], byte[]>> copies = TopicReader.readAll(
                        SharedClusters.target().bootstrapServers(), topic)
                .get(0);
        assertThat(copies).hasSize(records);
        for (int i = 0; i < records; i++) {
            assertThat(Provenance.from(copies.get(i).headers()).offset()).isEqualTo(i);
        }
        assertThat(copies.subList(1, records))
                .allSatisfy(c -> assertThat(c.value()).hasSize(RECORD_BYTES));
    }
}
