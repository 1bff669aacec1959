package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.MirrorSettings;
import dev.strait.mirror.config.TruncationPolicy;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.provenance.Provenance;
import dev.strait.mirror.testing.MirrorCheck;
import dev.strait.testkit.Await;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.LoadGenerator;
import dev.strait.testkit.SharedClusters;
import dev.strait.testkit.TestProducer;
import dev.strait.testkit.TopicReader;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;
import org.junit.jupiter.api.Test;

/**
 * The engine under faults that need clusters of their own (Apache Kafka 4.1.1): a target frozen for longer
 * than the delivery timeout, a target topic deleted under the mirror, and a source whose log diverges after
 * an unclean leader election.
 */
class MirrorFaultsOnKafkaIT {
    private static final String PRODUCER_DELIVERY_MS = "6000";

    private static MirrorSettings.Builder settings(
            String sourceBootstrap, String targetBootstrap, String group, String include) {
        Properties consumer = new Properties();
        consumer.put("bootstrap.servers", sourceBootstrap);
        consumer.put("group.id", group);
        consumer.put("metadata.max.age.ms", "1000");
        Properties producer = new Properties();
        producer.put("bootstrap.servers", targetBootstrap);
        producer.put("delivery.timeout.ms", PRODUCER_DELIVERY_MS);
        producer.put("request.timeout.ms", "2000");
        producer.put("linger.ms", "5");
        return MirrorSettings.builder()
                .consumerConfig(consumer)
                .producerConfig(producer)
                .include(include)
                .offsetCommitIntervalMs(500);
    }

    private static MirrorEngine start(MirrorSettings settings) {
        MirrorEngine engine = new MirrorEngine(settings, new MirrorMetrics(new MetricRegistry()), Time.SYSTEM);
        engine.start();
        return engine;
    }

    private static void signal(long pid, String signal) throws Exception {
        Process p = new ProcessBuilder("kill", "-" + signal, Long.toString(pid))
                .inheritIO()
                .start();
        assertThat(p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0)
                .as("kill -" + signal + " " + pid)
                .isTrue();
    }

    @Test
    void aTargetFrozenForLongerThanTheDeliveryTimeoutStopsTheMirrorWithAbortOnOrOffAndNothingIsLost() throws Exception {
        KafkaCluster source = SharedClusters.source();
        try (KafkaCluster target = KafkaCluster.start("frozen-target", 1)) {
            for (boolean abort : new boolean[] {true, false}) {
                // Given: a live load and a running mirror
                String topic = "frozen." + abort;
                String group = "g-frozen-" + abort;
                source.createTopic(topic, 2);
                MirrorEngine first;
                try (LoadGenerator load = new LoadGenerator(source.bootstrapServers(), topic, 2, 3_000, 500)) {
                    first = start(settings(source.bootstrapServers(), target.bootstrapServers(), group, topic)
                            .abortOnSendFailure(abort)
                            .build());
                    Await.until("mirroring under way", Duration.ofSeconds(60), () -> target.endOffsetSum(topic) >= 300);

                    // When: the target is frozen (SIGSTOP) until sends time out, then thawed
                    long pid = target.pid(1);
                    signal(pid, "STOP");
                    try {
                        Await.until(
                                "sends time out",
                                Duration.ofSeconds(60),
                                () -> first.metrics().sendErrors() > 0);
                    } finally {
                        signal(pid, "CONT");
                    }
                    // Then: the mirror stops, whatever abort.on.send.failure says: a timeout is not a bad record
                    assertThat(first.awaitTermination(Duration.ofSeconds(60)))
                            .as("the mirror stops by itself")
                            .isTrue();
                    assertThat(first.state()).isEqualTo(MirrorEngine.State.FAILED);
                    assertThat(first.failure().getMessage()).contains("did not take the record in time");
                    load.awaitDone(120);
                }
                // And: a restarted mirror copies what the first did not, so nothing is lost
                MirrorEngine second = start(settings(source.bootstrapServers(), target.bootstrapServers(), group, topic)
                        .abortOnSendFailure(abort)
                        .build());
                Await.until(
                        "everything committed",
                        Duration.ofSeconds(120),
                        () -> source.committedOffsets(group, topic).values().stream()
                                        .mapToLong(Long::longValue)
                                        .sum()
                                == 6_000);
                second.requestStop();
                assertThat(second.awaitTermination(Duration.ofSeconds(60))).isTrue();
                MirrorCheck.Report report = MirrorCheck.compare(source, topic, target, topic);
                assertThat(report.lost()).as("abort " + abort + ": " + report).isZero();
                assertThat(report.mismatched()).as(report.toString()).isZero();
                // Not asserted: order. Batches the producer created after an expired one can land before the restart
                // fills the gap the expired one left (docs/architecture.md, "Send failures and bounded waits").
            }
        }
    }

    @Test
    void aTargetTopicDeletedUnderTheMirrorFailsItWithAClearMessageInsteadOfHanging() throws Exception {
        KafkaCluster source = SharedClusters.source();
        KafkaCluster target = SharedClusters.target();
        String topic = "deleted.target";
        source.createTopic(topic, 2);
        MirrorEngine engine;
        try (LoadGenerator load = new LoadGenerator(source.bootstrapServers(), topic, 2, 4_000, 500)) {
            engine = start(settings(source.bootstrapServers(), target.bootstrapServers(), "g-deleted", topic)
                    .build());
            Await.until("mirroring under way", Duration.ofSeconds(60), () -> target.endOffsetSum(topic) >= 200);

            // When
            try (Admin admin = target.admin()) {
                admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
            }

            // Then: the stream fails within a bounded wait, and a stop request finishes
            assertThat(engine.awaitTermination(Duration.ofSeconds(60)))
                    .as("the mirror ends instead of hanging")
                    .isTrue();
            load.close();
        }
        assertThat(engine.state()).isEqualTo(MirrorEngine.State.FAILED);
        assertThat(engine.failure().getMessage()).contains(topic).contains("deleted or shrunk");
        long committed = source.committedOffsets("g-deleted", topic).values().stream()
                .mapToLong(Long::longValue)
                .sum();
        assertThat(committed)
                .as("nothing committed past what the target acknowledged before the deletion")
                .isLessThanOrEqualTo(engine.metrics().recordsProduced());
    }

