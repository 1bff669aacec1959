package dev.strait.broker.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.group.GroupCoordinator;
import dev.strait.broker.group.OffsetsLog;
import dev.strait.broker.security.AclAuthorizer;
import java.net.InetAddress;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.HeartbeatRequest;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.TxnOffsetCommitRequest;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The group handler's one dispatch refuses before the coordinator what every group API refuses (the group ACL of the
 * request's principal, a group this node does not coordinate), and the handlers check topic ACLs against the context
 * they are given.
 */
class GroupHandlerDispatchTest {

    private static final KafkaPrincipal ALICE = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "alice");
    private static final KafkaPrincipal BOB = new KafkaPrincipal(KafkaPrincipal.USER_TYPE, "bob");

    /** Alice may READ group "g" and topic "t", and WRITE transactional id "tx"; nobody else may do anything. */
    private static final AclAuthorizer ACLS = new AclAuthorizer(
            Set.of(),
            false,
            List.of(
                    new AclBinding(
                            new ResourcePattern(ResourceType.TRANSACTIONAL_ID, "tx", PatternType.LITERAL),
                            new AccessControlEntry(ALICE.toString(), "*", AclOperation.WRITE, AclPermissionType.ALLOW)),
                    new AclBinding(
                            new ResourcePattern(ResourceType.GROUP, "g", PatternType.LITERAL),
                            new AccessControlEntry(ALICE.toString(), "*", AclOperation.READ, AclPermissionType.ALLOW)),
                    new AclBinding(
                            new ResourcePattern(ResourceType.TOPIC, "t", PatternType.LITERAL),
                            new AccessControlEntry(
                                    ALICE.toString(), "*", AclOperation.READ, AclPermissionType.ALLOW))));

    /** A log that keeps nothing and calls every write durable at once. */
    private static final OffsetsLog NO_LOG = new OffsetsLog() {
        @Override
        public Appended append(int partition, List<Entry> records) {
            return new Appended(0, 0);
        }

        @Override
        public Appended appendTransactional(int partition, long producerId, short producerEpoch, List<Entry> records) {
            return new Appended(0, 0);
        }

        @Override
        public Optional<Position> position(int partition) {
            return Optional.of(new Position(0, 0, 0));
        }

        @Override
        public void awaitReplication(int partition, Appended appended, Runnable onChange) {
            onChange.run();
        }

        @Override
        public long replay(int partition, RecordConsumer consumer) {
            return 0;
        }
    };

    private final GroupCoordinator coordinator = new GroupCoordinator(
            new GroupCoordinator.Config(1, 0, 1000, 60_000, 3_600_000), NO_LOG, System::currentTimeMillis);

    @AfterEach
    void close() {
        coordinator.close();
    }

    private GroupHandler handler() {
        return new GroupHandler(
                coordinator,
                (partition, listener) -> Optional.of(new BrokerEndpoint(0, "127.0.0.1", 9092)),
                new RequestAuthorizer(() -> ACLS));
    }

    private static RequestContext context(ApiKeys key, short version, KafkaPrincipal principal) {
        return new RequestContext(
                new RequestHeader(key, version, "test", 1),
                "c1",
                InetAddress.getLoopbackAddress(),
                principal,
                new ListenerName("PLAINTEXT"),
                SecurityProtocol.PLAINTEXT,
                ClientInformation.EMPTY,
                false);
    }

    private static HeartbeatRequest heartbeat(String group) {
        return new HeartbeatRequest.Builder(new HeartbeatRequestData()
                        .setGroupId(group)
                        .setMemberId("m")
                        .setGenerationId(1))
                .build((short) 4);
    }

    private void awaitActive() {
        coordinator.startup();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!coordinator.isActive(0)) {
            assertThat(System.nanoTime()).as("shard loaded within 30 s").isLessThan(deadline);
            Thread.yield();
        }
    }

    @Test
    void aGroupThePrincipalMayNotReadIsRefusedBeforeAnythingElse() {
        // Given: the shard is not served (never started), so only the ACL check can tell the two apart
        GroupHandler handler = handler();
        // When
        AbstractResponse bob =
                handler.handleGroupRequest(null, context(ApiKeys.HEARTBEAT, (short) 4, BOB), heartbeat("g"));
        AbstractResponse alice =
                handler.handleGroupRequest(null, context(ApiKeys.HEARTBEAT, (short) 4, ALICE), heartbeat("g"));
        // Then: each request is judged by its own principal
        assertThat(bob.errorCounts()).containsOnlyKeys(Errors.GROUP_AUTHORIZATION_FAILED);
        assertThat(alice.errorCounts()).containsOnlyKeys(Errors.NOT_COORDINATOR);
    }

    private static TxnOffsetCommitRequest txnOffsetCommit(String transactionalId) {
        return new TxnOffsetCommitRequest.Builder(new TxnOffsetCommitRequestData()
                        .setTransactionalId(transactionalId)
                        .setGroupId("g")
                        .setProducerId(1)
                        .setProducerEpoch((short) 0)
                        .setTopics(List.of(new TxnOffsetCommitRequestTopic()
                                .setName("t")
                                .setPartitions(List.of(new TxnOffsetCommitRequestPartition()
                                        .setPartitionIndex(0)
                                        .setCommittedOffset(5))))))
                .build((short) 4);
    }

    @Test
    void aTxnOffsetCommitNeedsWriteOnItsTransactionalIdBeforeTheGroupIsLookedAt() {
        // Given: the shard is not served, so a request that passes every ACL check is NOT_COORDINATOR
        GroupHandler handler = handler();
        RequestContext alice = context(ApiKeys.TXN_OFFSET_COMMIT, (short) 4, ALICE);
        RequestContext bob = context(ApiKeys.TXN_OFFSET_COMMIT, (short) 4, BOB);
        // When / Then
        assertThat(handler.handleGroupRequest(null, alice, txnOffsetCommit("other"))
                        .errorCounts())
                .containsOnlyKeys(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
        assertThat(handler.handleGroupRequest(null, bob, txnOffsetCommit("tx")).errorCounts())
                .containsOnlyKeys(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
        assertThat(handler.handleGroupRequest(null, alice, txnOffsetCommit("tx"))
                        .errorCounts())
                .containsOnlyKeys(Errors.NOT_COORDINATOR);
    }

    @Test
    void anOffsetCommitCommitsOnlyTheTopicsItsPrincipalMayRead() throws Exception {
        // Given
        awaitActive();
        GroupOffsetsHandler offsets =
                new GroupOffsetsHandler(coordinator, new RequestAuthorizer(() -> ACLS), topic -> Integer.MAX_VALUE);
        OffsetCommitRequestData data = new OffsetCommitRequestData()
                .setGroupId("g")
                .setGenerationIdOrMemberEpoch(-1)
                .setMemberId("")
                .setTopics(List.of(topic("t"), topic("secret")));
        short version = 8;
        CompletableFuture<AbstractResponse> answer = new CompletableFuture<>();
        // When
        offsets.handleOffsetCommitRequest(
                context(ApiKeys.OFFSET_COMMIT, version, ALICE),
                (OffsetCommitRequest) AbstractRequest.parseRequest(
                                ApiKeys.OFFSET_COMMIT, version, MessageUtil.toByteBufferAccessor(data, version))
                        .request,
                answer::complete);
        // Then
        OffsetCommitResponse response = (OffsetCommitResponse) answer.get(30, TimeUnit.SECONDS);
        assertThat(response.data().topics())
                .extracting(
                        OffsetCommitResponseTopic::name,
                        t -> t.partitions().get(0).errorCode())
                .containsExactly(
                        org.assertj.core.groups.Tuple.tuple("t", Errors.NONE.code()),
                        org.assertj.core.groups.Tuple.tuple("secret", Errors.TOPIC_AUTHORIZATION_FAILED.code()));
    }

    private static OffsetCommitRequestTopic topic(String name) {
        return new OffsetCommitRequestTopic()
                .setName(name)
                .setPartitions(List.of(
                        new OffsetCommitRequestPartition().setPartitionIndex(0).setCommittedOffset(5)));
    }
}
