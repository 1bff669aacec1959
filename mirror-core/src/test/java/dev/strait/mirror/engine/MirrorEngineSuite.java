package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

import dev.strait.mirror.config.MirrorSettings;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.mirror.config.TruncationPolicy;
import dev.strait.mirror.provenance.Provenance;
import dev.strait.mirror.testing.MirrorCheck;
import dev.strait.testkit.Await;
import dev.strait.testkit.LoadGenerator;
import dev.strait.testkit.TestCluster;
import dev.strait.testkit.TestProducer;
import dev.strait.testkit.TopicReader;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.Test;

/**
 * The engine in-process against a real source and target cluster, run once per cluster kind: Apache Kafka
 * 4.1.1 ({@link MirrorEngineOnKafkaIT}) and Strait's companion broker ({@link MirrorEngineOnCompanionIT}).
 */
abstract class MirrorEngineSuite {
    private final MirrorFixture fixture;
    private final TestCluster source;
    private final TestCluster target;

    MirrorEngineSuite(TestCluster.Kind kind) {
        this.fixture = new MirrorFixture(kind);
        this.source = fixture.source();
        this.target = fixture.target();
    }

    private MirrorSettings.Builder settings(String group, String include) {
        return fixture.settings(group, include);
    }

    private static MirrorEngine start(MirrorSettings settings) {
        return MirrorFixture.start(settings);
    }

    private static void stop(MirrorEngine engine) throws InterruptedException {
        MirrorFixture.stop(engine);
    }

    private void awaitTarget(String topic, long records) {
        fixture.awaitTarget(topic, records);
    }

    @Test
    void backlogOfThreeTopicsIsMirroredRecordForRecord() throws Exception {
        // Given: 3 topics x 4 partitions, 8,334 records per partition (100,008 in all)
        int perPartition = 8_334;
        List<String> topics = List.of("backlog.a", "backlog.b", "backlog.c");
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            for (String topic : topics) {
                source.createTopic(topic, 4);
                producer.produce(topic, 4, perPartition);
            }
        }

        // When
        MirrorEngine engine = start(settings("g-backlog", "backlog\\..*").numStreams(3).build());
        for (String topic : topics) {
            awaitTarget(topic, 4L * perPartition);
        }
        stop(engine);

