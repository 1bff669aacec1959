package dev.strait.broker.protocol;

import dev.strait.broker.group.GroupApi.FetchResult;
import dev.strait.broker.group.GroupApi.GroupDescription;
import dev.strait.broker.group.GroupApi.GroupListing;
import dev.strait.broker.group.GroupApi.JoinMember;
import dev.strait.broker.group.GroupApi.JoinResult;
import dev.strait.broker.group.GroupApi.LeaveMember;
import dev.strait.broker.group.GroupApi.MemberDescription;
import dev.strait.broker.group.GroupApi.OffsetAndMetadata;
import dev.strait.broker.group.GroupApi.Protocol;
import dev.strait.broker.group.GroupApi.SyncResult;
import dev.strait.broker.group.GroupApi.TopicPartitionKey;
import dev.strait.broker.group.GroupCoordinator;
import dev.strait.broker.group.GroupError;
import dev.strait.broker.network.NetworkRequest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;
import org.apache.kafka.common.message.DeleteGroupsResponseData;
import org.apache.kafka.common.message.DeleteGroupsResponseData.DeletableGroupResult;
import org.apache.kafka.common.message.DescribeGroupsResponseData;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroup;
import org.apache.kafka.common.message.DescribeGroupsResponseData.DescribedGroupMember;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.message.HeartbeatResponseData;
import org.apache.kafka.common.message.JoinGroupRequestData.JoinGroupRequestProtocol;
import org.apache.kafka.common.message.JoinGroupResponseData;
import org.apache.kafka.common.message.JoinGroupResponseData.JoinGroupResponseMember;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.LeaveGroupResponseData.MemberResponse;
import org.apache.kafka.common.message.ListGroupsResponseData;
import org.apache.kafka.common.message.ListGroupsResponseData.ListedGroup;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestPartition;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartition;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponseTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartition;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopic;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.message.SyncGroupRequestData.SyncGroupRequestAssignment;
import org.apache.kafka.common.message.SyncGroupResponseData;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DeleteGroupsResponse;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.HeartbeatResponse;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.JoinGroupResponse;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupResponse;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.ListGroupsResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetDeleteResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.SyncGroupResponse;
import org.apache.kafka.common.resource.ResourceType;

/**
 * The classic group protocol and committed offsets on the wire, translated to {@link GroupCoordinator} calls.
 * Every API but FindCoordinator answers from the coordinator's callback, later and on the loop thread of the
 * group's shard (a handler thread never waits for a shard); the writing ones (JoinGroup, SyncGroup, LeaveGroup,
 * OffsetCommit, DeleteGroups, OffsetDelete) only once what the coordinator wrote is on the offsets partition's
 * in-sync replicas. {@link #handleGroupRequest} is the one dispatch: it checks what every group API checks first
 * (the group ACL, whether this node coordinates the groups) and calls the API's handler with the request's context,
 * which the handler passes on explicitly to what it checks later, on a shard's loop (topic and group ACLs).
 * FindCoordinator answers this node for groups and COORDINATOR_NOT_AVAILABLE for transaction keys (no
 * transaction coordinator yet).
 */
final class GroupHandler {

    private static final byte KEY_TYPE_GROUP = 0;

    /** Who leads an offsets partition, at its endpoint of the listener a request came in on. */
    @FunctionalInterface
    interface CoordinatorLookup {
        Optional<BrokerEndpoint> leader(int partition, String listener);
    }

    /** The number of partitions of a topic, 0 if it does not exist. */
    @FunctionalInterface
    interface PartitionCounts {
        int of(String topic);
    }

    private final GroupCoordinator coordinator;
    private final CoordinatorLookup offsetsPartitionLeader;
    private final RequestAuthorizer authorizer;
    private final PartitionCounts partitionCounts;

    GroupHandler(GroupCoordinator coordinator, Supplier<BrokerEndpoint> endpoint) {
        this(coordinator, (partition, listener) -> Optional.of(endpoint.get()), RequestAuthorizer.none());
    }

    /** @param offsetsPartitionLeader the leader of an offsets partition, which coordinates its groups */
    GroupHandler(GroupCoordinator coordinator, CoordinatorLookup offsetsPartitionLeader, RequestAuthorizer authorizer) {
        this(coordinator, offsetsPartitionLeader, authorizer, topic -> Integer.MAX_VALUE);
    }

