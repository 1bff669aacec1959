package dev.strait.testkit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.link.SourceClient;
import dev.strait.broker.protocol.SourceClusterClient;
import dev.strait.time.Await;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.RecordsToDelete;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidRequestException;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Mirror topics on a three-node companion cluster copying from Apache Kafka 4.1.1: every batch at its source
 * offset with its source CRC (compression, producer ids, transaction markers and aborted records kept), the
 * source's log start, read-only until promoted, and a leader kill on the companion cluster mid-copy.
 */
class MirrorTopicIT {
    private static KafkaCluster source;
    private static CompanionCluster target;
    private static Admin sourceAdmin;
    private static Admin targetAdmin;

    @BeforeAll
    static void startClusters() {
        // The cleaner looks for work every second, so a compacted topic is compacted within the test.
        source = KafkaCluster.start("mirror-topic-source", 1, Map.of("log.cleaner.backoff.ms", "1000"));
        target = CompanionCluster.start("mirror-topic-target", 3);
        sourceAdmin = Admin.create(adminProps(source.bootstrapServers()));
        targetAdmin = Admin.create(adminProps(target.bootstrapServers()));
    }

    @AfterAll
    static void stopClusters() {
        for (AutoCloseable c : new AutoCloseable[] {sourceAdmin, targetAdmin, target, source}) {
            if (c != null) {
                try {
                    c.close();
                } catch (Exception e) {
                    // closing
                }
            }
        }
    }

    @Test
    void batchesArriveAtTheirSourceOffsetsByteForByteAndTheTopicIsReadOnlyUntilPromoted() throws Exception {
        // Given: on the source, lz4 batches from an idempotent producer on 3 partitions with the log start of
        // partition 0 moved to 100, and a transactional topic with committed and aborted transactions
        create(sourceAdmin, "orders", 3, (short) 1, Map.of());
        create(sourceAdmin, "payments", 1, (short) 1, Map.of());
        try (KafkaProducer<byte[], byte[]> producer = producer(source.bootstrapServers(), Map.of())) {
            for (int i = 0; i < 3_000; i++) {
                producer.send(record("orders", i % 3, "order-" + i));
            }
            producer.flush();
        }
        sourceAdmin
                .deleteRecords(Map.of(new TopicPartition("orders", 0), RecordsToDelete.beforeOffset(100)))
                .all()
                .get(30, TimeUnit.SECONDS);
        try (KafkaProducer<byte[], byte[]> producer =
                producer(source.bootstrapServers(), Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "payments-tx"))) {
            producer.initTransactions();
            for (int t = 0; t < 6; t++) {
                producer.beginTransaction();
                for (int i = 0; i < 20; i++) {
                    producer.send(record("payments", 0, "tx-" + t + "-" + i));
                }
                // Sent before the end, so the aborted records are in the log, as read_uncommitted shows them.
                producer.flush();
                if (t % 2 == 0) {
                    producer.commitTransaction();
                } else {
                    producer.abortTransaction();
                }
            }
        }

        // When: the companion cluster's topics of the same names mirror them
        createMirror("orders", 3);
        createMirror("payments", 1);