    @Test
    void aSourceLogThatDivergedAfterAnUncleanElectionStopsTheMirrorAndSkipAndAlertCopiesTheNewBranch()
            throws Exception {
        KafkaCluster target = SharedClusters.target();
        // A KRaft source of three nodes (each broker and controller); the partition lives on nodes 2 and 3.
        try (KafkaCluster source = KafkaCluster.start(
                "diverging-source",
                3,
                Map.of("unclean.leader.election.enable", "false", "replica.lag.time.max.ms", "3000"))) {
            String topic = "diverged";
            TopicPartition tp = new TopicPartition(topic, 0);
            try (Admin admin = source.admin()) {
                admin.createTopics(List.of(new NewTopic(topic, Map.of(0, List.of(2, 3)))))
                        .all()
                        .get(60, TimeUnit.SECONDS);
                KafkaCluster.awaitWritable(admin, topic, 1);
            }
            try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
                producer.produce(topic, 1, 2_000);
            }
            // The follower (node 3) stops; the leader (node 2) alone takes 1,000 more.
            int leader = leaderOf(source, tp);
            int follower = leader == 2 ? 3 : 2;
            source.stop(follower);
            try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
                producer.produce(topic, 1, 2_000, 1_000);
            }
            MirrorEngine engine =
                    start(settings(source.bootstrapServers(), target.bootstrapServers(), "g-diverged", topic)
                            .build());
            Await.until(
                    "3,000 mirrored and committed",
                    Duration.ofSeconds(60),
                    () -> source.committedOffsets("g-diverged", topic).getOrDefault(0, 0L) == 3_000L);

            // When: the leader dies, the stale follower comes back and is made leader by an unclean election
            // (kafka-leader-election --election-type UNCLEAN), and takes 1,500 new records
            source.kill(leader);
            source.restart(follower);
            try (Admin admin = source.admin()) {
                Await.until("unclean election done", Duration.ofSeconds(60), () -> {
                    try {
                        admin.electLeaders(ElectionType.UNCLEAN, Set.of(tp))
                                .all()
                                .get(10, TimeUnit.SECONDS);
                    } catch (Exception e) {
                        // not yet: the controller may still be electing its own leader
                    }
                    return leaderOf(source, tp) == follower;
                });
            }
            try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
                producer.produce(topic, 1, 10_000, 1_500);
            }

            // Then: the mirror that ran through it stops and names the lost branch
            assertThat(engine.awaitTermination(Duration.ofSeconds(90)))
                    .as("the mirror stops by itself")
                    .isTrue();
            assertThat(engine.state()).isEqualTo(MirrorEngine.State.FAILED);
            assertThat(engine.failure().getMessage())
                    .contains(tp.toString())
                    .contains("diverged at offset 2000")
                    .contains("2000..2999")
                    .contains("1000 records");
            assertThat(source.committedOffsets("g-diverged", topic)).containsEntry(0, 3_000L);

            // And: restarted with skip-and-alert, it counts the lost branch and copies the new one, all of it
            MirrorEngine again =
                    start(settings(source.bootstrapServers(), target.bootstrapServers(), "g-diverged", topic)
                            .onSourceTruncation(TruncationPolicy.SKIP_AND_ALERT)
                            .build());
            Await.until(
                    "the new branch mirrored and committed",
                    Duration.ofSeconds(60),
                    () -> source.committedOffsets("g-diverged", topic).getOrDefault(0, 0L) == 3_500L);
            again.requestStop();
            assertThat(again.awaitTermination(Duration.ofSeconds(60))).isTrue();
            assertThat(again.metrics().sourceRecordsDiverged()).isEqualTo(1_000);

            List<ConsumerRecord<byte[], byte[]>> src =
                    TopicReader.readAll(source.bootstrapServers(), topic).get(0);
            List<ConsumerRecord<byte[], byte[]>> dst =
                    TopicReader.readAll(target.bootstrapServers(), topic).get(0);
            assertThat(src).hasSize(3_500);
            assertThat(dst)
                    .as("3,000 copies before, then the new branch from its divergence point")
                    .hasSize(4_500);
            List<ConsumerRecord<byte[], byte[]>> newBranch = dst.subList(3_000, 4_500);
            for (int i = 0; i < 1_500; i++) {
                ConsumerRecord<byte[], byte[]> copy = newBranch.get(i);
                ConsumerRecord<byte[], byte[]> original = src.get(2_000 + i);
                assertThat(Provenance.from(copy.headers()).offset()).isEqualTo(2_000L + i);
                assertThat(copy.value()).isEqualTo(original.value());
            }
        }
    }

    private static int leaderOf(KafkaCluster cluster, TopicPartition tp) {
        try (Admin admin = cluster.admin()) {
            var leader = admin.describeTopics(List.of(tp.topic()))
                    .allTopicNames()
                    .get(10, TimeUnit.SECONDS)
                    .get(tp.topic())
                    .partitions()
                    .get(tp.partition())
                    .leader();
            return leader == null ? -1 : leader.id();
        } catch (Exception e) {
            return -1;
        }
    }
}
