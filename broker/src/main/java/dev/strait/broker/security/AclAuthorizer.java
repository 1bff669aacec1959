package dev.strait.broker.security;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.jspecify.annotations.Nullable;

/**
 * The decisions of Kafka's {@code StandardAuthorizer} over one immutable set of ACLs (our own implementation of
 * the same rules):
 * <ul>
 *   <li>a principal in {@code super.users} may do everything;</li>
 *   <li>an ACL applies to a resource when its type is the resource's and its pattern is LITERAL with the same name,
 *       LITERAL {@code *}, or PREFIXED with a prefix of the name; to a request when its principal is the request's
 *       or {@code User:*}, its host the client's address or {@code *}, and its operation the one asked or ALL;</li>
 *   <li>a matching DENY wins over any ALLOW;</li>
 *   <li>an ALLOW of READ, WRITE, DELETE or ALTER also allows DESCRIBE, and ALTER_CONFIGS allows DESCRIBE_CONFIGS
 *       (a DENY implies nothing);</li>
 *   <li>when no ACL at all applies to the resource (whatever its principal, host or operation), the answer is
 *       {@code allow.everyone.if.no.acl.found}; otherwise no matching ALLOW means denied.</li>
 * </ul>
 * Thread-safe (immutable); a new instance replaces the old one when the ACLs in the metadata change.
 */
public final class AclAuthorizer {

    /** The class name Kafka's {@code authorizer.class.name} takes for KRaft clusters; accepted as ours. */
    public static final String KAFKA_STANDARD_AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";

