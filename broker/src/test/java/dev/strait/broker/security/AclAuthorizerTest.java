package dev.strait.broker.security;

import static org.apache.kafka.common.acl.AclOperation.ALL;
import static org.apache.kafka.common.acl.AclOperation.ALTER;
import static org.apache.kafka.common.acl.AclOperation.ALTER_CONFIGS;
import static org.apache.kafka.common.acl.AclOperation.CREATE;
import static org.apache.kafka.common.acl.AclOperation.DELETE;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE;
import static org.apache.kafka.common.acl.AclOperation.DESCRIBE_CONFIGS;
import static org.apache.kafka.common.acl.AclOperation.READ;
import static org.apache.kafka.common.acl.AclOperation.WRITE;
import static org.apache.kafka.common.acl.AclPermissionType.ALLOW;
import static org.apache.kafka.common.acl.AclPermissionType.DENY;
import static org.apache.kafka.common.resource.PatternType.LITERAL;
import static org.apache.kafka.common.resource.PatternType.PREFIXED;
import static org.apache.kafka.common.resource.ResourceType.CLUSTER;
import static org.apache.kafka.common.resource.ResourceType.GROUP;
import static org.apache.kafka.common.resource.ResourceType.TOPIC;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Set;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.junit.jupiter.api.Test;

/** StandardAuthorizer's rules, one per test, on small ACL sets. */
class AclAuthorizerTest {

    private static final KafkaPrincipal ALICE = new KafkaPrincipal("User", "alice");
    private static final KafkaPrincipal BOB = new KafkaPrincipal("User", "bob");
    private static final String HOST = "10.0.0.1";

    private static AclBinding acl(
            ResourceType type,
            String name,
            PatternType pattern,
            String principal,
            String host,
            AclOperation operation,
            AclPermissionType permission) {
        return new AclBinding(
                new ResourcePattern(type, name, pattern),
                new AccessControlEntry(principal, host, operation, permission));
    }

    private static AclBinding allow(
            ResourceType type, String name, PatternType pattern, String principal, AclOperation operation) {
        return acl(type, name, pattern, principal, "*", operation, ALLOW);
    }

    private static AclBinding deny(
            ResourceType type, String name, PatternType pattern, String principal, AclOperation operation) {
        return acl(type, name, pattern, principal, "*", operation, DENY);
    }

    private static AclAuthorizer authorizer(AclBinding... acls) {
        return new AclAuthorizer(Set.of(), false, List.of(acls));
    }

    @Test
    void superUsersMayDoEverythingEvenAgainstADeny() {
        AclAuthorizer authorizer = new AclAuthorizer(
                Principals.parseList("User:admin; User:broker"),
                false,
                List.of(deny(TOPIC, "*", LITERAL, "User:*", ALL)));
        assertThat(authorizer.authorize(new KafkaPrincipal("User", "admin"), HOST, WRITE, TOPIC, "t"))
                .isTrue();
        assertThat(authorizer.authorize(new KafkaPrincipal("User", "broker"), HOST, ALTER, CLUSTER, "kafka-cluster"))
                .isTrue();
        assertThat(authorizer.authorize(ALICE, HOST, WRITE, TOPIC, "t")).isFalse();
    }

    @Test
    void literalAclsNameExactlyOneResourceAndTheWildcardNamesAll() {
        AclAuthorizer authorizer = authorizer(
                allow(TOPIC, "orders", LITERAL, "User:alice", READ), allow(GROUP, "*", LITERAL, "User:alice", READ));
        assertThat(authorizer.authorize(ALICE, HOST, READ, TOPIC, "orders")).isTrue();
        assertThat(authorizer.authorize(ALICE, HOST, READ, TOPIC, "orders2")).isFalse();
        assertThat(authorizer.authorize(ALICE, HOST, READ, TOPIC, "order")).isFalse();
        assertThat(authorizer.authorize(ALICE, HOST, READ, GROUP, "any-group")).isTrue();
        assertThat(authorizer.authorize(BOB, HOST, READ, TOPIC, "orders")).isFalse();
    }

