package dev.strait.broker.protocol;

import dev.strait.broker.partition.LeaderClient;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.LongSupplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopicCollection;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;

/**
 * The inter-broker client a follower uses to reach its leader: one blocking socket, one request in flight,
 * kafka-clients' request and response classes for the bytes (Fetch as a replica with {@code ReplicaState(replicaId,
 * -1)}, OffsetForLeaderEpoch v4 with the replica id). No ApiVersions round: both ends are this broker, and the
 * versions used are the ones {@link SupportedApis} serves. Not thread-safe: one fetcher thread owns it.
 */
public final class InterBrokerClient implements LeaderClient {

    private static final short FETCH_VERSION = ApiKeys.FETCH.latestVersion(false);
    private static final short OFFSET_FOR_LEADER_EPOCH_VERSION = 4;

    private final int localId;
    /** This broker's current broker epoch, sent in fetches (KIP-903); -1 while it has none. */
    private final LongSupplier localBrokerEpoch;

    private final WireChannel channel;

    private InterBrokerClient(int localId, LongSupplier localBrokerEpoch, WireChannel channel) {
        this.localId = localId;
        this.localBrokerEpoch = localBrokerEpoch;
        this.channel = channel;
    }

    /** A factory connecting with {@code replica.socket.timeout.ms} as connect and read timeout, over plain TCP. */
    public static LeaderClient.Factory factory(int localId, int socketTimeoutMs) {
        return factory(localId, socketTimeoutMs, InterBrokerSecurity.PLAINTEXT);
    }

    /**
     * A factory whose connections speak the inter-broker listener's protocol: TLS (trusting, and with mutual
     * authentication presenting, the listener's own stores) and SASL with this broker's credentials.
     */
    public static LeaderClient.Factory factory(int localId, int socketTimeoutMs, InterBrokerSecurity security) {
        return factory(localId, () -> -1, socketTimeoutMs, security);
    }

    /** As above; fetches carry {@code localBrokerEpoch} as the replica epoch, which ISR expansions name (KIP-903). */
    public static LeaderClient.Factory factory(
            int localId, LongSupplier localBrokerEpoch, int socketTimeoutMs, InterBrokerSecurity security) {
        return (leaderId, host, port) -> new InterBrokerClient(
                localId,
                localBrokerEpoch,
                WireChannel.connect("strait-replica-" + localId, "the leader", host, port, socketTimeoutMs, security));
    }

    @Override
    public Map<TopicPartition, FetchedPartition> fetch(
            List<FetchTarget> targets, int maxWaitMs, int minBytes, int maxBytes) throws IOException {
        Map<TopicPartition, FetchRequest.PartitionData> data = new LinkedHashMap<>();
        Map<Uuid, String> names = new HashMap<>();
        for (FetchTarget target : targets) {
            data.put(
                    target.topicPartition(),
                    new FetchRequest.PartitionData(
                            target.topicId(),
                            target.fetchOffset(),
                            target.logStartOffset(),
                            target.maxBytes(),
                            Optional.of(target.currentLeaderEpoch())));
            names.put(target.topicId(), target.topicPartition().topic());
        }
        FetchRequest.Builder builder = FetchRequest.Builder.forReplica(
                        FETCH_VERSION, localId, localBrokerEpoch.getAsLong(), maxWaitMs, minBytes, data)
                .setMaxBytes(maxBytes);
        FetchResponse response = (FetchResponse) send(ApiKeys.FETCH, FETCH_VERSION, builder.build(FETCH_VERSION));
        Map<TopicPartition, FetchedPartition> result = new HashMap<>();
        if (response.error() != Errors.NONE) {
            throw new IOException("fetch failed with " + response.error());
        }
        for (FetchResponseData.FetchableTopicResponse topic : response.data().responses()) {
            String name = names.get(topic.topicId());
            if (name == null) {
                continue;
            }
            for (FetchResponseData.PartitionData partition : topic.partitions()) {
                TopicPartition tp = new TopicPartition(name, partition.partitionIndex());
                Errors error = Errors.forCode(partition.errorCode());
                ByteBuffer records = error == Errors.NONE ? FetchedBatches.whole(partition) : ByteBuffer.allocate(0);
                result.put(
                        tp,
                        new FetchedPartition(
                                map(error), partition.highWatermark(), partition.logStartOffset(), records));
            }
        }
        return result;
    }

    @Override
    public Map<TopicPartition, EpochAnswer> offsetsForLeaderEpoch(List<EpochQuery> queries) throws IOException {
        OffsetForLeaderTopicCollection topics = new OffsetForLeaderTopicCollection();
        for (EpochQuery query : queries) {
            OffsetForLeaderTopic topic = topics.find(query.topicPartition().topic());
            if (topic == null) {
                topic = new OffsetForLeaderTopic()
                        .setTopic(query.topicPartition().topic());
                topics.add(topic);
            }
            topic.partitions()
                    .add(new OffsetForLeaderPartition()
                            .setPartition(query.topicPartition().partition())
                            .setCurrentLeaderEpoch(query.currentLeaderEpoch())
                            .setLeaderEpoch(query.epoch()));
        }
        AbstractRequest request = OffsetsForLeaderEpochRequest.Builder.forFollower(topics, localId)
                .build(OFFSET_FOR_LEADER_EPOCH_VERSION);
        OffsetsForLeaderEpochResponse response = (OffsetsForLeaderEpochResponse)
                send(ApiKeys.OFFSET_FOR_LEADER_EPOCH, OFFSET_FOR_LEADER_EPOCH_VERSION, request);
        Map<TopicPartition, EpochAnswer> result = new HashMap<>();
        for (OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult topic :
                response.data().topics()) {
            for (OffsetForLeaderEpochResponseData.EpochEndOffset partition : topic.partitions()) {
                result.put(
                        new TopicPartition(topic.topic(), partition.partition()),
                        new EpochAnswer(
                                map(Errors.forCode(partition.errorCode())),
                                partition.leaderEpoch(),
                                partition.endOffset()));
            }
        }
        return result;
    }

    private AbstractResponse send(ApiKeys key, short version, AbstractRequest request) throws IOException {
        return channel.send(key, version, request);
    }

    private static ReplicaError map(Errors error) {
        switch (error) {
            case NONE:
                return ReplicaError.NONE;
            case NOT_LEADER_OR_FOLLOWER:
                return ReplicaError.NOT_LEADER;
            case FENCED_LEADER_EPOCH:
                return ReplicaError.FENCED_EPOCH;
            case UNKNOWN_LEADER_EPOCH:
                return ReplicaError.UNKNOWN_EPOCH;
            case OFFSET_OUT_OF_RANGE:
                return ReplicaError.OFFSET_OUT_OF_RANGE;
            case UNKNOWN_TOPIC_OR_PARTITION:
            case UNKNOWN_TOPIC_ID:
                return ReplicaError.UNKNOWN_PARTITION;
            case TOPIC_AUTHORIZATION_FAILED:
            case CLUSTER_AUTHORIZATION_FAILED:
                return ReplicaError.NOT_AUTHORIZED;
            default:
                return ReplicaError.OTHER;
        }
    }

    @Override
    public void close() {
        channel.close();
    }

    /** For log lines. */
    @Override
    public String toString() {
        return "InterBrokerClient[" + channel + "]";
    }
}
