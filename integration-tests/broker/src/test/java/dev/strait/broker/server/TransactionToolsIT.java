package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.time.Await;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Kafka's {@code kafka-transactions} tool (4.1.1, unmodified) against the companion broker: it lists and
 * describes the transactions of a running producer, finds a hanging transaction (an open transaction in a partition
 * that its coordinator does not know) and aborts it, which moves the partition's last stable offset past it. Before
 * issue 24's coordinator the broker served none of ListTransactions, DescribeTransactions or WriteTxnMarkers.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TransactionToolsIT {

    private static final String TOOL = "org.apache.kafka.tools.TransactionsCommand";
    private static EmbeddedCluster cluster;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() throws Exception {
        cluster = EmbeddedCluster.builder().start();
        try (Admin admin = admin()) {
            admin.createTopics(
                            List.of(new NewTopic("tools-txn", 1, (short) 1), new NewTopic("tools-hang", 1, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    @AfterAll
    static void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    private static Admin admin() {
        return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()));
    }

    private KafkaTool.Result tool(String... args) throws Exception {
        String[] all = new String[args.length + 2];
        all[0] = "--bootstrap-server";
        all[1] = cluster.bootstrapServers();
        System.arraycopy(args, 0, all, 2, args.length);
        KafkaTool.Result result = KafkaTool.run(dir, TOOL, null, all);
        assertThat(result.exitCode()).as("%s", result).isZero();
        return result;
    }

    @Test
    void listAndDescribeShowARunningTransaction() throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "tool-app");
        try (KafkaProducer<String, String> producer =
                new KafkaProducer<>(props, new StringSerializer(), new StringSerializer())) {
            producer.initTransactions();
            producer.beginTransaction();
            producer.send(new ProducerRecord<>("tools-txn", 0, "k", "v")).get(30, TimeUnit.SECONDS);

            KafkaTool.Result list = tool("list");
            assertThat(list.stdout()).contains("tool-app").contains("Ongoing");
            KafkaTool.Result describe = tool("describe", "--transactional-id", "tool-app");
            assertThat(describe.stdout())
                    .contains("tool-app")
                    .contains("Ongoing")
                    .contains("tools-txn-0");
            KafkaTool.Result producers = tool("describe-producers", "--topic", "tools-txn", "--partition", "0");
            // Columns: ProducerId ProducerEpoch LatestCoordinatorEpoch LastSequence LastTimestamp
            // CurrentTransactionStartOffset; the one producer's transaction is open from offset 0.
            List<String> rows =
                    producers.stdout().lines().skip(1).filter(l -> !l.isBlank()).toList();
            assertThat(rows).as("%s", producers).hasSize(1);
            List<String> columns = List.of(rows.get(0).trim().split("\\s+"));
            assertThat(columns.get(columns.size() - 1)).as("%s", producers).isEqualTo("0");

            producer.commitTransaction();
        }
        assertThat(tool("describe", "--transactional-id", "tool-app").stdout()).contains("CompleteCommit");
    }

    @Test
    void aHangingTransactionIsFoundAndAborted() throws Exception {
        TopicPartition tp = new TopicPartition("tools-hang", 0);
        String[] node = cluster.bootstrapServers().split(",")[0].split(":");
        try (RawKafkaClient raw = new RawKafkaClient(node[0], Integer.parseInt(node[1]))) {
            long pid = raw.initProducerId();
            PartitionProduceResponse answer = RawKafkaClient.onlyPartition((ProduceResponse)
                    raw.call(RawKafkaClient.transactionalProduce(tp, "nobody-knows", pid, 0, "hanging", 30_000)));
            assertThat(answer.errorCode()).isZero();
        }
        try (Admin admin = admin()) {
            assertThat(lastStable(admin, tp))
                    .as("the hanging transaction holds the last stable offset")
                    .isZero();

            KafkaTool.Result hanging = tool("find-hanging", "--broker-id", "0", "--max-transaction-timeout", "0");
            assertThat(hanging.stdout()).contains("tools-hang");
            tool("abort", "--topic", "tools-hang", "--partition", "0", "--start-offset", "0");

            Await.until(
                    "the abort marker frees the last stable offset",
                    Duration.ofSeconds(30),
                    () -> lastStable(admin, tp) > 0);
            assertThat(lastStable(admin, tp)).as("the abort marker ended it").isEqualTo(2);
        }
    }

    /** The partition's end for read_committed consumers: its last stable offset. */
    static long lastStable(Admin admin, TopicPartition tp) {
        try {
            return lastStableOrFail(admin, tp);
        } catch (Exception e) {
            throw new IllegalStateException("ListOffsets for " + tp + " failed", e);
        }
    }

    private static long lastStableOrFail(Admin admin, TopicPartition tp) throws Exception {
        return admin.listOffsets(Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                .partitionResult(tp)
                .get(30, TimeUnit.SECONDS)
                .offset();
    }
}
