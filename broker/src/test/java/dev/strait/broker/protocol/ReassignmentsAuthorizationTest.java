package dev.strait.broker.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.security.AclAuthorizer;
import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import org.apache.kafka.common.message.ListPartitionReassignmentsRequestData;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsResponse;
import org.apache.kafka.common.requests.ListPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.ListPartitionReassignmentsResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.Test;

/**
 * AlterPartitionReassignments needs ALTER and ListPartitionReassignments DESCRIBE on the cluster, as in Kafka; without
 * it the whole request is refused with CLUSTER_AUTHORIZATION_FAILED before the metadata is read.
 */
class ReassignmentsAuthorizationTest {

    /** No ACL allows anything; the metadata is never reached. */
    private final ReassignmentsHandler handler =
            new ReassignmentsHandler(null, new RequestAuthorizer(() -> new AclAuthorizer(Set.of(), false, List.of())));

    @Test
    void bothApisRefuseAPrincipalWithoutTheClusterPermission() {
        // Given
        AlterPartitionReassignmentsRequestData alter = new AlterPartitionReassignmentsRequestData();
        alter.topics()
                .add(new ReassignableTopic()
                        .setName("t")
                        .setPartitions(List.of(
                                new ReassignablePartition().setPartitionIndex(0).setReplicas(List.of(1)))));

        // When
        AlterPartitionReassignmentsResponse altered =
                (AlterPartitionReassignmentsResponse) handler.handleAlterPartitionReassignmentsRequest(
                        context(ApiKeys.ALTER_PARTITION_REASSIGNMENTS, (short) 1),
                        new AlterPartitionReassignmentsRequest.Builder(alter).build((short) 1));
        ListPartitionReassignmentsResponse listed =
                (ListPartitionReassignmentsResponse) handler.handleListPartitionReassignmentsRequest(
                        context(ApiKeys.LIST_PARTITION_REASSIGNMENTS, (short) 0),
                        new ListPartitionReassignmentsRequest.Builder(new ListPartitionReassignmentsRequestData())
                                .build((short) 0));

        // Then
        assertThat(altered.data().errorCode()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
        assertThat(listed.data().errorCode()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
    }

    private static RequestContext context(ApiKeys key, short version) {
        return new RequestContext(
                new RequestHeader(key, version, "test", 1),
                "conn",
                InetAddress.getLoopbackAddress(),
                new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "mallory"),
                ListenerName.forSecurityProtocol(SecurityProtocol.PLAINTEXT),
                SecurityProtocol.PLAINTEXT,
                ClientInformation.EMPTY,
                false);
    }
}
