package dev.strait.mirror.failover;

import static dev.strait.mirror.failover.DrFixture.awaitTargetOffsets;
import static dev.strait.mirror.failover.DrFixture.ends;
import static dev.strait.mirror.failover.DrFixture.outcome;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.testkit.SharedClusters;
import dev.strait.testkit.TestCluster;
import dev.strait.testkit.TestProducer;
import dev.strait.time.Await;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.GroupType;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.Test;

/**
 * Application groups of the consumer rebalance protocol (KIP-848, {@code group.protocol=consumer}) on Apache Kafka
 * 4.1.1: the mirror's group sync and {@code strait failover} move them like classic groups, consumers of the new
 * protocol resume on the target exactly, a live member of the new protocol on the target keeps its group from
 * being moved, and an empty group of the new protocol on the target takes the next sync.
 */
class Kip848FailoverOnKafkaIT {
    private final TestCluster source = SharedClusters.source(TestCluster.Kind.KAFKA);
    private final TestCluster target = SharedClusters.target(TestCluster.Kind.KAFKA);

    private FailoverConfig config() {
        return DrFixture.failoverConfig(source, target, null);
    }

    private static KafkaConsumer<byte[], byte[]> kip848Consumer(TestCluster cluster, String group, String reset) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, reset);
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        return new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
    }

    /** A subscribed member of the new protocol that owns every partition of {@code topic}. */
    private static KafkaConsumer<byte[], byte[]> joined(TestCluster cluster, String group, String topic, int parts) {
        KafkaConsumer<byte[], byte[]> consumer = kip848Consumer(cluster, group, "earliest");
        consumer.subscribe(List.of(topic));
        Await.until("a member of " + group + " owns the partitions of " + topic, Duration.ofSeconds(60), () -> {
            consumer.poll(Duration.ofMillis(100));
            return consumer.assignment().size() == parts;
        });
        return consumer;
    }

    private static void commitAs(KafkaConsumer<byte[], byte[]> member, String topic, Map<Integer, Long> offsets) {
        Map<TopicPartition, OffsetAndMetadata> m = new HashMap<>();
        offsets.forEach((p, o) -> m.put(new TopicPartition(topic, p), new OffsetAndMetadata(o)));
        member.commitSync(m, Duration.ofSeconds(30));
    }

    /**
     * Reads {@code topic} on {@code cluster} the way the application would after a failover: a subscribed member of
     * the new protocol, from the group's committed offsets (there must be some), to the end, without committing.
     */
    private static List<ConsumerRecord<byte[], byte[]>> readSubscribed(
            TestCluster cluster, String group, String topic, Map<Integer, Long> ends) {
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = kip848Consumer(cluster, group, "none")) {
            consumer.subscribe(List.of(topic));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (true) {
                boolean done = consumer.assignment().size() == ends.size();
                for (TopicPartition tp : consumer.assignment()) {
                    if (consumer.position(tp, Duration.ofSeconds(30)) < ends.get(tp.partition())) {
                        done = false;
                    }
                }
                if (done) {
                    break;
                }
                assertThat(System.nanoTime())
                        .as("reading %s as %s finishes", topic, group)
                        .isLessThan(deadline);
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.offset() < ends.get(r.partition())) {
                        out.add(r);
                    }
                }
            }
        }
        return out;
    }

    private GroupType typeOn(TestCluster cluster, String group) throws Exception {
        try (Admin admin = cluster.admin()) {
            return admin.describeConsumerGroups(List.of(group))
                    .describedGroups()
                    .get(group)
                    .get(30, TimeUnit.SECONDS)
                    .type();
        }
    }

    private FailoverPlanner.GroupResult failover(String group) {
        try (FailoverPlanner planner = new FailoverPlanner(config(), Time.SYSTEM)) {
            FailoverPlan plan = planner.plan(GroupFilter.of(group, null, "--groups", "--groups.exclude"));
            assertThat(plan.groups()).singleElement().satisfies(g -> {
                assertThat(g.problem()).isNull();
                assertThat(g.activeMembers()).isZero();
                assertThat(g.partitions()).allSatisfy(p -> {
                    assertThat(p.exact()).as(group + " " + p.target()).isTrue();
                    assertThat(p.readAgain()).isZero();
                });
            });
            List<FailoverPlanner.GroupResult> results = planner.execute(plan, false);
            assertThat(results)
                    .singleElement()
                    .satisfies(r -> assertThat(r.outcome()).as(r.message()).isEqualTo(FailoverPlanner.Outcome.MOVED));
            return results.get(0);
        }
    }

    @Test
    void aGroupOfTheConsumerProtocolFailsOverAndResumesExactlyTwice() throws Exception {
        // Given: 2 x 5,000 records and an application group of the new protocol that committed part of them
        String topic = "k848.orders";
        String group = "k848-app";
        source.createTopic(topic, 2);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 2, 5_000);
        }
        MirrorEngine engine = DrFixture.start(DrFixture.mirror(source, target, "mirror-k848", "k848\\..*", "k848-.*")
                .build());
        try (KafkaConsumer<byte[], byte[]> app = joined(source, group, topic, 2)) {
            commitAs(app, topic, Map.of(0, 2_000L, 1, 3_500L));
            assertThat(typeOn(source, group)).isEqualTo(GroupType.CONSUMER);

            // When: the mirror syncs the group while it moves on the source, and it stops there
            awaitTargetOffsets(target, group, topic, Map.of(0, 2_000L, 1, 3_500L));
            commitAs(app, topic, Map.of(0, 4_100L, 1, 4_900L));
            awaitTargetOffsets(target, group, topic, Map.of(0, 4_100L, 1, 4_900L));
        } finally {
            DrFixture.stop(engine);
        }
        failover(group);

        // Then: members of the new protocol on the target read exactly what the group had not consumed
        Map<Integer, Long> ends = ends(source, topic, 2);
        DrFixture.Outcome first = outcome(
                readSubscribed(target, group, topic, ends), topic, Map.of(0, 4_100L, 1, 4_900L), Map.of(), ends);
        assertThat(first).isEqualTo(new DrFixture.Outcome(900 + 100, 0, 0, 0, 0));
        assertThat(typeOn(target, group))
                .as("the target group is of the new protocol now, and empty")
                .isEqualTo(GroupType.CONSUMER);

        // And when the source goes on (the drill is over), the empty target group of the new protocol takes the
        // next sync and failover all the same
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 2, 5_000, 1_000);
        }
        MirrorEngine again = DrFixture.start(DrFixture.mirror(source, target, "mirror-k848", "k848\\..*", "k848-.*")
                .build());
        try (KafkaConsumer<byte[], byte[]> app = joined(source, group, topic, 2)) {
            commitAs(app, topic, Map.of(0, 5_600L, 1, 5_050L));
            awaitTargetOffsets(target, group, topic, Map.of(0, 5_600L, 1, 5_050L));
        } finally {
            DrFixture.stop(again);
        }
        failover(group);
        Map<Integer, Long> laterEnds = ends(source, topic, 2);
        DrFixture.Outcome second = outcome(
                readSubscribed(target, group, topic, laterEnds),
                topic,
                Map.of(0, 5_600L, 1, 5_050L),
                Map.of(),
                laterEnds);
        assertThat(second).isEqualTo(new DrFixture.Outcome(400 + 950, 0, 0, 0, 0));
    }

    @Test
    void aLiveMemberOfTheConsumerProtocolOnTheTargetKeepsItsGroupFromBeingMoved() throws Exception {
        // Given: the group's consumers already run on the target, with the new protocol, at offsets of their own
        String topic = "k848.live";
        String group = "k848-live";
        source.createTopic(topic, 2);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 2, 1_000);
        }
        DrFixture.commit(source, group, topic, Map.of(0, 100L, 1, 100L));
        MirrorEngine engine = DrFixture.start(DrFixture.mirror(source, target, "mirror-k848-live", "k848\\.live", group)
                .build());
        try {
            Await.until("every record copied", Duration.ofSeconds(90), () -> target.endOffsetSum(topic) == 2_000);
            try (KafkaConsumer<byte[], byte[]> live = joined(target, group, topic, 2)) {
                commitAs(live, topic, Map.of(0, 50L, 1, 50L));
                assertThat(typeOn(target, group)).isEqualTo(GroupType.CONSUMER);

                // When: the source group moves while the mirror syncs
                DrFixture.commit(source, group, topic, Map.of(0, 700L, 1, 700L));
                long rounds = engine.groupSync().groupMetrics().rounds();
                Await.until("three sync rounds", Duration.ofSeconds(60), () -> {
                    live.poll(Duration.ofMillis(50));
                    return engine.groupSync().groupMetrics().rounds() >= rounds + 3;
                });

                // Then: the sync leaves the live group alone, and failover --execute refuses it
                assertThat(engine.groupSync().lastRound().skippedActive()).isEqualTo(1);
                assertThat(target.committedOffsets(group, topic)).isEqualTo(Map.of(0, 50L, 1, 50L));
                try (FailoverPlanner planner = new FailoverPlanner(config(), Time.SYSTEM)) {
                    FailoverPlan plan = planner.plan(GroupFilter.of(group, null, "--groups", "--groups.exclude"));
                    assertThat(plan.groups())
                            .singleElement()
                            .satisfies(g -> assertThat(g.activeMembers()).isEqualTo(1));
                    assertThat(planner.execute(plan, false))
                            .singleElement()
                            .satisfies(r -> assertThat(r.outcome()).isEqualTo(FailoverPlanner.Outcome.REFUSED_ACTIVE));
                }
                assertThat(target.committedOffsets(group, topic)).isEqualTo(Map.of(0, 50L, 1, 50L));

                // And --force removes the member of the new protocol (idle, so it does not rejoin before the
                // offsets are written) and moves the group
                try (FailoverPlanner planner = new FailoverPlanner(config(), Time.SYSTEM)) {
                    FailoverPlan plan = planner.plan(GroupFilter.of(group, null, "--groups", "--groups.exclude"));
                    assertThat(planner.execute(plan, true))
                            .singleElement()
                            .satisfies(r ->
                                    assertThat(r.outcome()).as(r.message()).isEqualTo(FailoverPlanner.Outcome.MOVED));
                }
                assertThat(target.committedOffsets(group, topic)).isEqualTo(Map.of(0, 700L, 1, 700L));
            }
        } finally {
            DrFixture.stop(engine);
        }
    }
}
