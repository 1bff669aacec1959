package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.CreatePartitionsOptions;
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.message.CreateTopicsRequestData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableReplicaAssignment;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * CreateTopics with a manual replica assignment on three nodes, as {@code kafka-topics --create
 * --replica-assignment} and the 4.1.1 Admin send it: each partition gets exactly the replicas asked for, the first
 * one leading; an assignment naming an unknown broker, a broker twice or partitions of unequal sizes is refused with
 * INVALID_REPLICA_ASSIGNMENT and creates nothing. Partitions added with an assignment ({@code kafka-topics --alter
 * --partitions N --replica-assignment}) are placed the same way, and every placed partition serves records.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class ReplicaAssignmentIT {

    private static final long TIMEOUT_S = 30;
    private static final String TOPICS = "org.apache.kafka.tools.TopicCommand";

    @TempDir
    Path dir;

    @Test
    void partitionsGetTheReplicasAskedForAndBadAssignmentsAreRefused() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(3).start();
                Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            KafkaTool.Result create = KafkaTool.run(
                    dir,
                    TOPICS,
                    null,
                    "--bootstrap-server",
                    cluster.bootstrapServers(),
                    "--create",
                    "--topic",
                    "placed",
                    "--replica-assignment",
                    "2:0,1:2,0:1,2:1");
            assertThat(create.exitCode()).as(create.toString()).isZero();

            List<TopicPartitionInfo> partitions = awaitLeaders(admin, "placed", 4);
            assertThat(partitions)
                    .extracting(p -> ids(p.replicas()))
                    .containsExactly(List.of(2, 0), List.of(1, 2), List.of(0, 1), List.of(2, 1));
            assertThat(partitions).extracting(p -> p.leader().id()).containsExactly(2, 1, 0, 2);

            KafkaTool.Result describe = KafkaTool.run(
                    dir,
                    TOPICS,
                    null,
                    "--bootstrap-server",
                    cluster.bootstrapServers(),
                    "--describe",
                    "--topic",
                    "placed");
            assertThat(describe.exitCode()).as(describe.toString()).isZero();
            assertThat(describe.stdout())
                    .as(describe.toString())
                    .containsPattern("Partition: 1\\s+Leader: 1\\s+Replicas: 1,2");

            // kafka-topics --alter takes the whole list and places only the partitions it adds
            KafkaTool.Result alter = KafkaTool.run(
                    dir,
                    TOPICS,
                    null,
                    "--bootstrap-server",
                    cluster.bootstrapServers(),
                    "--alter",
                    "--topic",
                    "placed",
                    "--partitions",
                    "5",
                    "--replica-assignment",
                    "2:0,1:2,0:1,2:1,0:2");
            assertThat(alter.exitCode()).as(alter.toString()).isZero();
            TopicPartitionInfo added = awaitLeaders(admin, "placed", 5).get(4);
            assertThat(ids(added.replicas())).containsExactly(0, 2);
            assertThat(added.leader().id()).isZero();

            Map<String, Map<Integer, List<Integer>>> refused = Map.of(
                    "unknown broker", Map.of(0, List.of(0, 7)),
                    "broker twice", Map.of(0, List.of(1, 1)),
                    "unequal sizes", Map.of(0, List.of(0, 1), 1, List.of(2)),
                    "not from 0", Map.of(1, List.of(0)));
            for (var entry : refused.entrySet()) {
                String name = "refused-" + entry.getKey().replace(' ', '-');
                for (boolean validateOnly : List.of(true, false)) {
                    assertThatThrownBy(() -> admin.createTopics(
                                            List.of(new NewTopic(name, entry.getValue())),
                                            new CreateTopicsOptions().validateOnly(validateOnly))
                                    .all()
                                    .get(TIMEOUT_S, TimeUnit.SECONDS))
                            .as("%s, validateOnly %s", entry.getKey(), validateOnly)
                            .isInstanceOf(ExecutionException.class)
                            .hasCauseInstanceOf(InvalidReplicaAssignmentException.class);
                }
            }
            assertThat(admin.listTopics().names().get(TIMEOUT_S, TimeUnit.SECONDS))
                    .containsExactly("placed");
        }
    }

    @Test
    void placedPartitionsServeRecordsAndAddedPartitionsArePlacedAsAskedWithKafkasErrors() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(3).start();
                Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            // Given a topic placed by hand, each partition led by a different node
            String topic = "placed-io";
            admin.createTopics(
                            List.of(new NewTopic(topic, Map.of(0, List.of(1, 2), 1, List.of(2, 0), 2, List.of(0, 1)))))
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
            List<TopicPartitionInfo> created = awaitLeaders(admin, topic, 3);
            assertThat(created)
                    .extracting(p -> ids(p.replicas()))
                    .containsExactly(List.of(1, 2), List.of(2, 0), List.of(0, 1));
            assertThat(created).extracting(p -> p.leader().id()).containsExactly(1, 2, 0);

            // When partitions are added with an assignment (kafka-topics --alter --partitions 5 --replica-assignment)
            admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(5, List.of(List.of(2, 1), List.of(1, 0)))))
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);

            // Then every partition has exactly the replicas asked for, the first leading, and serves records
            List<TopicPartitionInfo> grown = awaitLeaders(admin, topic, 5);
            assertThat(grown)
                    .extracting(p -> ids(p.replicas()))
                    .containsExactly(List.of(1, 2), List.of(2, 0), List.of(0, 1), List.of(2, 1), List.of(1, 0));
            assertThat(grown).extracting(p -> p.leader().id()).containsExactly(1, 2, 0, 2, 1);
            try (KafkaProducer<String, String> producer =
                    KafkaClientsRoundTripIT.producer(cluster.bootstrapServers(), Map.of("acks", "all"))) {
                for (int p = 0; p < 5; p++) {
                    producer.send(new ProducerRecord<>(topic, p, "k", "value-" + p))
                            .get(TIMEOUT_S, TimeUnit.SECONDS);
                }
            }
            for (int p = 0; p < 5; p++) {
                assertThat(KafkaClientsRoundTripIT.consumeFromStart(
                                cluster.bootstrapServers(), new TopicPartition(topic, p), 1))
                        .as("partition %d", p)
                        .extracting(ConsumerRecord::value)
                        .containsExactly("value-" + p);
            }

            // And bad additions are refused as Kafka refuses them, validateOnly or not, adding nothing
            Map<String, NewPartitions> refused = Map.of(
                    "unknown broker", NewPartitions.increaseTo(6, List.of(List.of(0, 7))),
                    "broker twice", NewPartitions.increaseTo(6, List.of(List.of(1, 1))),
                    "fewer replicas than the topic's", NewPartitions.increaseTo(6, List.of(List.of(2))),
                    "too few assignments", NewPartitions.increaseTo(7, List.of(List.of(0, 1))));
            for (var entry : refused.entrySet()) {
                for (boolean validateOnly : List.of(true, false)) {
                    assertThatThrownBy(() -> admin.createPartitions(
                                            Map.of(topic, entry.getValue()),
                                            new CreatePartitionsOptions().validateOnly(validateOnly))
                                    .all()
                                    .get(TIMEOUT_S, TimeUnit.SECONDS))
                            .as("%s, validateOnly %s", entry.getKey(), validateOnly)
                            .isInstanceOf(ExecutionException.class)
                            .hasCauseInstanceOf(InvalidReplicaAssignmentException.class);
                }
            }
            admin.createPartitions(
                            Map.of(topic, NewPartitions.increaseTo(6, List.of(List.of(0, 2)))),
                            new CreatePartitionsOptions().validateOnly(true))
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
            admin.createTopics(
                            List.of(new NewTopic("placed-validate-only", Map.of(0, List.of(0, 1)))),
                            new CreateTopicsOptions().validateOnly(true))
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
            assertThat(awaitLeaders(admin, topic, 5)).hasSize(5);
            assertThat(admin.listTopics().names().get(TIMEOUT_S, TimeUnit.SECONDS))
                    .containsExactly(topic);

            // And what the Admin cannot send: an assignment with a count or a factor, a partition assigned twice
            String[] hostPort = cluster.bootstrapServers().split(",")[0].split(":");
            try (RawKafkaClient raw = new RawKafkaClient(hostPort[0], Integer.parseInt(hostPort[1]))) {
                assertThat(rawCreate(raw, 2, (short) -1, Map.of(0, List.of(0, 1))))
                        .isEqualTo(Errors.INVALID_REQUEST);
                assertThat(rawCreate(raw, -1, (short) 2, Map.of(0, List.of(0, 1))))
                        .isEqualTo(Errors.INVALID_REQUEST);
                assertThat(rawCreate(raw, -1, (short) -1, Map.of(0, List.of(0, 1), 2, List.of(1, 2))))
                        .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
                CreateTopicsRequestData twice = createRequest(-1, (short) -1, Map.of(0, List.of(0, 1)));
                twice.topics()
                        .find("raw-placed")
                        .assignments()
                        .mustAdd(new CreatableReplicaAssignment()
                                .setPartitionIndex(0)
                                .setBrokerIds(List.of(1, 2)));
                assertThat(rawCreate(raw, twice)).isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
            }
            assertThat(admin.listTopics().names().get(TIMEOUT_S, TimeUnit.SECONDS))
                    .containsExactly(topic);
        }
    }

    private static CreateTopicsRequestData createRequest(
            int partitions, short replicationFactor, Map<Integer, List<Integer>> assignment) {
        CreatableTopic topic = new CreatableTopic()
                .setName("raw-placed")
                .setNumPartitions(partitions)
                .setReplicationFactor(replicationFactor);
        assignment.forEach((partition, brokers) -> topic.assignments()
                .add(new CreatableReplicaAssignment()
                        .setPartitionIndex(partition)
                        .setBrokerIds(brokers)));
        CreateTopicsRequestData data = new CreateTopicsRequestData().setTimeoutMs(30_000);
        data.topics().add(topic);
        return data;
    }

    private static Errors rawCreate(
            RawKafkaClient raw, int partitions, short replicationFactor, Map<Integer, List<Integer>> assignment)
            throws Exception {
        return rawCreate(raw, createRequest(partitions, replicationFactor, assignment));
    }

    /** The error of the one topic of a CreateTopics v7, which must carry a message naming it. */
    private static Errors rawCreate(RawKafkaClient raw, CreateTopicsRequestData data) throws Exception {
        CreateTopicsResponse response =
                (CreateTopicsResponse) raw.call(new CreateTopicsRequest.Builder(data).build((short) 7));
        CreatableTopicResult result = response.data().topics().find("raw-placed");
        assertThat(result.errorMessage()).as("the message of %s", result).isNotBlank();
        return Errors.forCode(result.errorCode());
    }

    @Test
    void aSingleNodeTakesAssignmentsToItselfOnly() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder().start();
                Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            KafkaTool.Result create = KafkaTool.run(
                    dir,
                    TOPICS,
                    null,
                    "--bootstrap-server",
                    cluster.bootstrapServers(),
                    "--create",
                    "--topic",
                    "single-placed",
                    "--replica-assignment",
                    "0,0");
            assertThat(create.exitCode()).as(create.toString()).isZero();
            assertThat(awaitLeaders(admin, "single-placed", 2))
                    .extracting(p -> ids(p.replicas()))
                    .containsExactly(List.of(0), List.of(0));
            assertThatThrownBy(() -> admin.createTopics(
                                    List.of(new NewTopic("single-elsewhere", Map.of(0, List.of(0, 1)))))
                            .all()
                            .get(TIMEOUT_S, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(InvalidReplicaAssignmentException.class);
        }
    }

    private static List<Integer> ids(List<Node> nodes) {
        return nodes.stream().map(Node::id).toList();
    }

    private static List<TopicPartitionInfo> awaitLeaders(Admin admin, String topic, int count) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(TIMEOUT_S).toNanos();
        while (true) {
            try {
                TopicDescription description = admin.describeTopics(List.of(topic))
                        .allTopicNames()
                        .get(TIMEOUT_S, TimeUnit.SECONDS)
                        .get(topic);
                if (description.partitions().size() == count
                        && description.partitions().stream().allMatch(p -> p.leader() != null)) {
                    return description.partitions();
                }
            } catch (ExecutionException e) {
                // not visible on this node yet
            }
            assertThat(System.nanoTime()).as("%s has leaders in time", topic).isLessThan(deadline);
            Thread.sleep(200);
        }
    }
}