    @Test
    void prefixedAclsNameEveryResourceStartingWithThePrefix() {
        AclAuthorizer authorizer = authorizer(allow(TOPIC, "team-a.", PREFIXED, "User:alice", WRITE));
        assertThat(authorizer.authorize(ALICE, HOST, WRITE, TOPIC, "team-a.orders"))
                .isTrue();
        assertThat(authorizer.authorize(ALICE, HOST, WRITE, TOPIC, "team-a.")).isTrue();
        assertThat(authorizer.authorize(ALICE, HOST, WRITE, TOPIC, "team-b.orders"))
                .isFalse();
        assertThat(authorizer.authorize(ALICE, HOST, WRITE, TOPIC, "team-a")).isFalse();
    }

    @Test
    void denyWinsOverAllowWhateverThePatternOfEither() {
        AclAuthorizer authorizer = authorizer(
                allow(TOPIC, "*", LITERAL, "User:alice", ALL),
                deny(TOPIC, "secret.", PREFIXED, "User:alice", READ),
                allow(TOPIC, "secret.ok", LITERAL, "User:alice", READ));
        assertThat(authorizer.authorize(ALICE, HOST, READ, TOPIC, "public")).isTrue();
        assertThat(authorizer.authorize(ALICE, HOST, READ, TOPIC, "secret.ok")).isFalse();
        assertThat(authorizer.authorize(ALICE, HOST, WRITE, TOPIC, "secret.ok")).isTrue();
    }

    @Test
    void denyForEveryoneAppliesToEveryPrincipal() {
        AclAuthorizer authorizer =
                authorizer(allow(TOPIC, "t", LITERAL, "User:alice", READ), deny(TOPIC, "t", LITERAL, "User:*", READ));
        assertThat(authorizer.authorize(ALICE, HOST, READ, TOPIC, "t")).isFalse();
    }

    @Test
    void readWriteDeleteAndAlterImplyDescribeButADenyImpliesNothing() {
        for (AclOperation op : List.of(READ, WRITE, DELETE, ALTER)) {
            assertThat(authorizer(allow(TOPIC, "t", LITERAL, "User:alice", op))
                            .authorize(ALICE, HOST, DESCRIBE, TOPIC, "t"))
                    .as("%s implies DESCRIBE", op)
                    .isTrue();
        }
        assertThat(authorizer(allow(TOPIC, "t", LITERAL, "User:alice", CREATE))
                        .authorize(ALICE, HOST, DESCRIBE, TOPIC, "t"))
                .isFalse();
        assertThat(authorizer(allow(TOPIC, "t", LITERAL, "User:alice", ALTER_CONFIGS))
                        .authorize(ALICE, HOST, DESCRIBE_CONFIGS, TOPIC, "t"))
                .isTrue();
        assertThat(authorizer(allow(TOPIC, "t", LITERAL, "User:alice", READ)).authorize(ALICE, HOST, WRITE, TOPIC, "t"))
                .isFalse();
        // A deny of READ does not deny DESCRIBE, which an ALLOW of WRITE implies.
        assertThat(authorizer(
                                allow(TOPIC, "t", LITERAL, "User:alice", WRITE),
                                deny(TOPIC, "t", LITERAL, "User:alice", READ))
                        .authorize(ALICE, HOST, DESCRIBE, TOPIC, "t"))
                .isTrue();
    }

    @Test
    void hostsMatchExactlyOrByWildcard() {
        AclAuthorizer authorizer = authorizer(
                acl(TOPIC, "t", LITERAL, "User:alice", HOST, READ, ALLOW),
                acl(TOPIC, "t", LITERAL, "User:alice", "10.0.0.9", WRITE, DENY),
                acl(TOPIC, "t", LITERAL, "User:alice", "*", WRITE, ALLOW));
        assertThat(authorizer.authorize(ALICE, HOST, READ, TOPIC, "t")).isTrue();
        assertThat(authorizer.authorize(ALICE, "10.0.0.2", READ, TOPIC, "t")).isFalse();
        assertThat(authorizer.authorize(ALICE, HOST, WRITE, TOPIC, "t")).isTrue();
        assertThat(authorizer.authorize(ALICE, "10.0.0.9", WRITE, TOPIC, "t")).isFalse();
    }

