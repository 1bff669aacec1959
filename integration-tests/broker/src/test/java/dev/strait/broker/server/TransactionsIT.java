package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.time.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.ProducerFencedException;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Transactions with the unmodified kafka-clients 4.1.1 producer, consumer and admin client against the companion
 * broker (issue 24). Before, a transactional producer's initTransactions() failed with
 * TransactionalIdAuthorizationException: the broker refused every transactional id. Each test checks what a
 * read_committed consumer sees against what was committed, record by record.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class TransactionsIT {

    private EmbeddedCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private EmbeddedCluster start(int nodes) {
        cluster = EmbeddedCluster.builder()
                .nodes(nodes)
                .brokerConfig("group.initial.rebalance.delay.ms", "0")
                .start();
        return cluster;
    }

    private Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()));
    }

    private void createTopic(String name, int partitions, int replicas) throws Exception {
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(name, partitions, (short) replicas)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
    }

    private KafkaProducer<String, String> transactionalProducer(String transactionalId) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 30_000);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 60_000);
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 60_000);
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    private KafkaConsumer<String, String> consumer(IsolationLevel isolation) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolation.toString());
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        return new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer());
    }

    /** Every record of the partitions up to their end for {@code isolation}, in offset order per partition. */
    private List<ConsumerRecord<String, String>> readAll(
            Collection<TopicPartition> partitions, IsolationLevel isolation) throws Exception {
        Map<TopicPartition, Long> ends;
        try (Admin admin = admin()) {
            Map<TopicPartition, OffsetSpec> latest = new java.util.HashMap<>();
            partitions.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
            Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> answered = admin.listOffsets(
                            latest, new ListOffsetsOptions(isolation))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            ends = new java.util.HashMap<>();
            answered.forEach((tp, info) -> ends.put(tp, info.offset()));
        }
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = consumer(isolation)) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                assertThat(System.nanoTime()).as("read up to %s", ends).isLessThan(deadline);
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    private static List<String> values(List<ConsumerRecord<String, String>> records, TopicPartition tp) {
        return records.stream()
                .filter(r -> r.topic().equals(tp.topic()) && r.partition() == tp.partition())
                .map(ConsumerRecord::value)
                .toList();
    }

    @Test
    void readCommittedSeesCommittedTransactionsOnlyAndReadUncommittedSeesAll() throws Exception {
        start(1);
        createTopic("txn-a", 2, 1);
        createTopic("txn-b", 1, 1);
        List<TopicPartition> partitions =
                List.of(new TopicPartition("txn-a", 0), new TopicPartition("txn-a", 1), new TopicPartition("txn-b", 0));
        try (KafkaProducer<String, String> producer = transactionalProducer("app-1")) {
            producer.initTransactions();
            for (int txn = 0; txn < 6; txn++) {
                producer.beginTransaction();
                for (int i = 0; i < 5; i++) {
                    for (TopicPartition tp : partitions) {
                        producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), "k", "t" + txn + "-" + i));
                    }
                }
                if (txn % 3 == 1) {
                    producer.flush();
                    producer.abortTransaction();
                } else {
                    producer.commitTransaction();
                }
            }
        }
        List<String> committed = IntStream.range(0, 6)
                .filter(txn -> txn % 3 != 1)
                .boxed()
                .flatMap(txn -> IntStream.range(0, 5).mapToObj(i -> "t" + txn + "-" + i))
                .toList();
        List<String> everything = IntStream.range(0, 6)
                .boxed()
                .flatMap(txn -> IntStream.range(0, 5).mapToObj(i -> "t" + txn + "-" + i))
                .toList();
        List<ConsumerRecord<String, String>> readCommitted = readAll(partitions, IsolationLevel.READ_COMMITTED);
        List<ConsumerRecord<String, String>> readUncommitted = readAll(partitions, IsolationLevel.READ_UNCOMMITTED);
        for (TopicPartition tp : partitions) {
            assertThat(values(readCommitted, tp)).as("read_committed %s", tp).isEqualTo(committed);
            assertThat(values(readUncommitted, tp))
                    .as("read_uncommitted %s", tp)
                    .isEqualTo(everything);
        }
    }

    @Test
    void anOpenTransactionHoldsTheLastStableOffsetUntilItCommits() throws Exception {
        start(1);
        createTopic("txn-open", 1, 1);
        TopicPartition tp = new TopicPartition("txn-open", 0);
        try (KafkaProducer<String, String> producer = transactionalProducer("app-open");
                Admin admin = admin()) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(tp.topic(), 0, "k", "before-commit"))
                    .get(30, TimeUnit.SECONDS);
            long committedEnd = admin.listOffsets(
                            Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                    .partitionResult(tp)
                    .get(30, TimeUnit.SECONDS)
                    .offset();
            long uncommittedEnd = admin.listOffsets(Map.of(tp, OffsetSpec.latest()))
                    .partitionResult(tp)
                    .get(30, TimeUnit.SECONDS)
                    .offset();
            assertThat(committedEnd).as("last stable offset while open").isZero();
            assertThat(uncommittedEnd).as("high watermark").isEqualTo(1);

            Collection<TransactionListing> listed =
                    admin.listTransactions().all().get(30, TimeUnit.SECONDS);
            assertThat(listed).anySatisfy(l -> assertThat(l.transactionalId()).isEqualTo("app-open"));
            TransactionDescription described = admin.describeTransactions(List.of("app-open"))
                    .description("app-open")
                    .get(30, TimeUnit.SECONDS);
            assertThat(described.state().toString()).isEqualTo("Ongoing");
            assertThat(described.topicPartitions()).containsExactly(tp);

            producer.commitTransaction();
        }
        assertThat(values(readAll(List.of(tp), IsolationLevel.READ_COMMITTED), tp))
                .containsExactly("before-commit");
    }

    @Test
    void aSecondProducerWithTheSameIdFencesTheFirstAndAbortsItsTransaction() throws Exception {
        start(1);
        createTopic("txn-fence", 1, 1);
        TopicPartition tp = new TopicPartition("txn-fence", 0);
        try (KafkaProducer<String, String> first = transactionalProducer("app-fence")) {
            first.initTransactions();
            first.beginTransaction();
            first.send(new ProducerRecord<>(tp.topic(), 0, "k", "zombie")).get(30, TimeUnit.SECONDS);
            try (KafkaProducer<String, String> second = transactionalProducer("app-fence")) {
                second.initTransactions();
                second.beginTransaction();
                second.send(new ProducerRecord<>(tp.topic(), 0, "k", "successor"));
                second.commitTransaction();
            }
            assertThatThrownBy(first::commitTransaction).isInstanceOf(ProducerFencedException.class);
        }
        assertThat(values(readAll(List.of(tp), IsolationLevel.READ_COMMITTED), tp))
                .containsExactly("successor");
    }

    @Test
    void abortedRecordsStayHiddenAfterARestart() throws Exception {
        start(1);
        createTopic("txn-restart", 1, 1);
        TopicPartition tp = new TopicPartition("txn-restart", 0);
        try (KafkaProducer<String, String> producer = transactionalProducer("app-restart")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(tp.topic(), 0, "k", "aborted"));
            producer.flush();
            producer.abortTransaction();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(tp.topic(), 0, "k", "committed"));
            producer.commitTransaction();
        }
        cluster.restart();
        assertThat(values(readAll(List.of(tp), IsolationLevel.READ_COMMITTED), tp))
                .containsExactly("committed");
        // The coordinator's state came back too: the same id continues with a bumped epoch.
        try (KafkaProducer<String, String> producer = transactionalProducer("app-restart")) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(tp.topic(), 0, "k", "after-restart"));
            producer.commitTransaction();
        }
        assertThat(values(readAll(List.of(tp), IsolationLevel.READ_COMMITTED), tp))
                .containsExactly("committed", "after-restart");
    }

    @Test
    void transactionsSpanningLeadersOnThreeNodesCommitAndAbortEverywhere() throws Exception {
        start(3);
        createTopic("txn-spread", 6, 3);
        List<TopicPartition> partitions = IntStream.range(0, 6)
                .mapToObj(p -> new TopicPartition("txn-spread", p))
                .toList();
        String id = "app-" + UUID.randomUUID();
        List<String> committed = new ArrayList<>();
        try (KafkaProducer<String, String> producer = transactionalProducer(id)) {
            producer.initTransactions();
            for (int txn = 0; txn < 8; txn++) {
                producer.beginTransaction();
                for (TopicPartition tp : partitions) {
                    producer.send(new ProducerRecord<>(tp.topic(), tp.partition(), "k", "t" + txn));
                }
                if (txn % 2 == 0) {
                    producer.commitTransaction();
                    committed.add("t" + txn);
                } else {
                    producer.flush();
                    producer.abortTransaction();
                }
            }
        }
        List<ConsumerRecord<String, String>> read = readAll(partitions, IsolationLevel.READ_COMMITTED);
        for (TopicPartition tp : partitions) {
            assertThat(values(read, tp)).as("read_committed %s", tp).isEqualTo(committed);
        }
        assertThat(Set.copyOf(committed)).hasSize(4);
    }

    @Test
    void aConsumeTransformProduceLoopWithAbortsLosesAndDuplicatesNothing() throws Exception {
        start(3);
        createTopic("ctp-in", 3, 3);
        createTopic("ctp-out", 3, 3);
        int records = 300;
        Properties plain = new Properties();
        plain.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        plain.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        try (KafkaProducer<String, String> input =
                new KafkaProducer<>(plain, new StringSerializer(), new StringSerializer())) {
            for (int i = 0; i < records; i++) {
                input.send(new ProducerRecord<>("ctp-in", i % 3, "k", "r" + i));
            }
        }
        Properties consumerProps = new Properties();
        consumerProps.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        consumerProps.put(ConsumerConfig.GROUP_ID_CONFIG, "ctp");
        consumerProps.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        consumerProps.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        consumerProps.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        consumerProps.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, 20);
        int batches = 0;
        int aborted = 0;
        try (KafkaConsumer<String, String> consumer =
                        new KafkaConsumer<>(consumerProps, new StringDeserializer(), new StringDeserializer());
                KafkaProducer<String, String> producer = transactionalProducer("ctp-app")) {
            producer.initTransactions();
            consumer.subscribe(List.of("ctp-in"));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (committedOffsets(consumer) < records) {
                assertThat(System.nanoTime()).as("the loop finishes").isLessThan(deadline);
                var polled = consumer.poll(Duration.ofMillis(200));
                if (polled.isEmpty()) {
                    continue;
                }
                producer.beginTransaction();
                Map<TopicPartition, org.apache.kafka.clients.consumer.OffsetAndMetadata> offsets =
                        new java.util.HashMap<>();
                for (ConsumerRecord<String, String> r : polled) {
                    producer.send(new ProducerRecord<>(
                            "ctp-out", r.partition(), r.key(), r.value().toUpperCase()));
                    offsets.put(
                            new TopicPartition(r.topic(), r.partition()),
                            new org.apache.kafka.clients.consumer.OffsetAndMetadata(r.offset() + 1));
                }
                producer.sendOffsetsToTransaction(offsets, consumer.groupMetadata());
                if (++batches % 3 == 0) {
                    // The work of an aborted batch is done again, from the offsets the group committed.
                    producer.abortTransaction();
                    aborted++;
                    for (TopicPartition tp : offsets.keySet()) {
                        var committed = consumer.committed(java.util.Set.of(tp)).get(tp);
                        consumer.seek(tp, committed == null ? 0 : committed.offset());
                    }
                } else {
                    producer.commitTransaction();
                }
            }
        }
        assertThat(aborted).isPositive();
        List<TopicPartition> out = IntStream.range(0, 3)
                .mapToObj(p -> new TopicPartition("ctp-out", p))
                .toList();
        List<ConsumerRecord<String, String>> read = readAll(out, IsolationLevel.READ_COMMITTED);
        for (int p = 0; p < 3; p++) {
            int partition = p;
            List<String> expected = IntStream.range(0, records)
                    .filter(i -> i % 3 == partition)
                    .mapToObj(i -> "R" + i)
                    .toList();
            assertThat(values(read, out.get(p))).as("ctp-out-%d", p).isEqualTo(expected);
        }
    }

    @Test
    void aTransactionPastItsTimeoutIsAbortedAndItsProducerFenced() throws Exception {
        start(1);
        createTopic("txn-timeout", 1, 1);
        TopicPartition tp = new TopicPartition("txn-timeout", 0);
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "app-slow");
        props.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, 2_000);
        try (KafkaProducer<String, String> producer =
                        new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
                Admin admin = admin()) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>(tp.topic(), 0, "k", "too-slow")).get(30, TimeUnit.SECONDS);
            // The coordinator aborts it once its 2 s are up: the last stable offset moves past the abort marker.
            Await.until(
                    "the coordinator aborts the transaction",
                    Duration.ofSeconds(30),
                    () -> TransactionToolsIT.lastStable(admin, tp) >= 2);
            long lastStable = TransactionToolsIT.lastStable(admin, tp);
            assertThat(lastStable)
                    .as("the record and the abort marker are below the last stable offset")
                    .isEqualTo(2);
            assertThat(admin.describeTransactions(List.of("app-slow"))
                            .description("app-slow")
                            .get(30, TimeUnit.SECONDS)
                            .state()
                            .toString())
                    .isEqualTo("CompleteAbort");
            // The coordinator bumped the epoch when it aborted: the slow producer can no longer commit.
            assertThatThrownBy(producer::commitTransaction).isInstanceOf(org.apache.kafka.common.KafkaException.class);
        }
        assertThat(values(readAll(List.of(tp), IsolationLevel.READ_COMMITTED), tp))
                .isEmpty();
    }

    /** The sum of the group's committed offsets on the input topic's partitions. */
    private static long committedOffsets(KafkaConsumer<String, String> consumer) {
        java.util.Set<TopicPartition> in = IntStream.range(0, 3)
                .mapToObj(p -> new TopicPartition("ctp-in", p))
                .collect(java.util.stream.Collectors.toSet());
        return consumer.committed(in).values().stream()
                .mapToLong(o -> o == null ? 0 : o.offset())
                .sum();
    }
}
