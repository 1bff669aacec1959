package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.strait.time.Await;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TransactionDescription;
import org.apache.kafka.clients.admin.TransactionListing;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Transactions with a non-Java client: librdkafka, through Debian's python3-confluent-kafka (issue 24). The script
 * {@code rdkafka/transactions.py} runs a transactional producer through five transactions of ten records, the odd
 * ones aborted, then reads the topic with a read_committed and a read_uncommitted consumer. The test checks that
 * librdkafka's read_committed consumer saw exactly the committed records in order and read_uncommitted all of them,
 * that a read_committed Java consumer reads the same committed records, and that the Admin lists the transactional
 * id as CompleteCommit (the last transaction commits). Needs {@link Python#require}.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class LibrdkafkaTransactionsIT {

    private static final String SCRIPT = "/rdkafka/transactions.py";
    private static final int TRANSACTIONS = 5;
    private static final int RECORDS = 10;
    private static final Duration SCRIPT_TIMEOUT = Duration.ofMinutes(3);
    private static final Logger LOG = LoggerFactory.getLogger(LibrdkafkaTransactionsIT.class);

    private EmbeddedCluster cluster;

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void librdkafkaCommitsAndAbortsOnOneNode() throws Exception {
        Python.require();
        runAndCheck(1, 1);
    }

    @Test
    void librdkafkaCommitsAndAbortsOnThreeNodesAcrossThreeLeaders() throws Exception {
        Python.require();
        runAndCheck(3, 3);
    }

    private void runAndCheck(int nodes, int partitions) throws Exception {
        cluster = EmbeddedCluster.builder()
                .nodes(nodes)
                .brokerConfig("group.initial.rebalance.delay.ms", "0")
                .start();
        String topic = "rdkafka-txn";
        String transactionalId = "rdkafka-" + UUID.randomUUID();
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, (short) nodes)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }

        ChildRun.Result run = Python.runScript(
                SCRIPT_TIMEOUT,
                SCRIPT,
                List.of(
                        cluster.bootstrapServers(),
                        topic,
                        transactionalId,
                        "--partitions",
                        Integer.toString(partitions),
                        "--transactions",
                        Integer.toString(TRANSACTIONS),
                        "--records",
                        Integer.toString(RECORDS)));
        LOG.info("transactions.py ({} nodes, {} partitions): {}", nodes, partitions, run);
        assertThat(run.exitCode()).as("transactions.py: %s", run).isZero();
        JsonNode out = new ObjectMapper().readTree(run.stdout());
        assertThat(ints(out.path("committed"))).as("committed transactions").containsExactly(0, 2, 4);
        assertThat(ints(out.path("aborted"))).as("aborted transactions").containsExactly(1, 3);

        List<TopicPartition> tps = IntStream.range(0, partitions)
                .mapToObj(p -> new TopicPartition(topic, p))
                .toList();
        List<ConsumerRecord<String, String>> javaCommitted = readCommittedWithJava(tps);
        for (TopicPartition tp : tps) {
            int p = tp.partition();
            List<String> committed = expected(p, partitions, true);
            List<String> everything = expected(p, partitions, false);
            assertThat(strings(out.path("read_committed").path(Integer.toString(p))))
                    .as("librdkafka read_committed, partition %d (%s)", p, run)
                    .isEqualTo(committed);
            assertThat(strings(out.path("read_uncommitted").path(Integer.toString(p))))
                    .as("librdkafka read_uncommitted, partition %d (%s)", p, run)
                    .isEqualTo(everything);
            assertThat(javaCommitted.stream()
                            .filter(r -> r.partition() == p)
                            .map(ConsumerRecord::value)
                            .toList())
                    .as("Java read_committed, partition %d", p)
                    .isEqualTo(committed);
        }

        try (Admin admin = admin()) {
            Await.until(
                    transactionalId + " listed and described as CompleteCommit",
                    Duration.ofSeconds(30),
                    () -> "CompleteCommit".equals(listedState(admin, transactionalId))
                            && "CompleteCommit"
                                    .equals(describe(admin, transactionalId)
                                            .state()
                                            .toString()),
                    () -> "listed " + listedState(admin, transactionalId) + ", described "
                            + describe(admin, transactionalId));
            assertThat(describe(admin, transactionalId).topicPartitions())
                    .as("partitions of a completed transaction")
                    .isEmpty();
        }
    }

    /** The values of partition {@code p} in offset order: of the committed transactions only, or of all. */
    private static List<String> expected(int p, int partitions, boolean committedOnly) {
        List<String> values = new ArrayList<>();
        for (int txn = 0; txn < TRANSACTIONS; txn++) {
            if (committedOnly && txn % 2 == 1) {
                continue;
            }
            for (int i = 0; i < RECORDS; i++) {
                if (i % partitions == p) {
                    values.add("t" + txn + "-" + i);
                }
            }
        }
        return values;
    }

    private Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()));
    }

    private static String listedState(Admin admin, String transactionalId) {
        try {
            return admin.listTransactions().all().get(30, TimeUnit.SECONDS).stream()
                    .filter(l -> l.transactionalId().equals(transactionalId))
                    .map(TransactionListing::state)
                    .map(Object::toString)
                    .findFirst()
                    .orElse("not listed");
        } catch (ExecutionException | TimeoutException e) {
            return "listTransactions failed: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    private static TransactionDescription describe(Admin admin, String transactionalId) {
        try {
            return admin.describeTransactions(List.of(transactionalId))
                    .description(transactionalId)
                    .get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new AssertionError("describeTransactions(" + transactionalId + ") failed", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new AssertionError("interrupted", e);
        }
    }

    /** Every record of {@code tps} up to their last stable offset, read with a read_committed Java consumer. */
    private List<ConsumerRecord<String, String>> readCommittedWithJava(List<TopicPartition> tps) throws Exception {
        Map<TopicPartition, Long> ends = new HashMap<>();
        try (Admin admin = admin()) {
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            tps.forEach(tp -> latest.put(tp, OffsetSpec.latest()));
            admin.listOffsets(latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .forEach((tp, info) -> ends.put(tp, info.offset()));
        }
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, IsolationLevel.READ_COMMITTED.toString());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new StringDeserializer())) {
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (tps.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))) {
                assertThat(System.nanoTime()).as("read up to %s", ends).isLessThan(deadline);
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    private static List<Integer> ints(JsonNode array) {
        List<Integer> values = new ArrayList<>();
        array.forEach(n -> values.add(n.asInt()));
        return values;
    }

    private static List<String> strings(JsonNode array) {
        List<String> values = new ArrayList<>();
        array.forEach(n -> values.add(n.asText()));
        return values;
    }
}
