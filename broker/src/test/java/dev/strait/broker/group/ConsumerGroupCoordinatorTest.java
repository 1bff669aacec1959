package dev.strait.broker.group;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.group.ConsumerGroupApi.Heartbeat;
import dev.strait.broker.group.ConsumerGroupApi.HeartbeatResult;
import dev.strait.broker.group.GroupApi.OffsetAndMetadata;
import dev.strait.broker.group.GroupApi.TopicPartitionKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Consumer groups (KIP-848) through {@link GroupCoordinator}: answers wait for the group's record to be durable,
 * another coordinator loading the offsets partition finds the same group, and the two protocols do not mix.
 */
class ConsumerGroupCoordinatorTest {

    private static final Map<String, Integer> TOPICS = Map.of("t", 4);

    private final AtomicLong clock = new AtomicLong(1_000);
    private final GroupCoordinatorTest.MemoryLog log = new GroupCoordinatorTest.MemoryLog();
    private final List<GroupCoordinator> coordinators = new ArrayList<>();
    private final List<ManualShardLoops> loops = new ArrayList<>();

    private GroupCoordinator coordinator() {
        ManualShardLoops shardLoops = new ManualShardLoops(clock::get);
        GroupCoordinator coordinator = new GroupCoordinator(
                new GroupCoordinator.Config(3, 0, 1000, 60_000, 3_600_000), log, clock::get, () -> "m", shardLoops);
        coordinator.setFaultHandler((what, e) -> {
            throw new AssertionError(what, e);
        });
        coordinator.setConsumerGroupTimeouts(45_000, 5_000);
        coordinators.add(coordinator);
        loops.add(shardLoops);
        coordinator.startup();
        runAll();
        return coordinator;
    }

    private void runAll() {
        loops.forEach(ManualShardLoops::runAll);
    }

    @AfterEach
    void close() {
        coordinators.forEach(GroupCoordinator::close);
    }

    private AtomicReference<HeartbeatResult> heartbeat(
            GroupCoordinator coordinator, String memberId, int epoch, SortedMap<String, SortedSet<Integer>> owned) {
        AtomicReference<HeartbeatResult> result = new AtomicReference<>();
        coordinator.consumerGroupHeartbeat(
                "g",
                new Heartbeat(
                        memberId,
                        epoch,
                        null,
                        null,
                        300_000,
                        epoch == 0 ? List.of("t") : null,
                        null,
                        null,
                        owned,
                        "client",
                        "/127.0.0.1"),
                TOPICS,
                result::set);
        runAll();
        return result;
    }

    @Test
    void aTransactionalCommitOfAConsumerGroupChecksTheMemberAndItsEpoch() {
        GroupCoordinator coordinator = coordinator();
        HeartbeatResult a = heartbeat(coordinator, "a", 0, null).get();
        Map<TopicPartitionKey, OffsetAndMetadata> offsets = Map.of(new TopicPartitionKey("t", 0), offset(7));
        AtomicReference<GroupError> current = new AtomicReference<>();
        AtomicReference<GroupError> stale = new AtomicReference<>();
        AtomicReference<GroupError> stranger = new AtomicReference<>();
        AtomicReference<GroupError> anonymous = new AtomicReference<>();

        coordinator.commitTransactionalOffsets("g", 9, (short) 0, "a", null, a.memberEpoch(), offsets, current::set);
        coordinator.commitTransactionalOffsets("g", 9, (short) 0, "a", null, a.memberEpoch() - 1, offsets, stale::set);
        coordinator.commitTransactionalOffsets("g", 9, (short) 0, "x", null, a.memberEpoch(), offsets, stranger::set);
        coordinator.commitTransactionalOffsets("g", 9, (short) 0, "", null, -1, offsets, anonymous::set);
        runAll();

        assertThat(current.get()).isEqualTo(GroupError.NONE);
        // As Kafka: a stale member epoch is ILLEGAL_GENERATION to a producer, which knows no member epochs.
        assertThat(stale.get()).isEqualTo(GroupError.ILLEGAL_GENERATION);
        assertThat(stranger.get()).isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
        // As Kafka 4.1: a consumer group with members takes no commit that names no member (TxnOffsetCommit v0-2).
        assertThat(anonymous.get()).isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
    }

    @Test
    void aHeartbeatIsAnsweredOnceTheGroupsRecordIsDurable() {
        // Given
        GroupCoordinator coordinator = coordinator();
        log.hold(coordinator.partitionFor("g"));

        // When
        AtomicReference<HeartbeatResult> joined = heartbeat(coordinator, "a", 0, null);

        // Then
        assertThat(joined.get()).isNull();
        log.release(coordinator.partitionFor("g"));
        runAll();
        assertThat(joined.get().error()).isEqualTo(GroupError.NONE);
        assertThat(joined.get().memberEpoch()).isEqualTo(1);
        assertThat(joined.get().heartbeatIntervalMs()).isEqualTo(5_000);
        assertThat(joined.get().assignment()).containsOnlyKeys("t");
        assertThat(joined.get().assignment().get("t")).containsExactly(0, 1, 2, 3);
    }

