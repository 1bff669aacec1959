package dev.strait.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.strait.broker.server.EmbeddedCluster;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.testing.MirrorCheck;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.SharedClusters;
import dev.strait.testkit.TestCluster;
import dev.strait.testkit.TestProducer;
import dev.strait.testkit.TopicReader;
import dev.strait.time.Await;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

/**
 * The mirror writing to Strait's own companion broker (a single node so far) from an Apache Kafka source:
 * the broker serves the mirror's producer and admin client (topic creation, configs, offsets).
 */
class MirrorToCompanionBrokerIT {

    @Test
    void mirrorsABacklogIntoTheCompanionBroker() throws Exception {
        KafkaCluster source = SharedClusters.source();
        try (EmbeddedCluster target = EmbeddedCluster.builder().nodes(1).start()) {
            // Given
            List<String> topics = List.of("companion.a", "companion.b");
            try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
                for (String t : topics) {
                    source.createTopic(t, 3);
                    producer.produce(t, 3, 2_000);
                }
            }
            Properties c = new Properties();
            c.put("bootstrap.servers", source.bootstrapServers());
            c.put("group.id", "g-companion");
            Properties p = new Properties();
            p.put("bootstrap.servers", target.bootstrapServers());

            // When
            MirrorEngine engine = new MirrorEngine(
                    MirrorConfig.builder()
                            .consumerConfig(c)
                            .producerConfig(p)
                            .include("companion\\..*")
                            .numStreams(2)
                            .offsetCommitIntervalMs(1000)
                            .build(),
                    new MirrorMetrics(new MetricRegistry()),
                    Time.SYSTEM);
            engine.start();
            try {
                Await.until(
                        "everything committed",
                        Duration.ofSeconds(120),
                        () -> topics.stream()
                                        .mapToLong(t -> source.committedOffsets("g-companion", t).values().stream()
                                                .mapToLong(Long::longValue)
                                                .sum())
                                        .sum()
                                == 12_000);
            } finally {
                engine.requestStop();
                engine.awaitTermination(Duration.ofSeconds(60));
            }

            // Then
            for (String t : topics) {
                Map<Integer, List<ConsumerRecord<byte[], byte[]>>> src =
                        TopicReader.readAll(source.bootstrapServers(), t);
                Map<Integer, List<ConsumerRecord<byte[], byte[]>>> dst =
                        TopicReader.readAll(target.bootstrapServers(), t);
                MirrorCheck.Report report = MirrorCheck.compare(src, t, dst);
                assertThat(report.lost()).as(report.toString()).isZero();
                assertThat(report.duplicates()).as(report.toString()).isZero();
                assertThat(report.mismatched()).as(report.toString()).isZero();
                assertThat(report.digestsEqual()).as(report.toString()).isTrue();
            }
        }
    }

    @Test
    void mirrorsBetweenTwoCompanionBrokersWithConsumerGroups() throws Exception {
        try (EmbeddedCluster source = EmbeddedCluster.builder()
                        .nodes(1)
                        .brokerConfig("group.initial.rebalance.delay.ms", "0")
                        .start();
                EmbeddedCluster target = EmbeddedCluster.builder().nodes(1).start()) {
            // Given
            String topic = "companion.both";
            try (org.apache.kafka.clients.admin.Admin admin = org.apache.kafka.clients.admin.Admin.create(
                    Map.of("bootstrap.servers", source.bootstrapServers()))) {
                admin.createTopics(List.of(new org.apache.kafka.clients.admin.NewTopic(topic, 4, (short) 1)))
                        .all()
                        .get();
                TestCluster.awaitWritable(admin, topic, 4);
            }
            try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
                producer.produce(topic, 4, 2_500);
            }
            Properties c = new Properties();
            c.put("bootstrap.servers", source.bootstrapServers());
            c.put("group.id", "g-both");
            Properties p = new Properties();
            p.put("bootstrap.servers", target.bootstrapServers());

            // When
            MirrorEngine engine = new MirrorEngine(
                    MirrorConfig.builder()
                            .consumerConfig(c)
                            .producerConfig(p)
                            .include(topic)
                            .numStreams(2)
                            .offsetCommitIntervalMs(1000)
                            .build(),
                    new MirrorMetrics(new MetricRegistry()),
                    Time.SYSTEM);
            engine.start();
            try {
                Await.until("all 10,000 on the target", Duration.ofSeconds(120), () -> {
                    try {
                        return TopicReader.count(TopicReader.readAll(target.bootstrapServers(), topic)) == 10_000;
                    } catch (IllegalStateException notYet) {
                        return false;
                    }
                });
            } finally {
                engine.requestStop();
                engine.awaitTermination(Duration.ofSeconds(60));
            }

            // Then
            MirrorCheck.Report report = MirrorCheck.compare(
                    TopicReader.readAll(source.bootstrapServers(), topic),
                    topic,
                    TopicReader.readAll(target.bootstrapServers(), topic));
            assertThat(report.lost()).as(report.toString()).isZero();
            assertThat(report.duplicates()).as(report.toString()).isZero();
            assertThat(report.digestsEqual()).as(report.toString()).isTrue();
            assertThat(engine.state()).isEqualTo(MirrorEngine.State.STOPPED);
        }
    }
}
