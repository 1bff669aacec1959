package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.mirror.testing.MirrorCheck;
import dev.strait.testkit.TestCluster;
import dev.strait.testkit.TopicReader;
import dev.strait.time.Await;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The engine suite with Apache Kafka 4.1.1 clusters (child JVMs) as source and target, plus what only Kafka
 * offers of the two kinds: transactions.
 */
class MirrorEngineOnKafkaIT extends MirrorEngineSuite {
    private final MirrorFixture fixture = new MirrorFixture(TestCluster.Kind.KAFKA);

    MirrorEngineOnKafkaIT() {
        super(TestCluster.Kind.KAFKA);
    }

    @Test
    void aTransactionalSourceIsCopiedCommittedOnlyAndItsIdlePartitionsReachLagZero() throws Exception {
        // Given: a 3-partition topic written by 12 transactions of 60 records, every fourth aborted
        TestCluster source = fixture.source();
        TestCluster target = fixture.target();
        String topic = "txn.orders";
        source.createTopic(topic, 3);
        Properties p = new Properties();
        p.put("bootstrap.servers", source.bootstrapServers());
        p.put("transactional.id", "txn-orders-writer");
        long committedRecords = 0;
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            producer.initTransactions();
            for (int t = 0; t < 12; t++) {
                producer.beginTransaction();
                for (int i = 0; i < 60; i++) {
                    String v = (t % 4 == 3 ? "aborted-" : "committed-") + t + "-" + i;
                    producer.send(new ProducerRecord<>(
                            topic,
                            i % 3,
                            1_700_000_000_000L + t * 100L + i,
                            ("k" + i).getBytes(StandardCharsets.UTF_8),
                            v.getBytes(StandardCharsets.UTF_8)));
                }
                if (t % 4 == 3) {
                    producer.abortTransaction();
                } else {
                    producer.commitTransaction();
                    committedRecords += 60;
                }
            }
        }

        // When
        MirrorEngine engine =
                MirrorFixture.start(fixture.settings("g-txn", topic).build());
        Map<Integer, Long> ends = endOffsets(source, topic);
        try {
            fixture.awaitTarget(topic, committedRecords);
            // Then: the committed offset of every partition reaches its log end, past the last commit marker
            Await.until(
                    "committed offsets at the log end (lag 0) on every partition",
                    Duration.ofSeconds(60),
                    () -> source.committedOffsets("g-txn", topic).equals(ends));
        } finally {
            MirrorFixture.stop(engine);
        }
        Map<Integer, List<ConsumerRecord<byte[], byte[]>>> copies =
                TopicReader.readAll(target.bootstrapServers(), topic);
        assertThat(TopicReader.count(copies))
                .as("exactly the committed records")
                .isEqualTo(committedRecords);
        copies.values()
                .forEach(records -> assertThat(records)
                        .allSatisfy(r -> assertThat(new String(r.value(), StandardCharsets.UTF_8))
                                .startsWith("committed-")));
        MirrorCheck.Report report = MirrorCheck.compare(source, topic, target, topic);
        assertThat(report.duplicates()).as(report.toString()).isZero();
        assertThat(report.mismatched()).as(report.toString()).isZero();
        assertThat(report.unordered()).as(report.toString()).isZero();
        assertThat(source.committedOffsets("g-txn", topic)).isEqualTo(ends);
    }

    private static Map<Integer, Long> endOffsets(TestCluster cluster, String topic) throws Exception {
        try (Admin admin = cluster.admin()) {
            Map<TopicPartition, OffsetSpec> specs = new LinkedHashMap<>();
            for (int i = 0; i < 3; i++) {
                specs.put(new TopicPartition(topic, i), OffsetSpec.latest());
            }
            Map<Integer, Long> out = new HashMap<>();
            admin.listOffsets(specs)
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .forEach((tp, info) -> out.put(tp.partition(), info.offset()));
            return new java.util.TreeMap<>(out);
        }
    }
}
