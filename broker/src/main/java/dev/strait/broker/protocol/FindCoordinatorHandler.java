package dev.strait.broker.protocol;

import dev.strait.broker.group.GroupCoordinator;
import java.util.Optional;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.FindCoordinatorResponseData;
import org.apache.kafka.common.message.FindCoordinatorResponseData.Coordinator;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.FindCoordinatorRequest;
import org.apache.kafka.common.requests.FindCoordinatorResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.resource.ResourceType;
import org.jspecify.annotations.Nullable;

/**
 * FindCoordinator: a group's coordinator is the leader of the group's offsets partition, at its endpoint of the
 * listener the request came in on; a transactional id's is the leader of its {@code __transaction_state} partition,
 * which the first such request creates. Answers on the handler thread: it reads this node's view of the leaders, no
 * shard.
 */
final class FindCoordinatorHandler {

    private static final byte KEY_TYPE_GROUP = 0;

    /** Who leads an offsets partition, at its endpoint of the listener a request came in on. */
    @FunctionalInterface
    interface CoordinatorLookup {
        Optional<BrokerEndpoint> leader(int partition, String listener);
    }

    /** Where a transactional id's coordinator is, at its endpoint of a listener; empty while there is none. */
    @FunctionalInterface
    interface TransactionLookup {
        Optional<BrokerEndpoint> coordinator(String transactionalId, String listener);
    }

    /** A node without a transaction coordinator. */
    static final TransactionLookup NO_TRANSACTIONS = (transactionalId, listener) -> Optional.empty();

    private final GroupCoordinator coordinator;
    private final CoordinatorLookup offsetsPartitionLeader;
    private final TransactionLookup transactions;
    private final RequestAuthorizer authorizer;

    /** @param offsetsPartitionLeader the leader of an offsets partition, which coordinates its groups */
    FindCoordinatorHandler(
            GroupCoordinator coordinator,
            CoordinatorLookup offsetsPartitionLeader,
            TransactionLookup transactions,
            RequestAuthorizer authorizer) {
        this.coordinator = coordinator;
        this.offsetsPartitionLeader = offsetsPartitionLeader;
        this.transactions = transactions;
        this.authorizer = authorizer;
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
        Optional<BrokerEndpoint> node =
                group ? coordinatorOf(key, listener) : transactions.coordinator(key == null ? "" : key, listener);
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
    private @Nullable Errors refusedCoordinatorKey(RequestContext context, boolean group, String key) {
        if (group) {
            return authorizer.group(context, AclOperation.DESCRIBE, key) ? null : Errors.GROUP_AUTHORIZATION_FAILED;
        }
        return authorizer.authorize(context, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, key)
                ? null
                : Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED;
    }

    /** The leader of the group's offsets partition, if it has one. */
    private Optional<BrokerEndpoint> coordinatorOf(String groupId, String listener) {
        return offsetsPartitionLeader.leader(coordinator.partitionFor(groupId == null ? "" : groupId), listener);
    }
}