    /** @param partitionCounts the topics that exist, for OffsetDelete's UNKNOWN_TOPIC_OR_PARTITION */
    GroupHandler(
            GroupCoordinator coordinator,
            CoordinatorLookup offsetsPartitionLeader,
            RequestAuthorizer authorizer,
            PartitionCounts partitionCounts) {
        this.coordinator = coordinator;
        this.offsetsPartitionLeader = offsetsPartitionLeader;
        this.authorizer = authorizer;
        this.partitionCounts = partitionCounts;
    }

    /**
     * The one dispatch of the group APIs: each names the groups it addresses and the operation Kafka checks on them
     * (READ, DESCRIBE for the reading APIs, DELETE for the deleting ones), and its handler runs only if this node
     * coordinates them now. An API about one group is refused as a whole if the principal may not act on it; one
     * about several groups answers an unauthorized group in its own entry.
     *
     * @return the response, or null if it will be sent later
     */
    AbstractResponse handleGroupRequest(NetworkRequest request, RequestContext context, AbstractRequest body) {
        Consumer<AbstractResponse> respond = response -> KafkaApis.sendResponse(request, context, response);
        return switch (context.header.apiKey()) {
            case FIND_COORDINATOR -> handleFindCoordinatorRequest(context, (FindCoordinatorRequest) body);
            case LIST_GROUPS -> later(() -> handleListGroupsRequest(context, (ListGroupsRequest) body, respond));
            case JOIN_GROUP ->
                oneGroup(
                        context,
                        body,
                        AclOperation.READ,
                        ((JoinGroupRequest) body).data().groupId(),
                        () -> handleJoinGroupRequest(context, (JoinGroupRequest) body, respond));
            case SYNC_GROUP ->
                oneGroup(
                        context,
                        body,
                        AclOperation.READ,
                        ((SyncGroupRequest) body).data().groupId(),
                        () -> handleSyncGroupRequest(context, (SyncGroupRequest) body, respond));
            case HEARTBEAT ->
                oneGroup(
                        context,
                        body,
                        AclOperation.READ,
                        ((HeartbeatRequest) body).data().groupId(),
                        () -> handleHeartbeatRequest(context, (HeartbeatRequest) body, respond));
            case LEAVE_GROUP ->
                oneGroup(
                        context,
                        body,
                        AclOperation.READ,
                        ((LeaveGroupRequest) body).data().groupId(),
                        () -> handleLeaveGroupRequest(context, (LeaveGroupRequest) body, respond));
            case OFFSET_COMMIT ->
                oneGroup(
                        context,
                        body,
                        AclOperation.READ,
                        ((OffsetCommitRequest) body).data().groupId(),
                        () -> handleOffsetCommitRequest(context, (OffsetCommitRequest) body, respond));
            case OFFSET_DELETE ->
                oneGroup(
                        context,
                        body,
                        AclOperation.DELETE,
                        ((OffsetDeleteRequest) body).data().groupId(),
                        () -> handleOffsetDeleteRequest(context, (OffsetDeleteRequest) body, respond));
            case OFFSET_FETCH ->
                context.apiVersion() < 8
                        ? oneGroup(
                                context,
                                body,
                                AclOperation.DESCRIBE,
                                ((OffsetFetchRequest) body).data().groupId(),
                                () -> handleOffsetFetchRequest(context, (OffsetFetchRequest) body, respond))
                        : groups(
                                context,
                                body,
                                AclOperation.DESCRIBE,
                                ((OffsetFetchRequest) body)
                                        .data().groups().stream()
                                                .map(OffsetFetchRequestGroup::groupId)
                                                .toList(),
                                () -> handleOffsetFetchRequest(context, (OffsetFetchRequest) body, respond));
            case DESCRIBE_GROUPS ->
                groups(
                        context,
                        body,
                        AclOperation.DESCRIBE,
                        ((DescribeGroupsRequest) body).data().groups(),
                        () -> handleDescribeGroupsRequest(context, (DescribeGroupsRequest) body, respond));
            case DELETE_GROUPS ->
                groups(
                        context,
                        body,
                        AclOperation.DELETE,
                        ((DeleteGroupsRequest) body).data().groupsNames(),
                        () -> handleDeleteGroupsRequest(context, (DeleteGroupsRequest) body, respond));
            default -> throw new IllegalStateException("not a group API: " + context.header.apiKey());
        };
    }

    /** Runs a handler that answers later, through its callback. */
    private static AbstractResponse later(Runnable handle) {
        handle.run();
        return null;
    }

