package dev.strait.broker.protocol;

import dev.strait.broker.log.EpochEndOffset;
import dev.strait.broker.log.TimestampAndOffset;
import dev.strait.broker.partition.Partition;
import dev.strait.broker.partition.PartitionRoleException;
import dev.strait.broker.partition.ReplicaManager;
import java.util.Optional;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;
import org.apache.kafka.common.requests.RequestContext;

/**
 * ListOffsets (earliest, latest = the high watermark, by timestamp, max timestamp; never an uncommitted offset, and
 * OFFSET_NOT_AVAILABLE while a new leader's high watermark lags the start of its epoch) and OffsetForLeaderEpoch
 * (where a leader epoch ended, from the leader's epoch cache), both answered by the leader only, in the epoch the
 * request names.
 *
 * <p>Thread-safe: stateless.
 */
final class PartitionOffsetsHandler {

    private final ReplicaManager replicaManager;
    private final RequestAuthorizer authorizer;

    PartitionOffsetsHandler(ReplicaManager replicaManager, RequestAuthorizer authorizer) {
        this.replicaManager = replicaManager;
        this.authorizer = authorizer;
    }

    /** Needs DESCRIBE on each topic (else TOPIC_AUTHORIZATION_FAILED), as Kafka. */
    AbstractResponse handleListOffsetsRequest(RequestContext context, ListOffsetsRequest request, short version) {
        ListOffsetsResponseData data = new ListOffsetsResponseData();
        // A read_committed consumer's end is the last stable offset, as Kafka answers it.
        boolean readCommitted = request.data().isolationLevel() == IsolationLevel.READ_COMMITTED.id();
        for (ListOffsetsTopic topic : request.data().topics()) {
            ListOffsetsTopicResponse topicResponse = new ListOffsetsTopicResponse().setName(topic.name());
            boolean authorized = authorizer.topic(context, AclOperation.DESCRIBE, topic.name());
            for (ListOffsetsPartition partition : topic.partitions()) {
                topicResponse
                        .partitions()
                        .add(
                                authorized
                                        ? listOffsets(topic.name(), partition, version, readCommitted)
                                        : new ListOffsetsPartitionResponse()
                                                .setPartitionIndex(partition.partitionIndex())
                                                .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
            }
            data.topics().add(topicResponse);
        }
        return new ListOffsetsResponse(data);
    }

    private ListOffsetsPartitionResponse listOffsets(
            String topic, ListOffsetsPartition request, short version, boolean readCommitted) {
        ListOffsetsPartitionResponse response =
                new ListOffsetsPartitionResponse().setPartitionIndex(request.partitionIndex());
        Optional<Partition> partition = replicaManager.partition(new TopicPartition(topic, request.partitionIndex()));
        if (partition.isEmpty()) {
            return response.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        }
        Errors epochError = ApiErrors.checkLeaderEpoch(request.currentLeaderEpoch(), partition.get());
        if (epochError != Errors.NONE) {
            return response.setErrorCode(epochError.code());
        }
        try {
            return offsetAt(request.timestamp(), partition.get(), response, version, readCommitted);
        } catch (PartitionRoleException e) {
            Errors error = ApiErrors.forRole(e);
            // OFFSET_NOT_AVAILABLE exists from v5 on (KIP-207); older clients retry LEADER_NOT_AVAILABLE, as Kafka's
            // ReplicaManager answers them.
            if (error == Errors.OFFSET_NOT_AVAILABLE && version < 5) {
                error = Errors.LEADER_NOT_AVAILABLE;
            }
            return response.setErrorCode(error.code());
        }
    }

    private static ListOffsetsPartitionResponse offsetAt(
            long timestamp,
            Partition partition,
            ListOffsetsPartitionResponse response,
            short version,
            boolean readCommitted) {
        long offset;
        long foundTimestamp = -1;
        if (timestamp == ListOffsetsRequest.EARLIEST_TIMESTAMP
                || timestamp == ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP) {
            offset = partition.logStartOffset();
        } else if (timestamp == ListOffsetsRequest.LATEST_TIMESTAMP) {
            offset = readCommitted ? partition.lastStableOffsetForClient() : partition.latestOffsetForClient();
        } else if (timestamp >= 0 || timestamp == ListOffsetsRequest.MAX_TIMESTAMP) {
            Optional<TimestampAndOffset> found =
                    timestamp >= 0 ? partition.offsetForTimestamp(timestamp) : partition.offsetOfMaxTimestamp();
            offset = found.map(TimestampAndOffset::offset).orElse(-1L);
            foundTimestamp = found.map(TimestampAndOffset::timestampMs).orElse(-1L);
        } else {
            // The tiered-storage specials (-5 latest tiered, -6 earliest pending upload) mean nothing here.
            return response.setErrorCode(Errors.UNSUPPORTED_VERSION.code());
        }
        response.setErrorCode(Errors.NONE.code()).setOffset(offset).setTimestamp(foundTimestamp);
        if (version >= 4) {
            response.setLeaderEpoch(partition.leaderEpoch());
        }
        return response;
    }

    /** CLUSTER_ACTION on the cluster (followers) or DESCRIBE on each topic, as Kafka. */
    AbstractResponse handleOffsetForLeaderEpochRequest(RequestContext context, OffsetsForLeaderEpochRequest request) {
        OffsetForLeaderEpochResponseData data = new OffsetForLeaderEpochResponseData();
        boolean clusterAction = authorizer.cluster(context, AclOperation.CLUSTER_ACTION);
        for (OffsetForLeaderTopic topic : request.data().topics()) {
            OffsetForLeaderTopicResult topicResult = new OffsetForLeaderTopicResult().setTopic(topic.topic());
            boolean authorized = clusterAction || authorizer.topic(context, AclOperation.DESCRIBE, topic.topic());
            for (OffsetForLeaderPartition requested : topic.partitions()) {
                OffsetForLeaderEpochResponseData.EpochEndOffset result =
                        new OffsetForLeaderEpochResponseData.EpochEndOffset().setPartition(requested.partition());
                Optional<Partition> partition = authorized
                        ? replicaManager.partition(new TopicPartition(topic.topic(), requested.partition()))
                        : Optional.empty();
                if (!authorized) {
                    result.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                } else if (partition.isEmpty()) {
                    result.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                } else {
                    Errors epochError = ApiErrors.checkLeaderEpoch(requested.currentLeaderEpoch(), partition.get());
                    if (epochError != Errors.NONE) {
                        result.setErrorCode(epochError.code());
                    } else {
                        EpochEndOffset end = partition.get().endOffsetForEpoch(requested.leaderEpoch());
                        result.setErrorCode(Errors.NONE.code())
                                .setLeaderEpoch(end.leaderEpoch())
                                .setEndOffset(end.endOffset());
                    }
                }
                topicResult.partitions().add(result);
            }
            data.topics().add(topicResult);
        }
        return new OffsetsForLeaderEpochResponse(data);
    }
}
