package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.log.LogReadResult;
import dev.strait.broker.partition.Partition;
import dev.strait.broker.partition.ProducerBatch;
import dev.strait.time.Await;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.record.SimpleRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 22, defect 5, on three brokers: a node that was down while a topic was deleted and created again under
 * the same name must not bring the old topic's records back under the new one. Without a topic id in the
 * partition directory the restarted follower kept its old records up to where its epochs agreed with the new
 * leader's (epoch 0 ends at 1 there), so it held the old topic's record at offset 0 where the new leader holds
 * another.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class RecreatedTopicRestartIT {

    private static final String TOPIC = "again";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);
    private static final int DOWN = 2;

    private TestCluster cluster;

    @BeforeEach
    void start() {
        cluster = new TestCluster(
                3,
                Map.of(
                        "replica.lag.time.max.ms",
                        "600000",
                        "offsets.topic.num.partitions",
                        "1",
                        "default.replication.factor",
                        "3"));
    }

    @AfterEach
    void stop() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void aNodeDownWhileTheTopicWasDeletedAndCreatedAgainHoldsOnlyTheNewTopicsRecords() throws Exception {
        // Given: the topic holds a, b, c in epoch 0 on every node
        cluster.broker(0).replicaManager().createTopic(TOPIC, 1, 3, Map.of(), false);
        waitFor("replicas on every node", () -> allNodes(node -> replica(node) != null));
        int leader = cluster.controller().state(TOPIC, 0).orElseThrow().leader();
        assertThat(leader).isNotEqualTo(DOWN);
        for (String value : List.of("a", "b", "c")) {
            append(leader, value); // one batch each: a follower's truncation removes whole batches
        }
        waitFor("a, b, c on every node", () -> allNodes(node -> replica(node).logEndOffset() == 3));

        // When: node 2 stops; the topic is deleted and created again, and gets one record; node 2 starts
        cluster.stop(DOWN);
        cluster.broker(leader).replicaManager().deleteTopic(TOPIC);
        cluster.broker(leader).replicaManager().createTopic(TOPIC, 1, 3, Map.of(), false);
        int newLeader = cluster.controller().state(TOPIC, 0).orElseThrow().leader();
        waitFor("the new topic on the leader", () -> replica(newLeader) != null);
        append(newLeader, "new");
        cluster.start(DOWN);

        // Then: once it has caught up, node 2 holds what the new leader holds, and nothing of the old topic
        waitFor(
                "node " + DOWN + " caught up",
                () -> replica(DOWN) != null
                        && replica(DOWN).logEndOffset() == replica(newLeader).logEndOffset());
        assertThat(recordsOn(DOWN)).isEqualTo(Map.of(0L, "new"));
        assertThat(recordsOn(newLeader)).isEqualTo(Map.of(0L, "new"));
    }

    private void append(int node, String... values) {
        SimpleRecord[] records = new SimpleRecord[values.length];
        for (int i = 0; i < values.length; i++) {
            records[i] = new SimpleRecord(1_000L, null, values[i].getBytes(StandardCharsets.UTF_8));
        }
        cluster.broker(node)
                .replicaManager()
                .appendRecords(
                        TP,
                        MemoryRecords.withRecords(Compression.NONE, records).buffer(),
                        List.of(new ProducerBatch(-1, (short) -1, -1, -1, values.length)));
    }

    private Partition replica(int node) {
        BrokerServer broker = cluster.broker(node);
        return broker == null ? null : broker.replicaManager().partition(TP).orElse(null);
    }

    private boolean allNodes(java.util.function.IntPredicate condition) {
        for (int node = 0; node < cluster.size(); node++) {
            if (!condition.test(node)) {
                return false;
            }
        }
        return true;
    }

    private Map<Long, String> recordsOn(int node) {
        Partition partition = replica(node);
        Map<Long, String> values = new LinkedHashMap<>();
        long offset = partition.logStartOffset();
        while (offset < partition.logEndOffset()) {
            LogReadResult read = partition.readForFollower(offset, 1 << 20);
            List<RecordBatch> batches = new ArrayList<>();
            MemoryRecords.readableRecords(read.records().readAll()).batches().forEach(batches::add);
            for (RecordBatch batch : batches) {
                for (Record record : batch) {
                    byte[] bytes = new byte[record.valueSize()];
                    record.value().get(bytes);
                    values.put(record.offset(), new String(bytes, StandardCharsets.UTF_8));
                }
                offset = batch.nextOffset();
            }
        }
        return values;
    }

    private static void waitFor(String what, BooleanSupplier condition) throws InterruptedException {
        Await.until(what, Duration.ofSeconds(30), condition);
    }
}
