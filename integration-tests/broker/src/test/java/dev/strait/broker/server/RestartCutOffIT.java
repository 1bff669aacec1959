package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.partition.Partition;
import dev.strait.time.Await;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.compress.Compression;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.ProduceRequestData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.SimpleRecord;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 22, defect 2, on a three-node quorum: a node that restarts while it cannot reach the other two must not
 * serve from the metadata it checkpointed before it went down. The group's coordinator and the leader of a
 * partition moved away while it was down and the group's committed offset moved forward; restarted alone, it must
 * neither answer OffsetFetch with the old offset nor acknowledge an acks=1 produce as the partition's leader. Once
 * the others are back it catches up and serves the new offset.
 *
 * <p>"Cut off" is the other two nodes being down: from the restarted node's side the quorum is unreachable either
 * way, and no part of its startup can tell the difference.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class RestartCutOffIT {

    private static final String TOPIC = "cut-off";
    private static final String GROUP = "cut-off-group";
    private static final TopicPartition OFFSETS = new TopicPartition("__consumer_offsets", 0);

    @Test
    void aNodeRestartedWithoutTheQuorumServesNeitherOldOffsetsNorOldLeaderships() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder()
                .nodes(3)
                .brokerConfig("offsets.topic.num.partitions", "1")
                .brokerConfig("broker.session.timeout.ms", "3000")
                .brokerConfig("broker.heartbeat.interval.ms", "500")
                .brokerConfig("replica.lag.time.max.ms", "3000")
                .start()) {
            // Given: the coordinator node also leads one partition of the topic; the group committed offset 5
            waitFor(
                    "the offsets partition has a leader",
                    () -> leaderOf(cluster, OFFSETS).isPresent());
            int old = leaderOf(cluster, OFFSETS).orElseThrow();
            cluster.node(old).replicaManager().createTopic(TOPIC, 3, 3, Map.of(), false);
            waitFor("every partition of the topic has a leader on its node", () -> {
                for (int p = 0; p < 3; p++) {
                    if (leaderOf(cluster, new TopicPartition(TOPIC, p)).isEmpty()) {
                        return false;
                    }
                }
                return true;
            });
            TopicPartition led = ledBy(cluster, old)
                    .orElseThrow(() -> new AssertionError("node " + old + " leads no partition of " + TOPIC
                            + "; the placement should spread leaders"));
            try (RawKafkaClient client = client(cluster, old)) {
                waitFor("the first commit", () -> commit(client, led, 5) == Errors.NONE.code());
            }
            // the other nodes hold the commit and the old node's metadata log is checkpointed as committed
            Thread.sleep(2_500);

            // When: the coordinator crashes; the others take over and the group commits offset 9
            cluster.kill(old);
            int next = (old + 1) % 3;
            int other = (old + 2) % 3;
            waitFor(
                    "the offsets partition and " + led + " moved away from node " + old,
                    () -> leaderOf(cluster, OFFSETS).filter(l -> l != old).isPresent()
                            && leaderOf(cluster, led).filter(l -> l != old).isPresent());
            int coordinator = leaderOf(cluster, OFFSETS).orElseThrow();
            try (RawKafkaClient client = client(cluster, coordinator)) {
                waitFor("the second commit", () -> commit(client, led, 9) == Errors.NONE.code());
            }
            // And: the old node restarts while the other two are unreachable
            cluster.kill(next);
            cluster.kill(other);
            cluster.resume(old);

            // Then: it answers neither with the old offset nor as the old leader
            try (RawKafkaClient client = client(cluster, old)) {
                OffsetFetchResponseGroup group = fetch(client, led);
                if (group.errorCode() == Errors.NONE.code()) {
                    long committed = group.topics().get(0).partitions().get(0).committedOffset();
                    assertThat(committed)
                            .as("OffsetFetch answered by node %d restarted without the quorum", old)
                            .isNotEqualTo(5L);
                }
                PartitionProduceResponse produced = produce(client, led);
                assertThat(Errors.forCode(produced.errorCode()))
                        .as("an acks=1 produce to %s at node %d, which no longer leads it", led, old)
                        .isNotEqualTo(Errors.NONE);
                assertThat(Errors.forCode(produced.errorCode()).exception())
                        .as("the refusal is retriable, so clients go on once the node caught up")
                        .isInstanceOf(org.apache.kafka.common.errors.RetriableException.class);
            }

            // When: the others come back, the node catches up
            cluster.resume();
            waitFor(
                    "node " + old + " learns the new leader of " + OFFSETS,
                    () -> cluster.node(old)
                            .replicaManager()
                            .partition(OFFSETS)
                            .map(Partition::leaderId)
                            .filter(l -> l >= 0)
                            .isPresent());
            int now = leaderOf(cluster, OFFSETS).orElseThrow();
            // Then: the group's offset is the new one wherever it is asked
            try (RawKafkaClient client = client(cluster, now)) {
                long[] committed = {-1};
                waitFor("the coordinator answers OffsetFetch", () -> {
                    OffsetFetchResponseGroup group = fetch(client, led);
                    if (group.errorCode() != Errors.NONE.code()) {
                        return false;
                    }
                    committed[0] = group.topics().get(0).partitions().get(0).committedOffset();
                    return true;
                });
                assertThat(committed[0]).isEqualTo(9L);
            }
        }
    }

    private static boolean isLeaderOn(EmbeddedCluster cluster, int node, TopicPartition tp) {
        BrokerServer broker = cluster.node(node);
        return broker != null
                && broker.replicaManager()
                        .partition(tp)
                        .map(Partition::isLeader)
                        .orElse(false);
    }

    /** The node whose replica of {@code tp} is the leader, among the running nodes. */
    private static Optional<Integer> leaderOf(EmbeddedCluster cluster, TopicPartition tp) {
        for (int node = 0; node < cluster.size(); node++) {
            if (isLeaderOn(cluster, node, tp)) {
                return Optional.of(node);
            }
        }
        return Optional.empty();
    }

    private static Optional<TopicPartition> ledBy(EmbeddedCluster cluster, int node) {
        for (int p = 0; p < 3; p++) {
            TopicPartition tp = new TopicPartition(TOPIC, p);
            if (isLeaderOn(cluster, node, tp)) {
                return Optional.of(tp);
            }
        }
        return Optional.empty();
    }

    private static RawKafkaClient client(EmbeddedCluster cluster, int node) throws IOException {
        return new RawKafkaClient("127.0.0.1", cluster.node(node).boundPort());
    }

    private static AbstractRequest request(ApiKeys key, ApiMessage data, short version) {
        return AbstractRequest.parseRequest(key, version, MessageUtil.toByteBufferAccessor(data, version)).request;
    }

    /** A simple commit (no member, no generation), as Admin's alterConsumerGroupOffsets sends it. */
    private static short commit(RawKafkaClient client, TopicPartition tp, long offset) {
        OffsetCommitRequestData data = new OffsetCommitRequestData()
                .setGroupId(GROUP)
                .setMemberId("")
                .setGenerationIdOrMemberEpoch(-1)
                .setTopics(List.of(new OffsetCommitRequestTopic()
                        .setName(tp.topic())
                        .setPartitions(List.of(new OffsetCommitRequestPartition()
                                .setPartitionIndex(tp.partition())
                                .setCommittedOffset(offset)))));
        try {
            OffsetCommitResponse response =
                    (OffsetCommitResponse) client.call(request(ApiKeys.OFFSET_COMMIT, data, (short) 8));
            return response.data().topics().get(0).partitions().get(0).errorCode();
        } catch (IOException e) {
            throw new AssertionError("OffsetCommit failed", e);
        }
    }

    private static OffsetFetchResponseGroup fetch(RawKafkaClient client, TopicPartition tp) {
        OffsetFetchRequestData data = new OffsetFetchRequestData()
                .setGroups(List.of(new OffsetFetchRequestGroup()
                        .setGroupId(GROUP)
                        .setTopics(List.of(new OffsetFetchRequestTopics()
                                .setName(tp.topic())
                                .setPartitionIndexes(List.of(tp.partition()))))));
        try {
            OffsetFetchResponse response =
                    (OffsetFetchResponse) client.call(request(ApiKeys.OFFSET_FETCH, data, (short) 8));
            return response.data().groups().get(0);
        } catch (IOException e) {
            throw new AssertionError("OffsetFetch failed", e);
        }
    }

    private static PartitionProduceResponse produce(RawKafkaClient client, TopicPartition tp) throws IOException {
        MemoryRecords records =
                MemoryRecords.withRecords(Compression.NONE, new SimpleRecord("stale".getBytes(StandardCharsets.UTF_8)));
        ProduceRequestData.TopicProduceDataCollection topics = new ProduceRequestData.TopicProduceDataCollection();
        topics.add(new ProduceRequestData.TopicProduceData()
                .setName(tp.topic())
                .setPartitionData(List.of(new ProduceRequestData.PartitionProduceData()
                        .setIndex(tp.partition())
                        .setRecords(records))));
        ProduceResponse response = (ProduceResponse) client.call(ProduceRequest.builder(new ProduceRequestData()
                        .setAcks((short) 1)
                        .setTimeoutMs(5_000)
                        .setTopicData(topics))
                .build((short) 12));
        return response.data()
                .responses()
                .iterator()
                .next()
                .partitionResponses()
                .get(0);
    }

    private static void waitFor(String what, BooleanSupplier condition) throws InterruptedException {
        Await.until(what, Duration.ofSeconds(60), condition);
    }
}
