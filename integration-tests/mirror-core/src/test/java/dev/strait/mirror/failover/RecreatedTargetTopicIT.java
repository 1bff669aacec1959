package dev.strait.mirror.failover;

import static dev.strait.mirror.failover.DrFixture.commit;
import static dev.strait.mirror.failover.DrFixture.ends;
import static dev.strait.mirror.failover.DrFixture.outcome;
import static dev.strait.mirror.failover.DrFixture.readAsGroup;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.mirror.config.SyncConfig;
import dev.strait.mirror.config.TopicSyncConfig;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.TestProducer;
import dev.strait.time.Await;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The target topic is deleted and created again while the sync topic keeps the offset map of the old one (issue
 * 21, D4): the old facts must not steer a group's translation on the new topic. Apache Kafka 4.1.1 on both sides.
 */
class RecreatedTargetTopicIT {
    private static final String TOPIC = "re.orders";
    private static KafkaCluster source;
    private static KafkaCluster target;

    @BeforeAll
    static void clusters() {
        source = KafkaCluster.start("re-source", 1);
        target = KafkaCluster.start("re-target", 1);
    }

    @AfterAll
    static void close() {
        if (source != null) {
            source.close();
        }
        if (target != null) {
            target.close();
        }
    }

    private static java.util.Set<String> topics(Admin admin) {
        try {
            return admin.listTopics().names().get(30, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("could not list the target's topics", e);
        }
    }

    @Test
    void aGroupOnTheReCreatedTopicReadsExactlyItsUnconsumedRecords() throws Exception {
        // Given: 1,000 records mirrored with the offset map on (source 0..999 at target 0..999, persisted)
        source.createTopic(TOPIC, 1);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(TOPIC, 1, 1_000);
        }
        MirrorEngine first = DrFixture.start(DrFixture.mirror(source, target, "mirror-re", "re\\..*", "re-app")
                .build());
        try {
            Await.until(
                    "1,000 copies and the mirror's commit",
                    Duration.ofSeconds(90),
                    () -> target.endOffsetSum(TOPIC) == 1_000
                            && Map.of(0, 1_000L).equals(source.committedOffsets("mirror-re", TOPIC)));
        } finally {
            DrFixture.stop(first);
        }

        // When: the target topic is deleted and created again, 1,500 more source records are copied into it by a
        // mirror without the offset map (source 1000..2499 at target 0..1499: over the old facts and past their end),
        // the sync topic kept as it was
        try (Admin admin = target.admin()) {
            admin.deleteTopics(List.of(TOPIC)).all().get(30, TimeUnit.SECONDS);
            Await.until(
                    "the target topic is gone",
                    Duration.ofSeconds(60),
                    () -> !topics(admin).contains(TOPIC));
        }
        Await.until("the target topic is created again", Duration.ofSeconds(60), () -> {
            try {
                target.createTopic(TOPIC, 1);
                return true;
            } catch (RuntimeException e) {
                return false; // the deletion is still being completed
            }
        });
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(TOPIC, 1, 1_000, 1_500);
        }
        MirrorEngine copier = DrFixture.start(DrFixture.mirror(source, target, "mirror-re", "re\\..*", null)
                .sync(new SyncConfig(null, 500, false, SyncConfig.DEFAULT_SYNC_TOPIC, TopicSyncConfig.defaults()))
                .build());
        try {
            Await.until(
                    "1,500 copies in the new topic", Duration.ofSeconds(90), () -> target.endOffsetSum(TOPIC) == 1_500);
        } finally {
            DrFixture.stop(copier);
        }

        // And: a group that consumed 1,500 on the source is synced by the mirror with the offset map again
        commit(source, "re-app", TOPIC, Map.of(0, 1_500L));
        MirrorEngine again = DrFixture.start(DrFixture.mirror(source, target, "mirror-re", "re\\..*", "re-app")
                .build());
        try {
            Await.until(
                    "re-app has an offset on the target",
                    Duration.ofSeconds(90),
                    () -> !target.committedOffsets("re-app", TOPIC).isEmpty());
        } finally {
            DrFixture.stop(again);
        }

        // Then: it is at target 500, the copy of source 1500, and reads exactly the 1,000 records it had not
        // consumed: none again, none skipped
        assertThat(target.committedOffsets("re-app", TOPIC)).isEqualTo(Map.of(0, 500L));
        DrFixture.Outcome read = outcome(
                readAsGroup(target, "re-app", TOPIC, "none"),
                TOPIC,
                Map.of(0, 1_500L),
                Map.of(),
                ends(source, TOPIC, 1));
        assertThat(read).isEqualTo(new DrFixture.Outcome(1_000, 0, 0, 0, 0));
    }
}
