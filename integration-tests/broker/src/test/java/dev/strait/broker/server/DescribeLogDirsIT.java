package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.LogDirDescription;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ReplicaInfo;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * DescribeLogDirs with the unmodified kafka-clients 4.1.1 Admin and kafka-log-dirs --describe on three nodes: each
 * node's data directory with the sizes of the replicas it holds, leaders and followers alike, offset lag 0 once in
 * sync, no future replicas, and the directory's volume total and usable bytes (KIP-827).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class DescribeLogDirsIT {

    private static final long TIMEOUT_S = 30;
    private static final String LOG_DIRS = "org.apache.kafka.tools.LogDirsCommand";

    @TempDir
    Path dir;

    @Test
    void everyNodeDescribesItsDataDirectoryWithTheReplicasItHolds() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(3).start();
                Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            admin.createTopics(List.of(
                            new NewTopic("ld-replicated", 2, (short) 3), new NewTopic("ld-single", 1, (short) 1)))
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
            try (KafkaProducer<String, String> producer =
                    KafkaClientsRoundTripIT.producer(cluster.bootstrapServers(), Map.of("acks", "all"))) {
                for (int i = 0; i < 20; i++) {
                    producer.send(new ProducerRecord<>("ld-replicated", i % 2, "k" + i, "value-" + i));
                }
                producer.send(new ProducerRecord<>("ld-single", 0, "k", "single"));
                producer.flush();
            }
            int singleHolder = admin.describeTopics(List.of("ld-single"))
                    .allTopicNames()
                    .get(TIMEOUT_S, TimeUnit.SECONDS)
                    .get("ld-single")
                    .partitions()
                    .get(0)
                    .replicas()
                    .get(0)
                    .id();

            Map<Integer, Map<String, LogDirDescription>> described = awaitInSync(admin);

            assertThat(described).containsOnlyKeys(0, 1, 2);
            for (int node = 0; node < 3; node++) {
                Map<String, LogDirDescription> dirs = described.get(node);
                String expected = cluster.dataDir()
                        .resolve("node-" + node)
                        .toAbsolutePath()
                        .toString();
                assertThat(dirs).as("node %d", node).containsOnlyKeys(expected);
                LogDirDescription logDir = dirs.get(expected);
                assertThat(logDir.error()).isNull();
                assertThat(logDir.totalBytes()).isPresent();
                assertThat(logDir.usableBytes()).isPresent();
                assertThat(logDir.totalBytes().getAsLong()).isPositive();
                assertThat(logDir.usableBytes().getAsLong())
                        .isPositive()
                        .isLessThanOrEqualTo(logDir.totalBytes().getAsLong());
                Map<TopicPartition, ReplicaInfo> replicas = logDir.replicaInfos();
                for (int p = 0; p < 2; p++) {
                    ReplicaInfo replica = replicas.get(new TopicPartition("ld-replicated", p));
                    assertThat(replica)
                            .as("node %d holds ld-replicated-%d", node, p)
                            .isNotNull();
                    assertThat(replica.size()).isPositive();
                    assertThat(replica.offsetLag()).isZero();
                    assertThat(replica.isFuture()).isFalse();
                }
                assertThat(replicas.containsKey(new TopicPartition("ld-single", 0)))
                        .as("node %d holds ld-single-0", node)
                        .isEqualTo(node == singleHolder);
            }

            KafkaTool.Result tool = KafkaTool.run(
                    dir,
                    LOG_DIRS,
                    null,
                    "--bootstrap-server",
                    cluster.bootstrapServers(),
                    "--describe",
                    "--broker-list",
                    String.valueOf(singleHolder),
                    "--topic-list",
                    "ld-single");
            assertThat(tool.exitCode()).as(tool.toString()).isZero();
            assertThat(tool.stdout())
                    .as(tool.toString())
                    .contains("\"broker\":" + singleHolder)
                    .contains("\"logDir\":\""
                            + cluster.dataDir().resolve("node-" + singleHolder).toAbsolutePath())
                    .contains("\"partition\":\"ld-single-0\"")
                    .contains("\"offsetLag\":0")
                    .contains("\"isFuture\":false")
                    .doesNotContain("ld-replicated");
        }
    }

    /** Every node's log dirs once every replica of the replicated topic has caught up (followers fetch on). */
    private static Map<Integer, Map<String, LogDirDescription>> awaitInSync(Admin admin) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(TIMEOUT_S).toNanos();
        while (true) {
            Map<Integer, Map<String, LogDirDescription>> described =
                    admin.describeLogDirs(List.of(0, 1, 2)).allDescriptions().get(TIMEOUT_S, TimeUnit.SECONDS);
            Map<TopicPartition, java.util.Set<Long>> sizes = new java.util.HashMap<>();
            Map<TopicPartition, Integer> holders = new java.util.HashMap<>();
            described.values().stream()
                    .flatMap(dirs -> dirs.values().stream())
                    .flatMap(d -> d.replicaInfos().entrySet().stream())
                    .filter(e -> e.getKey().topic().equals("ld-replicated"))
                    .forEach(e -> {
                        sizes.computeIfAbsent(e.getKey(), tp -> new java.util.HashSet<>())
                                .add(e.getValue().size());
                        holders.merge(e.getKey(), 1, Integer::sum);
                    });
            boolean inSync = holders.size() == 2
                    && holders.values().stream().allMatch(n -> n == 3)
                    && sizes.values().stream().allMatch(s -> s.size() == 1);
            if (inSync || System.nanoTime() > deadline) {
                return described;
            }
            Thread.sleep(200);
        }
    }
}
