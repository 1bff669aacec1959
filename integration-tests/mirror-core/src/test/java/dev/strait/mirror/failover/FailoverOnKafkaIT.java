package dev.strait.mirror.failover;

import static dev.strait.mirror.failover.DrFixture.awaitTargetOffsets;
import static dev.strait.mirror.failover.DrFixture.commit;
import static dev.strait.mirror.failover.DrFixture.ends;
import static dev.strait.mirror.failover.DrFixture.outcome;
import static dev.strait.mirror.failover.DrFixture.prefill;
import static dev.strait.mirror.failover.DrFixture.readAsGroup;
import static dev.strait.mirror.failover.DrFixture.shifted;
import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.config.PartitionMode;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.TestProducer;
import dev.strait.time.Await;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Consumer groups fail over from a source to a target Apache Kafka 4.1.1 cluster and read exactly what they had
 * not consumed: the mirror's continuous group offset sync, then {@code strait failover}'s planner and executor,
 * the last time with the source stopped. The clusters are this class's own (the last tests stop the source).
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class FailoverOnKafkaIT {
    private static final int PER_PARTITION = 12_000;
    /**
     * Records of the target's own in each topic before the mirror first copies into it, a different number per
     * partition: a copy's target offset is then its source offset plus its partition's fill, so a translation that
     * handed back the source offset, or another partition's, would put the groups at the wrong place.
     */
    private static final Map<Integer, Integer> LAG_FILL = Map.of(0, 700, 1, 1_300);

    private static final Map<Integer, Integer> REN_FILL = Map.of(0, 400, 1, 900);
    private static final Map<Integer, Integer> HASH_FILL = Map.of(0, 250, 1, 0, 2, 600);
    private static KafkaCluster source;
    private static KafkaCluster target;

    @BeforeAll
    static void clusters() {
        source = KafkaCluster.start("dr-source", 1);
        target = KafkaCluster.start("dr-target", 1);
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

    private static FailoverConfig config(String prefix) {
        return DrFixture.failoverConfig(source, target, prefix);
    }

    private static FailoverPlan plan(String prefix, String groups) {
        try (FailoverPlanner planner = new FailoverPlanner(config(prefix), Time.SYSTEM)) {
            return planner.plan(GroupFilter.of(groups, null, "--groups", "--groups.exclude"));
        }
    }

    @Test
    @Order(1)
    void groupsAtDifferentLagsResumeExactlyWhereTheyStopped() throws Exception {
        // Given: 2 x 12,000 records, a group caught up, one 10,000 behind on each partition, one that never
        // committed on partition 1
        String topic = "lag.orders";
        source.createTopic(topic, 2);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 2, PER_PARTITION);
        }
        long end = PER_PARTITION;
        commit(source, "g-caught-up", topic, Map.of(0, end, 1, end));
        commit(source, "g-behind", topic, Map.of(0, end - 10_000, 1, end - 10_000));
        commit(source, "g-partial", topic, Map.of(0, 5_000L));
        prefill(target, topic, LAG_FILL);

        // When: the mirror runs with group sync
        MirrorEngine engine = DrFixture.start(DrFixture.mirror(source, target, "mirror-lag", "lag\\..*", "g-.*")
                .build());
        try {
            awaitTargetOffsets(target, "g-caught-up", topic, shifted(Map.of(0, end, 1, end), LAG_FILL));
            awaitTargetOffsets(target, "g-behind", topic, shifted(Map.of(0, end - 10_000, 1, end - 10_000), LAG_FILL));
            awaitTargetOffsets(target, "g-partial", topic, shifted(Map.of(0, 5_000L), LAG_FILL));

            // The sync follows a group that moves on the source.
            commit(source, "g-behind", topic, Map.of(0, 6_000L, 1, 7_000L));
            awaitTargetOffsets(target, "g-behind", topic, shifted(Map.of(0, 6_000L, 1, 7_000L), LAG_FILL));
        } finally {
            DrFixture.stop(engine);
        }

        // Then: each group reads on the target exactly the records it had not consumed
        Map<Integer, Long> ends = ends(source, topic, 2);
        DrFixture.Outcome caughtUp = outcome(
                readAsGroup(target, "g-caught-up", topic, "none"), topic, Map.of(0, end, 1, end), Map.of(), ends);
        assertThat(caughtUp).isEqualTo(new DrFixture.Outcome(0, 0, 0, 0, 0));
        DrFixture.Outcome behind = outcome(
                readAsGroup(target, "g-behind", topic, "none"), topic, Map.of(0, 6_000L, 1, 7_000L), Map.of(), ends);
        assertThat(behind).isEqualTo(new DrFixture.Outcome(2 * end - 13_000, 0, 0, 0, 0));
        DrFixture.Outcome partial = outcome(
                readAsGroup(target, "g-partial", topic, "earliest"), topic, Map.of(0, 5_000L), Map.of(1, 0L), ends);
        // (without a committed offset on partition 1 it reads that partition from its first record, the target's
        // own records included)
        assertThat(partial)
                .isEqualTo(new DrFixture.Outcome(2 * end - 5_000 + LAG_FILL.get(1), 0, 0, 0, LAG_FILL.get(1)));

        // And the failover planner agrees: exact, nothing read again, nothing missing on the target
        FailoverPlan plan = plan(null, "g-(caught-up|behind|partial)");
        assertThat(plan.sourceReachable()).isTrue();
        assertThat(plan.groups())
                .extracting(FailoverPlan.GroupPlan::group)
                .containsExactly("g-behind", "g-caught-up", "g-partial");
        for (FailoverPlan.GroupPlan g : plan.groups()) {
            assertThat(g.problem()).isNull();
            for (FailoverPlan.PartitionPlan p : g.partitions()) {
                assertThat(p.exact()).as(g.group() + " " + p.target()).isTrue();
                assertThat(p.readAgain()).isZero();
                assertThat(p.offset()).as(g.group() + " " + p.target()).isEqualTo(p.currentOffset());
                assertThat(p.sources())
                        .singleElement()
                        .satisfies(s -> assertThat(s.notOnTarget()).isZero());
            }
        }
    }

    @Test
    @Order(2)
    void aGroupActiveOnTheTargetIsLeftAlone() throws Exception {
        String topic = "lag.orders";
        commit(source, "g-active", topic, Map.of(0, 100L, 1, 100L));
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, target.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, "g-active");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "10");
        try (KafkaConsumer<byte[], byte[]> live =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            // Given: a consumer of the group running on the target, at offsets of its own
            live.subscribe(List.of(topic));
            Await.until("the target consumer joins", Duration.ofSeconds(60), () -> {
                live.poll(Duration.ofMillis(100));
                return live.assignment().size() == 2;
            });
            live.commitSync(Map.of(
                    new TopicPartition(topic, 0),
                    new OffsetAndMetadata(50),
                    new TopicPartition(topic, 1),
                    new OffsetAndMetadata(50)));
            MirrorEngine engine = DrFixture.start(DrFixture.mirror(source, target, "mirror-lag", "lag\\..*", "g-active")
                    .build());
            try {
                // When: the source group moves while the mirror syncs
                commit(source, "g-active", topic, Map.of(0, 3_000L, 1, 3_000L));
                long rounds = engine.groupSync().groupMetrics().rounds();
                Await.until("three sync rounds", Duration.ofSeconds(60), () -> {
                    live.poll(Duration.ofMillis(50));
                    return engine.groupSync().groupMetrics().rounds() >= rounds + 3;
                });
                // Then: the live consumer's offsets are untouched
                assertThat(engine.groupSync().lastRound().skippedActive()).isEqualTo(1);
            } finally {
                DrFixture.stop(engine);
            }
            assertThat(target.committedOffsets("g-active", topic)).isEqualTo(Map.of(0, 50L, 1, 50L));

            // And failover --execute refuses it (exit 1 in the command), leaving it alone
            try (FailoverPlanner planner = new FailoverPlanner(config(null), Time.SYSTEM)) {
                FailoverPlan plan = planner.plan(GroupFilter.of("g-active", null, "--groups", "--groups.exclude"));
                assertThat(plan.groups())
                        .singleElement()
                        .satisfies(g -> assertThat(g.activeMembers()).isEqualTo(1));
                List<FailoverPlanner.GroupResult> results = planner.execute(plan, false);
                assertThat(results)
                        .singleElement()
                        .satisfies(r -> assertThat(r.outcome()).isEqualTo(FailoverPlanner.Outcome.REFUSED_ACTIVE));
            }
            assertThat(target.committedOffsets("g-active", topic)).isEqualTo(Map.of(0, 50L, 1, 50L));
        }
    }

    @Test
    @Order(3)
    void throughARenameTheGroupResumesOnTheRenamedTopic() throws Exception {
        String topic = "ren.orders";
        source.createTopic(topic, 2);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 2, 3_000);
        }
        commit(source, "g-ren", topic, Map.of(0, 1_234L, 1, 2_500L));
        prefill(target, "dc1." + topic, REN_FILL);
        MirrorEngine engine = DrFixture.start(DrFixture.mirror(source, target, "mirror-ren", "ren\\..*", "g-ren")
                .renamer(TopicRenamer.of("dc1.", null))
                .build());
        try {
            awaitTargetOffsets(target, "g-ren", "dc1." + topic, shifted(Map.of(0, 1_234L, 1, 2_500L), REN_FILL));
        } finally {
            DrFixture.stop(engine);
        }
        DrFixture.Outcome o = outcome(
                readAsGroup(target, "g-ren", "dc1." + topic, "none"),
                topic,
                Map.of(0, 1_234L, 1, 2_500L),
                Map.of(),
                ends(source, topic, 2));
        assertThat(o).isEqualTo(new DrFixture.Outcome(6_000 - 1_234 - 2_500, 0, 0, 0, 0));
        FailoverPlan plan = plan("dc1.", "g-ren");
        assertThat(plan.groups())
                .singleElement()
                .satisfies(g -> assertThat(g.partitions())
                        .allSatisfy(p -> assertThat(p.exact()).isTrue()));
    }

    @Test
    @Order(4)
    void inHashModeNothingIsSkippedAndWhatIsReadAgainIsCountedExactly() throws Exception {
        // Given: 3 source partitions whose records spread over 3 target partitions by key hash
        String topic = "hash.orders";
        source.createTopic(topic, 3);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 3, 2_000);
        }
        commit(source, "g-hash-done", topic, Map.of(0, 2_000L, 1, 2_000L, 2, 2_000L));
        commit(source, "g-hash-lag", topic, Map.of(0, 500L, 1, 1_500L, 2, 1_000L));
        prefill(target, topic, HASH_FILL);
        long filled = HASH_FILL.values().stream().mapToLong(Integer::longValue).sum();
        MirrorEngine engine = DrFixture.start(DrFixture.mirror(source, target, "mirror-hash", "hash\\..*", "g-hash-.*")
                .partitionMode(PartitionMode.HASH)
                .build());
        try {
            Await.until(
                    "every record copied", Duration.ofSeconds(90), () -> target.endOffsetSum(topic) == filled + 6_000);
            long rounds = engine.groupSync().groupMetrics().rounds();
            Await.until(
                    "two sync rounds after the copy",
                    Duration.ofSeconds(60),
                    () -> engine.groupSync().groupMetrics().rounds() >= rounds + 2);
            assertThat(target.committedOffsets("g-hash-done", topic)).hasSize(3);
            assertThat(target.committedOffsets("g-hash-lag", topic)).hasSize(3);
        } finally {
            DrFixture.stop(engine);
        }
        Map<Integer, Long> ends = ends(source, topic, 3);
        // A caught-up group: exact
        assertThat(outcome(
                        readAsGroup(target, "g-hash-done", topic, "none"),
                        topic,
                        Map.of(0, 2_000L, 1, 2_000L, 2, 2_000L),
                        Map.of(),
                        ends))
                .isEqualTo(new DrFixture.Outcome(0, 0, 0, 0, 0));
        // A lagging one: nothing skipped, and the planner names exactly what is read again
        DrFixture.Outcome lag = outcome(
                readAsGroup(target, "g-hash-lag", topic, "none"),
                topic,
                Map.of(0, 500L, 1, 1_500L, 2, 1_000L),
                Map.of(),
                ends);
        assertThat(lag.skipped()).isZero();
        assertThat(lag.duplicates()).isZero();
        assertThat(lag.foreign())
                .as("records of the target's own read by a group that had committed")
                .isZero();
        FailoverPlan plan = plan(null, "g-hash-lag");
        long predicted = plan.groups().get(0).readAgain();
        // Source partitions at different positions interleave in each target partition: some records come again.
        assertThat(predicted).isPositive();
        assertThat(lag.readAgain()).isEqualTo(predicted);
        assertThat(lag.read()).isEqualTo(6_000 - 500 - 1_500 - 1_000 + predicted);
    }

    @Test
    @Order(5)
    void withTheSourceStoppedFailoverMovesTheGroupsFromTheCheckpoints() throws Exception {
        // Given: a group the mirror synced, then the source moves it once more and the mirror saw that too
        String topic = "lag.orders";
        commit(source, "g-dark", topic, Map.of(0, 4_000L, 1, 9_000L));
        MirrorEngine engine = DrFixture.start(DrFixture.mirror(source, target, "mirror-lag", "lag\\..*", "g-dark")
                .build());
        try {
            awaitTargetOffsets(target, "g-dark", topic, shifted(Map.of(0, 4_000L, 1, 9_000L), LAG_FILL));
            // A consumer on the target moved the group away since (e.g. a drill); failover puts it back.
            commit(target, "g-dark", topic, Map.of(0, 11_000L, 1, 11_000L));
        } finally {
            DrFixture.stop(engine);
        }
        Map<Integer, Long> ends = ends(source, topic, 2);

        // When: the source is lost and failover runs
        source.stopAll();
        FailoverPlan plan;
        try (FailoverPlanner planner = new FailoverPlanner(config(null), Time.SYSTEM)) {
            assertThat(planner.sourceReachable()).isFalse();
            plan = planner.plan(GroupFilter.of("g-dark", null, "--groups", "--groups.exclude"));
            assertThat(plan.groups()).singleElement().satisfies(g -> {
                assertThat(g.partitions())
                        .extracting(FailoverPlan.PartitionPlan::offset)
                        .containsExactly(4_000L + LAG_FILL.get(0), 9_000L + LAG_FILL.get(1));
                assertThat(g.partitions()).allSatisfy(p -> assertThat(p.exact()).isTrue());
            });
            assertThat(planner.execute(plan, false))
                    .singleElement()
                    .satisfies(r -> assertThat(r.outcome()).isEqualTo(FailoverPlanner.Outcome.MOVED));
        }

        // Then
        List<ConsumerRecord<byte[], byte[]>> read = readAsGroup(target, "g-dark", topic, "none");
        assertThat(outcome(read, topic, Map.of(0, 4_000L, 1, 9_000L), Map.of(), ends))
                .isEqualTo(new DrFixture.Outcome(2 * PER_PARTITION - 13_000, 0, 0, 0, 0));
    }

    @Test
    @Order(6)
    void failbackCopiesBackOnlyWhatWasWrittenOnTheTargetAndMovesTheGroupBack() throws Exception {
        // Given: after the failover, applications wrote 300 records per partition on the target and the group read
        // all old records and 100 new ones on partition 0, and up to 10,000 on partition 1
        String topic = "lag.orders";
        try (TestProducer producer = new TestProducer(target.bootstrapServers())) {
            producer.produce(topic, 2, 100_000, 300);
        }
        commit(target, "g-dark", topic, shifted(Map.of(0, PER_PARTITION + 100L, 1, 10_000L), LAG_FILL));
        // The source comes back with 40 records on partition 0 that never reached the target.
        source.restartAll();
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            for (int i = 0; i < 40; i++) {
                producer.send(TestProducer.record(topic, 0, 200_000 + i, 1_700_000_000_000L + i, 64));
            }
        }

        // When: the first run copies back but refuses to move the group (a consumer of it is up on the source)
        GroupFilter filter = GroupFilter.of("g-dark", null, "--groups", "--groups.exclude");
        try (KafkaConsumer<byte[], byte[]> member = memberOnSource("g-dark", topic);
                Failback failback = new Failback(config(null), Time.SYSTEM)) {
            FailbackPlan plan = failback.plan(filter);
            assertThat(plan.topics()).singleElement().satisfies(t -> {
                assertThat(t.targetTopic()).isEqualTo(topic);
                assertThat(t.failoverTimeMs()).isPositive();
                assertThat(t.partitions())
                        .extracting(FailbackPlan.PartitionBack::failoverOffset)
                        .as("target offsets where the failover started")
                        .containsExactly(
                                (long) PER_PARTITION + LAG_FILL.get(0), (long) PER_PARTITION + LAG_FILL.get(1));
                assertThat(t.partitions())
                        .extracting(FailbackPlan.PartitionBack::divergent)
                        .containsExactly(40L, 0L);
            });
            FailbackPlan refused = failback.execute(plan, filter, false, Duration.ofMinutes(3));
            assertThat(refused.groups())
                    .singleElement()
                    .satisfies(g -> assertThat(g.outcome()).startsWith("refused"));
        }
        // then, the consumer stopped, it runs again, and once more after it completed: each re-run goes on from
        // what is already on the source, so nothing is copied twice and the group ends at the same offsets
        for (int run = 2; run <= 3; run++) {
            FailbackPlan done;
            try (Failback failback = new Failback(config(null), Time.SYSTEM)) {
                done = failback.execute(failback.plan(filter), filter, false, Duration.ofMinutes(3));
            }

            // Then: the source holds its records, the 40 divergent ones, then the 300 written on the target, once
            // each and in order
            Map<Integer, List<ConsumerRecord<byte[], byte[]>>> back =
                    dev.strait.testkit.TopicReader.readAll(source.bootstrapServers(), topic);
            assertThat(back.get(0).size())
                    .as("records on partition 0 after failback run %d", run)
                    .isEqualTo(PER_PARTITION + 40 + 300);
            assertThat(back.get(1).size())
                    .as("records on partition 1 after failback run %d", run)
                    .isEqualTo(PER_PARTITION + 300);
            for (int p = 0; p < 2; p++) {
                List<ConsumerRecord<byte[], byte[]>> tail = back.get(p)
                        .subList(back.get(p).size() - 300, back.get(p).size());
                for (int i = 0; i < 300; i++) {
                    dev.strait.mirror.provenance.Provenance prov = dev.strait.mirror.provenance.Provenance.from(
                            tail.get(i).headers());
                    assertThat(prov.originCluster()).isEqualTo(target.clusterId());
                    assertThat(prov.offset())
                            .as("target offset of copy %d back on partition %d", i, p)
                            .isEqualTo(LAG_FILL.get(p) + PER_PARTITION + i);
                }
            }
            // (the third run has no failover point left, so every topic of the offset map is a candidate)
            assertThat(done.topics())
                    .filteredOn(t -> t.targetTopic().equals(topic))
                    .singleElement()
                    .satisfies(t -> assertThat(t.partitions())
                            .extracting(FailbackPlan.PartitionBack::copied)
                            .as("copied back of this failover, earlier runs included")
                            .containsExactly(300L, 300L));
            assertThat(done.groups()).singleElement().satisfies(g -> {
                assertThat(g.outcome()).isEqualTo("moved");
                assertThat(g.partitions())
                        .extracting(FailbackPlan.PartitionGroupBack::sourceOffset)
                        .containsExactly((long) PER_PARTITION, 10_000L);
                // it never read the 40 divergent records, so it starts at them and reads the copies of the 100 it
                // read on the target again (issue 21: it used to start after those copies, skipping the 40)
                assertThat(g.partitions())
                        .extracting(FailbackPlan.PartitionGroupBack::readAgain)
                        .containsExactly(100L, 0L);
            });
            assertThat(source.committedOffsets("g-dark", topic)).isEqualTo(Map.of(0, (long) PER_PARTITION, 1, 10_000L));
        }
        // and what it reads there is exactly what it had not read on the target
        List<ConsumerRecord<byte[], byte[]>> read = readAsGroup(source, "g-dark", topic, "none");
        // partition 0: the 40 divergent records and the 300 copies written back (100 of them read again)
        assertThat(read).hasSize(340 + 2_000 + 300);
    }

    /** A member of {@code group} on the source, joined (it has its assignment) and idle; close it to leave. */
    private static KafkaConsumer<byte[], byte[]> memberOnSource(String group, String topic) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, source.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "1");
        KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        consumer.subscribe(List.of(topic));
        Await.until("a member of " + group + " joins on the source", Duration.ofSeconds(60), () -> {
            consumer.poll(Duration.ofMillis(200));
            return !consumer.assignment().isEmpty();
        });
        return consumer;
    }
}
