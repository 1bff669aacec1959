package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Transactions through a crash of the node that coordinates them, or of a partition leader they write to, on a
 * three-node companion cluster with the 4.1.1 clients: the new coordinator replays {@code __transaction_state},
 * finishes what the old one decided, and the producer carries on. Checked as Jepsen would: read_committed sees
 * every committed transaction once, in order, and nothing of an aborted one.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class TransactionFailoverIT {

    private static final String TOPIC = "txn-failover";
    private static final int PARTITIONS = 3;
    private EmbeddedCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private void start() throws Exception {
        cluster = EmbeddedCluster.builder()
                .nodes(3)
                .brokerConfig("min.insync.replicas", "2")
                .brokerConfig("broker.session.timeout.ms", "3000")
                .brokerConfig("broker.heartbeat.interval.ms", "500")
                .start();
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, PARTITIONS, (short) 3)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
    }

    private Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()));
    }

    private KafkaProducer<String, String> producer(String transactionalId) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 5_000);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 90_000);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 90_000);
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    /** The node leading the {@code __transaction_state} partition of {@code transactionalId}. */
    private int coordinatorOf(String transactionalId) throws Exception {
        try (Admin admin = admin()) {
            TopicDescription state = admin.describeTopics(List.of("__transaction_state"))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get("__transaction_state");
            int partition = (transactionalId.hashCode() & 0x7fffffff)
                    % state.partitions().size();
            return state.partitions().get(partition).leader().id();
        }
    }

    private int leaderOf(TopicPartition tp) throws Exception {
        try (Admin admin = admin()) {
            return admin.describeTopics(List.of(tp.topic()))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(tp.topic())
                    .partitions()
                    .get(tp.partition())
                    .leader()
                    .id();
        }
    }

    /** Writes transaction {@code txn}: one record per partition, valued {@code "t<txn>"}. */
    private static void write(KafkaProducer<String, String> producer, int txn) {
        for (int p = 0; p < PARTITIONS; p++) {
            producer.send(new ProducerRecord<>(TOPIC, p, "k", "t" + txn));
        }
    }

    @Test
    void aTransactionSurvivesACrashOfItsCoordinatorBeforeCommit() throws Exception {
        start();
        String id = "failover-coordinator";
        List<String> committed = new ArrayList<>();
        try (KafkaProducer<String, String> producer = producer(id)) {
            producer.initTransactions();
            for (int txn = 0; txn < 3; txn++) {
                producer.beginTransaction();
                write(producer, txn);
                producer.commitTransaction();
                committed.add("t" + txn);
            }
            producer.beginTransaction();
            write(producer, 3);
            producer.flush();
            int coordinator = coordinatorOf(id);
            cluster.kill(coordinator);
            producer.commitTransaction();
            committed.add("t3");
            cluster.resume(coordinator);
            for (int txn = 4; txn < 6; txn++) {
                producer.beginTransaction();
                write(producer, txn);
                if (txn == 4) {
                    producer.flush();
                    producer.abortTransaction();
                } else {
                    producer.commitTransaction();
                    committed.add("t" + txn);
                }
            }
        }
        assertEveryPartitionReads(committed);
    }

    @Test
    void aTransactionSurvivesACrashOfAPartitionLeaderItWrote() throws Exception {
        start();
        String id = "failover-leader";
        List<String> committed = new ArrayList<>();
        try (KafkaProducer<String, String> producer = producer(id)) {
            producer.initTransactions();
            producer.beginTransaction();
            write(producer, 0);
            producer.commitTransaction();
            committed.add("t0");

            producer.beginTransaction();
            write(producer, 1);
            producer.flush();
            int leader = leaderOf(new TopicPartition(TOPIC, 0));
            int coordinator = coordinatorOf(id);
            // A leader other than the coordinator, so the markers must reach a new leader elsewhere.
            int victim = leader != coordinator
                    ? leader
                    : IntStream.range(0, PARTITIONS)
                            .map(p -> {
                                try {
                                    return leaderOf(new TopicPartition(TOPIC, p));
                                } catch (Exception e) {
                                    throw new IllegalStateException(e);
                                }
                            })
                            .filter(n -> n != coordinator)
                            .findFirst()
                            .orElse(leader);
            cluster.kill(victim);
            producer.commitTransaction();
            committed.add("t1");
            producer.beginTransaction();
            write(producer, 2);
            producer.commitTransaction();
            committed.add("t2");
            cluster.resume(victim);
        }
        assertEveryPartitionReads(committed);
    }

    private void assertEveryPartitionReads(List<String> committed) throws Exception {
        List<TopicPartition> partitions = IntStream.range(0, PARTITIONS)
                .mapToObj(p -> new TopicPartition(TOPIC, p))
                .toList();
        Map<TopicPartition, Long> ends = new HashMap<>();
        try (Admin admin = admin()) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            partitions.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
            admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                    .all()
                    .get(60, TimeUnit.SECONDS)
                    .forEach((tp, info) -> ends.put(tp, info.offset()));
        }
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        Map<Integer, List<String>> seen = new HashMap<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                assertThat(System.nanoTime()).as("read up to %s", ends).isLessThan(deadline);
                for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
                    seen.computeIfAbsent(r.partition(), p -> new ArrayList<>()).add(r.value());
                }
            }
        }
        for (int p = 0; p < PARTITIONS; p++) {
            assertThat(seen.getOrDefault(p, List.of())).as("partition %d", p).isEqualTo(committed);
        }
    }
}
