package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.time.Await;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Three nodes in one JVM as a quorum: replicated topics, and a leader killed without a controlled shutdown. */
class EmbeddedClusterIT {

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void threeNodesReplicateAndSurviveALeaderKilledMidStream() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder()
                        .nodes(3)
                        .brokerConfig("min.insync.replicas", "2")
                        .brokerConfig("broker.session.timeout.ms", "3000")
                        .brokerConfig("broker.heartbeat.interval.ms", "500")
                        .start();
                Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            assertThat(admin.describeCluster().nodes().get(30, TimeUnit.SECONDS))
                    .hasSize(3);
            admin.createTopics(List.of(new NewTopic("t", 1, (short) 3))).all().get(30, TimeUnit.SECONDS);
            // CreateTopics answers once the controller committed the topic; the node the admin asks next may not
            // have applied it yet and answer UNKNOWN_TOPIC_OR_PARTITION (as in Kafka), so wait for it.
            Await.until("every node knows topic t", Duration.ofSeconds(30), () -> {
                try {
                    admin.describeTopics(List.of("t")).allTopicNames().get();
                    return true;
                } catch (ExecutionException e) {
                    return false;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(e);
                }
            });
            TopicDescription before =
                    admin.describeTopics(List.of("t")).allTopicNames().get().get("t");
            assertThat(before.partitions().get(0).replicas()).hasSize(3);

            Properties p = new Properties();
            p.put("bootstrap.servers", cluster.bootstrapServers());
            p.put("acks", "all");
            p.put("delivery.timeout.ms", "60000");
            try (KafkaProducer<byte[], byte[]> producer =
                    new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
                for (int i = 0; i < 500; i++) {
                    producer.send(new ProducerRecord<>("t", ("v" + i).getBytes(StandardCharsets.UTF_8)))
                            .get();
                }
                int leader = before.partitions().get(0).leader().id();
                cluster.kill(leader);
                for (int i = 500; i < 1000; i++) {
                    producer.send(new ProducerRecord<>("t", ("v" + i).getBytes(StandardCharsets.UTF_8)))
                            .get();
                }
                int newLeader = admin.describeTopics(List.of("t"))
                        .allTopicNames()
                        .get()
                        .get("t")
                        .partitions()
                        .get(0)
                        .leader()
                        .id();
                assertThat(newLeader).isNotEqualTo(leader);
                cluster.resume(leader);
            }

            List<String> values = new ArrayList<>();
            try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                    Map.of("bootstrap.servers", cluster.bootstrapServers(), "auto.offset.reset", "earliest"),
                    new ByteArrayDeserializer(),
                    new ByteArrayDeserializer())) {
                TopicPartition tp = new TopicPartition("t", 0);
                consumer.assign(List.of(tp));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (values.size() < 1000 && System.nanoTime() < deadline) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                        values.add(new String(r.value(), StandardCharsets.UTF_8));
                    }
                }
            }
            List<String> expected = new ArrayList<>();
            for (int i = 0; i < 1000; i++) {
                expected.add("v" + i);
            }
            assertThat(values).isEqualTo(expected);
        }
    }
}