        // Then
        assertThat(engine.state()).isEqualTo(MirrorEngine.State.STOPPED);
        for (String topic : topics) {
            MirrorCheck.Report report = MirrorCheck.compare(source, topic, target, topic);
            assertThat(report.sourceRecords()).isEqualTo(4L * perPartition);
            assertThat(report.targetRecords()).as(report.toString()).isEqualTo(4L * perPartition);
            assertThat(report.lost()).as(report.toString()).isZero();
            assertThat(report.duplicates()).as(report.toString()).isZero();
            assertThat(report.mismatched()).as(report.toString()).isZero();
            assertThat(report.unordered()).as(report.toString()).isZero();
            assertThat(report.digestsEqual()).as(report.toString()).isTrue();
            assertThat(source.committedOffsets("g-backlog", topic))
                .isEqualTo(Map.of(0, (long) perPartition, 1, (long) perPartition, 2, (long) perPartition,
                    3, (long) perPartition));
            // preserve mode: every record sits in the partition it came from
            Map<Integer, List<ConsumerRecord<byte[], byte[]>>> copy = TopicReader.readAll(target.bootstrapServers(), topic);
            copy.forEach((p, records) -> assertThat(records)
                .allSatisfy(r -> assertThat(Provenance.from(r.headers()).partition()).isEqualTo(p)));
        }
        assertThat(engine.metrics().recordsProduced()).isEqualTo(3L * 4 * perPartition);
    }

    @Test
    void topicCreatedWhileRunningIsMirrored() throws Exception {
        // Given: a running mirror and no matching topic yet
        MirrorEngine engine = start(settings("g-late", "late\\..*").numStreams(2).build());
        try {
            // When
            source.createTopic("late.one", 2);
            try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
                producer.produce("late.one", 2, 500);
            }

            // Then
            awaitTarget("late.one", 1000);
        } finally {
            stop(engine);
        }
        MirrorCheck.Report report = MirrorCheck.compare(source, "late.one", target, "late.one");
        assertThat(report.lost()).as(report.toString()).isZero();
        assertThat(report.duplicates()).as(report.toString()).isZero();
        assertThat(report.digestsEqual()).as(report.toString()).isTrue();
    }

    @Test
    void partitionsMovedByARebalanceAreCommittedFirstSoNothingIsCopiedTwice() throws Exception {
        // Given: a live load, one mirror process, then a second one joining the group, then the first leaving
        source.createTopic("rebal", 6);
        MirrorEngine first = start(settings("g-rebal", "rebal").numStreams(1).build());
        MirrorEngine second;
        try (LoadGenerator load = new LoadGenerator(source.bootstrapServers(), "rebal", 6, 3_000, 3_000)) {
            Await.until("mirroring has begun", Duration.ofSeconds(60), () -> target.endOffsetSum("rebal") > 1_000);

            // When
            second = start(settings("g-rebal", "rebal").numStreams(2).build());
            Await.until("more records mirrored after the join", Duration.ofSeconds(60),
                () -> target.endOffsetSum("rebal") > 8_000);
            stop(first);
            load.awaitDone(120);
        }
        awaitTarget("rebal", 18_000);
        stop(second);

        // Then
        MirrorCheck.Report report = MirrorCheck.compare(source, "rebal", target, "rebal");
        assertThat(report.lost()).as(report.toString()).isZero();
        assertThat(report.duplicates()).as(report.toString()).isZero();
        assertThat(report.unordered()).as(report.toString()).isZero();
    }

    @Test
    void truncatedSourceStopsTheMirrorAndSaysHowManyRecordsWereLost() throws Exception {
        // Given: 100 records mirrored and committed, then 100 more of which retention deletes 50 unmirrored
        String topic = "trunc.fail";
        truncatedTopic(topic, "g-trunc-fail");

        // When
        MirrorEngine engine = start(settings("g-trunc-fail", topic).build());
        boolean ended = engine.awaitTermination(Duration.ofSeconds(60));

        // Then
        assertThat(ended).as("the mirror stops by itself").isTrue();
        assertThat(engine.state()).isEqualTo(MirrorEngine.State.FAILED);
        assertThat(engine.failure().getMessage()).contains("50 records were deleted").contains(topic + "-0")
            .contains("skip-and-alert");
        assertThat(target.endOffsetSum(topic)).isEqualTo(100);
        assertThat(source.committedOffsets("g-trunc-fail", topic)).containsEntry(0, 100L);
    }

    @Test
    void truncatedSourceWithSkipAndAlertCountsTheLossAndGoesOn() throws Exception {
        // Given
        String topic = "trunc.skip";
        truncatedTopic(topic, "g-trunc-skip");

        // When
        MirrorEngine engine = start(settings("g-trunc-skip", topic).onSourceTruncation(TruncationPolicy.SKIP_AND_ALERT).build());
        awaitTarget(topic, 150);
        stop(engine);

        // Then
        assertThat(engine.state()).isEqualTo(MirrorEngine.State.STOPPED);
        assertThat(engine.metrics().sourceRecordsLost()).isEqualTo(50);
        MirrorCheck.Report report = MirrorCheck.compare(source, topic, target, topic);
        assertThat(report.lost()).as("only records the source still has are compared: " + report).isZero();
        assertThat(report.targetRecords()).isEqualTo(150);
    }

    private void truncatedTopic(String topic, String group) throws Exception {
        source.createTopic(topic, 1);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 1, 100);
            MirrorEngine engine = start(settings(group, topic).build());
            awaitTarget(topic, 100);
            stop(engine);
            producer.produce(topic, 1, 100, 100);
        }
        try (Admin admin = source.admin()) {
            admin.deleteRecords(Map.of(new TopicPartition(topic, 0), RecordsToDelete.beforeOffset(150)))
                .all().get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void recordsThatCameFromTheTargetAreNotSentBack() throws Exception {
        // Given: a source topic holding records that an opposite mirror copied from the target cluster
        String topic = "loop.a";
        source.createTopic(topic, 1);
        String targetId;
        try (Admin admin = target.admin()) {
            targetId = admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
        }
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            for (int i = 0; i < 20; i++) {
                RecordHeaders headers = new RecordHeaders();
                if (i % 2 == 0) {
                    headers.add(Provenance.HEADER, new Provenance(targetId, targetId, "loop.a", 0, i).encode());
                }
                producer.send(new ProducerRecord<>(topic, 0, null, ("k" + i).getBytes(StandardCharsets.UTF_8),
                    ("v" + i).getBytes(StandardCharsets.UTF_8), headers));
            }
        }

        // When
        MirrorEngine engine = start(settings("g-loop", topic).build());
        awaitTarget(topic, 10);
        Await.until("all 20 source records were read", Duration.ofSeconds(30),
            () -> engine.metrics().recordsConsumed() == 20);
        stop(engine);

        // Then
        List<ConsumerRecord<byte[], byte[]>> copied = TopicReader.readAll(target.bootstrapServers(), topic).get(0);
        assertThat(copied).hasSize(10);
        assertThat(copied).allSatisfy(r -> assertThat(Provenance.from(r.headers()).originCluster())
            .isEqualTo(engine.sourceClusterId()));
        assertThat(engine.metrics().registry().counter("strait.mirror.records-dropped-loop").getCount()).isEqualTo(10);
    }

    @Test
    void renamedTopicWithFewerTargetPartitionsKeepsEveryRecord() throws Exception {
        // Given: source has 4 partitions, the renamed target only 2
        source.createTopic("ren.x", 4);
        target.createTopic("dr.ren.x", 2);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce("ren.x", 4, 250);
        }

        // When
        MirrorEngine engine = start(settings("g-ren", "ren\\..*").renamer(TopicRenamer.of("dr.", null)).build());
        awaitTarget("dr.ren.x", 1000);
        stop(engine);

        // Then
        MirrorCheck.Report report = MirrorCheck.compare(source, "ren.x", target, "dr.ren.x");
        assertThat(report.lost()).as(report.toString()).isZero();
        assertThat(report.duplicates()).as(report.toString()).isZero();
        assertThat(report.mismatched()).as(report.toString()).isZero();
        assertThat(report.unordered()).as(report.toString()).isZero();
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> copy = TopicReader.readAll(target.bootstrapServers(), "dr.ren.x");
        assertThat(copy.get(0)).filteredOn(r -> Provenance.from(r.headers()).partition() == 0).hasSize(250);
        assertThat(copy.get(1)).filteredOn(r -> Provenance.from(r.headers()).partition() == 1).hasSize(250);
    }

    @Test
    void messageHandlerDropsAndMultipliesRecords() throws Exception {
        // Given: 100 records per partition; the handler drops offsets 0, 10, 20, ... and copies 1, 11, 21, ...
        source.createTopic("handled", 2);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce("handled", 2, 100);
        }
        dev.strait.mirror.handler.DropAndCopyHandler handler = new dev.strait.mirror.handler.DropAndCopyHandler();
        handler.configure("10");

        // When
        MirrorEngine engine = start(settings("g-handled", "handled").messageHandler(handler)
            .renamer(TopicRenamer.of("h.", null)).build());
        awaitTarget("h.handled", 180);
        awaitTarget("h.handled.copy", 20);
        stop(engine);

        // Then
        MirrorCheck.Report report = MirrorCheck.compare(source, "handled", target, "h.handled");
        assertThat(report.lost()).as(report.toString()).isEqualTo(20);
        assertThat(report.lostSamples()).allSatisfy(s -> assertThat(s).endsWith("0"));
        assertThat(report.duplicates()).isZero();
        assertThat(report.mismatched()).isZero();
        assertThat(TopicReader.count(TopicReader.readAll(target.bootstrapServers(), "h.handled.copy"))).isEqualTo(20);
        assertThat(engine.metrics().registry().counter("strait.mirror.records-dropped-handler").getCount()).isEqualTo(20);
    }

    @Test
    void recreatedSourceTopicIsMirroredFromItsStartNotSkipped() throws Exception {
        // Given: a running mirror that copied 300 records of a topic that is then deleted and re-created.
        // Kafka drops a deleted topic's committed offsets; the stream's position (300) may still be past the
        // new log end. Either way no record of the new topic may be skipped.
        String topic = "recreated";
        source.createTopic(topic, 1);
        MirrorEngine engine;
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 1, 300);
            engine = start(settings("g-recreated", topic).onSourceTruncation(TruncationPolicy.SKIP_AND_ALERT).build());
            awaitTarget(topic, 300);

            // When
            try (Admin admin = source.admin()) {
                admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
                Await.until("topic deleted", Duration.ofSeconds(30), () -> !topicExists(admin, topic));
            }
            source.createTopic(topic, 1);
            producer.produce(topic, 1, 40);
        }

        // Then
        awaitTarget(topic, 340);
        assertThat(engine.state()).isEqualTo(MirrorEngine.State.RUNNING);
        stop(engine);
        List<ConsumerRecord<byte[], byte[]>> copied = TopicReader.readAll(target.bootstrapServers(), topic).get(0);
        assertThat(copied).hasSize(340);
        MirrorCheck.Report report = MirrorCheck.compare(TopicReader.readAll(source.bootstrapServers(), topic), topic,
            Map.of(0, copied.subList(300, 340)));
        assertThat(report.lost()).as("every record of the new topic was copied: " + report).isZero();
        assertThat(report.mismatched()).as(report.toString()).isZero();
        assertThat(report.duplicates()).as(report.toString()).isZero();
    }

    private static boolean topicExists(Admin admin, String topic) {
        try {
            return admin.listTopics().names().get(10, TimeUnit.SECONDS).contains(topic);
        } catch (Exception e) {
            return true;
        }
    }

    @Test
    void activeActivePairCopiesEachRecordOnceAndNeverBack() throws Exception {
        // Given: the same topic on both clusters, written locally on each, and a mirror in each direction
        String topic = "aa.orders";
        source.createTopic(topic, 2);
        target.createTopic(topic, 2);
        MirrorSettings toTarget = settings("g-aa-forward", topic).build();
        Properties back = new Properties();
        back.put("bootstrap.servers", target.bootstrapServers());
        back.put("group.id", "g-aa-back");
        Properties backProducer = new Properties();
        backProducer.put("bootstrap.servers", source.bootstrapServers());
        MirrorSettings toSource = MirrorSettings.builder().consumerConfig(back).producerConfig(backProducer)
            .include(topic).offsetCommitIntervalMs(1000).build();
        MirrorEngine forward = start(toTarget);
        MirrorEngine backward = start(toSource);
        try {
            // When
            try (TestProducer a = new TestProducer(source.bootstrapServers());
                 TestProducer b = new TestProducer(target.bootstrapServers())) {
                a.produce(topic, 2, 50);
                b.produce(topic, 2, 50);
            }

            // Then: each side ends with its own 100 and the other's 100, and stays there
            Await.until("200 on each side", Duration.ofSeconds(60),
                () -> source.endOffsetSum(topic) == 200 && target.endOffsetSum(topic) == 200);
            Await.until("both mirrors read everything, including the copies they must drop",
                Duration.ofSeconds(30), () -> forward.metrics().recordsConsumed() == 200
                    && backward.metrics().recordsConsumed() == 200);
        } finally {
            stop(forward);
            stop(backward);
        }
        assertThat(source.endOffsetSum(topic)).isEqualTo(200);
        assertThat(target.endOffsetSum(topic)).isEqualTo(200);
        assertThat(forward.metrics().registry().counter("strait.mirror.records-dropped-loop").getCount()).isEqualTo(100);
        assertThat(backward.metrics().registry().counter("strait.mirror.records-dropped-loop").getCount()).isEqualTo(100);
    }
}
