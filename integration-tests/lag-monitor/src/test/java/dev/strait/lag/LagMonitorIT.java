package dev.strait.lag;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import dev.strait.lag.config.LagMonitorConfig;
import dev.strait.lag.sample.PartitionLag;
import dev.strait.lag.status.Status;
import dev.strait.lag.status.StatusEvaluator.GroupStatus;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.mirror.handler.MessageHandler;
import dev.strait.mirror.provenance.Provenance;
import dev.strait.mirror.testing.TestMirror;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.LoadGenerator;
import dev.strait.testkit.SharedClusters;
import dev.strait.testkit.TestProducer;
import dev.strait.testkit.WebhookReceiver;
import dev.strait.time.Await;
import dev.strait.time.Time;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The lag monitor against real Apache Kafka 4.1.1 clusters, with the real mirror engine between them. */
class LagMonitorIT {
    private static KafkaCluster source;
    private static KafkaCluster target;
    private final WebhookReceiver webhook = new WebhookReceiver();

    @BeforeAll
    static void clusters() {
        source = SharedClusters.source();
        target = SharedClusters.target();
    }

    @AfterEach
    void stopWebhook() {
        webhook.close();
    }

    private static LagMonitorConfig config(KafkaCluster src, String group, String topics, String... extra) {
        Properties p = new Properties();
        p.put("source.bootstrap.servers", src.bootstrapServers());
        p.put("target.bootstrap.servers", target.bootstrapServers());
        p.put("mirror.group.id", group);
        p.put("topics", topics);
        p.put("window.size", "3");
        p.put("sample.interval.ms", "300");
        // The mirrors of these tests commit every 500 ms; the window (3 samples, 600 ms) spans a commit.
        p.put("mirror.commit.interval.ms", "500");
        for (int i = 0; i < extra.length; i += 2) {
            p.put(extra[i], extra[i + 1]);
        }
        return LagMonitorConfig.from(p);
    }

    private static MirrorEngine mirror(String group, String topic, MessageHandler handler) {
        return mirror(group, topic, handler, new Properties());
    }

    private static MirrorEngine mirror(String group, String topic, MessageHandler handler, Properties extra) {
        return TestMirror.start(source.bootstrapServers(), target.bootstrapServers(), group, topic, handler, extra);
    }

    private static void stop(MirrorEngine engine) throws InterruptedException {
        engine.requestStop();
        assertThat(engine.awaitTermination(Duration.ofSeconds(60))).isTrue();
    }

    private static PartitionLag partition(GroupStatus s, int p) {
        return s.partitions().stream()
                .filter(x -> x.lag().partition() == p)
                .findFirst()
                .orElseThrow()
                .lag();
    }

