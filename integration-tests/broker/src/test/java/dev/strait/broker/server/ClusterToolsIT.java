package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.TopicDescription;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Apache Kafka's tools against a 3-node companion cluster: kafka-topics --describe shows leader, replicas and
 * ISR before and after a broker dies, and kafka-leader-election gives leadership back to the preferred replicas.
 */
class ClusterToolsIT {
    private static final String TOPICS = "org.apache.kafka.tools.TopicCommand";
    private static final String LEADER_ELECTION = "org.apache.kafka.tools.LeaderElectionCommand";

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 4, unit = TimeUnit.MINUTES)
    void describeFollowsAFailureAndLeaderElectionRestoresPreferredLeaders() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder()
                        .nodes(3)
                        .brokerConfig("broker.session.timeout.ms", "3000")
                        .brokerConfig("broker.heartbeat.interval.ms", "500")
                        .start();
                Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            String bootstrap = cluster.bootstrapServers();
            KafkaTool.Result create = KafkaTool.run(
                    dir,
                    TOPICS,
                    null,
                    "--bootstrap-server",
                    bootstrap,
                    "--create",
                    "--topic",
                    "tools.replicated",
                    "--partitions",
                    "3",
                    "--replication-factor",
                    "3");
            assertThat(create.exitCode()).as(create.toString()).isZero();

            // Before: every partition led by its first replica, all three in sync
            await(
                    "all in sync",
                    () -> describe(admin).partitions().stream()
                            .allMatch(p -> p.isr().size() == 3));
            KafkaTool.Result before = KafkaTool.run(
                    dir, TOPICS, null, "--bootstrap-server", bootstrap, "--describe", "--topic", "tools.replicated");
            assertThat(before.exitCode()).as(before.toString()).isZero();
            assertThat(before.stdout()).contains("ReplicationFactor: 3");
            for (var p : describe(admin).partitions()) {
                assertThat(p.leader().id()).isEqualTo(p.replicas().get(0).id());
                assertThat(before.stdout())
                        .containsPattern("Partition: " + p.partition() + "\\s+Leader: "
                                + p.leader().id() + "\\s+Replicas: [0-9,]+\\s+Isr: [0-9,]+");
            }

            // When: the leader of partition 0 dies
            int victim = describe(admin).partitions().get(0).leader().id();
            cluster.kill(victim);
            await(
                    "leaders moved off the dead broker",
                    () -> describe(admin).partitions().stream()
                            .allMatch(p -> p.leader() != null
                                    && p.leader().id() != victim
                                    && p.isr().stream().noneMatch(n -> n.id() == victim)));
            KafkaTool.Result after = KafkaTool.run(
                    dir, TOPICS, null, "--bootstrap-server", bootstrap, "--describe", "--topic", "tools.replicated");
            assertThat(after.exitCode()).as(after.toString()).isZero();
            assertThat(after.stdout()
                            .lines()
                            .filter(l -> l.contains("Partition: 0"))
                            .findFirst()
                            .orElseThrow())
                    .as(after.toString())
                    .doesNotContain("Leader: " + victim)
                    .doesNotMatch(".*Isr: .*" + victim + ".*");

            // Then: it comes back, catches up, and preferred leader election returns its leadership
            cluster.resume(victim);
            await(
                    "back in sync",
                    () -> describe(admin).partitions().stream()
                            .allMatch(p -> p.isr().size() == 3));
            KafkaTool.Result election = KafkaTool.run(
                    dir,
                    LEADER_ELECTION,
                    null,
                    "--bootstrap-server",
                    bootstrap,
                    "--election-type",
                    "PREFERRED",
                    "--all-topic-partitions");
            assertThat(election.exitCode()).as(election.toString()).isZero();
            assertThat(election.stdout()).as(election.toString()).contains("Successfully completed leader election");
            await(
                    "preferred leaders back",
                    () -> describe(admin).partitions().stream()
                            .allMatch(p -> p.leader() != null
                                    && p.leader().id() == p.replicas().get(0).id()));
        }
    }

    private static TopicDescription describe(Admin admin) throws Exception {
        return admin.describeTopics(List.of("tools.replicated"))
                .allTopicNames()
                .get(10, TimeUnit.SECONDS)
                .get("tools.replicated");
    }

    private interface Check {
        boolean holds() throws Exception;
    }

    private static void await(String what, Check check) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                if (check.holds()) {
                    return;
                }
            } catch (Exception e) {
                // the cluster is between states; ask again
            }
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out waiting for: " + what);
            }
            Thread.sleep(200);
        }
    }
}
