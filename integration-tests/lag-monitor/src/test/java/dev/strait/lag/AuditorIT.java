package dev.strait.lag;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.strait.lag.audit.AuditReport;
import dev.strait.lag.audit.AuditReport.Kind;
import dev.strait.lag.audit.Auditor;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.config.PartitionMode;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.provenance.Provenance;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.SharedClusters;
import dev.strait.testkit.TestProducer;
import dev.strait.testkit.TopicReader;
import dev.strait.time.Await;
import dev.strait.time.Time;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The count/checksum audit against real clusters: what it finds, named by source offset. */
class AuditorIT {
    private static KafkaCluster source;
    private static KafkaCluster target;

    @BeforeAll
    static void clusters() {
        source = SharedClusters.source();
        target = SharedClusters.target();
    }

    private static Properties client(KafkaCluster c) {
        Properties p = new Properties();
        p.put("bootstrap.servers", c.bootstrapServers());
        return p;
    }

    @Test
    void findsARecordTheMirrorDroppedAndOneItCopiedTwice() throws Exception {
        // Given: a mirror whose handler drops 0@17 and repeats 0@23
        String topic = "audit.handled";
        source.createTopic(topic, 2);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 2, 100);
        }
        Properties c = client(source);
        c.put("group.id", "g-audit");
        MirrorEngine engine = new MirrorEngine(
                MirrorConfig.builder()
                        .consumerConfig(c)
                        .producerConfig(client(target))
                        .include(topic)
                        .offsetCommitIntervalMs(500)
                        .messageHandler(new DropAndRepeatHandler())
                        .build(),
                new MirrorMetrics(new MetricRegistry()),
                Time.SYSTEM);
        engine.start();
        Await.until("mirrored", Duration.ofSeconds(60), () -> target.endOffsetSum(topic) == 200);
        engine.requestStop();
        engine.awaitTermination(Duration.ofSeconds(60));

        // When
        AuditReport report;
        try (Auditor auditor = new Auditor(client(source), client(target), TopicRenamer.identity(), Time.SYSTEM)) {
            report = auditor.audit(topic, Map.of(0, new long[] {0, 100}, 1, new long[] {0, 100}));
        }

        // Then
        assertThat(report.clean()).isFalse();
        assertThat(report.findings())
                .extracting(f -> f.kind() + " " + f.partition() + "@" + f.sourceOffset())
                .containsExactlyInAnyOrder("MISSING 0@17", "DUPLICATED 0@23");
        assertThat(report.partitions().get(1).findings()).isEmpty();
        assertThat(report.partitions().get(1).digestsEqual()).isTrue();
        assertThat(report.partitions().get(0).digestsEqual()).isFalse();
        assertThat(report.table(20)).contains("MISSING audit.handled-0@17").contains("audit: 2 findings");
    }

    @Test
    void givenTheMirrorsHandlerTheAuditExpectsWhatItWritesAndStillFindsALoss() throws Exception {
        // Given: a mirror whose handler drops every fifth record, splits every seventh in two and rewrites the
        // rest; run with lose=43, it also drops 0@43, which the plain handler keeps
        String topic = "audit.filtered";
        source.createTopic(topic, 2);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 2, 100);
        }
        FilterAndSplitHandler lossy = new FilterAndSplitHandler();
        lossy.configure("lose=43");
        mirror(topic, "g-audit-filtered", MirrorConfig.builder().messageHandler(lossy));
        FilterAndSplitHandler handler = new FilterAndSplitHandler();
        handler.configure(null);
        Map<Integer, long[]> ranges = Map.of(0, new long[] {0, 100}, 1, new long[] {0, 100});

        // When: audited with the mirror's handler, and without it
        AuditReport withHandler;
        AuditReport without;
        try (Auditor auditor =
                new Auditor(client(source), client(target), TopicRenamer.identity(), handler, Time.SYSTEM)) {
            withHandler = auditor.audit(topic, ranges);
        }
        try (Auditor auditor = new Auditor(client(source), client(target), TopicRenamer.identity(), Time.SYSTEM)) {
            without = auditor.audit(topic, ranges);
        }

        // Then: with the handler, its drops are not findings, its two outputs are not duplicates, its rewrites are
        // not alterations, and the one record the mirror lost is the one finding
        assertThat(withHandler.findings())
                .as(withHandler.table(20))
                .extracting(f -> f.kind() + " " + f.partition() + "@" + f.sourceOffset())
                .containsExactly("MISSING 0@43");
        for (AuditReport.PartitionAudit pa : withHandler.partitions()) {
            assertThat(pa.droppedByHandler()).as("offsets 0, 5, ..., 95").isEqualTo(20);
            assertThat(pa.count(Kind.DUPLICATED)).isZero();
        }
        assertThat(withHandler.partitions().get(1).digestsEqual()).isTrue();
        assertThat(withHandler.table(20)).contains("40 dropped by the message handler");
        // Without it (as before the audit knew the handler), every handled record looks altered or missing
        assertThat(without.partitions().get(1).count(Kind.MISSING)).isEqualTo(20);
        assertThat(without.partitions().get(1).count(Kind.ALTERED)).isEqualTo(80);
    }

    @Test
    void hashModeCopiesSpreadOverTargetPartitionsAreNotReordered() throws Exception {
        // Given: in hash mode each source partition's records spread over both target partitions by key
        String topic = "audit.hashed";
        source.createTopic(topic, 2);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 2, 200);
        }
        mirror(topic, "g-audit-hashed", MirrorConfig.builder().partitionMode(PartitionMode.HASH));
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> onTarget =
                TopicReader.readAll(target.bootstrapServers(), topic);
        assertThat(onTarget.get(0))
                .extracting(r -> Provenance.from(r.headers()).partition())
                .as("the precondition: target partition 0 holds copies of both source partitions")
                .contains(0, 1);

        // When
        AuditReport report;
        try (Auditor auditor = new Auditor(client(source), client(target), TopicRenamer.identity(), Time.SYSTEM)) {
            report = auditor.audit(topic, Map.of(0, new long[] {0, 200}, 1, new long[] {0, 200}));
        }

        // Then
        assertThat(report.findings()).as(report.table(20)).isEmpty();
        assertThat(report.partitions()).allMatch(AuditReport.PartitionAudit::digestsEqual);
    }

    /** Mirrors {@code topic} with {@code settings} until the target holds what the source committed, then stops. */
    private static void mirror(String topic, String group, MirrorConfig.Builder settings) throws Exception {
        Properties c = client(source);
        c.put("group.id", group);
        MirrorEngine engine = new MirrorEngine(
                settings.consumerConfig(c)
                        .producerConfig(client(target))
                        .include(topic)
                        .offsetCommitIntervalMs(500)
                        .build(),
                new MirrorMetrics(new MetricRegistry()),
                Time.SYSTEM);
        engine.start();
        long end = source.endOffsetSum(topic);
        Await.until(
                "mirrored and committed",
                Duration.ofSeconds(60),
                () -> source.committedOffsets(group, topic).values().stream()
                                .mapToLong(Long::longValue)
                                .sum()
                        == end);
        engine.requestStop();
        engine.awaitTermination(Duration.ofSeconds(60));
    }

    @Test
    void findsReorderedAndAlteredRecords() throws Exception {
        // Given: a target written by hand from the source records, in the order 0 1 3 2 4 and with 4 altered
        String topic = "audit.order";
        source.createTopic(topic, 1);
        target.createTopic(topic, 1);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 1, 5);
        }
        String sourceId;
        try (Admin admin = source.admin()) {
            sourceId = admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
        }
        List<ConsumerRecord<byte[], byte[]>> records =
                TopicReader.readAll(source.bootstrapServers(), topic).get(0);
        try (TestProducer producer = new TestProducer(target.bootstrapServers())) {
            for (int i : new int[] {0, 1, 3, 2, 4}) {
                ConsumerRecord<byte[], byte[]> r = records.get(i);
                RecordHeaders h = new RecordHeaders(r.headers().toArray());
                h.add(Provenance.HEADER, new Provenance(sourceId, sourceId, topic, 0, r.offset()).encode());
                byte[] value = i == 4 ? "altered".getBytes(StandardCharsets.UTF_8) : r.value();
                producer.send(new ProducerRecord<>(topic, 0, r.timestamp(), r.key(), value, h));
            }
        }

        // When
        AuditReport report;
        try (Auditor auditor = new Auditor(client(source), client(target), TopicRenamer.identity(), Time.SYSTEM)) {
            report = auditor.audit(topic, Map.of(0, new long[] {0, 5}));
        }

        // Then
        assertThat(report.findings())
                .extracting(f -> f.kind() + "@" + f.sourceOffset())
                .containsExactlyInAnyOrder("REORDERED@2", "ALTERED@4");
        assertThat(report.partitions().get(0).count(Kind.MISSING)).isZero();
    }

    @Test
    void theAuditHoldsTheMirrorToWhatItPromisesNoMore() throws Exception {
        // Given: a source topic with a committed and an aborted transaction, a record that is a copy of one of the
        // target's own records (loop prevention drops it), and plain records; a LogAppendTime target topic (it
        // stamps its own timestamps); a copy from another source cluster naming one of the source's offsets
        String topic = "audit.promise";
        source.createTopic(topic, 1);
        target.createTopic(topic, 1, Map.of("message.timestamp.type", "LogAppendTime"));
        String targetId;
        try (Admin admin = target.admin()) {
            targetId = admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
        }
        Properties tx = client(source);
        tx.put("transactional.id", "audit-promise-writer");
        try (org.apache.kafka.clients.producer.KafkaProducer<byte[], byte[]> producer =
                new org.apache.kafka.clients.producer.KafkaProducer<>(
                        tx,
                        new org.apache.kafka.common.serialization.ByteArraySerializer(),
                        new org.apache.kafka.common.serialization.ByteArraySerializer())) {
            producer.initTransactions();
            for (boolean commit : new boolean[] {true, false}) {
                producer.beginTransaction();
                for (int i = 0; i < 5; i++) {
                    producer.send(new ProducerRecord<>(
                            topic,
                            0,
                            1_700_000_000_000L + i,
                            ("t" + i).getBytes(StandardCharsets.UTF_8),
                            (commit ? "committed" : "aborted").getBytes(StandardCharsets.UTF_8)));
                }
                if (commit) {
                    producer.commitTransaction();
                } else {
                    producer.abortTransaction();
                }
            }
        }
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            RecordHeaders h = new RecordHeaders();
            h.add(Provenance.HEADER, new Provenance(targetId, targetId, topic, 0, 0).encode());
            producer.send(new ProducerRecord<>(
                    topic,
                    0,
                    1_700_000_000_100L,
                    "echo".getBytes(StandardCharsets.UTF_8),
                    "a copy of a target record".getBytes(StandardCharsets.UTF_8),
                    h));
            for (int i = 0; i < 4; i++) {
                producer.send(TestProducer.record(topic, 0, i, 1_700_000_000_200L + i, 10));
            }
        }
        Properties c = client(source);
        c.put("group.id", "g-audit-promise");
        MirrorEngine engine = new MirrorEngine(
                MirrorConfig.builder()
                        .consumerConfig(c)
                        .producerConfig(client(target))
                        .include(topic)
                        .offsetCommitIntervalMs(500)
                        .build(),
                new MirrorMetrics(new MetricRegistry()),
                Time.SYSTEM);
        engine.start();
        long end = source.endOffsetSum(topic);
        Await.until(
                "mirrored and committed",
                Duration.ofSeconds(60),
                () -> source.committedOffsets("g-audit-promise", topic).getOrDefault(0, 0L) == end);
        engine.requestStop();
        engine.awaitTermination(Duration.ofSeconds(60));
        try (TestProducer other = new TestProducer(target.bootstrapServers())) {
            RecordHeaders h = new RecordHeaders();
            h.add(Provenance.HEADER, new Provenance("other-source", "other-source", topic, 0, 3).encode());
            other.send(new ProducerRecord<>(
                    topic,
                    0,
                    null,
                    "x".getBytes(StandardCharsets.UTF_8),
                    "from elsewhere".getBytes(StandardCharsets.UTF_8),
                    h));
        }

        // When
        AuditReport report;
        try (Auditor auditor = new Auditor(client(source), client(target), TopicRenamer.identity(), Time.SYSTEM)) {
            report = auditor.audit(topic, Map.of(0, new long[] {0, end}));
        }

        // Then: clean; the echo is not expected on the target, the aborted records are not data
        assertThat(report.findings()).as(report.table(20)).isEmpty();
        assertThat(report.partitions().get(0).notCopiedByDesign()).isEqualTo(1);
        assertThat(report.partitions().get(0).sourceRecords())
                .as("5 committed + 4 plain")
                .isEqualTo(9);
        assertThat(report.partitions().get(0).targetRecords()).isEqualTo(9);
    }
}
