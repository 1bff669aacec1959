package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three companion nodes secured end to end: SASL_SSL for clients and replica fetchers (the brokers authenticate
 * to each other as {@code User:broker} with PLAIN), the controller wire over mutual TLS, Kafka's authorizer on.
 * The leader of a partition is killed in the middle of an acks=all stream: every acknowledged record is read
 * back once, in order, at its offset.
 */
class SecuredClusterIT {

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void aSecuredClusterSurvivesALeaderKillWithNothingLost() throws Exception {
        try (EmbeddedCluster cluster = SecureConfigs.saslSslCluster(3, Map.of())
                .brokerConfig("broker.session.timeout.ms", "3000").brokerConfig("broker.heartbeat.interval.ms", "500")
                .brokerConfig("min.insync.replicas", "2").start();
             Admin admin = Admin.create(SecureConfigs.admin(cluster.bootstrapServers()))) {
            String topic = "secured.replicated";
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 3))).all().get(60, TimeUnit.SECONDS);
            await("all three replicas in sync", () -> describe(admin, topic).partitions().get(0).isr().size() == 3);

            Map<String, Object> producerProps = new HashMap<>(SecureConfigs.admin(cluster.bootstrapServers()));
            producerProps.put("key.serializer", StringSerializer.class.getName());
            producerProps.put("value.serializer", StringSerializer.class.getName());
            producerProps.put("acks", "all");
            producerProps.put("enable.idempotence", "true");
            producerProps.put("delivery.timeout.ms", "60000");
            producerProps.put("request.timeout.ms", "5000");
            producerProps.put("linger.ms", "5");
            List<Future<RecordMetadata>> sends = new ArrayList<>();
            List<String> values = new ArrayList<>();
            int victim;
            try (KafkaProducer<String, String> producer = new KafkaProducer<>(producerProps)) {
                for (int i = 0; i < 300; i++) {
                    values.add("v" + i);
                    sends.add(producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)));
                }
                sends.get(sends.size() - 1).get(60, TimeUnit.SECONDS);

                victim = describe(admin, topic).partitions().get(0).leader().id();
                cluster.kill(victim);
                for (int i = 300; i < 600; i++) {
                    values.add("v" + i);
                    sends.add(producer.send(new ProducerRecord<>(topic, "k" + i, "v" + i)));
                }
                producer.flush();
            }
            // Every send was acknowledged (idempotence retried through the failover), at increasing offsets.
            List<Long> offsets = new ArrayList<>();
            for (Future<RecordMetadata> send : sends) {
                offsets.add(send.get(60, TimeUnit.SECONDS).offset());
            }
            for (int i = 0; i < offsets.size(); i++) {
                assertThat(offsets.get(i)).as("offset of record %d", i).isEqualTo(i);
            }
            int newLeader = describe(admin, topic).partitions().get(0).leader().id();
            assertThat(newLeader).isNotEqualTo(victim);

            Map<String, Object> consumerProps = new HashMap<>(SecureConfigs.admin(cluster.bootstrapServers()));
            consumerProps.put("key.deserializer", StringDeserializer.class.getName());
            consumerProps.put("value.deserializer", StringDeserializer.class.getName());
            consumerProps.put("auto.offset.reset", "earliest");
            List<ConsumerRecord<String, String>> read = new ArrayList<>();
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps)) {
                consumer.assign(List.of(new TopicPartition(topic, 0)));
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
                while (read.size() < values.size() && System.nanoTime() < deadline) {
                    consumer.poll(Duration.ofMillis(500)).forEach(read::add);
                }
            }
            assertThat(read).extracting(ConsumerRecord::value).containsExactlyElementsOf(values);
            for (int i = 0; i < read.size(); i++) {
                assertThat(read.get(i).offset()).isEqualTo(i);
            }

            // The killed node rejoins over TLS and catches up into the ISR.
            cluster.resume(victim);
            await("the restarted node back in the ISR",
                    () -> describe(admin, topic).partitions().get(0).isr().size() == 3);
        }
    }

    private static TopicDescription describe(Admin admin, String topic) throws Exception {
        return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic);
    }

    interface Check {
        boolean ok() throws Exception;
    }

    static void await(String what, Check check) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(90);
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                if (check.ok()) {
                    return;
                }
            } catch (Exception e) {
                last = e;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("timed out waiting for " + what, last);
    }
}