    /** An API about one group: refused if the principal may not act on the group, else as {@link #groups}. */
    private AbstractResponse oneGroup(
            RequestContext context, AbstractRequest body, AclOperation operation, String groupId, Runnable handle) {
        if (!groupAllowed(context, operation, groupId)) {
            // As Kafka: checked before anything else, so a principal learns nothing about the group.
            return body.getErrorResponse(0, Errors.GROUP_AUTHORIZATION_FAILED.exception());
        }
        // Authorized just above: the coordination check need not ask the authorizer again.
        Errors coordination = coordinationError(List.of(groupId), group -> true);
        if (coordination != Errors.NONE) {
            return body.getErrorResponse(0, coordination.exception());
        }
        return later(handle);
    }

    /**
     * Runs {@code handle} (which answers later) if this node coordinates every group of {@code groupIds} that the
     * principal may act on; else answers the whole request NOT_COORDINATOR (the client looks its coordinator up
     * again) or COORDINATOR_LOAD_IN_PROGRESS (it retries).
     */
    private AbstractResponse groups(
            RequestContext context,
            AbstractRequest body,
            AclOperation operation,
            List<String> groupIds,
            Runnable handle) {
        Errors coordination = coordinationError(groupIds, group -> groupAllowed(context, operation, group));
        if (coordination != Errors.NONE) {
            return body.getErrorResponse(0, coordination.exception());
        }
        return later(handle);
    }

    /**
     * NONE if this node coordinates every group named (it leads their offsets partitions and has loaded them);
     * else COORDINATOR_LOAD_IN_PROGRESS while it is loading one, NOT_COORDINATOR otherwise.
     */
    private Errors coordinationError(List<String> groupIds, Predicate<String> authorized) {
        Errors result = Errors.NONE;
        for (String group : groupIds) {
            if (group == null || group.isEmpty() || !authorized.test(group)) {
                continue; // an unauthorized group is answered GROUP_AUTHORIZATION_FAILED wherever it lives
            }
            int partition = coordinator.partitionFor(group);
            if (coordinator.isLoading(partition)) {
                result = Errors.COORDINATOR_LOAD_IN_PROGRESS;
            } else if (!coordinator.isActive(partition)) {
                return Errors.NOT_COORDINATOR;
            }
        }
        return result;
    }

    private static Errors errors(GroupError error) {
        return Errors.valueOf(error.name());
    }

    private boolean groupAllowed(RequestContext context, AclOperation operation, String group) {
        return authorizer.group(context, operation, group == null ? "" : group);
    }

    private boolean topicAllowed(RequestContext context, AclOperation operation, String topic) {
        return authorizer.topic(context, operation, topic);
    }

    /** The leader of the group's offsets partition, if it has one. */
    private Optional<BrokerEndpoint> coordinatorOf(String groupId, String listener) {
        return offsetsPartitionLeader.leader(coordinator.partitionFor(groupId == null ? "" : groupId), listener);
    }

    /** FindCoordinator: one key (before v4, answered in the top-level fields) or several. */
    AbstractResponse handleFindCoordinatorRequest(RequestContext context, FindCoordinatorRequest request) {
        boolean group = request.data().keyType() == KEY_TYPE_GROUP;
        String listener = MetadataHandler.listener(context);
        FindCoordinatorResponseData data = new FindCoordinatorResponseData();
        if (context.apiVersion() < FindCoordinatorRequest.MIN_BATCHED_VERSION) {
            Coordinator found = coordinatorFor(context, group, request.data().key(), listener);
            data.setErrorCode(found.errorCode())
                    .setErrorMessage(found.errorMessage())
                    .setNodeId(found.nodeId())
                    .setHost(found.host())
                    .setPort(found.port());
        } else {
            for (String key : request.data().coordinatorKeys()) {
                data.coordinators().add(coordinatorFor(context, group, key, listener));
            }
        }
        return new FindCoordinatorResponse(data);
    }

