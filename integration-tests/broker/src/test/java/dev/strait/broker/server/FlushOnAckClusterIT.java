package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.partition.Partition;
import dev.strait.time.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * strait.flush.on.ack on three brokers, through the real Kafka producer: acks=all works, and by the time a
 * record is acknowledged every in-sync replica has it on disk, not only in its page cache.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FlushOnAckClusterIT {

    private static final String TOPIC = "durable";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final int RECORDS = 500;

    private TestCluster cluster;

    @BeforeEach
    void start() {
        cluster = new TestCluster(
                3,
                Map.of(
                        "strait.flush.on.ack",
                        "true",
                        "replica.lag.time.max.ms",
                        "30000",
                        "offsets.topic.num.partitions",
                        "1",
                        "default.replication.factor",
                        "3"));
    }

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void acksAllIsAcknowledgedOnlyForRecordsEveryInSyncReplicaHasFsynced() throws Exception {
        try (Admin admin =
                Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()))) {
            admin.createTopics(List.of(
                            new NewTopic(TOPIC, 1, (short) 3).configs(Map.of("min.insync.replicas", "2")),
                            new NewTopic("fast", 1, (short) 3).configs(Map.of("flush.on.ack", "false"))))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
        TopicPartition fast = new TopicPartition("fast", 0);
        waitFor(
                "replicas on every node",
                () -> allNodes(node -> replica(node, TP) != null && replica(node, fast) != null));
        assertThat(replica(0, TP).flushOnAck()).as("the broker default").isTrue();
        assertThat(replica(0, fast).flushOnAck()).as("a topic override").isFalse();

        List<Future<RecordMetadata>> sent = new ArrayList<>();
        long lastOffset;
        try (KafkaProducer<String, String> producer = producer()) {
            for (int i = 0; i < RECORDS; i++) {
                sent.add(producer.send(new ProducerRecord<>(TOPIC, "k" + i, "v" + i)));
            }
            producer.flush();
            lastOffset = -1;
            for (Future<RecordMetadata> future : sent) {
                lastOffset =
                        Math.max(lastOffset, future.get(30, TimeUnit.SECONDS).offset());
            }
        }

        assertThat(lastOffset).isEqualTo(RECORDS - 1);
        int leader = cluster.controller().state(TOPIC, 0).orElseThrow().leader();
        Partition leaderReplica = replica(leader, TP);
        assertThat(leaderReplica.highWatermark()).isEqualTo(RECORDS);
        for (int member : leaderReplica.maximalIsr()) {
            assertThat(replica(member, TP).flushedOffset())
                    .as("flushed offset on ISR member %d once the last record was acknowledged", member)
                    .isGreaterThanOrEqualTo(RECORDS);
        }
        assertThat(leaderReplica.maximalIsr()).hasSizeGreaterThanOrEqualTo(2);
    }

    private KafkaProducer<String, String> producer() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, "2048");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "30000");
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    private Partition replica(int node, TopicPartition tp) {
        BrokerServer broker = cluster.broker(node);
        return broker == null ? null : broker.replicaManager().partition(tp).orElse(null);
    }

    private boolean allNodes(java.util.function.IntPredicate condition) {
        for (int node = 0; node < cluster.size(); node++) {
            if (!condition.test(node)) {
                return false;
            }
        }
        return true;
    }

    private static void waitFor(String what, BooleanSupplier condition) throws InterruptedException {
        Await.until(what, Duration.ofSeconds(30), condition);
    }
}
