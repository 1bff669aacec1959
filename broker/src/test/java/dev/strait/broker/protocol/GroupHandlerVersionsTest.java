package dev.strait.broker.protocol;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.group.GroupApi.JoinMember;
import dev.strait.broker.group.GroupApi.JoinResult;
import dev.strait.broker.group.GroupApi.SyncResult;
import dev.strait.broker.group.GroupCoordinator;
import dev.strait.broker.group.GroupError;
import dev.strait.broker.group.OffsetsLog;
import java.net.InetAddress;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.message.DeleteGroupsRequestData;
import org.apache.kafka.common.message.DescribeGroupsRequestData;
import org.apache.kafka.common.message.FindCoordinatorRequestData;
import org.apache.kafka.common.message.HeartbeatRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData;
import org.apache.kafka.common.message.LeaveGroupRequestData.MemberIdentity;
import org.apache.kafka.common.message.ListGroupsRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestPartition;
import org.apache.kafka.common.message.TxnOffsetCommitRequestData.TxnOffsetCommitRequestTopic;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.ApiMessage;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.protocol.MessageUtil;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.TxnOffsetCommitResponse;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Every advertised version of every group API: the request parses, is handled, and the response serializes at that
 * version (pitfall: version-gated fields throw in write()).
 */
class GroupHandlerVersionsTest {

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