    @Test
    void theWorkedExampleOnRealClusters() throws Exception {
        // Given: source end offset 8; the target holds source offsets 0..5; committed 4; the mirror's position 7
        String topic = "lag.example";
        source.createTopic(topic, 1);
        target.createTopic(topic, 1);
        try (TestProducer src = new TestProducer(source.bootstrapServers());
                TestProducer dst = new TestProducer(target.bootstrapServers())) {
            src.produce(topic, 1, 8);
            String sourceId;
            try (Admin admin = source.admin()) {
                sourceId = admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
                admin.alterConsumerGroupOffsets(
                                "g-example", Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(4)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }
            for (int i = 0; i <= 5; i++) {
                RecordHeaders h = new RecordHeaders();
                h.add(Provenance.HEADER, new Provenance(sourceId, sourceId, topic, 0, i).encode());
                dst.send(new ProducerRecord<>(topic, 0, (byte[]) null, new byte[] {(byte) i}, h));
            }
        }
        HttpServer mirrorMetrics = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        mirrorMetrics.createContext("/metrics", ex -> {
            byte[] body = ("strait_mirror_partition_position{topic=\"" + topic + "\",partition=\"0\"} 7\n")
                    .getBytes(StandardCharsets.UTF_8);
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        mirrorMetrics.start();
        try (LagMonitor monitor = new LagMonitor(
                config(
                        source,
                        "g-example",
                        "lag\\.example",
                        "mirror.metrics.url",
                        "http://127.0.0.1:" + mirrorMetrics.getAddress().getPort() + "/metrics"),
                Time.SYSTEM)) {
            // When
            GroupStatus status = monitor.cycle();

            // Then
            PartitionLag lag = partition(status, 0);
            assertThat(lag.sourceEnd()).isEqualTo(8);
            assertThat(lag.exactLag()).isEqualTo(2);
            assertThat(lag.committedLag()).isEqualTo(4);
            assertThat(lag.consumerLag()).isEqualTo(1);
            assertThat(lag.timeLagMs()).as("age of source offset 6").isPositive();
        } finally {
            mirrorMetrics.stop(0);
        }
    }

    @Test
    void lagWhileAProducerRunsAndExactLagZeroAfter() throws Exception {
        // Given
        String topic = "lag.live";
        source.createTopic(topic, 3);
        MirrorEngine engine = mirror("g-live", topic, null);
        try (LagMonitor monitor = new LagMonitor(config(source, "g-live", "lag\\.live"), Time.SYSTEM);
                LoadGenerator load = new LoadGenerator(source.bootstrapServers(), topic, 3, 2_000, 1_000)) {
            // When: sampled while records flow, then after the producer stopped
            long maxCommittedLag = 0;
            while (load.sent() < 5_500 && maxCommittedLag == 0) {
                GroupStatus s = monitor.cycle();
                maxCommittedLag = Math.max(
                        maxCommittedLag,
                        s.partitions().stream()
                                .mapToLong(p -> p.lag().committedLag())
                                .max()
                                .orElse(0));
                Thread.sleep(200);
            }
            load.awaitDone(60);
            Await.until(
                    "exact lag 0 on every partition",
                    Duration.ofSeconds(60),
                    () -> monitor.cycle().partitions().stream()
                            .allMatch(p -> p.lag().exactLag() == 0 && p.lag().sourceEnd() == 2_000));

            // Then
            GroupStatus last = monitor.latest();
            assertThat(last.status())
                    .as("lag 0 is OK, whatever the window held before")
                    .isEqualTo(Status.OK);
            assertThat(last.partitions()).allSatisfy(p -> {
                assertThat(p.lag().timeLagMs()).isZero();
                assertThat(p.lag().lastMirroredOffset()).isEqualTo(1_999);
            });
            assertThat(maxCommittedLag)
                    .as("lag was seen while the producer ran")
                    .isPositive();
            assertThat(last.snapshot().sourceCalls())
                    .as("batched calls, not one per partition")
                    .isLessThan(10);
        } finally {
            stop(engine);
        }
    }

    @Test
    void mirrorStoppedGivesStallThenStopOneWebhookPerChangeThenRewind() throws Exception {
        // Given: a mirror that copied 300 records and was stopped; records keep arriving
        String topic = "lag.stall";
        source.createTopic(topic, 1);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 1, 300);
            MirrorEngine engine = mirror("g-stall", topic, null);
            Await.until("mirrored", Duration.ofSeconds(60), () -> target.endOffsetSum(topic) == 300);
            stop(engine);
            producer.produce(topic, 1, 300, 50);
        }
        String hook = webhook.url();
        try (LagMonitor monitor = new LagMonitor(
                config(
                        source,
                        "g-stall",
                        "lag\\.stall",
                        "stop.after.ms",
                        "2500",
                        "alert.webhook.url",
                        hook,
                        "alert.suppress.ms",
                        "600000"),
                Time.SYSTEM)) {
            // When / Then: STALL once the window is full, STOP after 2.5 s without a commit
            Status first = monitor.cycle().status();
            monitor.cycle();
            Status third = monitor.cycle().status();
            Await.until("STOP", Duration.ofSeconds(20), () -> monitor.cycle().status() == Status.STOP);
            monitor.cycle();

            assertThat(first).isEqualTo(Status.OK);
            assertThat(third).isEqualTo(Status.STALL);
            assertThat(partition(monitor.latest(), 0).exactLag()).isEqualTo(50);
            assertThat(webhook.bodies()).hasSize(2);
            assertThat(webhook.bodies().get(0)).contains("\"previous\":\"OK\",\"status\":\"STALL\"");
            assertThat(webhook.bodies().get(1)).contains("\"previous\":\"STALL\",\"status\":\"STOP\"");

            // When: the group's offset is reset backwards
            try (Admin admin = source.admin()) {
                admin.alterConsumerGroupOffsets(
                                "g-stall", Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(100)))
                        .all()
                        .get(30, TimeUnit.SECONDS);
            }

            // Then
            assertThat(monitor.cycle().status()).isEqualTo(Status.REWIND);
        }
    }

