package dev.strait.broker.protocol;

import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.partition.ReplicaManager;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsAssignment;
import org.apache.kafka.common.message.CreatePartitionsRequestData.CreatePartitionsTopic;
import org.apache.kafka.common.message.CreatePartitionsResponseData;
import org.apache.kafka.common.message.CreatePartitionsResponseData.CreatePartitionsTopicResult;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsPartition;
import org.apache.kafka.common.message.DeleteRecordsRequestData.DeleteRecordsTopic;
import org.apache.kafka.common.message.DeleteRecordsResponseData;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsPartitionResult;
import org.apache.kafka.common.message.DeleteRecordsResponseData.DeleteRecordsTopicResult;
import org.apache.kafka.common.message.ElectLeadersRequestData;
import org.apache.kafka.common.message.ElectLeadersResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreatePartitionsResponse;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteRecordsResponse;
import org.apache.kafka.common.requests.ElectLeadersRequest;
import org.apache.kafka.common.requests.ElectLeadersResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CreatePartitions and DeleteRecords, with Kafka's error codes (and, for CreatePartitions, messages modelled on
 * Kafka's). On a single node neither has anything to wait for, so {@code timeoutMs} is not used.
 *
 * <p>Thread-safe: stateless; the replica manager serializes topic changes.
 */
final class PartitionAdminHandler {

    private static final Logger LOGGER = LoggerFactory.getLogger(PartitionAdminHandler.class);

    private final ReplicaManager replicaManager;
    private final RequestAuthorizer authorizer;

    PartitionAdminHandler(ReplicaManager replicaManager, RequestAuthorizer authorizer) {
        this.authorizer = authorizer;
        this.replicaManager = replicaManager;
    }

    // ---------------------------------------------------------------- ElectLeaders