    private static final String WILDCARD = ResourcePattern.WILDCARD_RESOURCE;
    private static final String WILDCARD_HOST = "*";
    private static final KafkaPrincipal WILDCARD_PRINCIPAL = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "*");
    private static final Set<AclOperation> IMPLIES_DESCRIBE = EnumSet.of(
            AclOperation.DESCRIBE, AclOperation.READ, AclOperation.WRITE, AclOperation.DELETE, AclOperation.ALTER);
    private static final Set<AclOperation> IMPLIES_DESCRIBE_CONFIGS =
            EnumSet.of(AclOperation.DESCRIBE_CONFIGS, AclOperation.ALTER_CONFIGS);
    /** A literal name no ACL names, so only the defaults (super user, no ACL found) can allow it. */
    private static final String NAME_NO_ACL_NAMES = "\u0000strait:no-such-resource";

    private final Set<KafkaPrincipal> superUsers;
    private final boolean allowEveryoneIfNoAclFound;
    private final Map<ResourceType, List<Acl>> aclsByType;
    private final Collection<AclBinding> bindings;

    /** An ACL with its principal parsed once. */
    private record Acl(ResourcePattern pattern, KafkaPrincipal principal, AccessControlEntry entry) {}

    public AclAuthorizer(
            Set<KafkaPrincipal> superUsers, boolean allowEveryoneIfNoAclFound, Collection<AclBinding> acls) {
        this.superUsers = Set.copyOf(superUsers);
        this.allowEveryoneIfNoAclFound = allowEveryoneIfNoAclFound;
        this.bindings = List.copyOf(acls);
        Map<ResourceType, List<Acl>> byType = new EnumMap<>(ResourceType.class);
        for (AclBinding acl : acls) {
            byType.computeIfAbsent(acl.pattern().resourceType(), t -> new ArrayList<>())
                    .add(new Acl(acl.pattern(), Principals.parse(acl.entry().principal()), acl.entry()));
        }
        byType.replaceAll((type, list) -> List.copyOf(list));
        this.aclsByType = byType;
    }

    /** The ACLs these decisions are made over. */
    public Collection<AclBinding> acls() {
        return bindings;
    }

    /** The same rules over other ACLs (after a metadata change). */
    public AclAuthorizer withAcls(Collection<AclBinding> acls) {
        return new AclAuthorizer(superUsers, allowEveryoneIfNoAclFound, acls);
    }

    public boolean isSuperUser(KafkaPrincipal principal) {
        return superUsers.contains(base(principal));
    }

    /**
     * Whether {@code principal} connecting from {@code host} (an IP address) may do {@code operation} on the
     * resource {@code type}/{@code name}.
     */
    public boolean authorize(
            KafkaPrincipal principal, String host, AclOperation operation, ResourceType type, String name) {
        KafkaPrincipal base = base(principal);
        if (superUsers.contains(base)) {
            return true;
        }
        boolean anyApplies = false;
        boolean allowed = false;
        for (Acl acl : aclsByType.getOrDefault(type, List.of())) {
            if (!patternMatches(acl.pattern(), name)) {
                continue;
            }
            anyApplies = true;
            Boolean result = result(acl, base, host, operation);
            if (result == null) {
                continue;
            }
            if (!result) {
                return false; // deny wins
            }
            allowed = true;
        }
        return anyApplies ? allowed : allowEveryoneIfNoAclFound;
    }

    /**
     * Whether {@code principal} may do {@code operation} on at least one resource of {@code type}, as Kafka's
     * {@code Authorizer.authorizeByResourceType} decides it (InitProducerId of an idempotent producer asks this
     * of WRITE on topics): allowed if the defaults allow an unnamed resource, else if some ALLOW pattern is not
     * covered by a DENY pattern of the same principal and host.
     */
    public boolean authorizeByResourceType(
            KafkaPrincipal principal, String host, AclOperation operation, ResourceType type) {
        if (authorize(principal, host, operation, type, NAME_NO_ACL_NAMES)) {
            return true;
        }
        KafkaPrincipal base = base(principal);
        List<ResourcePattern> denyLiterals = new ArrayList<>();
        List<ResourcePattern> denyPrefixes = new ArrayList<>();
        List<ResourcePattern> allows = new ArrayList<>();
        for (Acl acl : aclsByType.getOrDefault(type, List.of())) {
            AccessControlEntry entry = acl.entry();
            if (!principalMatches(acl, base)
                    || !hostMatches(entry, host)
                    || entry.operation() != operation && entry.operation() != AclOperation.ALL) {
                continue;
            }
            if (entry.permissionType() == AclPermissionType.DENY) {
                if (acl.pattern().patternType() == PatternType.LITERAL
                        && acl.pattern().name().equals(WILDCARD)) {
                    return false;
                }
                (acl.pattern().patternType() == PatternType.PREFIXED ? denyPrefixes : denyLiterals).add(acl.pattern());
            } else if (entry.permissionType() == AclPermissionType.ALLOW) {
                allows.add(acl.pattern());
            }
        }
        for (ResourcePattern allow : allows) {
            boolean covered =
                    denyPrefixes.stream().anyMatch(deny -> allow.name().startsWith(deny.name()))
                            || allow.patternType() == PatternType.LITERAL
                                    && denyLiterals.stream()
                                            .anyMatch(deny -> deny.name().equals(allow.name()));
            if (!covered) {
                return true;
            }
        }
        return false;
    }

    /** The operations of {@code candidates} allowed on the resource (Kafka's "authorized operations" fields). */
    public Set<AclOperation> allowedOperations(
            KafkaPrincipal principal, String host, ResourceType type, String name, Set<AclOperation> candidates) {
        Set<AclOperation> allowed = EnumSet.noneOf(AclOperation.class);
        for (AclOperation operation : candidates) {
            if (authorize(principal, host, operation, type, name)) {
                allowed.add(operation);
            }
        }
        return allowed;
    }

    private static boolean patternMatches(ResourcePattern pattern, String name) {
        switch (pattern.patternType()) {
            case LITERAL:
                return pattern.name().equals(name) || pattern.name().equals(WILDCARD);
            case PREFIXED:
                return name.startsWith(pattern.name());
            default:
                return false;
        }
    }

    /** @return null if the entry does not match the request, else whether it allows */
    private static @Nullable Boolean result(Acl acl, KafkaPrincipal principal, String host, AclOperation operation) {
        AccessControlEntry entry = acl.entry();
        if (!principalMatches(acl, principal) || !hostMatches(entry, host)) {
            return null;
        }
        boolean allow = entry.permissionType() == AclPermissionType.ALLOW;
        if (entry.permissionType() != AclPermissionType.ALLOW && entry.permissionType() != AclPermissionType.DENY) {
            return null;
        }
        if (entry.operation() != AclOperation.ALL) {
            if (allow && operation == AclOperation.DESCRIBE) {
                if (!IMPLIES_DESCRIBE.contains(entry.operation())) {
                    return null;
                }
            } else if (allow && operation == AclOperation.DESCRIBE_CONFIGS) {
                if (!IMPLIES_DESCRIBE_CONFIGS.contains(entry.operation())) {
                    return null;
                }
            } else if (entry.operation() != operation) {
                return null;
            }
        }
        return allow;
    }

    private static boolean principalMatches(Acl acl, KafkaPrincipal principal) {
        return acl.principal().equals(principal) || acl.principal().equals(WILDCARD_PRINCIPAL);
    }

    private static boolean hostMatches(AccessControlEntry entry, String host) {
        return entry.host().equals(WILDCARD_HOST) || entry.host().equals(host);
    }

    /** Subclasses of KafkaPrincipal compare by class; the ACLs name plain principals. */
    private static KafkaPrincipal base(KafkaPrincipal principal) {
        return principal.getClass() == KafkaPrincipal.class
                ? principal
                : new KafkaPrincipal(principal.getPrincipalType(), principal.getName());
    }
}
