package dev.strait.broker.protocol;

import dev.strait.broker.security.AclAuthorizer;
import java.util.EnumSet;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.utils.Utils;

/**
 * The handlers' view of the authorizer: a request's principal and client address against the current ACLs. With
 * no {@code authorizer.class.name} configured every request is allowed, as Kafka does.
 */
final class RequestAuthorizer {

    static final String CLUSTER_NAME = "kafka-cluster";
    /** Kafka's "not requested" value of the authorized-operations fields. */
    static final int OPERATIONS_NOT_REQUESTED = Integer.MIN_VALUE;

    private static final Set<AclOperation> TOPIC_OPERATIONS = EnumSet.of(
            AclOperation.READ,
            AclOperation.WRITE,
            AclOperation.CREATE,
            AclOperation.DELETE,
            AclOperation.ALTER,
            AclOperation.DESCRIBE,
            AclOperation.DESCRIBE_CONFIGS,
            AclOperation.ALTER_CONFIGS);
    private static final Set<AclOperation> CLUSTER_OPERATIONS = EnumSet.of(
            AclOperation.CREATE,
            AclOperation.ALTER,
            AclOperation.DESCRIBE,
            AclOperation.CLUSTER_ACTION,
            AclOperation.DESCRIBE_CONFIGS,
            AclOperation.ALTER_CONFIGS,
            AclOperation.IDEMPOTENT_WRITE);
    private static final Set<AclOperation> GROUP_OPERATIONS =
            EnumSet.of(AclOperation.READ, AclOperation.DESCRIBE, AclOperation.DELETE);

    private static final RequestAuthorizer NONE = new RequestAuthorizer(() -> null);

    private final Supplier<AclAuthorizer> current;

    /** @param current the authorizer over the latest ACLs, or a supplier of null for none */
    RequestAuthorizer(Supplier<AclAuthorizer> current) {
        this.current = current;
    }

    static RequestAuthorizer none() {
        return NONE;
    }

    boolean enabled() {
        return current.get() != null;
    }

    boolean authorize(RequestContext context, AclOperation operation, ResourceType type, String name) {
        AclAuthorizer authorizer = current.get();
        return authorizer == null || authorizer.authorize(context.principal, host(context), operation, type, name);
    }

    boolean topic(RequestContext context, AclOperation operation, String topic) {
        return authorize(context, operation, ResourceType.TOPIC, topic);
    }

    /** A missing group id (null) is judged as the empty name: prefixed ACLs match against a name. */
    boolean group(RequestContext context, AclOperation operation, String group) {
        return authorize(context, operation, ResourceType.GROUP, group == null ? "" : group);
    }

    boolean cluster(RequestContext context, AclOperation operation) {
        return authorize(context, operation, ResourceType.CLUSTER, CLUSTER_NAME);
    }

    boolean anyOfType(RequestContext context, AclOperation operation, ResourceType type) {
        AclAuthorizer authorizer = current.get();
        return authorizer == null
                || authorizer.authorizeByResourceType(context.principal, host(context), operation, type);
    }

    /** Kafka's authorized-operations bit field for a topic, a group or the cluster. */
    int authorizedOperations(RequestContext context, ResourceType type, String name) {
        Set<AclOperation> candidates = switch (type) {
            case TOPIC -> TOPIC_OPERATIONS;
            case CLUSTER -> CLUSTER_OPERATIONS;
            case GROUP -> GROUP_OPERATIONS;
            default -> Set.of();
        };
        AclAuthorizer authorizer = current.get();
        Set<AclOperation> allowed = authorizer == null
                ? candidates
                : authorizer.allowedOperations(context.principal, host(context), type, name, candidates);
        Set<Byte> codes = new java.util.HashSet<>();
        for (AclOperation operation : allowed) {
            codes.add(operation.code());
        }
        return Utils.to32BitField(codes);
    }

    private static String host(RequestContext context) {
        return context.clientAddress.getHostAddress();
    }
}
