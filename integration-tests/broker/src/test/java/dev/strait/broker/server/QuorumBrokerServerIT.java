package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A whole broker whose config names a one-voter controller quorum (KRaft-style combined mode): its metadata
 * comes from the quorum's log, and unmodified kafka-clients create a topic, produce and consume; the topic is
 * still there after a restart.
 */
@Timeout(value = 90, unit = TimeUnit.SECONDS)
class QuorumBrokerServerIT {

    @TempDir
    Path dir;

    private Map<String, String> config(int controllerPort, int clientPort) {
        return Map.of(
                "node.id",
                "0",
                "process.roles",
                "broker,controller",
                "controller.quorum.voters",
                "0@127.0.0.1:" + controllerPort,
                "controller.listener.names",
                "CONTROLLER",
                "listeners",
                "PLAINTEXT://127.0.0.1:" + clientPort + ",CONTROLLER://127.0.0.1:0",
                "log.dirs",
                dir.resolve("logs").toString());
    }

    private static int freePort() throws java.io.IOException {
        return dev.strait.broker.server.LoopbackPorts.reserve();
    }

    @Test
    void aCombinedModeBrokerServesClientsFromQuorumMetadata() throws Exception {
        // The client port is picked up front: the offsets topic is created before the listener binds, and the
        // quorum can only place it on a broker whose endpoint is known (see MetadataSources).
        int controllerPort = freePort();
        int clientPort = freePort();
        BrokerServer server = new BrokerServer(BrokerConfig.from(config(controllerPort, clientPort))).start();
        try {
            String bootstrap = "127.0.0.1:" + server.boundPort();
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                admin.createTopics(List.of(new NewTopic("quorum-topic", 2, (short) 1)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
                assertThat(admin.listTopics().names().get(30, TimeUnit.SECONDS)).contains("quorum-topic");
            }
            try (KafkaProducer<String, String> producer =
                    KafkaClientsRoundTripIT.producer(bootstrap, Map.of("acks", "all"))) {
                for (int i = 0; i < 10; i++) {
                    producer.send(new ProducerRecord<>("quorum-topic", i % 2, "k" + i, "v" + i))
                            .get(30, TimeUnit.SECONDS);
                }
            }
            List<String> values = new ArrayList<>();
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(
                    KafkaClientsRoundTripIT.consumerProps(bootstrap),
                    new StringDeserializer(),
                    new StringDeserializer())) {
                consumer.assign(List.of(new TopicPartition("quorum-topic", 0), new TopicPartition("quorum-topic", 1)));
                consumer.seekToBeginning(consumer.assignment());
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
                while (values.size() < 10 && System.nanoTime() < deadline) {
                    for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(200))) {
                        values.add(record.value());
                    }
                }
            }
            assertThat(values).hasSize(10);
        } finally {
            server.close();
        }

        BrokerServer again = new BrokerServer(BrokerConfig.from(config(controllerPort, clientPort))).start();
        try {
            String bootstrap = "127.0.0.1:" + again.boundPort();
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap))) {
                Set<String> names = admin.listTopics().names().get(30, TimeUnit.SECONDS);
                assertThat(names).contains("quorum-topic");
            }
        } finally {
            again.close();
        }
    }
}
