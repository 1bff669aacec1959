package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.testing.MirrorCheck;
import dev.strait.testkit.Docker;
import dev.strait.testkit.RequiresDocker;
import dev.strait.testkit.TestProducer;
import dev.strait.testkit.TopicReader;
import dev.strait.time.Await;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.testcontainers.containers.Network;
import org.testcontainers.kafka.KafkaContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * The mirror between two Apache Kafka 4.1.1 brokers in containers (testcontainers' KafkaContainer), reached through
 * their published ports. The image is {@link Docker#kafkaImage()}: by default the local strait-kafka:4.1.1 that
 * docker/build-images.sh builds from the Maven artifacts, a stand-in for apache/kafka:4.1.1
 * ({@code -Dstrait.kafka.image=apache/kafka:4.1.1} where a registry is reachable). Needs Docker: fails in CI
 * without it, skipped elsewhere ({@link RequiresDocker}).
 */
@RequiresDocker(kafka = true)
class KafkaContainersIT {
    /** Small JVMs on a shared 2-core machine: the serial collector, the C1 compiler only. */
    private static final String LEAN_JVM = "-XX:+UseSerialGC -XX:TieredStopAtLevel=1";

    private static Network network;
    private static KafkaContainer source;
    private static KafkaContainer target;

    @BeforeAll
    static void startKafka() {
        DockerImageName image = DockerImageName.parse(Docker.kafkaImage()).asCompatibleSubstituteFor("apache/kafka");
        // The engine CI starts has no default bridge: containers join a network of their own to publish ports.
        network = Network.newNetwork();
        // KafkaContainer gives every broker the same cluster id; the mirror rightly refuses to copy a cluster onto
        // itself, so each gets its own.
        source = new KafkaContainer(image)
                .withNetwork(network)
                .withEnv("KAFKA_HEAP_OPTS", "-Xmx256m")
                .withEnv("KAFKA_JVM_PERFORMANCE_OPTS", LEAN_JVM)
                .withEnv("CLUSTER_ID", "c291cmNlLWNsdXN0ZXItMQ");
        target = new KafkaContainer(image)
                .withNetwork(network)
                .withEnv("KAFKA_HEAP_OPTS", "-Xmx256m")
                .withEnv("KAFKA_JVM_PERFORMANCE_OPTS", LEAN_JVM)
                .withEnv("CLUSTER_ID", "dGFyZ2V0LWNsdXN0ZXItMg");
        source.start();
        target.start();
    }

    @AfterAll
    static void stopKafka() {
        for (AutoCloseable c : new AutoCloseable[] {source, target, network}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    System.err.println("KafkaContainersIT: cleanup: " + e);
                }
            }
        }
    }

    @Test
    void mirrorsABacklogBetweenContainers() throws Exception {
        // Given
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", source.getBootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic("tc.orders", 3, (short) 1)))
                    .all()
                    .get();
            dev.strait.testkit.TestCluster.awaitWritable(admin, "tc.orders", 3);
        }
        try (TestProducer producer = new TestProducer(source.getBootstrapServers())) {
            producer.produce("tc.orders", 3, 2_000);
        }
        Properties consumer = new Properties();
        consumer.put("bootstrap.servers", source.getBootstrapServers());
        consumer.put("group.id", "g-tc");
        Properties producer = new Properties();
        producer.put("bootstrap.servers", target.getBootstrapServers());
        MirrorConfig settings = MirrorConfig.builder()
                .consumerConfig(consumer)
                .producerConfig(producer)
                .include("tc\\..*")
                .numStreams(2)
                .offsetCommitIntervalMs(1000)
                .build();

        // When
        MirrorEngine engine = new MirrorEngine(settings, new MirrorMetrics(new MetricRegistry()), Time.SYSTEM);
        engine.start();
        try {
            Await.until("6,000 records on the target", Duration.ofSeconds(120), () -> {
                try {
                    return TopicReader.count(TopicReader.readAll(target.getBootstrapServers(), "tc.orders")) >= 6_000;
                } catch (IllegalStateException notYet) {
                    return false;
                }
            });
        } finally {
            engine.requestStop();
            engine.awaitTermination(Duration.ofSeconds(60));
        }

        // Then
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> src =
                TopicReader.readAll(source.getBootstrapServers(), "tc.orders");
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> dst =
                TopicReader.readAll(target.getBootstrapServers(), "tc.orders");
        MirrorCheck.Report report = MirrorCheck.compare(src, "tc.orders", dst);
        assertThat(report.sourceRecords()).isEqualTo(6_000);
        assertThat(report.lost()).as(report.toString()).isZero();
        assertThat(report.duplicates()).as(report.toString()).isZero();
        assertThat(report.digestsEqual()).as(report.toString()).isTrue();
    }
}