        // Then: every partition's batches are the source's, at the same offsets with the same CRCs
        for (TopicPartition tp : List.of(
                new TopicPartition("orders", 0),
                new TopicPartition("orders", 1),
                new TopicPartition("orders", 2),
                new TopicPartition("payments", 0))) {
            long sourceEnd = PartitionReads.end(sourceAdmin, tp);
            Await.until(
                    tp + " copied to " + sourceEnd,
                    Duration.ofSeconds(60),
                    () -> PartitionReads.end(targetAdmin, tp) == sourceEnd);
            Copy sourceCopy = batches(sourceAdmin, tp);
            // The log start follows the source's once the copy below it is committed here: a fetch round later.
            Await.until(tp + " log start " + sourceCopy.logStartOffset(), Duration.ofSeconds(30), () -> {
                try {
                    return batches(targetAdmin, tp).logStartOffset() == sourceCopy.logStartOffset();
                } catch (Exception e) {
                    return false;
                }
            });
            Copy targetCopy = batches(targetAdmin, tp);
            assertThat(targetCopy.batches()).as(tp.toString()).isEqualTo(sourceCopy.batches());
            assertThat(sourceCopy.batches()).as(tp + " holds batches").isNotEmpty();
        }
        assertThat(batches(targetAdmin, new TopicPartition("orders", 0)).logStartOffset())
                .isEqualTo(100);
        assertThat(batches(targetAdmin, new TopicPartition("payments", 0)).batches())
                .as("transaction markers copied")
                .anyMatch(b -> b.control());
        // And: read_committed consumers see on the mirror exactly what they see on the source
        TopicPartition payments = new TopicPartition("payments", 0);
        assertThat(PartitionReads.records(target.bootstrapServers(), payments, "read_committed"))
                .hasSize(60)
                .isEqualTo(PartitionReads.records(source.bootstrapServers(), payments, "read_committed"));
        assertThat(PartitionReads.records(target.bootstrapServers(), payments, "read_uncommitted"))
                .hasSize(120)
                .isEqualTo(PartitionReads.records(source.bootstrapServers(), payments, "read_uncommitted"));

