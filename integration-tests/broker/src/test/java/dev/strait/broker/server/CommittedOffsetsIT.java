package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.partition.Partition;
import dev.strait.time.Await;
import java.io.IOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 11, defect 6, on three real brokers: a committed offset is served by OffsetFetch only once it is on the
 * offsets partition's ISR, so no reader sees an offset that a coordinator failover takes back. The checker:
 * the offsets a reader is served never go backwards.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class CommittedOffsetsIT {

    private static final String GROUP = "g";
    private static final TopicPartition OFFSETS = new TopicPartition("__consumer_offsets", 0);

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
    void anOffsetIsServedOnlyOnceAFailoverCannotTakeItBack() throws Exception {
        waitFor("the offsets partition on every node", () -> {
            for (int node = 0; node < 3; node++) {
                if (replica(node).isEmpty()) {
                    return false;
                }
            }
            return true;
        });
        int coordinator =
                cluster.controller().state(OFFSETS.topic(), 0).orElseThrow().leader();
        List<Long> served = new ArrayList<>();
        try (RawKafkaClient committer = client(coordinator);
                RawKafkaClient reader = client(coordinator)) {
            assertThat(commit(committer, 5)).isEqualTo(Errors.NONE.code());
            served.add(fetch(reader));

            // The coordinator is cut off from both followers of its offsets partition; clients still reach it.
            for (int node = 0; node < 3; node++) {
                if (node != coordinator) {
                    cluster.cut(node, coordinator);
                }
            }
            long end = replica(coordinator).orElseThrow().logEndOffset();
            committer.send(commitRequest(10));
            waitFor(
                    "the commit is in the coordinator's log",
                    () -> replica(coordinator).orElseThrow().logEndOffset() > end);
            served.add(fetch(reader));
        }
        // The coordinator stops before its followers got the commit; a follower takes over the group.
        cluster.stop(coordinator);
        int next = cluster.controller().state(OFFSETS.topic(), 0).orElseThrow().leader();
        assertThat(next).isNotEqualTo(coordinator);
        try (RawKafkaClient reader = client(next)) {
            served.add(fetchFromCoordinator(reader));
        }
        assertThat(served).as("offsets served to readers, in order").isSortedAccordingTo(Long::compare);
        assertThat(served).containsExactly(5L, 5L, 5L);
    }

    private RawKafkaClient client(int node) throws IOException {
        return new RawKafkaClient("127.0.0.1", cluster.broker(node).boundPort());
    }

    private Optional<Partition> replica(int node) {
        BrokerServer broker = cluster.broker(node);
        return broker == null ? Optional.empty() : broker.replicaManager().partition(OFFSETS);
    }

    private static AbstractRequest request(ApiKeys key, ApiMessage data, short version) {
        return AbstractRequest.parseRequest(key, version, MessageUtil.toByteBufferAccessor(data, version)).request;
    }

    /** A simple commit (no member, no generation), as Admin's alterConsumerGroupOffsets sends it. */
    private static AbstractRequest commitRequest(long offset) {
        OffsetCommitRequestData data = new OffsetCommitRequestData()
                .setGroupId(GROUP)
                .setMemberId("")
                .setGenerationIdOrMemberEpoch(-1)
                .setTopics(List.of(new OffsetCommitRequestTopic()
                        .setName("t")
                        .setPartitions(List.of(new OffsetCommitRequestPartition()
                                .setPartitionIndex(0)
                                .setCommittedOffset(offset)))));
        return request(ApiKeys.OFFSET_COMMIT, data, (short) 8);
    }

    private static short commit(RawKafkaClient client, long offset) throws IOException {
        OffsetCommitResponse response = (OffsetCommitResponse) client.call(commitRequest(offset));
        return response.data().topics().get(0).partitions().get(0).errorCode();
    }

    private static OffsetFetchResponse fetchResponse(RawKafkaClient client) throws IOException {
        OffsetFetchRequestData data = new OffsetFetchRequestData()
                .setGroups(List.of(new OffsetFetchRequestGroup()
                        .setGroupId(GROUP)
                        .setTopics(List.of(
                                new OffsetFetchRequestTopics().setName("t").setPartitionIndexes(List.of(0))))));
        return (OffsetFetchResponse) client.call(request(ApiKeys.OFFSET_FETCH, data, (short) 8));
    }

    private static long fetch(RawKafkaClient client) throws IOException {
        OffsetFetchResponse response = fetchResponse(client);
        var group = response.data().groups().get(0);
        assertThat(group.errorCode()).isEqualTo(Errors.NONE.code());
        return group.topics().get(0).partitions().get(0).committedOffset();
    }

    /** Fetches from a node that is taking over the group: it answers once it has loaded the offsets partition. */
    private static long fetchFromCoordinator(RawKafkaClient client) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            var group = fetchResponse(client).data().groups().get(0);
            if (group.errorCode() == Errors.NONE.code()) {
                return group.topics().get(0).partitions().get(0).committedOffset();
            }
            assertThat(Errors.forCode(group.errorCode()))
                    .isIn(
                            Errors.NOT_COORDINATOR,
                            Errors.COORDINATOR_LOAD_IN_PROGRESS,
                            Errors.COORDINATOR_NOT_AVAILABLE);
            if (System.nanoTime() > deadline) {
                throw new AssertionError("the new coordinator did not answer OffsetFetch within 60 s");
            }
            Thread.sleep(50);
        }
    }

    private static void waitFor(String what, BooleanSupplier condition) throws InterruptedException {
        Await.until(what, Duration.ofSeconds(60), condition);
    }
}
