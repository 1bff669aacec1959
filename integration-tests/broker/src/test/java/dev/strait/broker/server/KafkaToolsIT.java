package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.time.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Kafka's own command-line tools (kafka-tools 4.1.1 and kafka.admin.ConfigCommand from kafka_2.13 4.1.1),
 * each run as a child JVM with the test class path (the tools end with Exit.exit / System.exit), against a node.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class KafkaToolsIT {

    private static final String TOPICS = "org.apache.kafka.tools.TopicCommand";
    private static final String CONSOLE_PRODUCER = "org.apache.kafka.tools.ConsoleProducer";
    private static final String CONSOLE_CONSUMER = "org.apache.kafka.tools.consumer.ConsoleConsumer";
    private static final String GROUPS = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand";
    private static final String CONFIGS = "kafka.admin.ConfigCommand";
    private static final String DELETE_RECORDS = "org.apache.kafka.tools.DeleteRecordsCommand";
    private static final String GET_OFFSETS = "org.apache.kafka.tools.GetOffsetShell";
    private static EmbeddedCluster cluster;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        cluster = EmbeddedCluster.builder().nodes(1).start();
    }

    @AfterAll
    static void stop() {
        cluster.close();
    }

    @Test
    void topicsCreateAndDescribe() throws Exception {
        KafkaTool.Result create = run(
                TOPICS,
                null,
                "--bootstrap-server",
                bootstrap(),
                "--create",
                "--topic",
                "tool-topics",
                "--partitions",
                "2",
                "--replication-factor",
                "1");
        assertThat(create.exitCode()).as(create.toString()).isZero();
        assertThat(create.stdout()).as(create.toString()).contains("Created topic tool-topics.");

        KafkaTool.Result describe =
                run(TOPICS, null, "--bootstrap-server", bootstrap(), "--describe", "--topic", "tool-topics");
        assertThat(describe.exitCode()).as(describe.toString()).isZero();
        assertThat(describe.stdout())
                .as(describe.toString())
                .contains("Topic: tool-topics")
                .contains("PartitionCount: 2")
                .contains("ReplicationFactor: 1");
        assertThat(describe.stdout().lines().filter(l -> l.contains("Partition: ") && l.contains("Leader: 0")))
                .as(describe.toString())
                .hasSize(2);

        KafkaTool.Result list = run(TOPICS, null, "--bootstrap-server", bootstrap(), "--list");
        assertThat(list.exitCode()).as(list.toString()).isZero();
        assertThat(list.stdout().lines()).as(list.toString()).contains("tool-topics");
    }

    @Test
    void topicsAlterPartitionsThenDescribeShowsThemAndTheNewPartitionServesRecords() throws Exception {
        KafkaTool.Result create = run(
                TOPICS,
                null,
                "--bootstrap-server",
                bootstrap(),
                "--create",
                "--topic",
                "tool-alter",
                "--partitions",
                "1",
                "--replication-factor",
                "1");
        assertThat(create.exitCode()).as(create.toString()).isZero();

        KafkaTool.Result alter = run(
                TOPICS,
                null,
                "--bootstrap-server",
                bootstrap(),
                "--alter",
                "--topic",
                "tool-alter",
                "--partitions",
                "3");
        assertThat(alter.exitCode()).as(alter.toString()).isZero();

        KafkaTool.Result describe =
                run(TOPICS, null, "--bootstrap-server", bootstrap(), "--describe", "--topic", "tool-alter");
        assertThat(describe.exitCode()).as(describe.toString()).isZero();
        assertThat(describe.stdout()).as(describe.toString()).contains("PartitionCount: 3");
        assertThat(describe.stdout().lines().filter(l -> l.contains("Partition: ") && l.contains("Leader: 0")))
                .as(describe.toString())
                .hasSize(3);

        KafkaTool.Result shrink = run(
                TOPICS,
                null,
                "--bootstrap-server",
                bootstrap(),
                "--alter",
                "--topic",
                "tool-alter",
                "--partitions",
                "2");
        assertThat(shrink.exitCode()).as(shrink.toString()).isNotZero();
        assertThat(shrink.stdout() + shrink.stderr()).as(shrink.toString()).contains("would not be an increase");

        try (KafkaProducer<String, String> producer = KafkaClientsRoundTripIT.producer(bootstrap(), Map.of())) {
            assertThat(producer.send(new ProducerRecord<>("tool-alter", 2, "k", "on-new-partition"))
                            .get(20, TimeUnit.SECONDS)
                            .offset())
                    .isZero();
        }
        assertThat(KafkaClientsRoundTripIT.consumeFromStart(bootstrap(), new TopicPartition("tool-alter", 2), 1))
                .extracting(ConsumerRecord::value)
                .containsExactly("on-new-partition");
    }

    @Test
    void deleteRecordsToolMovesTheLowWatermarkAndGetOffsetShellReportsIt() throws Exception {
        KafkaTool.Result create = run(
                TOPICS,
                null,
                "--bootstrap-server",
                bootstrap(),
                "--create",
                "--topic",
                "tool-trim",
                "--partitions",
                "1",
                "--replication-factor",
                "1");
        assertThat(create.exitCode()).as(create.toString()).isZero();
        try (KafkaProducer<String, String> producer = KafkaClientsRoundTripIT.producer(bootstrap(), Map.of())) {
            for (int i = 0; i < 10; i++) {
                producer.send(new ProducerRecord<>("tool-trim", 0, "k" + i, "v" + i));
            }
            producer.flush();
        }
        Path offsets = dir.resolve("delete-records.json");
        Files.writeString(
                offsets,
                "{\"partitions\":[{\"topic\":\"tool-trim\",\"partition\":0,\"offset\":4}]," + "\"version\":1}");

        KafkaTool.Result delete =
                run(DELETE_RECORDS, null, "--bootstrap-server", bootstrap(), "--offset-json-file", offsets.toString());
        assertThat(delete.exitCode()).as(delete.toString()).isZero();
        assertThat(delete.stdout())
                .as(delete.toString())
                .contains("partition: tool-trim-0")
                .contains("low_watermark: 4");

        KafkaTool.Result earliest =
                run(GET_OFFSETS, null, "--bootstrap-server", bootstrap(), "--topic", "tool-trim", "--time", "-2");
        assertThat(earliest.exitCode()).as(earliest.toString()).isZero();
        assertThat(earliest.stdout().lines()).as(earliest.toString()).contains("tool-trim:0:4");
    }

    @Test
    void consoleProducerLinesComeBackThroughTheConsoleConsumerAndTheGroupCanBeDescribedAndReset() throws Exception {
        KafkaTool.Result create = run(
                TOPICS,
                null,
                "--bootstrap-server",
                bootstrap(),
                "--create",
                "--topic",
                "tool-console",
                "--partitions",
                "1",
                "--replication-factor",
                "1");
        assertThat(create.exitCode()).as(create.toString()).isZero();
        List<String> lines = IntStream.range(0, 20).mapToObj(i -> "line-" + i).toList();
        Path input = dir.resolve("input.txt");
        Files.write(input, lines);

        KafkaTool.Result produce = run(
                CONSOLE_PRODUCER,
                input,
                "--bootstrap-server",
                bootstrap(),
                "--topic",
                "tool-console",
                "--producer-property",
                "acks=all");
        assertThat(produce.exitCode()).as(produce.toString()).isZero();

        KafkaTool.Result consume = run(
                CONSOLE_CONSUMER,
                null,
                "--bootstrap-server",
                bootstrap(),
                "--topic",
                "tool-console",
                "--from-beginning",
                "--max-messages",
                "20",
                "--timeout-ms",
                "30000",
                "--group",
                "tool-group");
        assertThat(consume.exitCode()).as(consume.toString()).isZero();
        assertThat(consume.stdout().lines().filter(l -> l.startsWith("line-")))
                .as(consume.toString())
                .containsExactlyElementsOf(lines);
        assertThat(consume.stderr()).as(consume.toString()).contains("Processed a total of 20 messages");

        KafkaTool.Result groupList = run(GROUPS, null, "--bootstrap-server", bootstrap(), "--list");
        assertThat(groupList.exitCode()).as(groupList.toString()).isZero();
        assertThat(groupList.stdout().lines()).as(groupList.toString()).contains("tool-group");

        KafkaTool.Result describe =
                run(GROUPS, null, "--bootstrap-server", bootstrap(), "--describe", "--group", "tool-group");
        assertThat(describe.exitCode()).as(describe.toString()).isZero();
        assertThat(describe.stderr())
                .as(describe.toString())
                .contains("Consumer group 'tool-group' has no active members.");
        assertThat(row(describe.stdout(), "tool-console"))
                .as(describe.toString())
                .startsWith("tool-group", "tool-console", "0", "20", "20", "0");

        KafkaTool.Result reset = run(
                GROUPS,
                null,
                "--bootstrap-server",
                bootstrap(),
                "--reset-offsets",
                "--to-earliest",
                "--execute",
                "--group",
                "tool-group",
                "--topic",
                "tool-console");
        assertThat(reset.exitCode()).as(reset.toString()).isZero();
        assertThat(row(reset.stdout(), "tool-console"))
                .as(reset.toString())
                .containsExactly("tool-group", "tool-console", "0", "0");

        KafkaTool.Result after =
                run(GROUPS, null, "--bootstrap-server", bootstrap(), "--describe", "--group", "tool-group");
        assertThat(after.exitCode()).as(after.toString()).isZero();
        assertThat(row(after.stdout(), "tool-console"))
                .as(after.toString())
                .startsWith("tool-group", "tool-console", "0", "0", "20", "20");
    }

    @Test
    void configsAlterAndDescribeATopicRetention() throws Exception {
        KafkaTool.Result create = run(
                TOPICS,
                null,
                "--bootstrap-server",
                bootstrap(),
                "--create",
                "--topic",
                "tool-configs",
                "--partitions",
                "1",
                "--replication-factor",
                "1");
        assertThat(create.exitCode()).as(create.toString()).isZero();

        KafkaTool.Result alter = run(
                CONFIGS,
                null,
                "--bootstrap-server",
                bootstrap(),
                "--entity-type",
                "topics",
                "--entity-name",
                "tool-configs",
                "--alter",
                "--add-config",
                "retention.ms=123456789");
        assertThat(alter.exitCode()).as(alter.toString()).isZero();
        assertThat(alter.stdout()).as(alter.toString()).contains("Completed updating config for topic tool-configs.");

        KafkaTool.Result describe = run(
                CONFIGS,
                null,
                "--bootstrap-server",
                bootstrap(),
                "--entity-type",
                "topics",
                "--entity-name",
                "tool-configs",
                "--describe");
        assertThat(describe.exitCode()).as(describe.toString()).isZero();
        assertThat(describe.stdout())
                .as(describe.toString())
                .contains("Dynamic configs for topic tool-configs are:")
                .contains("retention.ms=123456789");
    }

    @Test
    void consumerGroupsDescribesAGroupOnTheConsumerProtocol() throws Exception {
        // Given: a consumer with group.protocol=consumer (KIP-848) holding all three partitions of a topic
        KafkaTool.Result create = run(
                TOPICS,
                null,
                "--bootstrap-server",
                bootstrap(),
                "--create",
                "--topic",
                "tool-848",
                "--partitions",
                "3",
                "--replication-factor",
                "1");
        assertThat(create.exitCode()).as(create.toString()).isZero();
        try (KafkaConsumer<String, String> consumer =
                ConsumerProtocolGroupIT.consumer(bootstrap(), "tool-848-group", "tool-848-client")) {
            consumer.subscribe(List.of("tool-848"));
            Await.until("tool-848-client holds the 3 partitions", Duration.ofSeconds(60), () -> {
                consumer.poll(Duration.ofMillis(200));
                return consumer.assignment().size() == 3;
            });

            // When: kafka-consumer-groups describes its state and its members
            KafkaTool.Result state = run(
                    GROUPS,
                    null,
                    "--bootstrap-server",
                    bootstrap(),
                    "--describe",
                    "--group",
                    "tool-848-group",
                    "--state");
            KafkaTool.Result members = run(
                    GROUPS,
                    null,
                    "--bootstrap-server",
                    bootstrap(),
                    "--describe",
                    "--group",
                    "tool-848-group",
                    "--members");

            // Then: the group is stable on the server-side uniform assignor, with one member holding 3 partitions
            assertThat(state.exitCode()).as(state.toString()).isZero();
            List<String> stateRow = row(state.stdout(), 0, "tool-848-group");
            assertThat(stateRow).as(state.toString()).contains("uniform", "Stable");
            assertThat(stateRow.get(stateRow.size() - 1)).as(state.toString()).isEqualTo("1");
            assertThat(members.exitCode()).as(members.toString()).isZero();
            List<String> memberRow = row(members.stdout(), 0, "tool-848-group");
            assertThat(memberRow).as(members.toString()).contains("tool-848-client");
            assertThat(memberRow.get(memberRow.size() - 1))
                    .as(members.toString())
                    .isEqualTo("3");
        }
    }

    /** The whitespace-separated columns of the first output line whose second column is {@code topic}. */
    private static List<String> row(String stdout, String topic) {
        return row(stdout, 1, topic);
    }

    /** The whitespace-separated columns of the first output line whose column {@code column} is {@code value}. */
    private static List<String> row(String stdout, int column, String value) {
        return stdout.lines()
                .map(l -> List.of(l.trim().split("\\s+")))
                .filter(cols -> cols.size() > 2 && cols.get(column).equals(value))
                .findFirst()
                .orElse(List.of());
    }

    private static String bootstrap() {
        return cluster.bootstrapServers();
    }

    private KafkaTool.Result run(String mainClass, Path stdin, String... args) throws Exception {
        return KafkaTool.run(dir, mainClass, stdin, args);
    }
}
