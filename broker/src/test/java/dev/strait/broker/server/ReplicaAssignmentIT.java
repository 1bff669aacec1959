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
import org.apache.kafka.clients.admin.CreateTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * CreateTopics with a manual replica assignment on three nodes, as {@code kafka-topics --create
 * --replica-assignment} and the 4.1.1 Admin send it: each partition gets exactly the replicas asked for, the first
 * one leading; an assignment naming an unknown broker, a broker twice or partitions of unequal sizes is refused with
 * INVALID_REPLICA_ASSIGNMENT and creates nothing.
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
