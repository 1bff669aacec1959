package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.handler.MessageHandler;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.TestProducer;
import dev.strait.time.Await;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.ElectionType;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * D6 on Apache Kafka 4.1.1: the mirror stops on a target timeout with records still owed, so its last commit is
 * held back at the first of them; while it is down the source loses records it had read (an unclean election).
 * The commit carries the leader epoch of the record before it, so the restarted mirror detects the divergence
 * instead of copying the new branch from the middle.
 */
class HeldBackCommitEpochIT {
    private static final long HELD_AT = 2_500;

    /** Copies each record as is; before the first copy of {@link #HELD_AT} it waits until the target is frozen. */
    private static final class WaitForFreeze implements MessageHandler {
        final CountDownLatch reached = new CountDownLatch(1);
        final CountDownLatch frozen = new CountDownLatch(1);
        final AtomicBoolean once = new AtomicBoolean();

        @Override
        public List<ProducerRecord<byte[], byte[]>> handle(ConsumerRecord<byte[], byte[]> r) {
            if (r.offset() == HELD_AT && once.compareAndSet(false, true)) {
                reached.countDown();
                try {
                    frozen.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return List.of(new ProducerRecord<>(r.topic(), null, r.timestamp(), r.key(), r.value(), r.headers()));
        }
    }

    private static MirrorConfig.Builder settings(KafkaCluster source, KafkaCluster target) {
        Properties consumer = new Properties();
        consumer.put("bootstrap.servers", source.bootstrapServers());
        consumer.put("group.id", "g-held-back");
        consumer.put("metadata.max.age.ms", "1000");
        Properties producer = new Properties();
        producer.put("bootstrap.servers", target.bootstrapServers());
        producer.put("delivery.timeout.ms", "6000");
        producer.put("request.timeout.ms", "2000");
        producer.put("linger.ms", "5");
        return MirrorConfig.builder()
                .consumerConfig(consumer)
                .producerConfig(producer)
                .include("held.back")
                // Only the final commit, made while records are owed.
                .offsetCommitIntervalMs(600_000);
    }

    @Test
    void anUncleanElectionAfterAStopWithRecordsOwedIsDetectedAtTheRestart() throws Exception {
        try (KafkaCluster target = KafkaCluster.start("held-back-target", 1);
                KafkaCluster source = KafkaCluster.start(
                        "held-back-source",
                        3,
                        Map.of("unclean.leader.election.enable", "false", "replica.lag.time.max.ms", "3000"))) {
            // Given: 2,000 records on both replicas, then 1,000 on the leader alone (the follower stopped)
            String topic = "held.back";
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
            int leader = leaderOf(source, tp);
            int follower = leader == 2 ? 3 : 2;
            source.stop(follower);
            try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
                producer.produce(topic, 1, 2_000, 1_000);
            }

            // When: the mirror copies 0..2499, the target freezes, the copies of 2500.. time out: it stops
            WaitForFreeze handler = new WaitForFreeze();
            MirrorEngine first =
                    start(settings(source, target).messageHandler(handler).build());
            assertThat(handler.reached.await(60, TimeUnit.SECONDS)).isTrue();
            Await.until(
                    "records 0..2499 on the target",
                    Duration.ofSeconds(60),
                    () -> target.endOffsetSum(topic) >= HELD_AT);
            long pid = target.pid(1);
            signal(pid, "STOP");
            try {
                handler.frozen.countDown();
                assertThat(first.awaitTermination(Duration.ofSeconds(90)))
                        .as("the mirror stops on the target timeout")
                        .isTrue();
            } finally {
                signal(pid, "CONT");
            }
            assertThat(first.state()).isEqualTo(MirrorEngine.State.FAILED);
            OffsetAndMetadata committed = committed(source, "g-held-back", tp);
            assertThat(committed.offset())
                    .as("held back at the first owed record")
                    .isEqualTo(HELD_AT);

            // And: the leader dies, the stale follower is made leader by an unclean election, takes 1,500 new records
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

            // Then: the restarted mirror detects the divergence and stops, naming the lost records
            MirrorEngine second = start(settings(source, target).build());
            try {
                assertThat(second.awaitTermination(Duration.ofSeconds(90)))
                        .as("the restarted mirror stops by itself on the diverged log")
                        .isTrue();
            } finally {
                second.requestStop();
                second.awaitTermination(Duration.ofSeconds(60));
            }
            assertThat(second.state()).isEqualTo(MirrorEngine.State.FAILED);
            assertThat(second.failure().getMessage())
                    .contains("diverged at offset 2000")
                    .contains("2000..2499")
                    .contains("500 records");
            // What made it possible: the held-back commit named the epoch the restart validated its position with.
            assertThat(committed.leaderEpoch())
                    .as("leader epoch of the held-back commit")
                    .isPresent();
        }
    }

    private static OffsetAndMetadata committed(KafkaCluster cluster, String group, TopicPartition tp) throws Exception {
        try (Admin admin = cluster.admin()) {
            return admin.listConsumerGroupOffsets(group)
                    .partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS)
                    .get(tp);
        }
    }

    private static MirrorEngine start(MirrorConfig settings) {
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
