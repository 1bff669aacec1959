package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.partition.Partition;
import dev.strait.time.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * An end offset a client saw never goes backwards when leadership moves (issue 22, D3; KIP-207): the new leader
 * answers ListOffsets LATEST with OFFSET_NOT_AVAILABLE, which the Admin client retries, until its high watermark
 * reaches the start of its epoch. The replica links are cut by the test so that the new leader's high watermark
 * lags for as long as the test needs, not for a race-sized moment.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ListOffsetsLeaderChangeIT {

    private static final String TOPIC = "latest";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    private TestCluster cluster;

    @BeforeEach
    void startCluster() {
        // A long lag time: no ISR shrink may move a high watermark while the links are cut.
        cluster = new TestCluster(
                3,
                Map.of(
                        "replica.lag.time.max.ms", "60000",
                        "offsets.topic.num.partitions", "1",
                        "default.replication.factor", "3"));
    }

    @AfterEach
    void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private Admin admin() {
        return Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000",
                AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, "50"));
    }

    private KafkaProducer<String, String> producer(String acks) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, acks);
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "false");
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    private static void produce(KafkaProducer<String, String> producer, int count) throws Exception {
        for (int i = 0; i < count; i++) {
            producer.send(new ProducerRecord<>(TOPIC, 0, "k" + i, "v" + i)).get(30, TimeUnit.SECONDS);
        }
    }

    private Partition replica(int node) {
        return cluster.broker(node).replicaManager().partition(TP).orElseThrow();
    }

    private static long latest(Admin admin) throws Exception {
        return admin.listOffsets(Map.of(TP, OffsetSpec.latest()))
                .partitionResult(TP)
                .get(60, TimeUnit.SECONDS)
                .offset();
    }

    private static void waitFor(String what, BooleanSupplier condition) throws InterruptedException {
        Await.until(what, Duration.ofSeconds(60), condition);
    }

    @Test
    void theLatestOffsetNeverGoesBackwardsWhenTheNewLeadersHighWatermarkLags() throws Exception {
        try (Admin admin = admin()) {
            // Given: 10 records on all three replicas
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3).configs(Map.of("min.insync.replicas", "1"))))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            PartitionState initial = cluster.controller().state(TOPIC, 0).orElseThrow();
            int oldLeader = initial.leader();
            List<Integer> others =
                    initial.replicas().stream().filter(r -> r != oldLeader).toList();
            int newLeader = others.get(0);
            int third = others.get(1);
            waitFor("replicas of " + TP, () -> {
                for (int node = 0; node < 3; node++) {
                    if (cluster.broker(node).replicaManager().partition(TP).isEmpty()) {
                        return false;
                    }
                }
                return true;
            });
            try (KafkaProducer<String, String> producer = producer("all")) {
                produce(producer, 10);
            }
            waitFor(
                    "all replicas at 10",
                    () -> replica(newLeader).highWatermark() == 10
                            && replica(third).highWatermark() == 10);
            // The future leader gets 10 more records but, cut off before the high watermark passes them, keeps
            // a high watermark of 10; the third replica fetches them last and moves the old leader's to 20.
            cluster.cut(third, oldLeader);
            cluster.cut(third, newLeader);
            try (KafkaProducer<String, String> producer = producer("1")) {
                produce(producer, 10);
            }
            waitFor("the future leader at 20", () -> replica(newLeader).logEndOffset() == 20);
            cluster.cut(newLeader, oldLeader);
            cluster.heal(third, oldLeader);
            waitFor(
                    "the old leader's high watermark at 20",
                    () -> replica(oldLeader).highWatermark() == 20);
            long seen = latest(admin);
            assertThat(seen).isEqualTo(20);
            assertThat(replica(newLeader).highWatermark()).isEqualTo(10);

            // When: leadership moves to the replica whose high watermark lags (the third cannot fetch from it yet)
            cluster.controller().electLeader(TOPIC, 0, newLeader);
            waitFor("the new leader", () -> replica(newLeader).isLeader());
            KafkaFuture<ListOffsetsResult.ListOffsetsResultInfo> afterChange =
                    admin.listOffsets(Map.of(TP, OffsetSpec.latest())).partitionResult(TP);
            // Then: no answer below what the client already saw, only once the high watermark caught up
            long early = seen;
            try {
                early = afterChange.get(500, TimeUnit.MILLISECONDS).offset();
            } catch (java.util.concurrent.TimeoutException e) {
                // still retrying OFFSET_NOT_AVAILABLE: no answer below what the client saw
            }
            assertThat(early).as("LATEST right after the leader change").isGreaterThanOrEqualTo(seen);
            assertThat(replica(newLeader).highWatermark()).isEqualTo(10);
            cluster.heal(third, newLeader);
            assertThat(afterChange.get(60, TimeUnit.SECONDS).offset()).isEqualTo(20);
            assertThat(replica(newLeader).highWatermark()).isEqualTo(20);
            assertThat(latest(admin)).isEqualTo(20);
        }
    }
}
