package dev.strait.broker.metadata;

import java.util.Objects;

/**
 * One ACL as the cluster metadata stores it, in Kafka's wire codes (resource type, pattern type, operation and
 * permission type bytes of {@code common.resource} and {@code common.acl}), so that this layer needs none of
 * Kafka's ACL classes. A value: two entries with the same fields are the same ACL (Kafka's ACLs have set
 * semantics).
 */
public record AclEntry(
        byte resourceType,
        String resourceName,
        byte patternType,
        String principal,
        String host,
        byte operation,
        byte permissionType) {
    public AclEntry {
        Objects.requireNonNull(resourceName, "resourceName");
        Objects.requireNonNull(principal, "principal");
        Objects.requireNonNull(host, "host");
    }
}
