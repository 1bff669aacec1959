package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.mirror.config.TruncationPolicy;
import dev.strait.mirror.provenance.Provenance;
import dev.strait.mirror.testing.MirrorCheck;
import dev.strait.testkit.LoadGenerator;
import dev.strait.testkit.TestCluster;
import dev.strait.testkit.TestProducer;
import dev.strait.testkit.TopicReader;
import dev.strait.time.Await;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
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

    private MirrorConfig.Builder settings(String group, String include) {
        return fixture.settings(group, include);
    }

    private static MirrorEngine start(MirrorConfig settings) {
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
        MirrorEngine engine =
                start(settings("g-backlog", "backlog\\..*").numStreams(3).build());
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
                    .isEqualTo(Map.of(0, (long) perPartition, 1, (long) perPartition, 2, (long) perPartition, 3, (long)
                            perPartition));
            // preserve mode: every record sits in the partition it came from
            Map<Integer, List<ConsumerRecord<byte[], byte[]>>> copy =
                    TopicReader.readAll(target.bootstrapServers(), topic);
            copy.forEach((p, records) -> assertThat(records)
                    .allSatisfy(r ->
                            assertThat(Provenance.from(r.headers()).partition()).isEqualTo(p)));
        }
        assertThat(engine.metrics().recordsProduced()).isEqualTo(3L * 4 * perPartition);
    }

    @Test
    void topicCreatedWhileRunningIsMirrored() throws Exception {
        // Given: a running mirror and no matching topic yet
        MirrorEngine engine =
                start(settings("g-late", "late\\..*").numStreams(2).build());
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
        // Given: a live load, one mirror process, then a second one joining the group, then the first leaving.
        // One stream each: two members joining at once make two rebalances back to back, and a commit of revoked
        // partitions that meets the second is refused by Kafka's client (RebalanceInProgressException, classic
        // protocol), so their records since the last commit are copied again, as the engine logs. This test is the
        // hand-over without that race; the first stopping in the middle of a rebalance is part of it (under load it
        // often is), and the stream completes the rebalance before its last commit.
        source.createTopic("rebal", 6);
        MirrorEngine first = start(settings("g-rebal", "rebal").numStreams(1).build());
        MirrorEngine second;
        try (LoadGenerator load = new LoadGenerator(source.bootstrapServers(), "rebal", 6, 3_000, 3_000)) {
            Await.until("mirroring has begun", Duration.ofSeconds(60), () -> target.endOffsetSum("rebal") > 1_000);

            // When
            second = start(settings("g-rebal", "rebal").numStreams(1).build());
            Await.until(
                    "more records mirrored after the join",
                    Duration.ofSeconds(60),
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
        assertThat(engine.failure().getMessage())
                .contains("50 records were deleted")
                .contains(topic + "-0")
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
        MirrorEngine engine = start(settings("g-trunc-skip", topic)
                .onSourceTruncation(TruncationPolicy.SKIP_AND_ALERT)
                .build());
        awaitTarget(topic, 150);
        stop(engine);

        // Then
        assertThat(engine.state()).isEqualTo(MirrorEngine.State.STOPPED);
        assertThat(engine.metrics().sourceRecordsLost()).isEqualTo(50);
        MirrorCheck.Report report = MirrorCheck.compare(source, topic, target, topic);
        assertThat(report.lost())
                .as("only records the source still has are compared: " + report)
                .isZero();
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
                    .all()
                    .get(30, TimeUnit.SECONDS);
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
                producer.send(new ProducerRecord<>(
                        topic,
                        0,
                        null,
                        ("k" + i).getBytes(StandardCharsets.UTF_8),
                        ("v" + i).getBytes(StandardCharsets.UTF_8),
                        headers));
            }
        }

        // When
        MirrorEngine engine = start(settings("g-loop", topic).build());
        awaitTarget(topic, 10);
        Await.until(
                "all 20 source records were read",
                Duration.ofSeconds(30),
                () -> engine.metrics().recordsConsumed() == 20);
        stop(engine);

        // Then
        List<ConsumerRecord<byte[], byte[]>> copied =
                TopicReader.readAll(target.bootstrapServers(), topic).get(0);
        assertThat(copied).hasSize(10);
        assertThat(copied)
                .allSatisfy(r ->
                        assertThat(Provenance.from(r.headers()).originCluster()).isEqualTo(engine.sourceClusterId()));
        assertThat(engine.metrics()
                        .registry()
                        .counter("strait.mirror.records-dropped-loop")
                        .getCount())
                .isEqualTo(10);
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
        MirrorEngine engine = start(settings("g-ren", "ren\\..*")
                .renamer(TopicRenamer.of("dr.", null))
                .build());
        awaitTarget("dr.ren.x", 1000);
        stop(engine);

        // Then
        MirrorCheck.Report report = MirrorCheck.compare(source, "ren.x", target, "dr.ren.x");
        assertThat(report.lost()).as(report.toString()).isZero();
        assertThat(report.duplicates()).as(report.toString()).isZero();
        assertThat(report.mismatched()).as(report.toString()).isZero();
        assertThat(report.unordered()).as(report.toString()).isZero();
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> copy =
                TopicReader.readAll(target.bootstrapServers(), "dr.ren.x");
        assertThat(copy.get(0))
                .filteredOn(r -> Provenance.from(r.headers()).partition() == 0)
                .hasSize(250);
        assertThat(copy.get(1))
                .filteredOn(r -> Provenance.from(r.headers()).partition() == 1)
                .hasSize(250);
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
        MirrorEngine engine = start(settings("g-handled", "handled")
                .messageHandler(handler)
                .renamer(TopicRenamer.of("h.", null))
                .build());
        awaitTarget("h.handled", 180);
        awaitTarget("h.handled.copy", 20);
        stop(engine);

        // Then
        MirrorCheck.Report report = MirrorCheck.compare(source, "handled", target, "h.handled");
        assertThat(report.lost()).as(report.toString()).isEqualTo(20);
        assertThat(report.lostSamples()).allSatisfy(s -> assertThat(s).endsWith("0"));
        assertThat(report.duplicates()).isZero();
        assertThat(report.mismatched()).isZero();
        assertThat(TopicReader.count(TopicReader.readAll(target.bootstrapServers(), "h.handled.copy")))
                .isEqualTo(20);
        assertThat(engine.metrics()
                        .registry()
                        .counter("strait.mirror.records-dropped-handler")
                        .getCount())
                .isEqualTo(20);
    }

    @Test
    void recreatedSourceTopicIsMirroredFromItsStartNotSkipped() throws Exception {
        // Given: a running mirror that copied 300 records of a topic that is then deleted and re-created.
        // Kafka drops a deleted topic's committed offsets; the stream's position (300) may still be past the
        // new log end. Either way no record of the new topic may be skipped.
        String topic = "recreated";
        source.createTopic(topic, 1);
        MirrorEngine engine;
        // The producer is closed before the delete: a producer that still knows the topic asks for its metadata
        // when it disappears, and a broker with auto.create.topics.enable (the default) re-creates it then, before
        // the test does (CI saw TopicExistsException).
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 1, 300);
        }
        engine = start(settings("g-recreated", topic)
                .onSourceTruncation(TruncationPolicy.SKIP_AND_ALERT)
                .build());
        awaitTarget(topic, 300);

        // When
        try (Admin admin = source.admin()) {
            admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
            Await.until("topic deleted", Duration.ofSeconds(30), () -> !topicExists(admin, topic));
        }
        source.createTopic(topic, 1);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 1, 40);
        }

        // Then
        awaitTarget(topic, 340);
        assertThat(engine.state()).isEqualTo(MirrorEngine.State.RUNNING);
        stop(engine);
        List<ConsumerRecord<byte[], byte[]>> copied =
                TopicReader.readAll(target.bootstrapServers(), topic).get(0);
        assertThat(copied).hasSize(340);
        MirrorCheck.Report report = MirrorCheck.compare(
                TopicReader.readAll(source.bootstrapServers(), topic), topic, Map.of(0, copied.subList(300, 340)));
        assertThat(report.lost())
                .as("every record of the new topic was copied: " + report)
                .isZero();
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
        MirrorConfig toTarget = settings("g-aa-forward", topic).build();
        Properties back = new Properties();
        back.put("bootstrap.servers", target.bootstrapServers());
        back.put("group.id", "g-aa-back");
        Properties backProducer = new Properties();
        backProducer.put("bootstrap.servers", source.bootstrapServers());
        MirrorConfig toSource = MirrorConfig.builder()
                .consumerConfig(back)
                .producerConfig(backProducer)
                .include(topic)
                .offsetCommitIntervalMs(1000)
                .build();
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
            Await.until(
                    "200 on each side",
                    Duration.ofSeconds(60),
                    () -> source.endOffsetSum(topic) == 200 && target.endOffsetSum(topic) == 200);
            Await.until(
                    "both mirrors read everything, including the copies they must drop",
                    Duration.ofSeconds(30),
                    () -> forward.metrics().recordsConsumed() == 200
                            && backward.metrics().recordsConsumed() == 200);
        } finally {
            stop(forward);
            stop(backward);
        }
        assertThat(source.endOffsetSum(topic)).isEqualTo(200);
        assertThat(target.endOffsetSum(topic)).isEqualTo(200);
        assertThat(forward.metrics()
                        .registry()
                        .counter("strait.mirror.records-dropped-loop")
                        .getCount())
                .isEqualTo(100);
        assertThat(backward.metrics()
                        .registry()
                        .counter("strait.mirror.records-dropped-loop")
                        .getCount())
                .isEqualTo(100);
    }

    private String clusterId(TestCluster cluster) throws Exception {
        try (Admin admin = cluster.admin()) {
            return admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
        }
    }

    /** The reverse mirror of an active-active pair: target to source, same topic names. */
    private MirrorConfig.Builder backwards(String group, String include) {
        Properties back = new Properties();
        back.put("bootstrap.servers", target.bootstrapServers());
        back.put("group.id", group);
        back.put("metadata.max.age.ms", "1000");
        Properties backProducer = new Properties();
        backProducer.put("bootstrap.servers", source.bootstrapServers());
        return MirrorConfig.builder()
                .consumerConfig(back)
                .producerConfig(backProducer)
                .include(include)
                .offsetCommitIntervalMs(1000);
    }

    @Test
    void anActiveActivePairWhoseHandlersBuildNewRecordsStillCopiesEachRecordOnceAndNeverBack() throws Exception {
        // Given: a mirror each way, both with a handler that builds a new record (no headers) for every input
        String topic = "aa.handled";
        source.createTopic(topic, 1);
        target.createTopic(topic, 1);
        MirrorEngine forward = start(settings("g-aah-forward", topic)
                .messageHandler(new HeaderlessHandler())
                .build());
        MirrorEngine backward = start(backwards("g-aah-back", topic)
                .messageHandler(new HeaderlessHandler())
                .build());
        try {
            // When
            try (TestProducer a = new TestProducer(source.bootstrapServers());
                    TestProducer b = new TestProducer(target.bootstrapServers())) {
                a.produce(topic, 1, 30);
                b.produce(topic, 1, 30);
            }

            // Then: each side holds its own 30 and the other's 30, and both mirrors read all 60 without copying back
            Await.until(
                    "60 on each side",
                    Duration.ofSeconds(60),
                    () -> source.endOffsetSum(topic) >= 60 && target.endOffsetSum(topic) >= 60);
            Await.until(
                    "both mirrors read all 60",
                    Duration.ofSeconds(30),
                    () -> forward.metrics().recordsConsumed() >= 60
                            && backward.metrics().recordsConsumed() >= 60);
            Await.until(
                    "both mirrors committed all 60",
                    Duration.ofSeconds(30),
                    () -> source.committedOffsets("g-aah-forward", topic).getOrDefault(0, 0L)
                                    == source.endOffsetSum(topic)
                            && target.committedOffsets("g-aah-back", topic).getOrDefault(0, 0L)
                                    == target.endOffsetSum(topic));
        } finally {
            stop(forward);
            stop(backward);
        }
        assertThat(source.endOffsetSum(topic)).as("no echo on the source").isEqualTo(60);
        assertThat(target.endOffsetSum(topic)).as("no echo on the target").isEqualTo(60);
        assertThat(TopicReader.readAll(target.bootstrapServers(), topic).get(0))
                .filteredOn(r -> Provenance.from(r.headers()) != null)
                .hasSize(30)
                .allSatisfy(r ->
                        assertThat(Provenance.from(r.headers()).originCluster()).isEqualTo(forward.sourceClusterId()));
    }

    @Test
    void aRecordAnApplicationOnTheTargetBuiltFromACopyIsMirroredBack() throws Exception {
        // Given: records copied to the target, and an application there (Kafka Streams-like) that writes a new
        // record for each into another topic, forwarding its input's headers, provenance included
        String in = "fwd.in";
        String out = "fwd.out";
        source.createTopic(in, 1);
        target.createTopic(out, 1);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(in, 1, 20);
        }
        MirrorEngine forward = start(settings("g-fwd-forward", "fwd\\.in").build());
        awaitTarget(in, 20);
        stop(forward);
        try (TestProducer app = new TestProducer(target.bootstrapServers())) {
            for (ConsumerRecord<byte[], byte[]> r :
                    TopicReader.readAll(target.bootstrapServers(), in).get(0)) {
                app.send(new ProducerRecord<>(
                        out,
                        0,
                        r.timestamp(),
                        r.key(),
                        ("enriched " + new String(r.value(), StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8),
                        r.headers()));
            }
        }

        // When: the reverse mirror copies the application's topic
        MirrorEngine backward = start(backwards("g-fwd-back", "fwd\\.out").build());
        Await.until(
                "the application's 20 records read",
                Duration.ofSeconds(60),
                () -> backward.metrics().recordsConsumed() == 20);
        Await.until("and copied", Duration.ofSeconds(30), () -> source.endOffsetSum(out) == 20);
        stop(backward);

        // Then: they are new records the source never held, so all 20 arrive, marked as the target's
        assertThat(backward.metrics()
                        .registry()
                        .counter("strait.mirror.records-dropped-loop")
                        .getCount())
                .isZero();
        List<ConsumerRecord<byte[], byte[]>> copies =
                TopicReader.readAll(source.bootstrapServers(), out).get(0);
        assertThat(copies).hasSize(20).allSatisfy(r -> {
            assertThat(Provenance.from(r.headers()).sourceCluster()).isEqualTo(clusterIdOf(target));
            assertThat(Provenance.from(r.headers()).topic()).isEqualTo(out);
        });
    }

    private String clusterIdOf(TestCluster cluster) {
        try {
            return clusterId(cluster);
        } catch (Exception e) {
            throw new IllegalStateException(e);
        }
    }

    @Test
    void withProvenanceHeadersOffAStaleHeaderFromUpstreamDoesNotSurvive() throws Exception {
        // Given: a source record carrying the provenance header of an earlier hop
        String topic = "prov.off";
        source.createTopic(topic, 1);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            RecordHeaders h = new RecordHeaders();
            h.add(
                    Provenance.HEADER,
                    new Provenance("upstream-cluster-id-000", "upstream-cluster-id-000", "x", 0, 7).encode());
            h.add("app", "kept".getBytes(StandardCharsets.UTF_8));
            producer.send(new ProducerRecord<>(
                    topic,
                    0,
                    1_700_000_000_000L,
                    "k".getBytes(StandardCharsets.UTF_8),
                    "v".getBytes(StandardCharsets.UTF_8),
                    h));
        }

        // When
        MirrorEngine engine =
                start(settings("g-prov-off", topic).provenanceHeaders(false).build());
        awaitTarget(topic, 1);
        stop(engine);

        // Then
        ConsumerRecord<byte[], byte[]> copy =
                TopicReader.readAll(target.bootstrapServers(), topic).get(0).get(0);
        assertThat(copy.headers().lastHeader(Provenance.HEADER))
                .as("no provenance header at all")
                .isNull();
        assertThat(new String(copy.headers().lastHeader("app").value(), StandardCharsets.UTF_8))
                .isEqualTo("kept");
    }

    @Test
    void aHandlerThatGivesTheInputsHeadersToSeveralOutputsGetsOneProvenanceOnEach() throws Exception {
        // Given: 10 source records whose headers carry the provenance of an earlier hop, as an application that
        // forwards its input's headers leaves it: the even ones came from a third cluster through this source, the
        // odd ones were built on the target from a copy of another topic and written here. The handler writes each
        // record twice, to the topic and to <topic>.copy, giving both outputs the input's headers, that
        // provenance included. (kafka-clients 4.1.1's ProducerRecord copies the headers it is given, so the two
        // outputs cannot share one header object; what the reuse does carry into every output is the forwarded
        // provenance, which must be replaced by this hop's, decided on the consumed record.)
        String topic = "shared.headers";
        String upstream = "upstream-cluster-id-000";
        String targetId = clusterIdOf(target);
        source.createTopic(topic, 1);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            for (int i = 0; i < 10; i++) {
                RecordHeaders h = new RecordHeaders();
                h.add("app", ("a-" + i).getBytes(StandardCharsets.UTF_8));
                h.add(
                        Provenance.HEADER,
                        (i % 2 == 0
                                        ? new Provenance(upstream, upstream, "orders", 3, 1_000 + i)
                                        : new Provenance(targetId, targetId, "orders.on.target", 2, 2_000 + i))
                                .encode());
                producer.send(new ProducerRecord<>(
                        topic,
                        0,
                        1_700_000_000_000L + i,
                        ("k-" + i).getBytes(StandardCharsets.UTF_8),
                        ("v-" + i).getBytes(StandardCharsets.UTF_8),
                        h));
            }
        }
        // When: the mirror runs, is stopped, and runs again over the same records (a restart re-reads them)
        String sourceId = null;
        for (String group : List.of("g-shared-1", "g-shared-2")) {
            MirrorEngine engine = start(settings(group, topic)
                    .messageHandler(new ReusingHeadersHandler())
                    .build());
            Await.until(
                    "10 records read by " + group,
                    Duration.ofSeconds(60),
                    () -> engine.metrics().recordsConsumed() == 10);
            stop(engine);
            assertThat(engine.state()).isEqualTo(MirrorEngine.State.STOPPED);
            sourceId = engine.sourceClusterId();
        }

        // Then: each target topic holds every source record once per run, in source order, and each copy carries
        // exactly one provenance header: this hop's (source cluster, topic, partition 0, the record's offset),
        // keeping the first cluster the upstream header named; the application's and the handler's headers once
        List<Provenance> expected = new java.util.ArrayList<>();
        for (int n = 0; n < 20; n++) {
            int i = n % 10;
            expected.add(new Provenance(i % 2 == 0 ? upstream : targetId, sourceId, topic, 0, i));
        }
        for (String t : List.of(topic, topic + ".copy")) {
            List<ConsumerRecord<byte[], byte[]>> copies =
                    TopicReader.readAll(target.bootstrapServers(), t).get(0);
            assertThat(copies.stream().map(r -> Provenance.from(r.headers())).toList())
                    .as("provenance of the copies on %s, two runs of 10, in source order", t)
                    .containsExactlyElementsOf(expected);
            for (int n = 0; n < 20; n++) {
                ConsumerRecord<byte[], byte[]> r = copies.get(n);
                int i = n % 10;
                assertThat(r.headers().headers(Provenance.HEADER))
                        .as("%s copy %d: provenance headers", t, n)
                        .hasSize(1);
                assertThat(r.headers().headers("app"))
                        .as("%s copy %d: app header", t, n)
                        .hasSize(1);
                assertThat(new String(r.headers().lastHeader("app").value(), StandardCharsets.UTF_8))
                        .isEqualTo("a-" + i);
                assertThat(r.headers().headers("seen"))
                        .as("%s copy %d: seen header", t, n)
                        .hasSize(1);
                assertThat(new String(r.value(), StandardCharsets.UTF_8)).isEqualTo("v-" + i);
            }
        }
    }

    /** A handler that builds a new record for each input, without headers (an enricher, say). */
    public static final class HeaderlessHandler implements dev.strait.mirror.handler.MessageHandler {
        @Override
        public List<ProducerRecord<byte[], byte[]>> handle(ConsumerRecord<byte[], byte[]> record) {
            return List.of(
                    new ProducerRecord<>(record.topic(), null, record.timestamp(), record.key(), record.value()));
        }
    }

    /** A handler that sends every record twice with the very same header object: the input's. */
    public static final class ReusingHeadersHandler implements dev.strait.mirror.handler.MessageHandler {
        @Override
        public List<ProducerRecord<byte[], byte[]>> handle(ConsumerRecord<byte[], byte[]> record) {
            org.apache.kafka.common.header.Headers shared = record.headers();
            shared.add("seen", new byte[] {1});
            return List.of(
                    new ProducerRecord<>(
                            record.topic(), null, record.timestamp(), record.key(), record.value(), shared),
                    new ProducerRecord<>(
                            record.topic() + ".copy", null, record.timestamp(), record.key(), record.value(), shared));
        }
    }
}