    @Test
    void producerOutrunningTheMirrorGivesWarn() throws Exception {
        // Given: a mirror slowed to about 1,000 records/s, taking 200 records a poll so that it commits every
        // half second, and a producer at 3,000/s for up to a minute (stopped once WARN is seen)
        String topic = "lag.warn";
        source.createTopic(topic, 1);
        Properties smallPolls = new Properties();
        smallPolls.put("max.poll.records", "200");
        MirrorEngine engine = mirror("g-warn", topic, new SlowHandler(), smallPolls);
        try (LagMonitor monitor =
                        new LagMonitor(config(source, "g-warn", "lag\\.warn", "window.size", "4"), Time.SYSTEM);
                LoadGenerator load = new LoadGenerator(source.bootstrapServers(), topic, 1, 180_000, 3_000)) {
            Await.until("mirroring begun", Duration.ofSeconds(30), () -> target.endOffsetSum(topic) > 0);

            // When / Then
            Await.until("WARN", Duration.ofSeconds(50), () -> {
                sleep(300);
                return monitor.cycle().status() == Status.WARN;
            });
            load.close();
        } finally {
            stop(engine);
        }
    }

    @Test
    void aClusterThatCannotBeReadIsErrAndTheMonitorCarriesOn() throws Exception {
        // Given: a monitor watching a source cluster that then goes down
        try (KafkaCluster doomed = KafkaCluster.start("lag-err-source", 1)) {
            doomed.createTopic("lag.err", 1);
            try (LagMonitor monitor = new LagMonitor(config(doomed, "g-err", "lag\\.err"), Time.SYSTEM)) {
                assertThat(monitor.cycle().status()).isEqualTo(Status.OK);

                // When
                doomed.stopAll();
                GroupStatus down = monitor.cycle();

                // Then
                assertThat(down.status()).isEqualTo(Status.ERR);
                assertThat(down.snapshot().errors())
                        .anySatisfy(e -> assertThat(e).startsWith("source cluster"));
                doomed.restartAll();
                Await.until(
                        "back to OK",
                        Duration.ofSeconds(60),
                        () -> monitor.cycle().status() == Status.OK);
            }
        }
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void theDaemonsAuditFindsWhatTheMirrorDroppedOrRepeatedAndServesIt() throws Exception {
        // Given: a mirror whose handler drops 0@17 and repeats 0@23, and a monitor auditing every cycle
        String topic = "lag.audited";
        source.createTopic(topic, 2);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 2, 100);
        }
        MirrorEngine engine = mirror("g-audited", topic, new DropAndRepeatHandler());
        Await.until(
                "mirrored and committed",
                Duration.ofSeconds(60),
                () -> source.committedOffsets("g-audited", topic).values().stream()
                                .mapToLong(Long::longValue)
                                .sum()
                        == 200);
        stop(engine);
        try (LagMonitor monitor = new LagMonitor(
                        config(source, "g-audited", "lag\\.audited", "audit.interval.ms", "1", "http.port", "0"),
                        Time.SYSTEM);
                dev.strait.lag.http.StatusServer http = new dev.strait.lag.http.StatusServer(
                        "127.0.0.1", 0, "g-audited", monitor::latest, monitor::healthy, monitor::auditSummary)) {
            // When
            monitor.cycle();
            monitor.cycle();

            // Then: each committed record audited once, both anomalies named
            var summary = monitor.auditSummary();
            assertThat(summary.recordsAudited()).isEqualTo(200);
            assertThat(summary.findingsByKind())
                    .containsEntry(dev.strait.lag.audit.AuditReport.Kind.MISSING, 1L)
                    .containsEntry(dev.strait.lag.audit.AuditReport.Kind.DUPLICATED, 1L);
            String status = java.net.http.HttpClient.newHttpClient()
                    .send(
                            java.net.http.HttpRequest.newBuilder(
                                            java.net.URI.create("http://127.0.0.1:" + http.port() + "/status"))
                                    .build(),
                            java.net.http.HttpResponse.BodyHandlers.ofString())
                    .body();
            assertThat(status)
                    .contains("\"kind\":\"MISSING\",\"topic\":\"lag.audited\",\"partition\":0,\"sourceOffset\":17");
        }
    }

    private static void writeCopies(String topic, String sourceClusterId, int from, int to) {
        try (TestProducer dst = new TestProducer(target.bootstrapServers())) {
            for (int i = from; i < to; i++) {
                RecordHeaders h = new RecordHeaders();
                h.add(Provenance.HEADER, new Provenance(sourceClusterId, sourceClusterId, topic, 0, i).encode());
                dst.send(new ProducerRecord<>(topic, 0, (byte[]) null, new byte[] {(byte) i}, h));
            }
        }
    }

    private static String sourceId() throws Exception {
        try (Admin admin = source.admin()) {
            return admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
        }
    }

    private static void commit(String group, String topic, long offset) throws Exception {
        try (Admin admin = source.admin()) {
            admin.alterConsumerGroupOffsets(group, Map.of(new TopicPartition(topic, 0), new OffsetAndMetadata(offset)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void copiesFromAnotherSourceClusterInTheSameTargetTopicDoNotCountAsMirrored() throws Exception {
        // Given: 100 source records, 50 of them on the target, and then a record a second mirror (from another
        // source cluster with a topic of the same name: a fan-in) wrote there, naming source offset 99
        String topic = "lag.fanin";
        source.createTopic(topic, 1);
        target.createTopic(topic, 1);
        try (TestProducer src = new TestProducer(source.bootstrapServers())) {
            src.produce(topic, 1, 100);
        }
        writeCopies(topic, sourceId(), 0, 50);
        writeCopies(topic, "another-source-cluster", 99, 100);
        commit("g-fanin", topic, 50);

        try (LagMonitor monitor = new LagMonitor(config(source, "g-fanin", "lag\\.fanin"), Time.SYSTEM)) {
            // When
            PartitionLag lag = partition(monitor.cycle(), 0);

            // Then
            assertThat(lag.lastMirroredOffset())
                    .as("the other cluster's offset 99 is not ours")
                    .isNotEqualTo(99);
            assertThat(lag.exactLag()).isEqualTo(50);
        }
    }

    @Test
    void aTargetTopicRecreatedWithLessResetsWhatTheMonitorKnewOfIt() throws Exception {
        // Given: the target holds copies of all 100 source records, and the monitor saw it (exact lag 0)
        String topic = "lag.recreated";
        source.createTopic(topic, 1);
        target.createTopic(topic, 1);
        try (TestProducer src = new TestProducer(source.bootstrapServers())) {
            src.produce(topic, 1, 100);
        }
        String sourceId = sourceId();
        writeCopies(topic, sourceId, 0, 100);
        commit("g-recreated", topic, 100);
        try (LagMonitor monitor = new LagMonitor(config(source, "g-recreated", "lag\\.recreated"), Time.SYSTEM)) {
            assertThat(partition(monitor.cycle(), 0).exactLag()).isZero();

            // When: the target topic is deleted and re-created, and holds copies of 0..9 only; the group is rewound
            try (Admin admin = target.admin()) {
                admin.deleteTopics(List.of(topic)).all().get(30, TimeUnit.SECONDS);
                Await.until("deleted", Duration.ofSeconds(30), () -> {
                    try {
                        return !admin.listTopics()
                                .names()
                                .get(10, TimeUnit.SECONDS)
                                .contains(topic);
                    } catch (Exception e) {
                        return false;
                    }
                });
            }
            target.createTopic(topic, 1);
            writeCopies(topic, sourceId, 0, 10);
            commit("g-recreated", topic, 10);

            // Then: the running maximum (99) does not survive the truncation
            PartitionLag lag = partition(monitor.cycle(), 0);
            assertThat(lag.lastMirroredOffset()).isEqualTo(9);
            assertThat(lag.exactLag()).isEqualTo(90);
        }
    }

    @Test
    void aTargetEndingInACommitMarkerIsReadWithoutWaitingForARecordThatIsNotThere() throws Exception {
        // Given: the copies on the target were written in a transaction, so its partition ends in the commit
        // marker, an offset that yields no record
        String topic = "lag.marker";
        source.createTopic(topic, 1);
        target.createTopic(topic, 1);
        try (TestProducer src = new TestProducer(source.bootstrapServers())) {
            src.produce(topic, 1, 50);
        }
        String sourceId = sourceId();
        Properties tx = new Properties();
        tx.put("bootstrap.servers", target.bootstrapServers());
        tx.put("transactional.id", "lag-marker-copies");
        try (KafkaProducer<byte[], byte[]> dst =
                new KafkaProducer<>(tx, new ByteArraySerializer(), new ByteArraySerializer())) {
            dst.initTransactions();
            dst.beginTransaction();
            for (int i = 0; i < 50; i++) {
                RecordHeaders h = new RecordHeaders();
                h.add(Provenance.HEADER, new Provenance(sourceId, sourceId, topic, 0, i).encode());
                dst.send(new ProducerRecord<>(topic, 0, (byte[]) null, new byte[] {(byte) i}, h));
            }
            dst.commitTransaction();
        }
        // The coordinator writes the marker after commitTransaction returns
        Await.until("50 copies and the commit marker", Duration.ofSeconds(30), () -> target.endOffsetSum(topic) == 51);
        commit("g-marker", topic, 50);

        // When
        try (LagMonitor monitor = new LagMonitor(config(source, "g-marker", "lag\\.marker"), Time.SYSTEM)) {
            GroupStatus s = monitor.cycle();

            // Then: the read stops at the marker (the log end) instead of waiting out its 10 s for a record
            assertThat(s.snapshot().warnings()).isEmpty();
            assertThat(partition(s, 0).exactLag()).isZero();
        }
    }

    @Test
    void aProducerWhoseClockRunsTenMinutesAheadCannotHideTheTimeLag() throws Exception {
        // Given: 20 records stamped ten minutes in the future, none mirrored
        String topic = "lag.skew";
        source.createTopic(topic, 1);
        long future = System.currentTimeMillis() + 600_000;
        try (TestProducer src = new TestProducer(source.bootstrapServers())) {
            for (int i = 0; i < 20; i++) {
                src.send(new ProducerRecord<>(topic, 0, future + i, new byte[] {(byte) i}, new byte[] {(byte) i}));
            }
        }
        try (LagMonitor monitor = new LagMonitor(config(source, "g-skew", "lag\\.skew"), Time.SYSTEM)) {
            // When / Then: the oldest unmirrored record's age by its timestamp is negative; the monitor reports how
            // long it has seen it waiting instead of 0
            assertThat(partition(monitor.cycle(), 0).exactLag()).isEqualTo(20);
            Await.until(
                    "a positive time lag",
                    Duration.ofSeconds(30),
                    () -> partition(monitor.cycle(), 0).timeLagMs() > 0);
            assertThat(partition(monitor.latest(), 0).timeLagMs()).isLessThan(600_000);
        }
    }
}
