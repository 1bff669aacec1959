package dev.strait.broker.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.metadata.QuorumLeaderUnknownException;
import dev.strait.broker.metadata.QuorumStatus;
import dev.strait.broker.security.AclAuthorizer;
import java.net.InetAddress;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.internals.Topic;
import org.apache.kafka.common.message.DescribeQuorumRequestData;
import org.apache.kafka.common.message.DescribeQuorumResponseData;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.DescribeQuorumRequest;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.Test;

/**
 * DescribeQuorum's answers as Kafka 4.1.1 gives them: the description at every version (v2 adds the voters'
 * endpoints; the response must serialize at each), CLUSTER DESCRIBE required, only {@code __cluster_metadata-0},
 * and retriable errors while no leader answers.
 */
class QuorumHandlerTest {

    private static final KafkaPrincipal ALICE = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice");
    private static final QuorumStatus STATUS = new QuorumStatus(
            2,
            7,
            120,
            List.of(
                    new QuorumStatus.Replica(1, 118, 1_700_000_000_100L, 1_700_000_000_000L),
                    new QuorumStatus.Replica(2, 121, 1_700_000_000_200L, 1_700_000_000_200L),
                    new QuorumStatus.Replica(3, -1, -1, -1)),
            List.of(new QuorumStatus.Replica(9, 100, 1_700_000_000_150L, -1)),
            List.of(
                    new QuorumStatus.VoterNode(1, "CONTROLLER", "127.0.0.1", 9093),
                    new QuorumStatus.VoterNode(2, "CONTROLLER", "127.0.0.1", 9094),
                    new QuorumStatus.VoterNode(3, "CONTROLLER", "127.0.0.1", 9095)));

    private static RequestContext context(short version) {
        return new RequestContext(
                new RequestHeader(ApiKeys.DESCRIBE_QUORUM, version, "test", 1),
                "c1",
                InetAddress.getLoopbackAddress(),
                ALICE,
                new ListenerName("PLAINTEXT"),
                SecurityProtocol.PLAINTEXT,
                ClientInformation.EMPTY,
                false);
    }

    private static DescribeQuorumRequestData metadataPartition() {
        return DescribeQuorumRequest.singletonRequest(Topic.CLUSTER_METADATA_TOPIC_PARTITION);
    }

    private static QuorumHandler handler(CompletableFuture<QuorumStatus> answer, AclAuthorizer acls) {
        return new QuorumHandler(() -> answer, new RequestAuthorizer(() -> acls));
    }

    /** Serializes at {@code version} and reads it back, as a client would. */
    private static DescribeQuorumResponseData roundTrip(DescribeQuorumResponseData response, short version) {
        java.nio.ByteBuffer bytes =
                MessageUtil.toByteBufferAccessor(response, version).buffer();
        return new DescribeQuorumResponseData(new ByteBufferAccessor(bytes), version);
    }