    /**
     * ElectLeaders (kafka-leader-election). PREFERRED moves each named partition's leadership to its first replica
     * where that replica is in sync, through the controller. UNCLEAN gives a leaderless partition without a live
     * in-sync or eligible replica (KIP-966: its last ones stopped uncleanly) a live replica as leader, though it
     * may lack acknowledged records: the operator's way back, as with Kafka's tool; partitions with a leader need
     * no election.
     */
    AbstractResponse handleElectLeadersRequest(RequestContext context, ElectLeadersRequest request) {
        if (!authorizer.cluster(context, AclOperation.ALTER)) {
            // As Kafka: the whole request needs ALTER on the cluster.
            return request.getErrorResponse(0, Errors.CLUSTER_AUTHORIZATION_FAILED.exception());
        }
        boolean preferred = request.version() == 0 || request.data().electionType() == 0;
        Map<String, List<Integer>> wanted = new java.util.LinkedHashMap<>();
        if (request.data().topicPartitions() == null) {
            for (TopicMetadata topic : replicaManager.topics()) {
                if (!topic.name().startsWith("__")) {
                    List<Integer> all = new java.util.ArrayList<>();
                    for (int p = 0; p < topic.partitions(); p++) {
                        all.add(p);
                    }
                    wanted.put(topic.name(), all);
                }
            }
        } else {
            for (ElectLeadersRequestData.TopicPartitions tp : request.data().topicPartitions()) {
                wanted.computeIfAbsent(tp.topic(), t -> new java.util.ArrayList<>())
                        .addAll(tp.partitions());
            }
        }
        var metadata = replicaManager.metadata();
        Set<String> toElect = new HashSet<>();
        Set<String> leaderlessBefore = new HashSet<>();
        for (Map.Entry<String, List<Integer>> e : wanted.entrySet()) {
            Optional<TopicMetadata> topic = replicaManager.topic(e.getKey());
            for (int partition : e.getValue()) {
                Optional<PartitionState> state = topic.flatMap(t -> metadata.partitionState(t.topicId(), partition));
                if (!preferred && state.isPresent() && !state.get().hasLeader()) {
                    leaderlessBefore.add(e.getKey() + "-" + partition);
                    toElect.add(e.getKey());
                }
                if (preferred
                        && state.isPresent()
                        && state.get().leader() != state.get().replicas().get(0)
                        && state.get().isr().contains(state.get().replicas().get(0))) {
                    toElect.add(e.getKey());
                }
            }
        }
        if (!toElect.isEmpty()) {
            try {
                if (preferred) {
                    metadata.electPreferredLeaders(toElect);
                } else {
                    metadata.electUncleanLeaders(toElect);
                }
            } catch (RuntimeException ex) {
                LOGGER.warn(
                        "{} leader election for {} failed: {}",
                        preferred ? "preferred" : "unclean",
                        toElect,
                        ex.toString());
            }
        }
        List<ElectLeadersResponseData.ReplicaElectionResult> results = new java.util.ArrayList<>();
        for (Map.Entry<String, List<Integer>> e : wanted.entrySet()) {
            Optional<TopicMetadata> topic = replicaManager.topic(e.getKey());
            List<ElectLeadersResponseData.PartitionResult> partitions = new java.util.ArrayList<>();
            for (int partition : e.getValue()) {
                Optional<PartitionState> state = topic.flatMap(t -> metadata.partitionState(t.topicId(), partition));
                Errors error;
                String message = null;
                if (state.isEmpty()) {
                    error = Errors.UNKNOWN_TOPIC_OR_PARTITION;
                } else if (!preferred) {
                    boolean wasLeaderless = leaderlessBefore.contains(e.getKey() + "-" + partition);
                    error = !state.get().hasLeader()
                            ? Errors.ELIGIBLE_LEADERS_NOT_AVAILABLE
                            : wasLeaderless ? Errors.NONE : Errors.ELECTION_NOT_NEEDED;
                    message = state.get().hasLeader()
                            ? null
                            : "no live replica of " + state.get().replicas() + " to elect, or a live in-sync or"
                                    + " eligible replica will be elected without an unclean election";
                } else if (state.get().leader() == state.get().replicas().get(0)) {
                    error = toElect.contains(e.getKey()) ? Errors.NONE : Errors.ELECTION_NOT_NEEDED;
                } else {
                    error = Errors.PREFERRED_LEADER_NOT_AVAILABLE;
                    message = "preferred replica " + state.get().replicas().get(0) + " is not in the ISR "
                            + state.get().isr();
                }
                partitions.add(new ElectLeadersResponseData.PartitionResult()
                        .setPartitionId(partition)
                        .setErrorCode(error.code())
                        .setErrorMessage(message));
            }
            results.add(new ElectLeadersResponseData.ReplicaElectionResult()
                    .setTopic(e.getKey())
                    .setPartitionResult(partitions));
        }
        return new ElectLeadersResponse(
                new ElectLeadersResponseData().setErrorCode(Errors.NONE.code()).setReplicaElectionResults(results));
    }

    // ---------------------------------------------------------------- CreatePartitions

    /** ALTER on each topic (else TOPIC_AUTHORIZATION_FAILED), as Kafka. */
    AbstractResponse handleCreatePartitionsRequest(RequestContext context, CreatePartitionsRequest request) {
        CreatePartitionsResponseData data = new CreatePartitionsResponseData();
        Set<String> seen = new HashSet<>();
        Set<String> duplicates = new HashSet<>();
        for (CreatePartitionsTopic topic : request.data().topics()) {
            if (!seen.add(topic.name())) {
                duplicates.add(topic.name());
            }
        }
        for (CreatePartitionsTopic topic : request.data().topics()) {
            CreatePartitionsTopicResult result = new CreatePartitionsTopicResult().setName(topic.name());
            if (duplicates.contains(topic.name())) {
                setError(result, Errors.INVALID_REQUEST, "Duplicate topic in request.");
            } else if (!authorizer.topic(context, AclOperation.ALTER, topic.name())) {
                setError(result, Errors.TOPIC_AUTHORIZATION_FAILED, "Authorization failed.");
            } else {
                createPartitions(topic, request.data().validateOnly(), result);
            }
            data.results().add(result);
        }
        return new CreatePartitionsResponse(data);
    }