    @Test
    void withoutAnyAclOnTheResourceTheDefaultDecides() {
        AclBinding other = allow(TOPIC, "other", LITERAL, "User:bob", READ);
        assertThat(new AclAuthorizer(Set.of(), true, List.of(other)).authorize(ALICE, HOST, READ, TOPIC, "t"))
                .isTrue();
        assertThat(new AclAuthorizer(Set.of(), false, List.of(other)).authorize(ALICE, HOST, READ, TOPIC, "t"))
                .isFalse();
        // An ACL on the resource for someone else counts as "found": the default no longer applies.
        AclBinding onT = allow(TOPIC, "t", LITERAL, "User:bob", READ);
        assertThat(new AclAuthorizer(Set.of(), true, List.of(onT)).authorize(ALICE, HOST, READ, TOPIC, "t"))
                .isFalse();
        AclBinding prefixOnT = allow(TOPIC, "t", PREFIXED, "User:bob", READ);
        assertThat(new AclAuthorizer(Set.of(), true, List.of(prefixOnT)).authorize(ALICE, HOST, READ, TOPIC, "tx"))
                .isFalse();
    }

    @Test
    void byResourceTypeAsksForAnyResourceNotCoveredByADeny() {
        assertThat(authorizer(allow(TOPIC, "a", LITERAL, "User:alice", WRITE))
                        .authorizeByResourceType(ALICE, HOST, WRITE, TOPIC))
                .isTrue();
        assertThat(authorizer(allow(TOPIC, "a", LITERAL, "User:alice", READ))
                        .authorizeByResourceType(ALICE, HOST, WRITE, TOPIC))
                .isFalse();
        assertThat(authorizer(
                                allow(TOPIC, "a", LITERAL, "User:alice", WRITE),
                                deny(TOPIC, "a", LITERAL, "User:alice", WRITE))
                        .authorizeByResourceType(ALICE, HOST, WRITE, TOPIC))
                .isFalse();
        assertThat(authorizer(
                                allow(TOPIC, "a.b", PREFIXED, "User:alice", WRITE),
                                deny(TOPIC, "a.", PREFIXED, "User:alice", WRITE))
                        .authorizeByResourceType(ALICE, HOST, WRITE, TOPIC))
                .isFalse();
        assertThat(authorizer(
                                allow(TOPIC, "a.", PREFIXED, "User:alice", WRITE),
                                deny(TOPIC, "a.b", PREFIXED, "User:alice", WRITE))
                        .authorizeByResourceType(ALICE, HOST, WRITE, TOPIC))
                .isTrue();
        assertThat(authorizer(
                                allow(TOPIC, "a", LITERAL, "User:alice", WRITE),
                                deny(TOPIC, "*", LITERAL, "User:alice", WRITE))
                        .authorizeByResourceType(ALICE, HOST, WRITE, TOPIC))
                .isFalse();
        assertThat(new AclAuthorizer(Set.of(), true, List.of()).authorizeByResourceType(ALICE, HOST, WRITE, TOPIC))
                .isTrue();
    }

    @Test
    void principalsParseAsKafkaWritesThem() {
        assertThat(Principals.parse("User:CN=client,O=Strait Test"))
                .isEqualTo(new KafkaPrincipal("User", "CN=client,O=Strait Test"));
        assertThat(Principals.parseList("User:a;;User:b "))
                .containsExactly(new KafkaPrincipal("User", "a"), new KafkaPrincipal("User", "b"));
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Principals.parse("alice"))
                .hasMessageContaining("User:<name>");
    }
}
