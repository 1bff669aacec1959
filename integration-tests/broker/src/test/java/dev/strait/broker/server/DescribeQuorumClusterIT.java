package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.Predicate;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.QuorumInfo;
import org.apache.kafka.clients.admin.RaftVoterEndpoint;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * DescribeQuorum against a 3-node companion cluster, as Kafka 4.1.1's {@code Admin.describeMetadataQuorum()} and
 * {@code kafka-metadata-quorum.sh describe} (with {@code --bootstrap-server}: the broker forwards to the Raft
 * leader) ask it: the leader, its epoch, the high watermark, every voter's log end and fetch times and its
 * controller endpoint; after the leader is killed, the answer names a new leader in a higher epoch.
 */
class DescribeQuorumClusterIT {
    private static final String METADATA_QUORUM = "org.apache.kafka.tools.MetadataQuorumCommand";

    @TempDir
    Path dir;

    @Test
    @Timeout(value = 3, unit = TimeUnit.MINUTES)
    void describesTheQuorumAndFollowsALeaderFailover() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder()
                        .nodes(3)
                        .brokerConfig("broker.session.timeout.ms", "3000")
                        .brokerConfig("broker.heartbeat.interval.ms", "500")
                        .start();
                Admin admin = Admin.create(Map.of(
                        "bootstrap.servers",
                        cluster.bootstrapServers(),
                        "default.api.timeout.ms",
                        "20000",
                        "request.timeout.ms",
                        "10000"))) {
            // Given: every voter has fetched from the leader in its epoch
            QuorumInfo before = awaitQuorum(
                    admin,
                    "all voters fetched",
                    q -> q.leaderId() >= 0 && q.voters().stream().allMatch(v -> v.logEndOffset() >= 0));

            // Then: the leader is a voter; each voter's log end, fetch times and controller endpoint are reported
            assertThat(before.voters())
                    .extracting(QuorumInfo.ReplicaState::replicaId)
                    .containsExactlyInAnyOrder(0, 1, 2);
            assertThat(before.observers()).isEmpty();
            assertThat(before.leaderEpoch()).isPositive();
            assertThat(before.highWatermark()).isPositive();
            long now = System.currentTimeMillis();
            for (QuorumInfo.ReplicaState voter : before.voters()) {
                assertThat(voter.logEndOffset())
                        .as("voter %d", voter.replicaId())
                        .isBetween(0L, before.highWatermark() + 100);
                assertThat(voter.lastFetchTimestamp())
                        .as("voter %d", voter.replicaId())
                        .isPresent();
                // the leader's wall clock, not its monotonic one: within a minute of ours
                assertThat(voter.lastFetchTimestamp().getAsLong()).isBetween(now - 60_000, now + 60_000);
                assertThat(voter.lastCaughtUpTimestamp())
                        .as("voter %d", voter.replicaId())
                        .isPresent();
            }
            assertThat(before.nodes()).containsOnlyKeys(0, 1, 2);
            for (QuorumInfo.Node node : before.nodes().values()) {
                assertThat(node.endpoints()).singleElement().satisfies(e -> {
                    assertThat(e.listener()).isEqualTo("CONTROLLER");
                    assertThat(e.host()).isEqualTo("127.0.0.1");
                    assertThat(e.port()).isPositive();
                });
            }
            assertThat(before.nodes().values().stream()
                            .flatMap(n -> n.endpoints().stream())
                            .map(RaftVoterEndpoint::port)
                            .distinct())
                    .hasSize(3);

            // and Kafka's tool prints the same
            KafkaTool.Result status = KafkaTool.run(
                    dir,
                    METADATA_QUORUM,
                    null,
                    "--bootstrap-server",
                    cluster.bootstrapServers(),
                    "describe",
                    "--status");
            assertThat(status.exitCode()).as(status.toString()).isZero();
            assertThat(status.stdout())
                    .containsPattern("LeaderId:\\s+" + before.leaderId() + "\\n")
                    .containsPattern("CurrentVoters:\\s+\\[\\{\"id\": 0, \"endpoints\": \\[\"CONTROLLER://127.0.0.1:");
            KafkaTool.Result replication = KafkaTool.run(
                    dir,
                    METADATA_QUORUM,
                    null,
                    "--bootstrap-server",
                    cluster.bootstrapServers(),
                    "describe",
                    "--replication");
            assertThat(replication.exitCode()).as(replication.toString()).isZero();
            assertThat(replication.stdout()).contains("Leader").contains("Follower");

            // When: the Raft leader (the active controller) dies
            int oldLeader = before.leaderId();
            cluster.kill(oldLeader);

            // Then: the answer names another leader in a higher epoch, and still lists the dead voter
            QuorumInfo after = awaitQuorum(
                    admin,
                    "a new leader",
                    q -> q.leaderId() >= 0 && q.leaderId() != oldLeader && q.leaderEpoch() > before.leaderEpoch());
            assertThat(after.voters())
                    .extracting(QuorumInfo.ReplicaState::replicaId)
                    .containsExactlyInAnyOrder(0, 1, 2);
            assertThat(after.highWatermark()).isGreaterThanOrEqualTo(before.highWatermark());
            QuorumInfo.ReplicaState newLeader = after.voters().stream()
                    .filter(v -> v.replicaId() == after.leaderId())
                    .findFirst()
                    .orElseThrow();
            assertThat(newLeader.logEndOffset()).isGreaterThanOrEqualTo(after.highWatermark());
        }
    }

    private static QuorumInfo awaitQuorum(Admin admin, String what, Predicate<QuorumInfo> condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        QuorumInfo last = null;
        Exception lastError = null;
        while (System.nanoTime() < deadline) {
            try {
                last = admin.describeMetadataQuorum().quorumInfo().get(30, TimeUnit.SECONDS);
                if (condition.test(last)) {
                    return last;
                }
            } catch (Exception e) {
                lastError = e;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no quorum description with " + what + " within 60 s; last " + last, lastError);
    }
}
