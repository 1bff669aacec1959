package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.metadata.PartitionState;
import java.nio.file.Files;
import java.nio.file.Path;
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
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22, defect 1: a node tells the controller whether its previous life ended cleanly. A clean stop leaves a
 * marker naming its node epoch, and a crash in the boot still running loses no write either; after a power loss
 * (a new boot, no marker) the controller takes it out of the ISR even as the last member, and a partition with another replica stays leaderless rather than be led by a log that may
 * have lost acknowledged records (Kafka 4.1 with ELR), until an operator asks for an unclean election. A
 * single-replica partition has no other copy, so its replica leads again after a crash.
 */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class CleanShutdownMarkerIT {

    @Test
    void aCleanStopOrACrashWithoutARebootKeepsTheLastReplicaEligibleAndAPowerLossDoesNot(@TempDir Path machine)
            throws Exception {
        // The nodes' boot id: a power loss reboots the machine, which this test shows by changing it.
        Path bootId = machine.resolve("boot_id");
        Files.writeString(bootId, "boot-1");
        try (EmbeddedCluster cluster = EmbeddedCluster.builder()
                        .nodes(3)
                        .brokerConfig("strait.boot.id.file", bootId.toString())
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
            int node = await(admin, "solo", "a leader", p -> p.leader() != null)
                    .leader()
                    .id();

            cluster.stop(node);
            cluster.resume(node);
            assertThat(await(
                                    admin,
                                    "solo",
                                    "node " + node + " leading again after a clean stop",
                                    p -> p.leader() != null)
                            .leader()
                            .id())
                    .isEqualTo(node);

            // A crash of a single-replica partition's node: it leads again (the same boot; and no other copy could
            // hold more in any case).
            cluster.kill(node);
            cluster.resume(node);
            assertThat(await(admin, "solo", "node " + node + " leading again after a crash", p -> p.leader() != null)
                            .leader()
                            .id())
                    .isEqualTo(node);

            // Two replicas: b stops cleanly (the ISR shrinks to a alone; min.insync.replicas=1, so no ELR), then a
            // loses power. Back from it, a may have lost acknowledged records and b never had them: neither may lead
            // on its own.
            admin.createTopics(List.of(new NewTopic("pair", 1, (short) 2)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            TopicPartitionInfo pair =
                    await(admin, "pair", "two replicas in sync", p -> p.isr().size() == 2);
            int a = pair.leader().id();
            int b = pair.replicas().stream()
                    .mapToInt(org.apache.kafka.common.Node::id)
                    .filter(id -> id != a)
                    .findFirst()
                    .orElseThrow();
            cluster.stop(b);
            await(admin, "pair", "the ISR shrunk to " + a, p -> p.isr().size() == 1);
            // A crash while the machine keeps running loses no write (the page cache keeps them): a stays eligible.
            cluster.kill(a);
            cluster.resume(a);
            assertThat(await(
                                    admin,
                                    "pair",
                                    "node " + a + " leading again after a crash without a reboot",
                                    p -> p.leader() != null)
                            .leader()
                            .id())
                    .isEqualTo(a);
            // A power loss: the machine boots again.
            cluster.kill(a);
            Files.writeString(bootId, "boot-2");
            cluster.resume(a);
            TopicPartitionInfo afterCrash = await(
                    admin,
                    "pair",
                    "node " + a + " out of the ISR after a crash",
                    p -> p.isr().isEmpty());
            assertThat(afterCrash.leader())
                    .as("no leader that may have lost data")
                    .isNull();
            cluster.resume(b);
            // The controller elects, if at all, in the decision that unfences b: once b's own image shows itself
            // unfenced, that decision has been applied there.
            awaitUnfenced(cluster, b);
            PartitionState seenByB = cluster.node(b)
                    .metadata()
                    .partitionState(
                            cluster.node(b)
                                    .metadata()
                                    .topic("pair")
                                    .orElseThrow()
                                    .topicId(),
                            0)
                    .orElseThrow();
            assertThat(seenByB.leader())
                    .as("node " + b + " left the ISR at its clean stop and is no eligible leader: " + seenByB)
                    .isEqualTo(-1);

            // The operator's way back, as with Kafka's kafka-leader-election --election-type UNCLEAN.
            admin.electLeaders(ElectionType.UNCLEAN, Set.of(new TopicPartition("pair", 0)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            assertThat(await(admin, "pair", "a leader after the unclean election", p -> p.leader() != null)
                            .leader())
                    .isNotNull();
        }
    }

    private static void awaitUnfenced(EmbeddedCluster cluster, int id) throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (System.nanoTime() < deadline) {
            BrokerServer server = cluster.node(id);
            if (server != null && server.metadata().brokers().stream().anyMatch(r -> r.id() == id && !r.fenced())) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("timed out waiting for node " + id + " to see itself unfenced");
    }

    private static TopicPartitionInfo await(Admin admin, String topic, String what, Predicate<TopicPartitionInfo> done)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        AtomicReference<Object> last = new AtomicReference<>("nothing yet");
        while (System.nanoTime() < deadline) {
            try {
                TopicPartitionInfo p = admin.describeTopics(List.of(topic))
                        .allTopicNames()
                        .get(10, TimeUnit.SECONDS)
                        .get(topic)
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