    @Test
    void anotherCoordinatorLoadingThePartitionKeepsEpochMembersAssignmentsAndOffsets() {
        // Given: two members, reconciled, with a commit
        GroupCoordinator first = coordinator();
        HeartbeatResult a = heartbeat(first, "a", 0, null).get();
        HeartbeatResult b = heartbeat(first, "b", 0, null).get();
        a = heartbeat(first, "a", a.memberEpoch(), a.assignment()).get();
        a = heartbeat(first, "a", a.memberEpoch(), a.assignment()).get();
        b = heartbeat(first, "b", b.memberEpoch(), null).get();
        AtomicReference<GroupError> committed = new AtomicReference<>();
        first.commitOffsets(
                "g", "a", null, a.memberEpoch(), Map.of(new TopicPartitionKey("t", 0), offset(7)), committed::set);
        runAll();
        assertThat(committed.get()).isEqualTo(GroupError.NONE);
        ConsumerGroupApi.GroupDescription before = describe(first);
        assertThat(before.state()).isEqualTo("Stable");

        // When: another node takes over the offsets partition
        GroupCoordinator next = coordinator();

        // Then
        ConsumerGroupApi.GroupDescription after = describe(next);
        assertThat(after).isEqualTo(before);
        HeartbeatResult again =
                heartbeat(next, "a", a.memberEpoch(), a.assignment()).get();
        assertThat(again.error()).isEqualTo(GroupError.NONE);
        assertThat(again.memberEpoch()).isEqualTo(a.memberEpoch());
        AtomicReference<GroupApi.FetchResult> fetched = new AtomicReference<>();
        next.fetchOffsets("g", "a", a.memberEpoch(), null, false, fetched::set);
        runAll();
        assertThat(fetched.get().offsets().get(new TopicPartitionKey("t", 0)).offset())
                .isEqualTo(7);
        next.fetchOffsets("g", "a", a.memberEpoch() - 1, null, false, fetched::set);
        runAll();
        assertThat(fetched.get().error()).isEqualTo(GroupError.STALE_MEMBER_EPOCH);
    }

    @Test
    void theProtocolsDoNotMixInOneGroup() {
        // Given
        GroupCoordinator coordinator = coordinator();
        heartbeat(coordinator, "a", 0, null);

        // When
        AtomicReference<GroupApi.JoinResult> joined = new AtomicReference<>();
        coordinator.joinGroup(
                "g",
                "",
                null,
                "consumer",
                List.of(new GroupApi.Protocol("range", "x".getBytes(StandardCharsets.UTF_8))),
                10_000,
                10_000,
                "classic",
                "/h",
                true,
                joined::set);
        runAll();
        AtomicReference<List<GroupApi.GroupListing>> listed = new AtomicReference<>();
        coordinator.listGroups(listed::set);
        runAll();

        // Then
        assertThat(joined.get().error()).isEqualTo(GroupError.INCONSISTENT_GROUP_PROTOCOL);
        assertThat(listed.get()).singleElement().satisfies(l -> {
            assertThat(l.type()).isEqualTo("consumer");
            assertThat(l.stateName()).isEqualTo("Stable");
        });
        assertThat(heartbeat(coordinator, "zz", 3, null).get().error()).isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
    }

    @Test
    void aRefusedFirstMemberLeavesNoGroupBehind() {
        // Given
        GroupCoordinator coordinator = coordinator();

        // When
        AtomicReference<HeartbeatResult> refused = new AtomicReference<>();
        coordinator.consumerGroupHeartbeat(
                "g",
                new Heartbeat("a", 0, null, null, 300_000, List.of("t"), null, "sticky", null, "c", "/h"),
                TOPICS,
                refused::set);
        runAll();
        AtomicReference<List<GroupApi.GroupListing>> listed = new AtomicReference<>();
        coordinator.listGroups(listed::set);
        runAll();

        // Then
        assertThat(refused.get().error()).isEqualTo(GroupError.UNSUPPORTED_ASSIGNOR);
        assertThat(listed.get()).isEmpty();
        assertThat(describe(coordinator).error()).isEqualTo(GroupError.GROUP_ID_NOT_FOUND);
    }

    private static OffsetAndMetadata offset(long offset) {
        return new OffsetAndMetadata(offset, -1, null, -1);
    }

    private ConsumerGroupApi.GroupDescription describe(GroupCoordinator coordinator) {
        AtomicReference<ConsumerGroupApi.GroupDescription> result = new AtomicReference<>();
        coordinator.describeConsumerGroup("g", result::set);
        runAll();
        return result.get();
    }
}
