package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.MirrorSettings;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.testing.MirrorCheck;
import dev.strait.testkit.Await;
import dev.strait.testkit.TestProducer;
import dev.strait.testkit.TopicReader;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;

/**
 * The mirror between two Apache Kafka 4.1.1 containers. Runs where a Docker engine is available and is
 * reported as skipped (not passed) where none is.
 */
@Testcontainers(disabledWithoutDocker = true)
class KafkaContainersIT {
    private static final String IMAGE = "apache/kafka:4.1.1";

    @Container
    static final KafkaContainer SOURCE = new KafkaContainer(IMAGE);
    @Container
    static final KafkaContainer TARGET = new KafkaContainer(IMAGE);

    @Test
    void mirrorsABacklogBetweenContainers() throws Exception {
        // Given
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", SOURCE.getBootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("tc.orders", 3, (short) 1))).all().get();
            dev.strait.testkit.TestCluster.awaitWritable(admin, "tc.orders", 3);
        }
        try (TestProducer producer = new TestProducer(SOURCE.getBootstrapServers())) {
            producer.produce("tc.orders", 3, 2_000);
        }
        Properties consumer = new Properties();
        consumer.put("bootstrap.servers", SOURCE.getBootstrapServers());
        consumer.put("group.id", "g-tc");
        Properties producer = new Properties();
        producer.put("bootstrap.servers", TARGET.getBootstrapServers());
        MirrorSettings settings = MirrorSettings.builder().consumerConfig(consumer).producerConfig(producer)
            .include("tc\\..*").numStreams(2).offsetCommitIntervalMs(1000).build();

        // When
        MirrorEngine engine = new MirrorEngine(settings, new MirrorMetrics(new MetricRegistry()), Time.SYSTEM);
        engine.start();
        try {
            Await.until("6,000 records on the target", Duration.ofSeconds(120), () -> {
                try {
                    return TopicReader.count(TopicReader.readAll(TARGET.getBootstrapServers(), "tc.orders")) >= 6_000;
                } catch (IllegalStateException notYet) {
                    return false;
                }
            });
        } finally {
            engine.requestStop();
            engine.awaitTermination(Duration.ofSeconds(60));
        }

        // Then
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> src = TopicReader.readAll(SOURCE.getBootstrapServers(), "tc.orders");
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> dst = TopicReader.readAll(TARGET.getBootstrapServers(), "tc.orders");
        MirrorCheck.Report report = MirrorCheck.compare(src, "tc.orders", dst);
        assertThat(report.lost()).as(report.toString()).isZero();
        assertThat(report.duplicates()).as(report.toString()).isZero();
        assertThat(report.digestsEqual()).as(report.toString()).isTrue();
    }
}
