package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.junit.jupiter.api.Test;

class TargetAclsTest {
    private static AclBinding source(AclOperation op, AclPermissionType permission) {
        return new AclBinding(
                new ResourcePattern(ResourceType.TOPIC, "orders.", PatternType.PREFIXED),
                new AccessControlEntry("User:alice", "10.0.0.1", op, permission));
    }

    @Test
    void onlyReadAndDescribeGoToTheTargetTopicAsLiteralAcls() {
        assertThat(TargetTopics.targetAcls(source(AclOperation.READ, AclPermissionType.ALLOW), "dc1.orders.eu"))
                .containsExactly(new AclBinding(
                        new ResourcePattern(ResourceType.TOPIC, "dc1.orders.eu", PatternType.LITERAL),
                        new AccessControlEntry("User:alice", "10.0.0.1", AclOperation.READ, AclPermissionType.ALLOW)));
        assertThat(TargetTopics.targetAcls(source(AclOperation.ALL, AclPermissionType.DENY), "t"))
                .extracting(b -> b.entry().operation() + " " + b.entry().permissionType())
                .containsExactly("READ DENY", "DESCRIBE DENY");
        for (AclOperation op : new AclOperation[] {
            AclOperation.WRITE,
            AclOperation.CREATE,
            AclOperation.DELETE,
            AclOperation.ALTER,
            AclOperation.ALTER_CONFIGS,
            AclOperation.DESCRIBE_CONFIGS,
            AclOperation.IDEMPOTENT_WRITE
        }) {
            assertThat(TargetTopics.targetAcls(source(op, AclPermissionType.ALLOW), "t"))
                    .as(op.toString())
                    .isEmpty();
        }
    }
}