    private void createPartitions(
            CreatePartitionsTopic request, boolean validateOnly, CreatePartitionsTopicResult result) {
        Optional<TopicMetadata> topic = replicaManager.topic(request.name());
        if (topic.isEmpty()) {
            setError(result, Errors.UNKNOWN_TOPIC_OR_PARTITION, "Topic '" + request.name() + "' does not exist.");
            return;
        }
        if (MetadataHandler.isInternal(request.name())) {
            // Groups and transactional ids are mapped to partitions by hash; a new count would orphan their state.
            setError(
                    result,
                    Errors.INVALID_REQUEST,
                    "Cannot change the partition count of the internal topic " + request.name() + ".");
            return;
        }
        int current = topic.get().partitions();
        if (request.count() < current) {
            setError(
                    result,
                    Errors.INVALID_PARTITIONS,
                    "The topic " + request.name() + " currently has " + current + " partition(s); " + request.count()
                            + " would not be an increase.");
            return;
        }
        if (request.count() == current) {
            setError(result, Errors.INVALID_PARTITIONS, "Topic already has " + current + " partition(s).");
            return;
        }
        List<List<Integer>> assignments = new ArrayList<>();
        if (request.assignments() != null) {
            for (CreatePartitionsAssignment assignment : request.assignments()) {
                assignments.add(assignment.brokerIds());
            }
        }
        try {
            replicaManager.createPartitions(request.name(), request.count(), assignments, validateOnly);
            result.setErrorCode(Errors.NONE.code()).setErrorMessage(null);
        } catch (RuntimeException e) {
            setError(result, ApiErrors.forException(e, Errors.INVALID_PARTITIONS), e.getMessage());
        }
    }

    private static void setError(CreatePartitionsTopicResult result, Errors error, @Nullable String message) {
        result.setErrorCode(error.code()).setErrorMessage(message);
    }

    // ---------------------------------------------------------------- DeleteRecords

    /** DELETE on each topic (else TOPIC_AUTHORIZATION_FAILED), as Kafka. */
    AbstractResponse handleDeleteRecordsRequest(RequestContext context, DeleteRecordsRequest request) {
        DeleteRecordsResponseData data = new DeleteRecordsResponseData();
        for (DeleteRecordsTopic topic : request.data().topics()) {
            DeleteRecordsTopicResult topicResult = data.topics().find(topic.name());
            if (topicResult == null) {
                topicResult = new DeleteRecordsTopicResult().setName(topic.name());
                data.topics().add(topicResult);
            }
            boolean authorized = authorizer.topic(context, AclOperation.DELETE, topic.name());
            for (DeleteRecordsPartition partition : topic.partitions()) {
                DeleteRecordsPartitionResult result = authorized
                        ? deleteRecords(topic.name(), partition)
                        : new DeleteRecordsPartitionResult()
                                .setPartitionIndex(partition.partitionIndex())
                                .setLowWatermark(-1)
                                .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                if (topicResult.partitions().find(result.partitionIndex()) == null) {
                    topicResult.partitions().add(result);
                }
            }
        }
        return new DeleteRecordsResponse(data);
    }

    private DeleteRecordsPartitionResult deleteRecords(String topic, DeleteRecordsPartition request) {
        DeleteRecordsPartitionResult result = new DeleteRecordsPartitionResult()
                .setPartitionIndex(request.partitionIndex())
                .setLowWatermark(-1);
        TopicPartition tp = new TopicPartition(topic, request.partitionIndex());
        if (MetadataHandler.isInternal(topic)) {
            return result.setErrorCode(Errors.INVALID_TOPIC_EXCEPTION.code());
        }
        try {
            long lowWatermark = replicaManager.deleteRecords(tp, request.offset());
            return result.setErrorCode(Errors.NONE.code()).setLowWatermark(lowWatermark);
        } catch (RuntimeException e) {
            return result.setErrorCode(ApiErrors.forException(e).code());
        }
    }
}
