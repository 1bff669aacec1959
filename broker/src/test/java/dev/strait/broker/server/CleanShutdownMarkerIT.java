package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 22, defect 1: a node tells the controller whether its previous life ended cleanly. A clean stop leaves a
 * marker naming its node epoch, and the node leads its single-replica partition again after the restart; a halt
 * (a crash: no marker) makes the controller take it out of the ISR even as the last member, and the partition
 * stays leaderless rather than be led by a log that may have lost acknowledged records (Kafka 4.1 with ELR), until
 * an operator asks for an unclean election.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CleanShutdownMarkerIT {

    @Test
    void aCleanStopKeepsTheLastReplicaEligibleAndACrashDoesNot() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder()
                        .nodes(3)
                        .brokerConfig("broker.session.timeout.ms", "3000")
                        .brokerConfig("broker.heartbeat.interval.ms", "300")
                        .start();
                Admin admin = Admin.create(Map.of(
                        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                        cluster.bootstrapServers(),
                        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                        "15000",
                        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                        "10000"))) {
            admin.createTopics(List.of(new NewTopic("solo", 1, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            int node =
                    await(admin, "a leader", p -> p.leader() != null).leader().id();

            cluster.stop(node);
            cluster.resume(node);
            assertThat(await(admin, "node " + node + " leading again after a clean stop", p -> p.leader() != null)
                            .leader()
                            .id())
                    .isEqualTo(node);

            cluster.kill(node);
            cluster.resume(node);
            TopicPartitionInfo afterCrash = await(
                    admin,
                    "node " + node + " out of the ISR after a crash",
                    p -> p.isr().isEmpty());
            assertThat(afterCrash.leader())
                    .as("no leader that may have lost data")
                    .isNull();

            // The operator's way back, as with Kafka's kafka-leader-election --election-type UNCLEAN.
            admin.electLeaders(ElectionType.UNCLEAN, Set.of(new TopicPartition("solo", 0)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            assertThat(await(admin, "a leader after the unclean election", p -> p.leader() != null)
                            .leader()
                            .id())
                    .isEqualTo(node);
        }
    }

    private static TopicPartitionInfo await(Admin admin, String what, Predicate<TopicPartitionInfo> done)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        AtomicReference<Object> last = new AtomicReference<>("nothing yet");
        while (System.nanoTime() < deadline) {
            try {
                TopicPartitionInfo p = admin.describeTopics(List.of("solo"))
                        .allTopicNames()
                        .get(10, TimeUnit.SECONDS)
                        .get("solo")
                        .partitions()
                        .get(0);
                last.set(p);
                if (done.test(p)) {
                    return p;
                }
            } catch (Exception e) {
                last.set(e);
            }
            Thread.sleep(100);
        }
        throw new AssertionError("timed out waiting for " + what + "; last seen " + last.get());
    }
}
