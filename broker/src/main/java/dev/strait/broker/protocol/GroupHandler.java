package dev.strait.broker.protocol;

import dev.strait.broker.group.GroupCoordinator;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.network.NetworkRequest;
import java.util.Collection;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Predicate;
import java.util.function.Supplier;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ConsumerGroupDescribeRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.DeleteGroupsRequest;
import org.apache.kafka.common.requests.DescribeGroupsRequest;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.JoinGroupRequest;
import org.apache.kafka.common.requests.LeaveGroupRequest;
import org.apache.kafka.common.requests.ListGroupsRequest;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.SyncGroupRequest;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.resource.ResourceType;
import org.jspecify.annotations.Nullable;

/**
 * The classic group protocol and committed offsets on the wire, translated to {@link GroupCoordinator} calls: the
 * one entry point of the group APIs, which checks what every group API checks first and hands each API to the
 * class that translates it ({@link GroupMembershipHandler}: JoinGroup, SyncGroup, Heartbeat, LeaveGroup;
 * {@link GroupOffsetsHandler}: OffsetCommit, OffsetFetch, OffsetDelete; {@link TxnOffsetCommitHandler}:
 * TxnOffsetCommit; {@link GroupAdminHandler}: ListGroups,
 * DescribeGroups, DeleteGroups; {@link FindCoordinatorHandler}).
 *
 * <p>Every API but FindCoordinator answers from the coordinator's callback, later and on the loop thread of the
 * group's shard (a handler thread never waits for a shard); the writing ones (JoinGroup, SyncGroup, LeaveGroup,
 * OffsetCommit, DeleteGroups, OffsetDelete) only once what the coordinator wrote is on the offsets partition's
 * in-sync replicas. {@link #handleGroupRequest} is the one dispatch: it checks the group ACL and whether this node
 * coordinates the groups, and calls the API's handler with the request's context, which the handler passes on
 * explicitly to what it checks later, on a shard's loop (topic and group ACLs); no request state is kept per thread.
 */
final class GroupHandler {

    private final GroupCoordinator coordinator;
    private final RequestAuthorizer authorizer;
    private final FindCoordinatorHandler findCoordinator;
    private final GroupMembershipHandler membership;
    private final GroupOffsetsHandler offsets;
    private final TxnOffsetCommitHandler txnOffsets;
    private final GroupAdminHandler admin;
    private final ConsumerGroupHandler consumerGroups;

    /** @param offsetsPartitionLeader the leader of an offsets partition, which coordinates its groups */
    GroupHandler(
            GroupCoordinator coordinator,
            FindCoordinatorHandler.CoordinatorLookup offsetsPartitionLeader,
            RequestAuthorizer authorizer) {
        this(coordinator, offsetsPartitionLeader, authorizer, topic -> Integer.MAX_VALUE);
    }

    /** @param partitionCounts the topics that exist, for OffsetDelete's UNKNOWN_TOPIC_OR_PARTITION */
    GroupHandler(
            GroupCoordinator coordinator,
            FindCoordinatorHandler.CoordinatorLookup offsetsPartitionLeader,
            RequestAuthorizer authorizer,
            GroupOffsetsHandler.PartitionCounts partitionCounts) {
        this(coordinator, offsetsPartitionLeader, authorizer, partitionCounts, List::of);
    }

    /** @param topics the topics that exist, for the consumer group protocol (KIP-848) */
    GroupHandler(
            GroupCoordinator coordinator,
            FindCoordinatorHandler.CoordinatorLookup offsetsPartitionLeader,
            RequestAuthorizer authorizer,
            GroupOffsetsHandler.PartitionCounts partitionCounts,
            Supplier<Collection<TopicMetadata>> topics) {
        this(
                coordinator,
                offsetsPartitionLeader,
                FindCoordinatorHandler.NO_TRANSACTIONS,
                authorizer,
                partitionCounts,
                topics);
    }

    /** @param transactions where FindCoordinator finds a transactional id's coordinator */
    GroupHandler(
            GroupCoordinator coordinator,
            FindCoordinatorHandler.CoordinatorLookup offsetsPartitionLeader,
            FindCoordinatorHandler.TransactionLookup transactions,
            RequestAuthorizer authorizer,
            GroupOffsetsHandler.PartitionCounts partitionCounts,
            Supplier<Collection<TopicMetadata>> topics) {
        this.coordinator = coordinator;
        this.authorizer = authorizer;
        this.findCoordinator =
                new FindCoordinatorHandler(coordinator, offsetsPartitionLeader, transactions, authorizer);
        this.membership = new GroupMembershipHandler(coordinator);
        this.offsets = new GroupOffsetsHandler(coordinator, authorizer, partitionCounts);
        this.txnOffsets = new TxnOffsetCommitHandler(coordinator, authorizer, partitionCounts);
        this.admin = new GroupAdminHandler(coordinator, authorizer);
        this.consumerGroups = new ConsumerGroupHandler(coordinator, authorizer, topics);
    }

