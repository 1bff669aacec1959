package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.log.LogReadResult;
import dev.strait.broker.partition.Partition;
import dev.strait.time.Await;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.Record;
import org.apache.kafka.common.record.RecordBatch;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestHeader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 11, defect 1, on three real brokers: a leader cut off from its followers (but not from the client) must
 * not acknowledge the idempotent producer's retry of a batch it alone holds. The producer here is a raw client,
 * so the test decides exactly what is sent when; the checker is Jepsen's: every batch answered NONE must be on
 * the next leader at the offset it was acknowledged at.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class AcknowledgedRetryIT {

    private static final String TOPIC = "acked-retry";
    private static final TopicPartition TP = new TopicPartition(TOPIC, 0);

    private TestCluster cluster;

    @BeforeEach
    void start() {
        // No ISR shrink during the test: the leader keeps believing its followers are in sync, as it would for
        // the first replica.lag.time.max.ms of a partition.
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
    void aRetryOfABatchOnlyTheCutOffLeaderHoldsIsNeverAcknowledged() throws Exception {
        cluster.broker(0).replicaManager().createTopic(TOPIC, 1, 3, Map.of("min.insync.replicas", "2"), false);
        waitFor("replicas on every node", () -> allNodes(node -> replica(node).isPresent()));
        int leader = cluster.controller().state(TOPIC, 0).orElseThrow().leader();
        int next = (leader + 1) % 3;
        int other = (leader + 2) % 3;
        Map<Long, String> acknowledged = new LinkedHashMap<>();
        long pid;
        PartitionProduceResponse first;
        PartitionProduceResponse retry;
        PartitionProduceResponse moved;
        try (RawKafkaClient client =
                new RawKafkaClient("127.0.0.1", cluster.broker(leader).boundPort())) {
            pid = client.initProducerId();
            PartitionProduceResponse base = produce(client, pid, 0, "a", 30_000);
            assertThat(base.errorCode()).isEqualTo(Errors.NONE.code());
            acknowledged.put(base.baseOffset(), "a");

            // The leader is cut off from both followers; the client still reaches it.
            cluster.cut(next, leader);
            cluster.cut(other, leader);
            first = produce(client, pid, 1, "b", 1_000);
            record(acknowledged, first, "b");
            // The idempotent producer resends the batch after its request timeout...
            retry = produce(client, pid, 1, "b", 1_000);
            record(acknowledged, retry, "b");
            // ...and once more, with a long timeout; the controller moves leadership while it waits.
            RequestHeader waiting = client.send(produceRequest(pid, 1, "b", 60_000));
            cluster.controller().electLeader(TOPIC, 0, next);
            moved = partition((ProduceResponse) client.receive(waiting));
            record(acknowledged, moved, "b");
        }
        waitFor(
                "node " + next + " leads",
                () -> replica(next).map(Partition::isLeader).orElse(false));
        assertThat(recordsOn(next))
                .as("every acknowledged record is on the new leader at its offset")
                .containsAllEntriesOf(acknowledged);
        assertThat(first.errorCode())
                .as("an acks=all produce that is not replicated in time")
                .isEqualTo(Errors.REQUEST_TIMED_OUT.code());
        assertThat(retry.errorCode())
                .as("the retry waits for replication like the first attempt")
                .isEqualTo(Errors.REQUEST_TIMED_OUT.code());
        assertThat(moved.errorCode())
                .as("a waiting retry fails retriably when leadership moves")
                .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());

        // After the heal the producer's next retry reaches the new leader: written once, at the next offset.
        cluster.heal(next, leader);
        cluster.heal(other, leader);
        try (RawKafkaClient client =
                new RawKafkaClient("127.0.0.1", cluster.broker(next).boundPort())) {
            PartitionProduceResponse again = produce(client, pid, 1, "b", 30_000);
            assertThat(again.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(again.baseOffset()).isEqualTo(1);
        }
        waitFor(
                "replicas in sync",
                () -> allNodes(
                        node -> replica(node).map(p -> p.highWatermark() == 2).orElse(false)));
        for (int node = 0; node < 3; node++) {
            assertThat(recordsOn(node)).as("node %d", node).isEqualTo(Map.of(0L, "a", 1L, "b"));
        }
    }

    private static void record(Map<Long, String> acknowledged, PartitionProduceResponse response, String value) {
        if (response.errorCode() == Errors.NONE.code()) {
            acknowledged.put(response.baseOffset(), value);
        }
    }

    private Optional<Partition> replica(int node) {
        BrokerServer broker = cluster.broker(node);
        return broker == null ? Optional.empty() : broker.replicaManager().partition(TP);
    }

    private boolean allNodes(java.util.function.IntPredicate condition) {
        for (int node = 0; node < 3; node++) {
            if (!condition.test(node)) {
                return false;
            }
        }
        return true;
    }

    /** Every record of a replica's log, offset to value. */
    private Map<Long, String> recordsOn(int node) {
        Partition partition = replica(node).orElseThrow();
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

    private static PartitionProduceResponse produce(
            RawKafkaClient client, long pid, int sequence, String value, int timeoutMs) throws java.io.IOException {
        return partition((ProduceResponse) client.call(produceRequest(pid, sequence, value, timeoutMs)));
    }

    private static ProduceRequest produceRequest(long pid, int sequence, String value, int timeoutMs) {
        return RawKafkaClient.idempotentProduce(TP, pid, sequence, value, timeoutMs);
    }

    private static PartitionProduceResponse partition(ProduceResponse response) {
        return RawKafkaClient.onlyPartition(response);
    }

    private static void waitFor(String what, BooleanSupplier condition) {
        Await.until(what, Duration.ofSeconds(60), condition);
    }
}
