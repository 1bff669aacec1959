package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.mirror.testing.MirrorCheck;
import dev.strait.testkit.LoadGenerator;
import dev.strait.testkit.TestCluster;
import dev.strait.time.Await;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.Test;

/**
 * The engine suite with three-node companion clusters (one quorum each, topics replicated three times,
 * min.insync.replicas=2) as source and target, plus a source broker killed mid-run.
 */
class MirrorEngineOnCompanionClusterIT extends MirrorEngineSuite {
    private final MirrorFixture fixture = new MirrorFixture(TestCluster.Kind.COMPANION_CLUSTER);

    MirrorEngineOnCompanionClusterIT() {
        super(TestCluster.Kind.COMPANION_CLUSTER);
    }

    @Test
    void sourceBrokerKilledMidRunLosesNothing() throws Exception {
        // Given: a live keyed load on 4 partitions and a running mirror
        TestCluster source = fixture.source();
        TestCluster target = fixture.target();
        String topic = "failover.orders";
        source.createTopic(topic, 4);
        MirrorEngine engine = MirrorFixture.start(
                fixture.settings("g-failover", topic).numStreams(2).build());
        int victim;
        try (LoadGenerator load = new LoadGenerator(source.bootstrapServers(), topic, 4, 5_000, 2_000);
                Admin admin = source.admin()) {
            Await.until("mirroring under way", Duration.ofSeconds(60), () -> target.endOffsetSum(topic) >= 4_000);

            // When: the leader of partition 0 dies without a controlled shutdown, and comes back later
            victim = admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(topic)
                    .partitions()
                    .get(0)
                    .leader()
                    .id();
            source.killNode(victim);
            long atKill = target.endOffsetSum(topic);
            Await.until(
                    "mirroring goes on without the killed broker",
                    Duration.ofSeconds(60),
                    () -> target.endOffsetSum(topic) >= atKill + 4_000);
            source.restartNode(victim);
            load.awaitDone(120);
        }
        fixture.awaitTarget(topic, 20_000);
        MirrorFixture.stop(engine);

        // Then
        MirrorCheck.Report report = MirrorCheck.compare(source, topic, target, topic);
        System.out.printf("source broker %d killed mid-run: %s%n", victim, report);
        assertThat(report.sourceRecords()).isEqualTo(20_000);
        assertThat(report.lost()).as(report.toString()).isZero();
        assertThat(report.mismatched()).as(report.toString()).isZero();
        assertThat(report.unordered()).as(report.toString()).isZero();
        assertThat(report.targetRecords()).isEqualTo(20_000 + report.duplicates());
    }
}
