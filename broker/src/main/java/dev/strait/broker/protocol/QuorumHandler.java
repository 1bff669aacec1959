package dev.strait.broker.protocol;

import dev.strait.broker.metadata.QuorumLeaderUnknownException;
import dev.strait.broker.metadata.QuorumStatus;
import dev.strait.broker.network.NetworkRequest;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeQuorumRequest;
import org.apache.kafka.common.requests.DescribeQuorumResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * DescribeQuorum (API 55), as a Kafka 4.1.1 broker serves it: Kafka's broker forwards it to the active controller,
 * whose Raft client answers if it leads the metadata partition; here the node's metadata source asks the Raft
 * leader, wherever it runs, over the controller listener. Only {@code __cluster_metadata} partition 0 exists
 * (else UNKNOWN_TOPIC_OR_PARTITION for the partition); it needs DESCRIBE on the cluster, as on Kafka's controller
 * (else CLUSTER_AUTHORIZATION_FAILED). While no leader is known the partition's error is NOT_LEADER_OR_FOLLOWER;
 * a leader that does not answer in time gives REQUEST_TIMED_OUT; both are retriable, and Kafka's Admin retries
 * them. Version 2 adds the voters' controller endpoints (directory ids are not tracked: the zero id, as Kafka's
 * static {@code controller.quorum.voters} quorums report).
 */
final class QuorumHandler {

    private static final Logger LOGGER = LoggerFactory.getLogger(QuorumHandler.class);

    private final Supplier<CompletableFuture<QuorumStatus>> describeQuorum;
    private final RequestAuthorizer authorizer;

    /** @param describeQuorum the metadata source's {@code describeQuorum} */
    QuorumHandler(Supplier<CompletableFuture<QuorumStatus>> describeQuorum, RequestAuthorizer authorizer) {
        this.describeQuorum = describeQuorum;
        this.authorizer = authorizer;
    }

    /** Answers through {@code request} once the leader has; the response may go out from another thread. */
    void handleDescribeQuorumRequest(
            NetworkRequest request, RequestContext context, DescribeQuorumRequest body, short version) {
        describe(context, body.data(), version)
                .whenComplete((response, error) -> KafkaApis.sendResponse(
                        request,
                        context,
                        new DescribeQuorumResponse(error == null ? response : errorResponse(unwrap(error)))));
    }

    /** The response to one request; completes when the leader answered or failed (never exceptionally). */
    CompletableFuture<DescribeQuorumResponseData> describe(
            RequestContext context, DescribeQuorumRequestData data, short version) {
        if (!authorizer.cluster(context, AclOperation.DESCRIBE)) {
            return CompletableFuture.completedFuture(
                    DescribeQuorumRequest.getTopLevelErrorResponse(Errors.CLUSTER_AUTHORIZATION_FAILED));
        }
        if (!asksForTheMetadataPartition(data)) {
            return CompletableFuture.completedFuture(
                    DescribeQuorumRequest.getPartitionLevelErrorResponse(data, Errors.UNKNOWN_TOPIC_OR_PARTITION));
        }
        CompletableFuture<QuorumStatus> described;
        try {
            described = describeQuorum.get();
        } catch (RuntimeException e) {
            described = CompletableFuture.failedFuture(e);
        }
        return described.handle(
                (status, error) -> error == null ? describedResponse(status, version) : errorResponse(unwrap(error)));
    }

    private static boolean asksForTheMetadataPartition(DescribeQuorumRequestData data) {
        return data.topics().size() == 1
                && Topic.CLUSTER_METADATA_TOPIC_NAME.equals(data.topics().get(0).topicName())
                && data.topics().get(0).partitions().size() == 1
                && data.topics().get(0).partitions().get(0).partitionIndex()
                        == Topic.CLUSTER_METADATA_TOPIC_PARTITION.partition();
    }

    private static DescribeQuorumResponseData describedResponse(QuorumStatus status, short version) {
        DescribeQuorumResponseData.PartitionData partition = new DescribeQuorumResponseData.PartitionData()
                .setPartitionIndex(Topic.CLUSTER_METADATA_TOPIC_PARTITION.partition())
                .setErrorCode(Errors.NONE.code())
                .setLeaderId(status.leaderId())
                .setLeaderEpoch(status.leaderEpoch())
                .setHighWatermark(status.highWatermark())
                .setCurrentVoters(replicaStates(status.voters()))
                .setObservers(replicaStates(status.observers()));
        DescribeQuorumResponseData response = new DescribeQuorumResponseData()
                .setErrorCode(Errors.NONE.code())
                .setTopics(List.of(new DescribeQuorumResponseData.TopicData()
                        .setTopicName(Topic.CLUSTER_METADATA_TOPIC_NAME)
                        .setPartitions(List.of(partition))));
        if (version >= 2) {
            DescribeQuorumResponseData.NodeCollection nodes = new DescribeQuorumResponseData.NodeCollection();
            for (QuorumStatus.VoterNode voter : status.voterNodes()) {
                DescribeQuorumResponseData.ListenerCollection listeners =
                        new DescribeQuorumResponseData.ListenerCollection();
                listeners.add(new DescribeQuorumResponseData.Listener()
                        .setName(voter.listenerName())
                        .setHost(voter.host())
                        .setPort(voter.port()));
                nodes.add(new DescribeQuorumResponseData.Node()
                        .setNodeId(voter.nodeId())
                        .setListeners(listeners));
            }
            response.setNodes(nodes);
        }
        return response;
    }

    private static List<DescribeQuorumResponseData.ReplicaState> replicaStates(List<QuorumStatus.Replica> replicas) {
        return replicas.stream()
                .map(r -> new DescribeQuorumResponseData.ReplicaState()
                        .setReplicaId(r.nodeId())
                        .setReplicaDirectoryId(Uuid.ZERO_UUID)
                        .setLogEndOffset(r.logEndOffset())
                        .setLastFetchTimestamp(r.lastFetchTimestamp())
                        .setLastCaughtUpTimestamp(r.lastCaughtUpTimestamp()))
                .toList();
    }

    private static DescribeQuorumResponseData errorResponse(Throwable error) {
        if (error instanceof QuorumLeaderUnknownException) {
            DescribeQuorumResponseData response = DescribeQuorumResponse.singletonErrorResponse(
                    Topic.CLUSTER_METADATA_TOPIC_PARTITION, Errors.NOT_LEADER_OR_FOLLOWER);
            response.topics().get(0).partitions().get(0).setErrorMessage(error.getMessage());
            return response;
        }
        Errors code;
        if (error instanceof TimeoutException || error instanceof java.util.concurrent.TimeoutException) {
            code = Errors.REQUEST_TIMED_OUT;
        } else {
            LOGGER.warn("DescribeQuorum failed", error);
            code = Errors.UNKNOWN_SERVER_ERROR;
        }
        return DescribeQuorumRequest.getTopLevelErrorResponse(code).setErrorMessage(error.getMessage());
    }

    private static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof CompletionException || cause instanceof ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }
}