    /** Calls a handler that answers through a callback, on the loop of the group's shard; waits (bounded). */
    private static AbstractResponse answer(
            java.util.function.Consumer<java.util.function.Consumer<AbstractResponse>> call) {
        java.util.concurrent.CompletableFuture<AbstractResponse> response =
                new java.util.concurrent.CompletableFuture<>();
        call.accept(response::complete);
        try {
            return response.get(30, java.util.concurrent.TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new AssertionError("no answer", e);
        }
    }

    private final GroupCoordinator coordinator = new GroupCoordinator(
            new GroupCoordinator.Config(2, 0, 1000, 60_000, 3_600_000), NO_LOG, new dev.strait.time.ManualTime());
    private final FindCoordinatorHandler findCoordinator = new FindCoordinatorHandler(
            coordinator,
            (partition, listener) -> Optional.of(new BrokerEndpoint(0, "127.0.0.1", 9092)),
            FindCoordinatorHandler.NO_TRANSACTIONS,
            RequestAuthorizer.none());
    private final GroupMembershipHandler membership = new GroupMembershipHandler(coordinator);
    private final GroupOffsetsHandler offsets =
            new GroupOffsetsHandler(coordinator, RequestAuthorizer.none(), topic -> Integer.MAX_VALUE);
    private final GroupAdminHandler admin = new GroupAdminHandler(coordinator, RequestAuthorizer.none());

    /** The coordinator serves both shards (it leads their partitions in NO_LOG) before a test sends anything. */
    @org.junit.jupiter.api.BeforeEach
    void start() {
        coordinator.startup();
        dev.strait.time.Await.until(
                "both shards loaded",
                java.time.Duration.ofSeconds(30),
                () -> coordinator.isActive(0) && coordinator.isActive(1));
    }

    @AfterEach
    void close() {
        coordinator.close();
    }

    private static AbstractRequest request(ApiKeys key, ApiMessage data, short version) {
        ByteBufferAccessor accessor = MessageUtil.toByteBufferAccessor(data, version);
        return AbstractRequest.parseRequest(key, version, accessor).request;
    }

    private static RequestContext context(ApiKeys key, short version) {
        return new RequestContext(
                new RequestHeader(key, version, "test", 1),
                "c1",
                InetAddress.getLoopbackAddress(),
                KafkaPrincipal.ANONYMOUS,
                new ListenerName("PLAINTEXT"),
                SecurityProtocol.PLAINTEXT,
                ClientInformation.EMPTY,
                false);
    }

    private static void serializes(AbstractResponse response, short version) {
        assertThat(MessageUtil.toByteBufferAccessor(response.data(), version)
                        .buffer()
                        .remaining())
                .isPositive();
    }

    private static short[] versions(ApiKeys key) {
        short min = SupportedApis.minVersion(key);
        short max = SupportedApis.maxVersion(key);
        short[] result = new short[max - min + 1];
        for (int i = 0; i < result.length; i++) {
            result[i] = (short) (min + i);
        }
        return result;
    }

    @Test
    void joinAndSyncResponsesSerializeAtEveryVersion() {
        JoinResult ok = new JoinResult(
                GroupError.NONE,
                1,
                "consumer",
                "range",
                "m1",
                "m1",
                true,
                List.of(new JoinMember("m1", "i1", new byte[] {1})));
        JoinResult error = new JoinResult(GroupError.MEMBER_ID_REQUIRED, -1, null, null, "", "m2", false, List.of());
        for (short v : versions(ApiKeys.JOIN_GROUP)) {
            serializes(GroupMembershipHandler.joinResponse(ok, v), v);
            serializes(GroupMembershipHandler.joinResponse(error, v), v);
        }
        for (short v : versions(ApiKeys.SYNC_GROUP)) {
            serializes(
                    GroupMembershipHandler.syncResponse(
                            new SyncResult(GroupError.NONE, "consumer", "range", new byte[2])),
                    v);
        }
    }

    @Test
    void theOtherGroupApisWorkAtEveryVersion() {
        for (short v : versions(ApiKeys.FIND_COORDINATOR)) {
            FindCoordinatorRequestData data = new FindCoordinatorRequestData();
            if (v >= 4) {
                data.setCoordinatorKeys(List.of("g"));
            } else {
                data.setKey("g");
            }
            serializes(
                    findCoordinator.handleFindCoordinatorRequest(
                            context(ApiKeys.FIND_COORDINATOR, v),
                            (org.apache.kafka.common.requests.FindCoordinatorRequest)
                                    request(ApiKeys.FIND_COORDINATOR, data, v)),
                    v);
        }
        for (short v : versions(ApiKeys.HEARTBEAT)) {
            short version = v;
            serializes(
                    answer(respond -> membership.handleHeartbeatRequest(
                            context(ApiKeys.HEARTBEAT, version),
                            (org.apache.kafka.common.requests.HeartbeatRequest) request(
                                    ApiKeys.HEARTBEAT,
                                    new HeartbeatRequestData()
                                            .setGroupId("g")
                                            .setMemberId("m")
                                            .setGenerationId(1),
                                    version),
                            respond)),
                    v);
        }
        for (short v : versions(ApiKeys.LEAVE_GROUP)) {
            LeaveGroupRequestData data = new LeaveGroupRequestData().setGroupId("g");
            if (v >= 3) {
                data.setMembers(List.of(new MemberIdentity().setMemberId("m")));
            } else {
                data.setMemberId("m");
            }
            short version = v;
            serializes(
                    answer(respond -> membership.handleLeaveGroupRequest(
                            context(ApiKeys.LEAVE_GROUP, version),
                            (org.apache.kafka.common.requests.LeaveGroupRequest)
                                    request(ApiKeys.LEAVE_GROUP, data, version),
                            respond)),
                    v);
        }
        for (short v : versions(ApiKeys.OFFSET_COMMIT)) {
            OffsetCommitRequestData data = new OffsetCommitRequestData()
                    .setGroupId("g-" + v)
                    .setGenerationIdOrMemberEpoch(-1)
                    .setMemberId("")
                    .setTopics(List.of(new OffsetCommitRequestTopic()
                            .setName("t")
                            .setPartitions(List.of(new OffsetCommitRequestPartition()
                                    .setPartitionIndex(0)
                                    .setCommittedOffset(5)))));
            short version = v;
            AbstractResponse response = answer(respond -> offsets.handleOffsetCommitRequest(
                    context(ApiKeys.OFFSET_COMMIT, version),
                    (org.apache.kafka.common.requests.OffsetCommitRequest)
                            request(ApiKeys.OFFSET_COMMIT, data, version),
                    respond));
            serializes(response, v);
            assertThat(response.errorCounts()).containsOnlyKeys(Errors.NONE);
        }
        for (short v : versions(ApiKeys.OFFSET_FETCH)) {
            OffsetFetchRequestData data = new OffsetFetchRequestData();
            if (v >= 8) {
                data.setGroups(List.of(
                        new OffsetFetchRequestGroup()
                                .setGroupId("g-2")
                                .setTopics(List.of(new OffsetFetchRequestTopics()
                                        .setName("t")
                                        .setPartitionIndexes(List.of(0, 1)))),
                        new OffsetFetchRequestGroup().setGroupId("g-3").setTopics(null)));
            } else {
                data.setGroupId("g-2")
                        .setTopics(
                                v >= 2
                                        ? null
                                        : List.of(new OffsetFetchRequestTopic()
                                                .setName("t")
                                                .setPartitionIndexes(List.of(0, 1))));
            }
            short version = v;
            OffsetFetchResponse response = (OffsetFetchResponse) answer(respond -> offsets.handleOffsetFetchRequest(
                    context(ApiKeys.OFFSET_FETCH, version),
                    (org.apache.kafka.common.requests.OffsetFetchRequest) request(ApiKeys.OFFSET_FETCH, data, version),
                    respond));
            serializes(response, v);
            long committed = v >= 8
                    ? response.data()
                            .groups()
                            .get(0)
                            .topics()
                            .get(0)
                            .partitions()
                            .get(0)
                            .committedOffset()
                    : response.data().topics().get(0).partitions().get(0).committedOffset();
            assertThat(committed).isEqualTo(5);
        }
        for (short v : versions(ApiKeys.LIST_GROUPS)) {
            short version = v;
            serializes(
                    answer(respond -> admin.handleListGroupsRequest(
                            context(ApiKeys.LIST_GROUPS, version),
                            (org.apache.kafka.common.requests.ListGroupsRequest)
                                    request(ApiKeys.LIST_GROUPS, new ListGroupsRequestData(), version),
                            respond)),
                    v);
        }
        for (short v : versions(ApiKeys.DESCRIBE_GROUPS)) {
            short version = v;
            serializes(
                    answer(respond -> admin.handleDescribeGroupsRequest(
                            context(ApiKeys.DESCRIBE_GROUPS, version),
                            (org.apache.kafka.common.requests.DescribeGroupsRequest) request(
                                    ApiKeys.DESCRIBE_GROUPS,
                                    new DescribeGroupsRequestData().setGroups(List.of("g-2", "missing")),
                                    version),
                            respond)),
                    v);
        }
        for (short v : versions(ApiKeys.DELETE_GROUPS)) {
            short version = v;
            serializes(
                    answer(respond -> admin.handleDeleteGroupsRequest(
                            context(ApiKeys.DELETE_GROUPS, version),
                            (org.apache.kafka.common.requests.DeleteGroupsRequest) request(
                                    ApiKeys.DELETE_GROUPS,
                                    new DeleteGroupsRequestData()
                                            .setGroupsNames(List.of("g-" + (version + 4), "missing")),
                                    version),
                            respond)),
                    v);
        }
    }

    @Test
    void txnOffsetCommitWorksAtEveryVersionAndItsOffsetsAreUnstableUntilTheTransactionEnds() {
        TxnOffsetCommitHandler txnOffsets =
                new TxnOffsetCommitHandler(coordinator, RequestAuthorizer.none(), topic -> 2);
        for (short v : versions(ApiKeys.TXN_OFFSET_COMMIT)) {
            TxnOffsetCommitRequestData data = new TxnOffsetCommitRequestData()
                    .setTransactionalId("tx")
                    .setGroupId("tg")
                    .setProducerId(1000 + v)
                    .setProducerEpoch((short) 0)
                    .setTopics(List.of(new TxnOffsetCommitRequestTopic()
                            .setName("t")
                            .setPartitions(List.of(
                                    new TxnOffsetCommitRequestPartition()
                                            .setPartitionIndex(0)
                                            .setCommittedOffset(5),
                                    new TxnOffsetCommitRequestPartition()
                                            .setPartitionIndex(7)
                                            .setCommittedOffset(5)))));
            short version = v;
            TxnOffsetCommitResponse response = (TxnOffsetCommitResponse) answer(respond -> txnOffsets.handle(
                    context(ApiKeys.TXN_OFFSET_COMMIT, version),
                    (org.apache.kafka.common.requests.TxnOffsetCommitRequest)
                            request(ApiKeys.TXN_OFFSET_COMMIT, data, version),
                    respond));
            serializes(response, v);
            assertThat(response.errors())
                    .containsEntry(new org.apache.kafka.common.TopicPartition("t", 0), Errors.NONE)
                    .containsEntry(
                            new org.apache.kafka.common.TopicPartition("t", 7), Errors.UNKNOWN_TOPIC_OR_PARTITION);
        }
        for (short v = 7; v <= SupportedApis.maxVersion(ApiKeys.OFFSET_FETCH); v++) {
            for (boolean requireStable : new boolean[] {true, false}) {
                OffsetFetchRequestData data = new OffsetFetchRequestData().setRequireStable(requireStable);
                if (v >= 8) {
                    data.setGroups(List.of(new OffsetFetchRequestGroup()
                            .setGroupId("tg")
                            .setTopics(List.of(
                                    new OffsetFetchRequestTopics().setName("t").setPartitionIndexes(List.of(0))))));
                } else {
                    data.setGroupId("tg")
                            .setTopics(List.of(
                                    new OffsetFetchRequestTopic().setName("t").setPartitionIndexes(List.of(0))));
                }
                short version = v;
                OffsetFetchResponse response = (OffsetFetchResponse) answer(respond -> offsets.handleOffsetFetchRequest(
                        context(ApiKeys.OFFSET_FETCH, version),
                        (org.apache.kafka.common.requests.OffsetFetchRequest)
                                request(ApiKeys.OFFSET_FETCH, data, version),
                        respond));
                serializes(response, v);
                short error = v >= 8
                        ? response.data()
                                .groups()
                                .get(0)
                                .topics()
                                .get(0)
                                .partitions()
                                .get(0)
                                .errorCode()
                        : response.data().topics().get(0).partitions().get(0).errorCode();
                assertThat(Errors.forCode(error))
                        .as("OffsetFetch v%d requireStable=%s", v, requireStable)
                        .isEqualTo(requireStable ? Errors.UNSTABLE_OFFSET_COMMIT : Errors.NONE);
            }
        }
    }
}