    /**
     * The one dispatch of the group APIs: each names the groups it addresses and the operation Kafka checks on them
     * (READ, DESCRIBE for the reading APIs, DELETE for the deleting ones), and its handler runs only if this node
     * coordinates them now. An API about one group is refused as a whole if the principal may not act on it; one
     * about several groups answers an unauthorized group in its own entry.
     *
     * @return the response, or null if it will be sent later
     */
    @Nullable
    AbstractResponse handleGroupRequest(NetworkRequest request, RequestContext context, AbstractRequest body) {
        Consumer<AbstractResponse> respond = response -> KafkaApis.sendResponse(request, context, response);
        return switch (context.header.apiKey()) {
            case FIND_COORDINATOR ->
                findCoordinator.handleFindCoordinatorRequest(context, (FindCoordinatorRequest) body);
            case LIST_GROUPS -> later(() -> admin.handleListGroupsRequest(context, (ListGroupsRequest) body, respond));
            case JOIN_GROUP ->
                oneGroup(
                        context,
                        body,
                        AclOperation.READ,
                        ((JoinGroupRequest) body).data().groupId(),
                        () -> membership.handleJoinGroupRequest(context, (JoinGroupRequest) body, respond));
            case SYNC_GROUP ->
                oneGroup(
                        context,
                        body,
                        AclOperation.READ,
                        ((SyncGroupRequest) body).data().groupId(),
                        () -> membership.handleSyncGroupRequest(context, (SyncGroupRequest) body, respond));
            case HEARTBEAT ->
                oneGroup(
                        context,
                        body,
                        AclOperation.READ,
                        ((HeartbeatRequest) body).data().groupId(),
                        () -> membership.handleHeartbeatRequest(context, (HeartbeatRequest) body, respond));
            case LEAVE_GROUP ->
                oneGroup(
                        context,
                        body,
                        AclOperation.READ,
                        ((LeaveGroupRequest) body).data().groupId(),
                        () -> membership.handleLeaveGroupRequest(context, (LeaveGroupRequest) body, respond));
            case OFFSET_COMMIT ->
                oneGroup(
                        context,
                        body,
                        AclOperation.READ,
                        ((OffsetCommitRequest) body).data().groupId(),
                        () -> offsets.handleOffsetCommitRequest(context, (OffsetCommitRequest) body, respond));
            case TXN_OFFSET_COMMIT -> txnOffsetCommit(context, (TxnOffsetCommitRequest) body, respond);
            case OFFSET_DELETE ->
                oneGroup(
                        context,
                        body,
                        AclOperation.DELETE,
                        ((OffsetDeleteRequest) body).data().groupId(),
                        () -> offsets.handleOffsetDeleteRequest(context, (OffsetDeleteRequest) body, respond));
            case OFFSET_FETCH ->
                context.apiVersion() < 8
                        ? oneGroup(
                                context,
                                body,
                                AclOperation.DESCRIBE,
                                ((OffsetFetchRequest) body).data().groupId(),
                                () -> offsets.handleOffsetFetchRequest(context, (OffsetFetchRequest) body, respond))
                        : groups(
                                context,
                                body,
                                AclOperation.DESCRIBE,
                                ((OffsetFetchRequest) body)
                                        .data().groups().stream()
                                                .map(OffsetFetchRequestGroup::groupId)
                                                .toList(),
                                () -> offsets.handleOffsetFetchRequest(context, (OffsetFetchRequest) body, respond));
            case DESCRIBE_GROUPS ->
                groups(
                        context,
                        body,
                        AclOperation.DESCRIBE,
                        ((DescribeGroupsRequest) body).data().groups(),
                        () -> admin.handleDescribeGroupsRequest(context, (DescribeGroupsRequest) body, respond));
            case CONSUMER_GROUP_HEARTBEAT ->
                oneGroup(
                        context,
                        body,
                        AclOperation.READ,
                        ((ConsumerGroupHeartbeatRequest) body).data().groupId(),
                        () -> consumerGroups.handleConsumerGroupHeartbeatRequest(
                                context, (ConsumerGroupHeartbeatRequest) body, respond));
            case CONSUMER_GROUP_DESCRIBE ->
                groups(
                        context,
                        body,
                        AclOperation.DESCRIBE,
                        ((ConsumerGroupDescribeRequest) body).data().groupIds(),
                        () -> consumerGroups.handleConsumerGroupDescribeRequest(
                                context, (ConsumerGroupDescribeRequest) body, respond));
            case DELETE_GROUPS ->
                groups(
                        context,
                        body,
                        AclOperation.DELETE,
                        ((DeleteGroupsRequest) body).data().groupsNames(),
                        () -> admin.handleDeleteGroupsRequest(context, (DeleteGroupsRequest) body, respond));
            default -> throw new IllegalStateException("not a group API: " + context.header.apiKey());
        };
    }

    /**
     * TxnOffsetCommit: as Kafka, WRITE on the transactional id is checked first
     * (TRANSACTIONAL_ID_AUTHORIZATION_FAILED), then READ on the group and the coordination as for OffsetCommit.
     */
    private @Nullable AbstractResponse txnOffsetCommit(
            RequestContext context, TxnOffsetCommitRequest body, Consumer<AbstractResponse> respond) {
        if (!authorizer.authorize(
                context,
                AclOperation.WRITE,
                ResourceType.TRANSACTIONAL_ID,
                body.data().transactionalId())) {
            return body.getErrorResponse(0, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.exception());
        }
        return oneGroup(
                context,
                body,
                AclOperation.READ,
                body.data().groupId(),
                () -> txnOffsets.handle(context, body, respond));
    }

    /** Runs a handler that answers later, through its callback. */
    private static @Nullable AbstractResponse later(Runnable handle) {
        handle.run();
        return null;
    }

    /** An API about one group: refused if the principal may not act on the group, else as {@link #groups}. */
    private @Nullable AbstractResponse oneGroup(
            RequestContext context, AbstractRequest body, AclOperation operation, String groupId, Runnable handle) {
        if (!authorizer.group(context, operation, groupId)) {
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
    private @Nullable AbstractResponse groups(
            RequestContext context,
            AbstractRequest body,
            AclOperation operation,
            List<String> groupIds,
            Runnable handle) {
        Errors coordination = coordinationError(groupIds, group -> authorizer.group(context, operation, group));
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
}