        // And: an open transaction on the source holds the mirror's last stable offset where it holds the source's
        try (KafkaProducer<byte[], byte[]> open =
                producer(source.bootstrapServers(), Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "payments-open"))) {
            open.initTransactions();
            open.beginTransaction();
            for (int i = 0; i < 5; i++) {
                open.send(record("payments", 0, "open-" + i));
            }
            open.flush();
            long openEnd = PartitionReads.end(sourceAdmin, payments);
            Await.until(
                    "the open transaction copied",
                    Duration.ofSeconds(30),
                    () -> PartitionReads.end(targetAdmin, payments) == openEnd);
            long sourceStable = PartitionReads.stableEnd(sourceAdmin, payments);
            assertThat(sourceStable).isLessThan(openEnd);
            assertThat(PartitionReads.stableEnd(targetAdmin, payments)).isEqualTo(sourceStable);
            open.commitTransaction();
        }
        // EndTxn returns before the coordinator wrote the markers: the source's end counts once its marker is in.
        Await.until(
                "the commit marker on the source",
                Duration.ofSeconds(30),
                () -> PartitionReads.stableEnd(sourceAdmin, payments) == PartitionReads.end(sourceAdmin, payments));
        long committedEnd = PartitionReads.end(sourceAdmin, payments);
        Await.until(
                "the commit copied",
                Duration.ofSeconds(30),
                () -> PartitionReads.stableEnd(targetAdmin, payments) == committedEnd);
        assertThat(PartitionReads.records(target.bootstrapServers(), payments, "read_committed"))
                .hasSize(65)
                .isEqualTo(PartitionReads.records(source.bootstrapServers(), payments, "read_committed"));

        // And: after every companion node restarts, the aborted transactions are known again (read from the log)
        target.stopAll();
        target.restartAll();
        Await.until(
                "payments readable after the restart",
                Duration.ofSeconds(60),
                () -> PartitionReads.stableEnd(targetAdmin, payments) == committedEnd);
        assertThat(PartitionReads.records(target.bootstrapServers(), payments, "read_committed"))
                .isEqualTo(PartitionReads.records(source.bootstrapServers(), payments, "read_committed"));

        assertThat(describeConfig("orders", "strait.mirror.source.topic.id"))
                .isEqualTo(sourceAdmin
                        .describeTopics(List.of("orders"))
                        .allTopicNames()
                        .get(30, TimeUnit.SECONDS)
                        .get("orders")
                        .topicId()
                        .toString());

        // And: a producer to the mirror is refused at once, with the reason
        try (KafkaProducer<byte[], byte[]> producer = producer(target.bootstrapServers(), Map.of())) {
            assertThatThrownBy(() ->
                            producer.send(record("orders", 1, "not-allowed")).get(30, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(InvalidRequestException.class)
                    .hasMessageContaining("read-only mirror");
        }

        // When: promoted
        long sourceEnd = PartitionReads.end(sourceAdmin, new TopicPartition("orders", 1));
        targetAdmin
                .incrementalAlterConfigs(Map.of(
                        new ConfigResource(ConfigResource.Type.TOPIC, "orders"),
                        List.of(new AlterConfigOp(
                                new ConfigEntry("strait.mirror.state", "promoted"), AlterConfigOp.OpType.SET))))
                .all()
                .get(30, TimeUnit.SECONDS);

        // Then: a producer writes after the copied records
        List<RecordMetadata> written = new ArrayList<>();
        try (KafkaProducer<byte[], byte[]> producer = producer(target.bootstrapServers(), Map.of())) {
            // Every broker applies the new config as the metadata reaches it; until then the send is refused.
            Await.until("a produce to the promoted topic", Duration.ofSeconds(30), () -> {
                try {
                    written.add(
                            producer.send(record("orders", 1, "after-promote")).get(30, TimeUnit.SECONDS));
                    return true;
                } catch (ExecutionException | java.util.concurrent.TimeoutException e) {
                    return false;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return false;
                }
            });
        }
        assertThat(written)
                .singleElement()
                .satisfies(m -> assertThat(m.offset()).isEqualTo(sourceEnd));
    }

    @Test
    void aCompactedSourceIsCopiedWithItsGapsAndTombstones() throws Exception {
        // Given: a compacted source topic where most keys were overwritten or deleted, and compaction ran
        create(
                sourceAdmin,
                "accounts",
                1,
                (short) 1,
                Map.of(
                        "cleanup.policy", "compact",
                        "segment.ms", "100",
                        "min.cleanable.dirty.ratio", "0.01",
                        "delete.retention.ms", "86400000"));
        TopicPartition accounts = new TopicPartition("accounts", 0);
        try (KafkaProducer<byte[], byte[]> producer = producer(source.bootstrapServers(), Map.of())) {
            for (int round = 0; round < 5; round++) {
                for (int key = 0; key < 50; key++) {
                    String value = key % 10 == 0 && round == 4 ? null : "balance-" + key + "-" + round;
                    producer.send(new ProducerRecord<>(
                            "accounts",
                            0,
                            ("account-" + key).getBytes(StandardCharsets.UTF_8),
                            value == null ? null : value.getBytes(StandardCharsets.UTF_8)));
                }
                producer.flush();
                Thread.sleep(200); // a new segment per round, so the older ones can be cleaned
            }
        }
        // The cleaner may pass several times; copying between passes would leave batches on the copy that the
        // source later drops (the copy does not replay the source's cleaning). So wait for the end state: every
        // round older than the last two superseded, the last round (the active segment) and the one before it
        // (the newest data outside it) kept.
        Await.until(
                "the source compacted to its last two rounds",
                Duration.ofSeconds(90),
                () -> PartitionReads.records(source.bootstrapServers(), accounts, "read_uncommitted")
                                .size()
                        == 100);

        // When
        createMirror("accounts", 1);

        // Then: the same batches at the same offsets, gaps and tombstones included
        long sourceEnd = PartitionReads.end(sourceAdmin, accounts);
        Await.until(
                "accounts copied",
                Duration.ofSeconds(60),
                () -> PartitionReads.end(targetAdmin, accounts) == sourceEnd);
        assertThat(batches(targetAdmin, accounts).batches())
                .isEqualTo(batches(sourceAdmin, accounts).batches());
        List<String> copied = PartitionReads.records(target.bootstrapServers(), accounts, "read_uncommitted");
        assertThat(copied).isEqualTo(PartitionReads.records(source.bootstrapServers(), accounts, "read_uncommitted"));
        assertThat(copied).as("tombstones copied").anyMatch(r -> r.endsWith(":null"));
    }

    @Test
    void promotingAbortsTheTransactionsTheCopyLeftOpenAndKeepsTheirRecords() throws Exception {
        // Given: a committed transaction, then one left open on the source, both copied
        create(sourceAdmin, "ledger", 1, (short) 1, Map.of());
        TopicPartition ledger = new TopicPartition("ledger", 0);
        createMirror("ledger", 1);
        try (KafkaProducer<byte[], byte[]> done = producer(
                        source.bootstrapServers(), Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "ledger-a"));
                KafkaProducer<byte[], byte[]> open = producer(
                        source.bootstrapServers(), Map.of(ProducerConfig.TRANSACTIONAL_ID_CONFIG, "ledger-b"))) {
            done.initTransactions();
            done.beginTransaction();
            for (int i = 0; i < 10; i++) {
                done.send(record("ledger", 0, "done-" + i));
            }
            done.commitTransaction();
            open.initTransactions();
            open.beginTransaction();
            for (int i = 0; i < 7; i++) {
                open.send(record("ledger", 0, "open-" + i));
            }
            open.flush();
            long sourceEnd = PartitionReads.end(sourceAdmin, ledger);
            Await.until(
                    "ledger copied",
                    Duration.ofSeconds(60),
                    () -> PartitionReads.end(targetAdmin, ledger) == sourceEnd);
            assertThat(PartitionReads.stableEnd(targetAdmin, ledger)).isEqualTo(11);

            // When: promoted while the source's transaction is still open
            targetAdmin
                    .incrementalAlterConfigs(Map.of(
                            new ConfigResource(ConfigResource.Type.TOPIC, "ledger"),
                            List.of(new AlterConfigOp(
                                    new ConfigEntry("strait.mirror.state", "promoted"), AlterConfigOp.OpType.SET))))
                    .all()
                    .get(30, TimeUnit.SECONDS);

            // Then: the open transaction is aborted on the mirror (one marker after its records): read_committed
            // consumers reach the end and see only the committed one; the aborted records are still in the log
            Await.until(
                    "the open transaction aborted",
                    Duration.ofSeconds(30),
                    () -> PartitionReads.stableEnd(targetAdmin, ledger) == sourceEnd + 1);
            assertThat(PartitionReads.records(target.bootstrapServers(), ledger, "read_committed"))
                    .extracting(r -> r.substring(r.indexOf(':') + 1))
                    .containsExactly(
                            "done-0", "done-1", "done-2", "done-3", "done-4", "done-5", "done-6", "done-7", "done-8",
                            "done-9");
            assertThat(PartitionReads.records(target.bootstrapServers(), ledger, "read_uncommitted"))
                    .hasSize(17);
            open.abortTransaction();
        }
    }

    @Test
    void aLeaderKillOnTheCompanionClusterMidCopyLosesAndReordersNothing() throws Exception {
        // Given: a source topic written to while it is being mirrored
        create(sourceAdmin, "clicks", 1, (short) 1, Map.of());
        TopicPartition tp = new TopicPartition("clicks", 0);
        AtomicBoolean stop = new AtomicBoolean();
        List<Exception> failures = new ArrayList<>();
        Thread writer = new Thread(() -> {
            try (KafkaProducer<byte[], byte[]> producer = producer(source.bootstrapServers(), Map.of())) {
                for (int i = 0; i < 20_000 && !stop.get(); i++) {
                    producer.send(record("clicks", 0, "click-" + i));
                    if (i % 500 == 0) {
                        producer.flush();
                        Thread.sleep(50);
                    }
                }
                producer.flush();
            } catch (Exception e) {
                failures.add(e);
            }
        });
        writer.start();
        createMirror("clicks", 1);
        Await.until("the copy started", Duration.ofSeconds(60), () -> PartitionReads.end(targetAdmin, tp) > 1_000);

        // When: the mirror partition's leader dies mid-copy
        int leader = leaderOf(targetAdmin, tp).id();
        target.killNode(leader);
        writer.join(120_000);
        stop.set(true);
        assertThat(failures).isEmpty();

        // Then: the new leader continues from its own log end; the copy ends equal to the source
        long sourceEnd = PartitionReads.end(sourceAdmin, tp);
        Await.until(
                "clicks copied to " + sourceEnd,
                Duration.ofSeconds(90),
                () -> PartitionReads.end(targetAdmin, tp) == sourceEnd);
        assertThat(batches(targetAdmin, tp).batches())
                .isEqualTo(batches(sourceAdmin, tp).batches());
        target.restartNode(leader);
    }

    private static void createMirror(String topic, int partitions) throws Exception {
        create(
                targetAdmin,
                topic,
                partitions,
                (short) 3,
                Map.of("strait.mirror.source.bootstrap.servers", source.bootstrapServers()));
    }

    private static void create(Admin admin, String topic, int partitions, short rf, Map<String, String> configs)
            throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, partitions, rf).configs(configs)))
                .all()
                .get(30, TimeUnit.SECONDS);
    }

    private static String describeConfig(String topic, String name) throws Exception {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        return targetAdmin
                .describeConfigs(List.of(resource))
                .all()
                .get(30, TimeUnit.SECONDS)
                .get(resource)
                .get(name)
                .value();
    }

    private static Node leaderOf(Admin admin, TopicPartition tp) throws Exception {
        TopicDescription description = admin.describeTopics(List.of(tp.topic()))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .get(tp.topic());
        return description.partitions().get(tp.partition()).leader();
    }

    /** One stored batch as the wire shows it; the partition leader epoch is left out, as a mirror sets its own. */
    record Batch(long baseOffset, long lastOffset, long crc, boolean transactional, boolean control) {}

    record Copy(long logStartOffset, List<Batch> batches) {}

    /** Every batch of a partition up to its high watermark, fetched raw from its leader as a consumer. */
    private static Copy batches(Admin admin, TopicPartition tp) throws Exception {
        Node leader = leaderOf(admin, tp);
        Uuid topicId = admin.describeTopics(List.of(tp.topic()))
                .allTopicNames()
                .get(30, TimeUnit.SECONDS)
                .get(tp.topic())
                .topicId();
        List<Batch> batches = new ArrayList<>();
        long logStart = -1;
        try (SourceClient client = SourceClusterClient.factory(99, 10_000).connect(leader.host(), leader.port())) {
            long offset = client.logStartOffsets(Map.of(tp, -1)).get(tp);
            int restarts = 0;
            for (int round = 0; round < 10_000; round++) {
                SourceClient.Fetched fetched = client.fetch(
                                List.of(new SourceClient.FetchTarget(tp, topicId, offset, -1, 1 << 20)), 0, 1 << 20)
                        .get(tp);
                if (fetched.error() == SourceClient.SourceError.OFFSET_OUT_OF_RANGE
                        && batches.isEmpty()
                        && restarts++ < 5) {
                    // The log start moved up between asking for it and the first fetch (a mirror follows its
                    // source's log start): read from the new one.
                    offset = client.logStartOffsets(Map.of(tp, -1)).get(tp);
                    continue;
                }
                assertThat(fetched.error()).isEqualTo(SourceClient.SourceError.NONE);
                logStart = fetched.logStartOffset();
                if (!fetched.records().hasRemaining()) {
                    break;
                }
                for (MutableRecordBatch batch :
                        MemoryRecords.readableRecords(fetched.records()).batches()) {
                    batches.add(new Batch(
                            batch.baseOffset(),
                            batch.lastOffset(),
                            batch.checksum(),
                            batch.isTransactional(),
                            batch.isControlBatch()));
                    offset = batch.nextOffset();
                }
            }
        }
        return new Copy(logStart, batches);
    }

    private static ProducerRecord<byte[], byte[]> record(String topic, int partition, String value) {
        return new ProducerRecord<>(
                topic, partition, value.getBytes(StandardCharsets.UTF_8), value.getBytes(StandardCharsets.UTF_8));
    }

    private static KafkaProducer<byte[], byte[]> producer(String bootstrap, Map<String, String> extra) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.putAll(extra);
        return new KafkaProducer<>(props);
    }

    private static Properties adminProps(String bootstrap) {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return props;
    }
}