    @Test
    void describesTheQuorumAtEveryVersion() {
        for (short version = ApiKeys.DESCRIBE_QUORUM.oldestVersion();
                version <= ApiKeys.DESCRIBE_QUORUM.latestVersion(false);
                version++) {
            // When
            DescribeQuorumResponseData response = roundTrip(
                    handler(CompletableFuture.completedFuture(STATUS), null)
                            .describe(context(version), metadataPartition(), version)
                            .join(),
                    version);
            // Then
            assertThat(response.errorCode()).isEqualTo(Errors.NONE.code());
            DescribeQuorumResponseData.PartitionData partition =
                    response.topics().get(0).partitions().get(0);
            assertThat(response.topics().get(0).topicName()).isEqualTo("__cluster_metadata");
            assertThat(partition.errorCode()).isEqualTo(Errors.NONE.code());
            assertThat(partition.leaderId()).isEqualTo(2);
            assertThat(partition.leaderEpoch()).isEqualTo(7);
            assertThat(partition.highWatermark()).isEqualTo(120);
            assertThat(partition.currentVoters())
                    .extracting(
                            DescribeQuorumResponseData.ReplicaState::replicaId,
                            DescribeQuorumResponseData.ReplicaState::logEndOffset)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple(1, 118L),
                            org.assertj.core.groups.Tuple.tuple(2, 121L),
                            org.assertj.core.groups.Tuple.tuple(3, -1L));
            assertThat(partition.observers())
                    .extracting(DescribeQuorumResponseData.ReplicaState::replicaId)
                    .containsExactly(9);
            if (version >= 1) {
                assertThat(partition.currentVoters().get(0).lastFetchTimestamp())
                        .isEqualTo(1_700_000_000_100L);
                assertThat(partition.currentVoters().get(0).lastCaughtUpTimestamp())
                        .isEqualTo(1_700_000_000_000L);
                assertThat(partition.currentVoters().get(2).lastFetchTimestamp())
                        .isEqualTo(-1);
            }
            if (version >= 2) {
                assertThat(response.nodes()).hasSize(3);
                DescribeQuorumResponseData.Node node = response.nodes().find(3);
                assertThat(node.listeners()).singleElement().satisfies(l -> {
                    assertThat(l.name()).isEqualTo("CONTROLLER");
                    assertThat(l.host()).isEqualTo("127.0.0.1");
                    assertThat(l.port()).isEqualTo(9095);
                });
            } else {
                assertThat(response.nodes()).isEmpty();
            }
        }
    }

    @Test
    void needsDescribeOnTheCluster() {
        // Given: ACLs that grant alice everything on topics, nothing on the cluster
        AclAuthorizer acls = new AclAuthorizer(
                Set.of(),
                false,
                List.of(new AclBinding(
                        new ResourcePattern(ResourceType.TOPIC, "*", PatternType.LITERAL),
                        new AccessControlEntry(ALICE.toString(), "*", AclOperation.ALL, AclPermissionType.ALLOW))));
        short v2 = 2;
        // When
        DescribeQuorumResponseData denied = handler(CompletableFuture.completedFuture(STATUS), acls)
                .describe(context(v2), metadataPartition(), v2)
                .join();
        AclAuthorizer granted = acls.withAcls(List.of(new AclBinding(
                new ResourcePattern(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL),
                new AccessControlEntry(ALICE.toString(), "*", AclOperation.DESCRIBE, AclPermissionType.ALLOW))));
        DescribeQuorumResponseData allowed = handler(CompletableFuture.completedFuture(STATUS), granted)
                .describe(context(v2), metadataPartition(), v2)
                .join();
        // Then
        assertThat(denied.errorCode()).isEqualTo(Errors.CLUSTER_AUTHORIZATION_FAILED.code());
        assertThat(denied.topics()).isEmpty();
        assertThat(allowed.errorCode()).isEqualTo(Errors.NONE.code());
    }

    @Test
    void anyOtherPartitionIsUnknown() {
        // When
        short v2 = 2;
        DescribeQuorumResponseData response = handler(CompletableFuture.completedFuture(STATUS), null)
                .describe(context(v2), DescribeQuorumRequest.singletonRequest(new TopicPartition("orders", 0)), v2)
                .join();
        // Then
        assertThat(response.errorCode()).isEqualTo(Errors.NONE.code());
        assertThat(response.topics().get(0).partitions().get(0).errorCode())
                .isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
    }

    @Test
    void noLeaderYetIsNotLeaderOrFollowerAndASilentLeaderATimeout() {
        short v0 = 0;
        // When
        DescribeQuorumResponseData noLeader = roundTrip(
                handler(CompletableFuture.failedFuture(new QuorumLeaderUnknownException("election under way")), null)
                        .describe(context(v0), metadataPartition(), v0)
                        .join(),
                v0);
        DescribeQuorumResponseData silent = handler(CompletableFuture.failedFuture(new TimeoutException("slow")), null)
                .describe(context(v0), metadataPartition(), v0)
                .join();
        // Then: both retriable, as Kafka's Admin treats them
        assertThat(noLeader.topics().get(0).partitions().get(0).errorCode())
                .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER.code());
        assertThat(Errors.NOT_LEADER_OR_FOLLOWER.exception())
                .isInstanceOf(org.apache.kafka.common.errors.RetriableException.class);
        assertThat(silent.errorCode()).isEqualTo(Errors.REQUEST_TIMED_OUT.code());
    }
}