    /** Where the coordinator of {@code key} is: this node's view of its offsets partition's leader, for groups. */
    private Coordinator coordinatorFor(RequestContext context, boolean group, String key, String listener) {
        Coordinator coordinator =
                new Coordinator().setKey(key).setNodeId(-1).setHost("").setPort(-1);
        Errors refused = refusedCoordinatorKey(context, group, key);
        if (refused != null) {
            return coordinator.setErrorCode(refused.code());
        }
        if (!group) {
            return coordinator
                    .setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code())
                    .setErrorMessage("no transaction coordinator");
        }
        Optional<BrokerEndpoint> node = coordinatorOf(key, listener);
        if (node.isEmpty()) {
            return coordinator.setErrorCode(Errors.COORDINATOR_NOT_AVAILABLE.code());
        }
        return coordinator
                .setErrorCode(Errors.NONE.code())
                .setNodeId(node.get().nodeId())
                .setHost(node.get().host())
                .setPort(node.get().port());
    }

    /** DESCRIBE on the group or the transactional id, as Kafka's FindCoordinator checks it; null if allowed. */
    private Errors refusedCoordinatorKey(RequestContext context, boolean group, String key) {
        if (group) {
            return groupAllowed(context, AclOperation.DESCRIBE, key) ? null : Errors.GROUP_AUTHORIZATION_FAILED;
        }
        return authorizer.authorize(context, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, key)
                ? null
                : Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    }

    /** JoinGroup: the coordinator answers through {@code respond}, now or when the join phase completes. */
    void handleJoinGroupRequest(RequestContext context, JoinGroupRequest request, Consumer<AbstractResponse> respond) {
        short version = context.apiVersion();
        var data = request.data();
        List<Protocol> protocols = new ArrayList<>();
        for (JoinGroupRequestProtocol protocol : data.protocols()) {
            protocols.add(new Protocol(protocol.name(), protocol.metadata()));
        }
        int rebalanceTimeout = version >= 1 ? data.rebalanceTimeoutMs() : data.sessionTimeoutMs();
        coordinator.joinGroup(
                data.groupId(),
                data.memberId(),
                data.groupInstanceId(),
                data.protocolType(),
                protocols,
                data.sessionTimeoutMs(),
                rebalanceTimeout,
                context.clientId(),
                context.clientAddress.toString(),
                version >= 4,
                result -> respond.accept(joinResponse(result, version)));
    }

    static JoinGroupResponse joinResponse(JoinResult result, short version) {
        JoinGroupResponseData data = new JoinGroupResponseData()
                .setErrorCode(errors(result.error()).code())
                .setGenerationId(result.generation())
                .setProtocolType(result.protocolType())
                .setProtocolName(result.protocolName() == null && version < 7 ? "" : result.protocolName())
                .setLeader(result.leaderId() == null ? "" : result.leaderId())
                .setMemberId(result.memberId() == null ? "" : result.memberId())
                .setSkipAssignment(result.skipAssignment() && version >= 9);
        for (JoinMember member : result.members()) {
            data.members()
                    .add(new JoinGroupResponseMember()
                            .setMemberId(member.memberId())
                            .setGroupInstanceId(member.instanceId())
                            .setMetadata(member.metadata()));
        }
        return new JoinGroupResponse(data, version);
    }

    void handleSyncGroupRequest(RequestContext context, SyncGroupRequest request, Consumer<AbstractResponse> respond) {
        var data = request.data();
        Map<String, byte[]> assignments = new HashMap<>();
        for (SyncGroupRequestAssignment assignment : data.assignments()) {
            assignments.put(assignment.memberId(), assignment.assignment());
        }
        coordinator.syncGroup(
                data.groupId(),
                data.generationId(),
                data.memberId(),
                data.groupInstanceId(),
                data.protocolType(),
                data.protocolName(),
                assignments,
                result -> respond.accept(syncResponse(result)));
    }

    static SyncGroupResponse syncResponse(SyncResult result) {
        return new SyncGroupResponse(new SyncGroupResponseData()
                .setErrorCode(errors(result.error()).code())
                .setProtocolType(result.protocolType())
                .setProtocolName(result.protocolName())
                .setAssignment(result.assignment()));
    }

    void handleHeartbeatRequest(RequestContext context, HeartbeatRequest request, Consumer<AbstractResponse> respond) {
        var data = request.data();
        coordinator.heartbeat(
                data.groupId(),
                data.memberId(),
                data.groupInstanceId(),
                data.generationId(),
                error -> respond.accept(new HeartbeatResponse(
                        new HeartbeatResponseData().setErrorCode(errors(error).code()))));
    }

    void handleLeaveGroupRequest(
            RequestContext context, LeaveGroupRequest request, Consumer<AbstractResponse> respond) {
        short version = context.apiVersion();
        List<LeaveMember> leaving = new ArrayList<>();
        for (MemberIdentity member : request.members()) {
            leaving.add(new LeaveMember(member.memberId(), member.groupInstanceId()));
        }
        coordinator.leaveGroup(request.data().groupId(), leaving, result -> {
            if (result.error() != GroupError.NONE) {
                respond.accept(
                        request.getErrorResponse(0, errors(result.error()).exception()));
                return;
            }
            List<GroupError> errors = result.members();
            List<MemberResponse> responses = new ArrayList<>();
            for (int i = 0; i < leaving.size(); i++) {
                responses.add(new MemberResponse()
                        .setMemberId(leaving.get(i).memberId())
                        .setGroupInstanceId(leaving.get(i).instanceId())
                        .setErrorCode(errors(errors.get(i)).code()));
            }
            Errors topLevel = Errors.NONE;
            if (version < 3 && !errors.isEmpty()) {
                topLevel = errors(errors.get(0));
            }
            respond.accept(new LeaveGroupResponse(responses, topLevel, 0, version));
        });
    }

    /** OffsetCommit: answered once the commit is durable (or failed); the coordinator stamps the commit time. */
    void handleOffsetCommitRequest(
            RequestContext context, OffsetCommitRequest request, Consumer<AbstractResponse> respond) {
        var data = request.data();
        Map<TopicPartitionKey, OffsetAndMetadata> offsets = new LinkedHashMap<>();
        Set<String> refusedTopics = new HashSet<>();
        for (OffsetCommitRequestTopic topic : data.topics()) {
            if (!topicAllowed(context, AclOperation.READ, topic.name())) {
                refusedTopics.add(topic.name()); // answered TOPIC_AUTHORIZATION_FAILED; the others commit
                continue;
            }
            for (OffsetCommitRequestPartition partition : topic.partitions()) {
                offsets.put(
                        new TopicPartitionKey(topic.name(), partition.partitionIndex()),
                        new OffsetAndMetadata(
                                partition.committedOffset(),
                                partition.committedLeaderEpoch(),
                                partition.committedMetadata(),
                                -1));
            }
        }
        coordinator.commitOffsets(
                data.groupId(),
                data.memberId(),
                data.groupInstanceId(),
                data.generationIdOrMemberEpoch(),
                offsets,
                error -> {
                    OffsetCommitResponseData response = new OffsetCommitResponseData();
                    for (OffsetCommitRequestTopic topic : data.topics()) {
                        OffsetCommitResponseTopic topicResponse = new OffsetCommitResponseTopic().setName(topic.name());
                        Errors topicError = refusedTopics.contains(topic.name())
                                ? Errors.TOPIC_AUTHORIZATION_FAILED
                                : errors(error);
                        for (OffsetCommitRequestPartition partition : topic.partitions()) {
                            topicResponse
                                    .partitions()
                                    .add(new OffsetCommitResponsePartition()
                                            .setPartitionIndex(partition.partitionIndex())
                                            .setErrorCode(topicError.code()));
                        }
                        response.topics().add(topicResponse);
                    }
                    respond.accept(new OffsetCommitResponse(response));
                });
    }

    /**
     * OffsetDelete, as Kafka's: partitions of topics the principal may not READ are TOPIC_AUTHORIZATION_FAILED and
     * those that do not exist UNKNOWN_TOPIC_OR_PARTITION; the coordinator deletes the others unless the group's
     * members subscribe to their topic, and answers once the deletion is durable. A group-level error (unknown
     * group, a non-empty group of another protocol than the consumer's) is the whole response's error.
     */
    void handleOffsetDeleteRequest(
            RequestContext context, OffsetDeleteRequest request, Consumer<AbstractResponse> respond) {
        var data = request.data();
        Map<TopicPartitionKey, Errors> refused = new LinkedHashMap<>();
        List<TopicPartitionKey> asked = new ArrayList<>();
        for (OffsetDeleteRequestTopic topic : data.topics()) {
            boolean allowed = topicAllowed(context, AclOperation.READ, topic.name());
            int partitions = allowed ? partitionCounts.of(topic.name()) : 0;
            for (OffsetDeleteRequestPartition partition : topic.partitions()) {
                TopicPartitionKey tp = new TopicPartitionKey(topic.name(), partition.partitionIndex());
                if (!allowed) {
                    refused.put(tp, Errors.TOPIC_AUTHORIZATION_FAILED);
                } else if (partition.partitionIndex() < 0 || partition.partitionIndex() >= partitions) {
                    refused.put(tp, Errors.UNKNOWN_TOPIC_OR_PARTITION);
                } else {
                    asked.add(tp);
                }
            }
        }
        coordinator.deleteOffsets(data.groupId(), asked, GroupHandler::subscribedTopics, result -> {
            if (result.error() != GroupError.NONE) {
                respond.accept(
                        request.getErrorResponse(0, errors(result.error()).exception()));
                return;
            }
            OffsetDeleteResponseData response = new OffsetDeleteResponseData().setErrorCode(Errors.NONE.code());
            for (OffsetDeleteRequestTopic topic : data.topics()) {
                OffsetDeleteResponseTopic topicResponse = response.topics().find(topic.name());
                if (topicResponse == null) {
                    topicResponse = new OffsetDeleteResponseTopic().setName(topic.name());
                    response.topics().add(topicResponse);
                }
                for (OffsetDeleteRequestPartition partition : topic.partitions()) {
                    TopicPartitionKey tp = new TopicPartitionKey(topic.name(), partition.partitionIndex());
                    Errors error = refused.containsKey(tp)
                            ? refused.get(tp)
                            : errors(result.partitions().getOrDefault(tp, GroupError.NONE));
                    if (topicResponse.partitions().find(partition.partitionIndex()) == null) {
                        topicResponse
                                .partitions()
                                .add(new OffsetDeleteResponsePartition()
                                        .setPartitionIndex(partition.partitionIndex())
                                        .setErrorCode(error.code()));
                    }
                }
            }
            respond.accept(new OffsetDeleteResponse(response));
        });
    }

    /** The topics of a consumer-protocol subscription (a member's JoinGroup metadata), empty if unreadable. */
    static Optional<Set<String>> subscribedTopics(byte[] metadata) {
        try {
            java.nio.ByteBuffer buffer = java.nio.ByteBuffer.wrap(metadata);
            // Later versions only append fields, so a newer client's subscription reads as the newest known one.
            short version = (short) Math.min(buffer.getShort(), ConsumerProtocolSubscription.HIGHEST_SUPPORTED_VERSION);
            if (version < ConsumerProtocolSubscription.LOWEST_SUPPORTED_VERSION) {
                return Optional.empty();
            }
            return Optional.of(
                    Set.copyOf(new ConsumerProtocolSubscription(new ByteBufferAccessor(buffer), version).topics()));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** OffsetFetch: answered once the shard of every group asked for has read its committed offsets. */
    void handleOffsetFetchRequest(
            RequestContext context, OffsetFetchRequest request, Consumer<AbstractResponse> respond) {
        short version = context.apiVersion();
        var data = request.data();
        if (version < 8) {
            // One group; its errors are the whole response's.
            List<TopicPartitionKey> asked = partitionsAsked(
                    data.topics(), OffsetFetchRequestTopic::name, OffsetFetchRequestTopic::partitionIndexes);
            fetch(data.groupId(), asked, fetched -> {
                if (fetched.error() != GroupError.NONE) {
                    respond.accept(
                            request.getErrorResponse(0, errors(fetched.error()).exception()));
                    return;
                }
                OffsetFetchResponseData response = new OffsetFetchResponseData().setErrorCode(Errors.NONE.code());
                visibleOffsets(context, fetched, asked == null)
                        .forEach((topic, partitions) -> response.topics()
                                .add(new OffsetFetchResponseTopic()
                                        .setName(topic)
                                        .setPartitions(partitions.stream()
                                                .map(c -> new OffsetFetchResponsePartition()
                                                        .setPartitionIndex(c.partition())
                                                        .setCommittedOffset(c.offset())
                                                        .setCommittedLeaderEpoch(c.leaderEpoch())
                                                        .setMetadata(c.metadata())
                                                        .setErrorCode(c.error().code()))
                                                .toList())));
                respond.accept(new OffsetFetchResponse(response, version));
            });
            return;
        }
        List<OffsetFetchRequestGroup> groups = data.groups();
        if (groups.isEmpty()) {
            respond.accept(new OffsetFetchResponse(new OffsetFetchResponseData(), version));
            return;
        }
        AnswerSlots<OffsetFetchResponseGroup> answers = new AnswerSlots<>(groups.size(), all -> {
            OffsetFetchResponseData response = new OffsetFetchResponseData();
            response.groups().addAll(all);
            respond.accept(new OffsetFetchResponse(response, version));
        });
        for (int i = 0; i < groups.size(); i++) {
            OffsetFetchRequestGroup group = groups.get(i);
            int index = i;
            OffsetFetchResponseGroup answer = new OffsetFetchResponseGroup().setGroupId(group.groupId());
            if (!groupAllowed(context, AclOperation.DESCRIBE, group.groupId())) {
                answers.fill(index, answer.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()));
                continue;
            }
            List<TopicPartitionKey> asked = partitionsAsked(
                    group.topics(), OffsetFetchRequestTopics::name, OffsetFetchRequestTopics::partitionIndexes);
            fetch(group.groupId(), asked, fetched -> {
                answer.setErrorCode(errors(fetched.error()).code());
                if (fetched.error() == GroupError.NONE) {
                    visibleOffsets(context, fetched, asked == null)
                            .forEach((topic, partitions) -> answer.topics()
                                    .add(new OffsetFetchResponseTopics()
                                            .setName(topic)
                                            .setPartitions(partitions.stream()
                                                    .map(c -> new OffsetFetchResponsePartitions()
                                                            .setPartitionIndex(c.partition())
                                                            .setCommittedOffset(c.offset())
                                                            .setCommittedLeaderEpoch(c.leaderEpoch())
                                                            .setMetadata(c.metadata())
                                                            .setErrorCode(
                                                                    c.error().code()))
                                                    .toList())));
                }
                answers.fill(index, answer);
            });
        }
    }

    /** The partitions an OffsetFetch names (its request topics are of a different class per version); null: all. */
    private static <T> List<TopicPartitionKey> partitionsAsked(
            List<T> topics, Function<T, String> name, Function<T, List<Integer>> partitions) {
        if (topics == null) {
            return null;
        }
        List<TopicPartitionKey> asked = new ArrayList<>();
        for (T topic : topics) {
            for (int partition : partitions.apply(topic)) {
                asked.add(new TopicPartitionKey(name.apply(topic), partition));
            }
        }
        return asked;
    }

    /** One partition of an OffsetFetch answer, whatever the version's classes. */
    private record FetchedOffset(int partition, long offset, int leaderEpoch, String metadata, Errors error) {}

    /**
     * The fetched offsets by topic, as the principal may see them: asked for all, the topics it may not DESCRIBE are
     * left out; named, their partitions are TOPIC_AUTHORIZATION_FAILED. A partition without a commit is offset -1.
     */
    private Map<String, List<FetchedOffset>> visibleOffsets(RequestContext context, FetchResult fetched, boolean all) {
        Map<String, List<FetchedOffset>> byTopic = new LinkedHashMap<>();
        for (var entry : fetched.offsets().entrySet()) {
            OffsetAndMetadata offset = entry.getValue();
            boolean allowed = authorizer.topic(
                    context, AclOperation.DESCRIBE, entry.getKey().topic());
            if (!allowed && all) {
                continue;
            }
            boolean shown = offset != null && allowed;
            byTopic.computeIfAbsent(entry.getKey().topic(), t -> new ArrayList<>())
                    .add(new FetchedOffset(
                            entry.getKey().partition(),
                            shown ? offset.offset() : -1,
                            shown ? offset.leaderEpoch() : -1,
                            shown ? offset.metadata() : "",
                            allowed ? Errors.NONE : Errors.TOPIC_AUTHORIZATION_FAILED));
        }
        return byTopic;
    }

    /** Committed offsets, to {@code answer}; requested partitions without a commit map to null. */
    private void fetch(String groupId, List<TopicPartitionKey> wanted, Consumer<FetchResult> answer) {
        coordinator.fetchOffsets(groupId, wanted, fetched -> {
            if (wanted == null || fetched.error() != GroupError.NONE) {
                answer.accept(fetched);
                return;
            }
            Map<TopicPartitionKey, OffsetAndMetadata> result = new LinkedHashMap<>();
            for (TopicPartitionKey tp : wanted) {
                result.put(tp, fetched.offsets().get(tp));
            }
            answer.accept(new FetchResult(GroupError.NONE, result));
        });
    }

    void handleListGroupsRequest(
            RequestContext context, ListGroupsRequest request, Consumer<AbstractResponse> respond) {
        var data = request.data();
        // As Kafka: DESCRIBE on the cluster lists every group, else only the groups the principal may DESCRIBE.
        boolean all = authorizer.cluster(context, AclOperation.DESCRIBE);
        coordinator.listGroups(listings -> {
            ListGroupsResponseData response = new ListGroupsResponseData().setErrorCode(Errors.NONE.code());
            for (GroupListing listing : listings) {
                if (!all && !authorizer.group(context, AclOperation.DESCRIBE, listing.groupId())) {
                    continue;
                }
                if (!data.statesFilter().isEmpty()
                        && data.statesFilter().stream()
                                .noneMatch(
                                        s -> s.equalsIgnoreCase(listing.state().kafkaName()))) {
                    continue;
                }
                if (!data.typesFilter().isEmpty()
                        && data.typesFilter().stream().noneMatch(t -> t.equalsIgnoreCase("classic"))) {
                    continue;
                }
                response.groups()
                        .add(new ListedGroup()
                                .setGroupId(listing.groupId())
                                .setProtocolType(listing.protocolType())
                                .setGroupState(listing.state().kafkaName())
                                .setGroupType("classic"));
            }
            respond.accept(new ListGroupsResponse(response));
        });
    }

    /** DescribeGroups: answered once the shard of every group asked for has described it. */
    void handleDescribeGroupsRequest(
            RequestContext context, DescribeGroupsRequest request, Consumer<AbstractResponse> respond) {
        short version = context.apiVersion();
        List<String> groupIds = request.data().groups();
        AnswerSlots<DescribedGroup> answers = new AnswerSlots<>(groupIds.size(), all -> {
            DescribeGroupsResponseData response = new DescribeGroupsResponseData();
            response.groups().addAll(all);
            respond.accept(new DescribeGroupsResponse(response));
        });
        if (groupIds.isEmpty()) {
            respond.accept(new DescribeGroupsResponse(new DescribeGroupsResponseData()));
            return;
        }
        for (int i = 0; i < groupIds.size(); i++) {
            String groupId = groupIds.get(i);
            int index = i;
            if (!groupAllowed(context, AclOperation.DESCRIBE, groupId)) {
                answers.fill(
                        index,
                        new DescribedGroup()
                                .setGroupId(groupId)
                                .setGroupState("")
                                .setProtocolType("")
                                .setProtocolData("")
                                .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()));
                continue;
            }
            coordinator.describeGroup(groupId, description -> {
                answers.fill(index, describedGroup(groupId, description, version));
            });
        }
    }

    private static DescribedGroup describedGroup(String groupId, GroupDescription description, short version) {
        DescribedGroup group = new DescribedGroup()
                .setGroupId(groupId)
                .setGroupState(description.state().kafkaName())
                .setProtocolType(description.protocolType())
                .setProtocolData(description.protocolName() == null ? "" : description.protocolName())
                .setErrorCode(Errors.NONE.code());
        if (description.error() == GroupError.GROUP_ID_NOT_FOUND) {
            if (version >= 6) {
                group.setErrorCode(Errors.GROUP_ID_NOT_FOUND.code())
                        .setErrorMessage("Group " + groupId + " not found.");
            }
        } else if (description.error() != GroupError.NONE) {
            // The group's shard moved or is loading since the request was routed here: the client retries.
            group.setErrorCode(errors(description.error()).code());
        }
        for (MemberDescription member : description.members()) {
            group.members()
                    .add(new DescribedGroupMember()
                            .setMemberId(member.memberId())
                            .setGroupInstanceId(member.instanceId())
                            .setClientId(member.clientId())
                            .setClientHost(member.clientHost())
                            .setMemberMetadata(member.metadata())
                            .setMemberAssignment(member.assignment()));
        }
        return group;
    }

    /** DeleteGroups: answered once every group's deletion is durable (or failed). */
    void handleDeleteGroupsRequest(
            RequestContext context, DeleteGroupsRequest request, Consumer<AbstractResponse> respond) {
        List<String> groups = request.data().groupsNames();
        AnswerSlots<DeletableGroupResult> answers = new AnswerSlots<>(groups.size(), all -> {
            DeleteGroupsResponseData response = new DeleteGroupsResponseData();
            response.results().addAll(all);
            respond.accept(new DeleteGroupsResponse(response));
        });
        if (groups.isEmpty()) {
            respond.accept(new DeleteGroupsResponse(new DeleteGroupsResponseData()));
            return;
        }
        for (int i = 0; i < groups.size(); i++) {
            String groupId = groups.get(i);
            int index = i;
            if (!groupAllowed(context, AclOperation.DELETE, groupId)) {
                answers.fill(index, deletableGroup(groupId, Errors.GROUP_AUTHORIZATION_FAILED));
                continue;
            }
            coordinator.deleteGroup(groupId, error -> answers.fill(index, deletableGroup(groupId, errors(error))));
        }
    }

    private static DeletableGroupResult deletableGroup(String groupId, Errors error) {
        return new DeletableGroupResult().setGroupId(groupId).setErrorCode(error.code());
    }
}
