package dev.strait.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.server.LoopbackPorts;
import dev.strait.time.Await;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * What a mirror topic does when its source changes under it: the source cluster goes away and comes back (the
 * copy reports it, then catches up), and the source topic is deleted and re-created (the copy stops and keeps the
 * old records, never copying the new topic on top). Its state is read as an operator reads it: from the
 * companion broker's metrics.
 */
class MirrorTopicSourceChangesIT {
    private static final TopicPartition TP = new TopicPartition("inventory", 0);

    @Test
    void anUnreachableSourceIsReportedAndCaughtUpWithAndARecreatedSourceIsNeverCopiedOnTop() throws Exception {
        int metricsPort = LoopbackPorts.reserve();
        try (KafkaCluster source = KafkaCluster.start("changing-source", 1);
                CompanionCluster target = CompanionCluster.start(
                        "changing-target",
                        1,
                        Map.of(
                                "strait.metrics.host",
                                "127.0.0.1",
                                "strait.metrics.port",
                                Integer.toString(metricsPort)));
                Admin sourceAdmin = admin(source.bootstrapServers());
                Admin targetAdmin = admin(target.bootstrapServers())) {
            // Given: a mirror topic copying 300 records
            sourceAdmin
                    .createTopics(List.of(new NewTopic(TP.topic(), 1, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            produce(source.bootstrapServers(), "old", 300);
            targetAdmin
                    .createTopics(List.of(new NewTopic(TP.topic(), 1, (short) 1)
                            .configs(Map.of("strait.mirror.source.bootstrap.servers", source.bootstrapServers()))))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            Await.until("copied", Duration.ofSeconds(60), () -> PartitionReads.end(targetAdmin, TP) == 300);
            Await.until(
                    "COPYING reported",
                    Duration.ofSeconds(30),
                    () -> metrics(metricsPort).contains(stateSample("COPYING")));
            assertThat(metrics(metricsPort)).contains(lagRecords() + " 0\n");

            // When: the source cluster stops
            source.stopAll();

            // Then: the copy says so, and how long it has been behind grows
            Await.until(
                    "SOURCE_UNREACHABLE reported",
                    Duration.ofSeconds(60),
                    () -> metrics(metricsPort).contains(stateSample("SOURCE_UNREACHABLE")));

            // When: it comes back with 200 more records
            source.restartAll();
            produce(source.bootstrapServers(), "more", 200);

            // Then: the copy catches up at the source's offsets
            Await.until(
                    "caught up after the outage",
                    Duration.ofSeconds(90),
                    () -> PartitionReads.end(targetAdmin, TP) == 500);
            Await.until(
                    "COPYING again",
                    Duration.ofSeconds(30),
                    () -> metrics(metricsPort).contains(stateSample("COPYING")));
            List<String> before = PartitionReads.records(target.bootstrapServers(), TP, "read_uncommitted");
            assertThat(before)
                    .hasSize(500)
                    .isEqualTo(PartitionReads.records(source.bootstrapServers(), TP, "read_uncommitted"));

            // When: the source topic is deleted and created again, with other records
            sourceAdmin.deleteTopics(List.of(TP.topic())).all().get(30, TimeUnit.SECONDS);
            Await.until("source topic gone", Duration.ofSeconds(30), () -> {
                try {
                    return !sourceAdmin
                            .listTopics()
                            .names()
                            .get(30, TimeUnit.SECONDS)
                            .contains(TP.topic());
                } catch (Exception e) {
                    return false;
                }
            });
            sourceAdmin
                    .createTopics(List.of(new NewTopic(TP.topic(), 1, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            produce(source.bootstrapServers(), "new", 800);

            // Then: reported, and the copy holds exactly the old records
            Await.until(
                    "SOURCE_TOPIC_RECREATED reported",
                    Duration.ofSeconds(60),
                    () -> metrics(metricsPort).contains(stateSample("SOURCE_TOPIC_RECREATED")));
            assertThat(PartitionReads.end(targetAdmin, TP)).isEqualTo(500);
            assertThat(PartitionReads.records(target.bootstrapServers(), TP, "read_uncommitted"))
                    .isEqualTo(before);
        }
    }

    private static String stateSample(String state) {
        return "strait_broker_mirror_partition_state{topic=\"inventory\",partition=\"0\",source_topic=\"inventory\","
                + "state=\"" + state + "\"} 1";
    }

    private static String lagRecords() {
        return "strait_broker_mirror_partition_lag_records{topic=\"inventory\",partition=\"0\","
                + "source_topic=\"inventory\"}";
    }

    private static String metrics(int port) {
        try {
            HttpResponse<String> response = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/metrics"))
                                    .timeout(Duration.ofSeconds(10))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());
            return response.body();
        } catch (IOException e) {
            return "";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "";
        }
    }

    private static Admin admin(String bootstrap) {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    }

    private static void produce(String bootstrap, String prefix, int count) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        try (KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            for (int i = 0; i < count; i++) {
                byte[] value = (prefix + "-" + i).getBytes(StandardCharsets.UTF_8);
                producer.send(new ProducerRecord<>(TP.topic(), 0, value, value));
            }
            producer.flush();
        }
    }
}
