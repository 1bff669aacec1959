package dev.strait.broker.protocol;

import dev.strait.broker.metadata.InvalidReplicationFactorException;
import dev.strait.broker.metadata.MetadataSource;
import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.metadata.TopicMetadata;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignablePartitionResponse;
import org.apache.kafka.common.message.AlterPartitionReassignmentsResponseData.ReassignableTopicResponse;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData.ListPartitionReassignmentsTopics;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData.OngoingPartitionReassignment;
import org.apache.kafka.common.message.ListPartitionReassignmentsResponseData.OngoingTopicReassignment;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsResponse;
import org.apache.kafka.common.requests.ListPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.ListPartitionReassignmentsResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * AlterPartitionReassignments and ListPartitionReassignments (KIP-455; {@code kafka-reassign-partitions},
 * {@code Admin.alterPartitionReassignments}): each partition's change goes to the controller on its own, as
 * Kafka's controller decides each partition on its own, and gets its own error. Both need the cluster permission
 * Kafka asks for (ALTER, DESCRIBE).
 *
 * <p>Thread-safe: no state of its own; called on request handler threads.
 */
final class ReassignmentsHandler {

    private static final Logger LOGGER = LoggerFactory.getLogger(ReassignmentsHandler.class);

    private final MetadataSource metadata;
    private final RequestAuthorizer authorizer;

    ReassignmentsHandler(MetadataSource metadata, RequestAuthorizer authorizer) {
        this.metadata = metadata;
        this.authorizer = authorizer;
    }

    AbstractResponse handleAlterPartitionReassignmentsRequest(
            RequestContext context, AlterPartitionReassignmentsRequest request) {
        if (!authorizer.cluster(context, AclOperation.ALTER)) {
            return request.getErrorResponse(0, Errors.CLUSTER_AUTHORIZATION_FAILED.exception());
        }
        boolean allowReplicationFactorChange =
                request.version() == 0 || request.data().allowReplicationFactorChange();
        AlterPartitionReassignmentsResponseData response = new AlterPartitionReassignmentsResponseData()
                .setErrorCode(Errors.NONE.code())
                .setAllowReplicationFactorChange(allowReplicationFactorChange);
        for (ReassignableTopic topic : request.data().topics()) {
            ReassignableTopicResponse topicResponse = new ReassignableTopicResponse().setName(topic.name());
            for (ReassignablePartition partition : topic.partitions()) {
                ReassignablePartitionResponse result =
                        new ReassignablePartitionResponse().setPartitionIndex(partition.partitionIndex());
                try {
                    if (!allowReplicationFactorChange && partition.replicas() != null) {
                        checkReplicationFactor(topic.name(), partition.partitionIndex(), partition.replicas());
                    }
                    metadata.alterReassignment(topic.name(), partition.partitionIndex(), partition.replicas());
                    result.setErrorCode(Errors.NONE.code()).setErrorMessage(null);
                } catch (RuntimeException e) {
                    Errors error = errorFor(e);
                    if (error == Errors.UNKNOWN_SERVER_ERROR) {
                        LOGGER.warn(
                                "reassignment of {}-{} to {} failed",
                                topic.name(),
                                partition.partitionIndex(),
                                partition.replicas(),
                                e);
                    }
                    result.setErrorCode(error.code()).setErrorMessage(e.getMessage());
                }
                topicResponse.partitions().add(result);
            }
            response.responses().add(topicResponse);
        }
        return new AlterPartitionReassignmentsResponse(response);
    }

    /** KIP-860: without allowReplicationFactorChange, the target must keep the partition's replica count. */
    private void checkReplicationFactor(String topic, int partition, List<Integer> target) {
        Optional<PartitionState> state =
                metadata.topic(topic).flatMap(t -> metadata.partitionState(t.topicId(), partition));
        if (state.isEmpty()) {
            return; // the controller answers UNKNOWN_TOPIC_OR_PARTITION
        }
        int current =
                state.get().replicas().size() - state.get().removingReplicas().size();
        if (current != target.size()) {
            throw new InvalidReplicationFactorException(
                    "The replication factor is changed from " + current + " to " + target.size());
        }
    }

    private static Errors errorFor(RuntimeException e) {
        try {
            return ApiErrors.forException(e, Errors.INVALID_REQUEST);
        } catch (RuntimeException unexpected) {
            return Errors.UNKNOWN_SERVER_ERROR;
        }
    }

    AbstractResponse handleListPartitionReassignmentsRequest(
            RequestContext context, ListPartitionReassignmentsRequest request) {
        if (!authorizer.cluster(context, AclOperation.DESCRIBE)) {
            return request.getErrorResponse(0, Errors.CLUSTER_AUTHORIZATION_FAILED.exception());
        }
        ListPartitionReassignmentsResponseData response =
                new ListPartitionReassignmentsResponseData().setErrorCode(Errors.NONE.code());
        if (request.data().topics() == null) {
            for (TopicMetadata topic : metadata.topics()) {
                List<Integer> all = new ArrayList<>();
                for (int p = 0; p < topic.partitions(); p++) {
                    all.add(p);
                }
                addOngoing(response, topic, all);
            }
        } else {
            // As Kafka's controller: unknown topics and partitions are left out, not errors.
            for (ListPartitionReassignmentsTopics wanted : request.data().topics()) {
                metadata.topic(wanted.name())
                        .ifPresent(topic -> addOngoing(response, topic, wanted.partitionIndexes()));
            }
        }
        return new ListPartitionReassignmentsResponse(response);
    }

    private void addOngoing(
            ListPartitionReassignmentsResponseData response, TopicMetadata topic, List<Integer> indexes) {
        OngoingTopicReassignment ongoing = new OngoingTopicReassignment().setName(topic.name());
        for (int index : indexes) {
            Optional<PartitionState> state = metadata.partitionState(topic.topicId(), index);
            if (state.isPresent() && state.get().reassigning()) {
                ongoing.partitions()
                        .add(new OngoingPartitionReassignment()
                                .setPartitionIndex(index)
                                .setReplicas(new ArrayList<>(state.get().replicas()))
                                .setAddingReplicas(new ArrayList<>(state.get().addingReplicas()))
                                .setRemovingReplicas(new ArrayList<>(state.get().removingReplicas())));
            }
        }
        if (!ongoing.partitions().isEmpty()) {
            response.topics().add(ongoing);
        }
    }
}
