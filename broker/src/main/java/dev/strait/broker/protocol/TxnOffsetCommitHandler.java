package dev.strait.broker.protocol;

import dev.strait.broker.group.GroupApi.OffsetAndMetadata;
import dev.strait.broker.group.GroupApi.TopicPartitionKey;
import dev.strait.broker.group.GroupCoordinator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponsePartition;
import org.apache.kafka.common.message.TxnOffsetCommitResponseData.TxnOffsetCommitResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitResponse;

/**
 * TxnOffsetCommit (v0-5) on the wire, translated to {@link GroupCoordinator#commitTransactionalOffsets}: a
 * transactional producer's {@code sendOffsetsToTransaction}, after AddOffsetsToTxn told the transaction coordinator.
 * {@link GroupHandler} has already checked WRITE on the transactional id, READ on the group and that this node
 * coordinates the group; here, as Kafka, a partition of a topic the principal may not READ is
 * TOPIC_AUTHORIZATION_FAILED and one that does not exist UNKNOWN_TOPIC_OR_PARTITION, and the others are committed
 * together. The producer's epoch is checked by the offsets partition's producer state when the batch is appended
 * (INVALID_PRODUCER_EPOCH, which the client takes as fenced). The answer goes to {@code respond} from the loop thread
 * of the group's shard, once the commit is durable.
 */
final class TxnOffsetCommitHandler {

    private final GroupCoordinator coordinator;
    private final RequestAuthorizer authorizer;
    private final GroupOffsetsHandler.PartitionCounts partitionCounts;

    TxnOffsetCommitHandler(
            GroupCoordinator coordinator,
            RequestAuthorizer authorizer,
            GroupOffsetsHandler.PartitionCounts partitionCounts) {
        this.coordinator = coordinator;
        this.authorizer = authorizer;
        this.partitionCounts = partitionCounts;
    }

    void handle(RequestContext context, TxnOffsetCommitRequest request, Consumer<AbstractResponse> respond) {
        var data = request.data();
        Map<TopicPartitionKey, Errors> refused = new LinkedHashMap<>();
        Map<TopicPartitionKey, OffsetAndMetadata> offsets = new LinkedHashMap<>();
        for (TxnOffsetCommitRequestTopic topic : data.topics()) {
            boolean allowed = authorizer.topic(context, AclOperation.READ, topic.name());
            int partitions = allowed ? partitionCounts.of(topic.name()) : 0;
            for (TxnOffsetCommitRequestPartition partition : topic.partitions()) {
                TopicPartitionKey tp = new TopicPartitionKey(topic.name(), partition.partitionIndex());
                if (!allowed) {
                    refused.put(tp, Errors.TOPIC_AUTHORIZATION_FAILED);
                } else if (partition.partitionIndex() < 0 || partition.partitionIndex() >= partitions) {
                    refused.put(tp, Errors.UNKNOWN_TOPIC_OR_PARTITION);
                } else {
                    offsets.put(
                            tp,
                            new OffsetAndMetadata(
                                    partition.committedOffset(),
                                    partition.committedLeaderEpoch(),
                                    partition.committedMetadata(),
                                    -1));
                }
            }
        }
        if (offsets.isEmpty()) {
            respond.accept(response(request, refused, Errors.NONE));
            return;
        }
        coordinator.commitTransactionalOffsets(
                data.groupId(),
                data.producerId(),
                data.producerEpoch(),
                data.memberId(),
                data.groupInstanceId(),
                data.generationId(),
                offsets,
                error -> respond.accept(response(request, refused, ApiErrors.forGroup(error))));
    }

    /** One error per partition asked for: its refusal, else the commit's outcome. */
    private static TxnOffsetCommitResponse response(
            TxnOffsetCommitRequest request, Map<TopicPartitionKey, Errors> refused, Errors committed) {
        TxnOffsetCommitResponseData response = new TxnOffsetCommitResponseData();
        for (TxnOffsetCommitRequestTopic topic : request.data().topics()) {
            TxnOffsetCommitResponseTopic topicResponse = new TxnOffsetCommitResponseTopic().setName(topic.name());
            for (TxnOffsetCommitRequestPartition partition : topic.partitions()) {
                Errors error = refused.getOrDefault(
                        new TopicPartitionKey(topic.name(), partition.partitionIndex()), committed);
                topicResponse
                        .partitions()
                        .add(new TxnOffsetCommitResponsePartition()
                                .setPartitionIndex(partition.partitionIndex())
                                .setErrorCode(error.code()));
            }
            response.topics().add(topicResponse);
        }
        return new TxnOffsetCommitResponse(response);
    }
}
