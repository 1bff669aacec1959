package dev.strait.broker.group;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.group.GroupApi.JoinResult;
import dev.strait.broker.group.GroupApi.LeaveMember;
import dev.strait.broker.group.GroupApi.OffsetAndMetadata;
import dev.strait.broker.group.GroupApi.Protocol;
import dev.strait.broker.group.GroupApi.SyncResult;
import dev.strait.broker.group.GroupApi.TopicPartitionKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The coordinator against an in-memory offsets log and a manual clock, its shard loops run by the test's thread
 * ({@link ManualShardLoops}): every call is queued to its shard's loop and answered once the test runs the loops.
 */
class GroupCoordinatorTest {

    /** An offsets log in memory whose high watermark follows every append at once, unless the test holds it. */
    static final class MemoryLog implements OffsetsLog {
        final Map<Integer, List<Entry>> partitions = new HashMap<>();
        /** Per partition, the entries written by a producer's transactional batch, by index: the producer id. */
        final Map<Integer, Map<Integer, Long>> transactional = new HashMap<>();
        /** Per partition, the entries that are transaction markers, by index. */
        final Map<Integer, Map<Integer, Marker>> markers = new HashMap<>();
        /** Per partition, the latest epoch of each producer that wrote to it (what fences an older one). */
        final Map<Integer, Map<Long, Short>> producerEpochs = new HashMap<>();

        record Marker(long producerId, boolean commit) {}

        final Map<Integer, Long> heldHighWatermark = new HashMap<>();
        final List<Runnable> waiting = new ArrayList<>();
        int leaderEpoch;
        boolean leader = true;

        @Override
        public synchronized Appended append(int partition, List<Entry> records) {
            if (!leader) {
                throw new AppendFailedException(GroupError.NOT_COORDINATOR, "not the leader", null);
            }
            List<Entry> log = partitions.computeIfAbsent(partition, p -> new ArrayList<>());
            log.addAll(records);
            return new Appended(log.size(), leaderEpoch);
        }

        @Override
        public synchronized Appended appendTransactional(
                int partition, long producerId, short producerEpoch, List<Entry> records) {
            if (!leader) {
                throw new AppendFailedException(GroupError.NOT_COORDINATOR, "not the leader", null);
            }
            Map<Long, Short> epochs = producerEpochs.computeIfAbsent(partition, p -> new HashMap<>());
            if (epochs.getOrDefault(producerId, (short) -1) > producerEpoch) {
                throw new AppendFailedException(GroupError.INVALID_PRODUCER_EPOCH, "fenced", null);
            }
            epochs.put(producerId, producerEpoch);
            List<Entry> log = partitions.computeIfAbsent(partition, p -> new ArrayList<>());
            Map<Integer, Long> byIndex = transactional.computeIfAbsent(partition, p -> new HashMap<>());
            for (Entry record : records) {
                byIndex.put(log.size(), producerId);
                log.add(record);
            }
            return new Appended(log.size(), leaderEpoch);
        }

        /** The transaction coordinator's marker for the producer; returns its offset. */
        synchronized long appendMarker(int partition, long producerId, boolean commit) {
            List<Entry> log = partitions.computeIfAbsent(partition, p -> new ArrayList<>());
            markers.computeIfAbsent(partition, p -> new HashMap<>()).put(log.size(), new Marker(producerId, commit));
            log.add(new Entry(new byte[0], null));
            return log.size() - 1;
        }

        @Override
        public synchronized Optional<Position> position(int partition) {
            if (!leader) {
                return Optional.empty();
            }
            long end = partitions.getOrDefault(partition, List.of()).size();
            return Optional.of(new Position(
                    Math.min(end, heldHighWatermark.getOrDefault(partition, Long.MAX_VALUE)), end, leaderEpoch));
        }

        @Override
        public void awaitReplication(int partition, Appended appended, Runnable onChange) {
            boolean now;
            synchronized (this) {
                Optional<Position> position = position(partition);
                now = position.isEmpty()
                        || position.get().leaderEpoch() != appended.leaderEpoch()
                        || position.get().highWatermark() >= appended.endOffset();
                if (!now) {
                    waiting.add(onChange);
                }
            }
            if (now) {
                onChange.run();
            }
        }

        /** The partition's high watermark stops where it is until {@link #release}. */
        synchronized void hold(int partition) {
            heldHighWatermark.put(partition, (long)
                    partitions.getOrDefault(partition, List.of()).size());
        }

        /** The high watermark catches up (the followers fetched); waiting writes hear so. */
        void release(int partition) {
            List<Runnable> wake;
            synchronized (this) {
                heldHighWatermark.remove(partition);
                wake = List.copyOf(waiting);
                waiting.clear();
            }
            wake.forEach(Runnable::run);
        }

        /** This node loses leadership of every partition. */
        void loseLeadership() {
            List<Runnable> wake;
            synchronized (this) {
                leader = false;
                wake = List.copyOf(waiting);
                waiting.clear();
            }
            wake.forEach(Runnable::run);
        }

        @Override
        public synchronized long replay(int partition, RecordConsumer consumer) {
            List<Entry> log = partitions.getOrDefault(partition, List.of());
            Map<Integer, Long> byIndex = transactional.getOrDefault(partition, Map.of());
            Map<Integer, Marker> markersAt = markers.getOrDefault(partition, Map.of());
            for (int i = 0; i < log.size(); i++) {
                Marker marker = markersAt.get(i);
                Long producerId = byIndex.get(i);
                if (marker != null) {
                    consumer.acceptMarker(i, marker.producerId(), marker.commit());
                } else if (producerId != null) {
                    consumer.acceptTransactional(
                            i, producerId, log.get(i).key(), log.get(i).value());
                } else {
                    consumer.accept(i, log.get(i).key(), log.get(i).value());
                }
            }
            return log.size();
        }
    }

    private final AtomicLong clock = new AtomicLong(1_000);
    private final MemoryLog log = new MemoryLog();
    private final List<GroupCoordinator> coordinators = new ArrayList<>();
    private final List<ManualShardLoops> loops = new ArrayList<>();
    private long nextMemberId;

    /** A coordinator whose shard loops this test runs (see {@link #runAll}), started and loaded. */
    private GroupCoordinator coordinator() {
        ManualShardLoops shardLoops = new ManualShardLoops(clock::get);
        GroupCoordinator coordinator = new GroupCoordinator(
                new GroupCoordinator.Config(3, 0, 1000, 60_000, 3_600_000),
                log,
                clock::get,
                () -> "m" + nextMemberId++,
                shardLoops);
        coordinator.setFaultHandler((what, e) -> {
            throw new AssertionError(what, e);
        });
        coordinators.add(coordinator);
        loops.add(shardLoops);
        coordinator.startup();
        runAll();
        return coordinator;
    }

    /** Runs what every coordinator's loops have queued (requests, replication progress, ticks). */
    private void runAll() {
        loops.forEach(ManualShardLoops::runAll);
    }

    @AfterEach
    void close() {
        coordinators.forEach(GroupCoordinator::close);
    }

    private GroupApi.GroupDescription describe(GroupCoordinator coordinator, String group) {
        AtomicReference<GroupApi.GroupDescription> result = new AtomicReference<>();
        coordinator.describeGroup(group, result::set);
        runAll();
        return result.get();
    }

    private GroupError heartbeat(
            GroupCoordinator coordinator, String group, String memberId, String instanceId, int generation) {
        AtomicReference<GroupError> result = new AtomicReference<>();
        coordinator.heartbeat(group, memberId, instanceId, generation, result::set);
        runAll();
        return result.get();
    }

    /** The committed offsets of a group its coordinator serves. */
    private Map<TopicPartitionKey, OffsetAndMetadata> fetch(
            GroupCoordinator coordinator, String group, List<TopicPartitionKey> wanted) {
        GroupApi.FetchResult result = fetchResult(coordinator, group, wanted);
        assertThat(result.error()).isEqualTo(GroupError.NONE);
        return result.offsets();
    }

    private GroupApi.FetchResult fetchResult(
            GroupCoordinator coordinator, String group, List<TopicPartitionKey> wanted) {
        AtomicReference<GroupApi.FetchResult> result = new AtomicReference<>();
        coordinator.fetchOffsets(group, null, -1, wanted, false, result::set);
        runAll();
        return result.get();
    }

    private List<GroupApi.GroupListing> list(GroupCoordinator coordinator) {
        AtomicReference<List<GroupApi.GroupListing>> result = new AtomicReference<>();
        coordinator.listGroups(result::set);
        runAll();
        return result.get();
    }

    private void tick(GroupCoordinator coordinator) {
        coordinator.tick();
        runAll();
    }

    /** The offsets partition's high watermark catches up; the coordinators hear of it on their loops. */
    private void release(int partition) {
        log.release(partition);
        runAll();
    }

    private void loseLeadership() {
        log.loseLeadership();
        runAll();
    }

    private static List<Protocol> protocols(String... names) {
        List<Protocol> result = new ArrayList<>();
        for (String name : names) {
            result.add(new Protocol(name, name.getBytes(StandardCharsets.UTF_8)));
        }
        return result;
    }

    private AtomicReference<JoinResult> join(GroupCoordinator coordinator, String memberId, List<Protocol> protocols) {
        AtomicReference<JoinResult> result = new AtomicReference<>();
        coordinator.joinGroup(
                "g", memberId, null, "consumer", protocols, 5000, 10_000, "client", "/127.0.0.1", true, result::set);
        runAll();
        return result;
    }

    private AtomicReference<SyncResult> sync(
            GroupCoordinator coordinator, JoinResult joined, Map<String, byte[]> assignments) {
        AtomicReference<SyncResult> result = new AtomicReference<>();
        coordinator.syncGroup(
                "g",
                joined.generation(),
                joined.memberId(),
                null,
                "consumer",
                joined.protocolName(),
                assignments,
                result::set);
        runAll();
        return result;
    }

    /** A commit's answer; null while it waits to be durable. */
    private GroupError commit(
            GroupCoordinator coordinator,
            String group,
            String memberId,
            String instanceId,
            int generation,
            Map<TopicPartitionKey, OffsetAndMetadata> offsets) {
        AtomicReference<GroupError> result = new AtomicReference<>();
        coordinator.commitOffsets(group, memberId, instanceId, generation, offsets, result::set);
        runAll();
        return result.get();
    }

    private GroupError delete(GroupCoordinator coordinator, String group) {
        AtomicReference<GroupError> result = new AtomicReference<>();
        coordinator.deleteGroup(group, result::set);
        runAll();
        return result.get();
    }

    private GroupApi.LeaveResult leave(GroupCoordinator coordinator, String group, LeaveMember... members) {
        AtomicReference<GroupApi.LeaveResult> result = new AtomicReference<>();
        coordinator.leaveGroup(group, List.of(members), result::set);
        runAll();
        return result.get();
    }

    /** Joins a new dynamic member through MEMBER_ID_REQUIRED; returns the pending (or completed) join. */
    private AtomicReference<JoinResult> joinNew(GroupCoordinator coordinator, List<Protocol> protocols) {
        JoinResult required = join(coordinator, "", protocols).get();
        assertThat(required.error()).isEqualTo(GroupError.MEMBER_ID_REQUIRED);
        assertThat(required.memberId()).startsWith("client-");
        return join(coordinator, required.memberId(), protocols);
    }

    @Test
    void firstMemberIsLeaderAndGetsItsAssignmentAfterSync() {
        GroupCoordinator coordinator = coordinator();
        JoinResult joined = joinNew(coordinator, protocols("range")).get();
        assertThat(joined.error()).isEqualTo(GroupError.NONE);
        assertThat(joined.generation()).isEqualTo(1);
        assertThat(joined.leaderId()).isEqualTo(joined.memberId());
        assertThat(joined.members()).extracting(GroupApi.JoinMember::memberId).containsExactly(joined.memberId());
        assertThat(describe(coordinator, "g").state()).isEqualTo(GroupState.COMPLETING_REBALANCE);
        SyncResult synced = sync(coordinator, joined, Map.of(joined.memberId(), new byte[] {7}))
                .get();
        assertThat(synced.error()).isEqualTo(GroupError.NONE);
        assertThat(synced.assignment()).containsExactly(7);
        assertThat(describe(coordinator, "g").state()).isEqualTo(GroupState.STABLE);
    }

    @Test
    void aSecondMemberTriggersARebalanceAndTheFollowerSyncWaitsForTheLeader() {
        GroupCoordinator coordinator = coordinator();
        JoinResult first = joinNew(coordinator, protocols("range", "sticky")).get();
        sync(coordinator, first, Map.of());
        AtomicReference<JoinResult> second = joinNew(coordinator, protocols("sticky", "range"));
        assertThat(second.get()).as("waits for the first member to rejoin").isNull();
        assertThat(heartbeat(coordinator, "g", first.memberId(), null, 1)).isEqualTo(GroupError.REBALANCE_IN_PROGRESS);
        JoinResult leader = join(coordinator, first.memberId(), protocols("range", "sticky"))
                .get();
        JoinResult follower = second.get();
        assertThat(leader.generation()).isEqualTo(2).isEqualTo(follower.generation());
        assertThat(leader.protocolName()).as("the leader's preference").isEqualTo("range");
        assertThat(leader.members()).hasSize(2);
        assertThat(follower.members()).isEmpty();
        assertThat(follower.leaderId()).isEqualTo(first.memberId());

        AtomicReference<SyncResult> followerSync = sync(coordinator, follower, Map.of());
        assertThat(followerSync.get()).isNull();
        SyncResult leaderSync = sync(
                        coordinator,
                        leader,
                        Map.of(leader.memberId(), new byte[] {1}, follower.memberId(), new byte[] {2}))
                .get();
        assertThat(leaderSync.assignment()).containsExactly(1);
        assertThat(followerSync.get().assignment()).containsExactly(2);

        assertThat(heartbeat(coordinator, "g", follower.memberId(), null, 2)).isEqualTo(GroupError.NONE);
        assertThat(heartbeat(coordinator, "g", follower.memberId(), null, 1)).isEqualTo(GroupError.ILLEGAL_GENERATION);
        assertThat(heartbeat(coordinator, "g", "nobody", null, 2)).isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
    }

    @Test
    void anExpiredMemberIsRemovedAndTheOthersRebalance() {
        GroupCoordinator coordinator = coordinator();
        JoinResult first = joinNew(coordinator, protocols("range")).get();
        sync(coordinator, first, Map.of());
        AtomicReference<JoinResult> second = joinNew(coordinator, protocols("range"));
        JoinResult leader =
                join(coordinator, first.memberId(), protocols("range")).get();
        sync(coordinator, leader, Map.of());
        sync(coordinator, second.get(), Map.of());
        assertThat(describe(coordinator, "g").members()).hasSize(2);

        clock.addAndGet(4000);
        heartbeat(coordinator, "g", first.memberId(), null, 2);
        clock.addAndGet(2000);
        tick(coordinator);
        assertThat(describe(coordinator, "g").state()).isEqualTo(GroupState.PREPARING_REBALANCE);
        assertThat(heartbeat(coordinator, "g", second.get().memberId(), null, 2))
                .isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
        JoinResult alone =
                join(coordinator, first.memberId(), protocols("range")).get();
        assertThat(alone.generation()).isEqualTo(3);
        assertThat(alone.members()).hasSize(1);
    }

    @Test
    void leavingLastMemberEmptiesTheGroupAndOffsetsSurviveAReload() {
        GroupCoordinator coordinator = coordinator();
        JoinResult joined = joinNew(coordinator, protocols("range")).get();
        sync(coordinator, joined, Map.of());
        TopicPartitionKey tp = new TopicPartitionKey("t", 0);
        assertThat(commit(
                        coordinator,
                        "g",
                        joined.memberId(),
                        null,
                        0,
                        Map.of(tp, new OffsetAndMetadata(5, -1, null, 1))))
                .isEqualTo(GroupError.ILLEGAL_GENERATION);
        assertThat(commit(
                        coordinator,
                        "g",
                        joined.memberId(),
                        null,
                        1,
                        Map.of(tp, new OffsetAndMetadata(5, 3, "meta", 1))))
                .isEqualTo(GroupError.NONE);
        assertThat(commit(coordinator, "g", "", null, -1, Map.of(tp, new OffsetAndMetadata(9, -1, null, 1))))
                .isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
        assertThat(delete(coordinator, "g")).isEqualTo(GroupError.NON_EMPTY_GROUP);

        assertThat(leave(coordinator, "g", new LeaveMember(joined.memberId(), null))
                        .members())
                .containsExactly(GroupError.NONE);
        assertThat(describe(coordinator, "g").state()).isEqualTo(GroupState.EMPTY);

        GroupCoordinator reloaded = coordinator();
        assertThat(fetch(reloaded, "g", null)).containsEntry(tp, new OffsetAndMetadata(5, 3, "meta", 1));
        assertThat(describe(reloaded, "g").state()).isEqualTo(GroupState.EMPTY);
        assertThat(delete(reloaded, "g")).isEqualTo(GroupError.NONE);
        assertThat(fetch(reloaded, "g", null)).isEmpty();
        assertThat(list(coordinator())).isEmpty();
    }

    @Test
    void aStableGroupIsStableAgainAfterAReloadWithItsGenerationMembersAndAssignments() {
        // Given: two members, generation 2, Stable
        GroupCoordinator coordinator = coordinator();
        JoinResult first = joinNew(coordinator, protocols("range")).get();
        sync(coordinator, first, Map.of());
        AtomicReference<JoinResult> second = joinNew(coordinator, protocols("range"));
        JoinResult leader =
                join(coordinator, first.memberId(), protocols("range")).get();
        JoinResult follower = second.get();
        AtomicReference<SyncResult> followerSync = sync(coordinator, follower, Map.of());
        sync(coordinator, leader, Map.of(leader.memberId(), new byte[] {1}, follower.memberId(), new byte[] {2}));
        assertThat(followerSync.get().assignment()).containsExactly(2);

        // When
        GroupCoordinator reloaded = coordinator();

        // Then
        GroupApi.GroupDescription description = describe(reloaded, "g");
        assertThat(description.state()).isEqualTo(GroupState.STABLE);
        assertThat(description.protocolName()).isEqualTo("range");
        assertThat(description.members())
                .extracting(GroupApi.MemberDescription::memberId)
                .containsExactlyInAnyOrder(leader.memberId(), follower.memberId());
        assertThat(description.members())
                .filteredOn(m -> m.memberId().equals(follower.memberId()))
                .singleElement()
                .satisfies(m -> {
                    assertThat(m.assignment()).containsExactly(2);
                    assertThat(m.metadata()).isEqualTo("range".getBytes(StandardCharsets.UTF_8));
                    assertThat(m.clientId()).isEqualTo("client");
                });
        assertThat(heartbeat(reloaded, "g", follower.memberId(), null, 2)).isEqualTo(GroupError.NONE);
        assertThat(heartbeat(reloaded, "g", leader.memberId(), null, 1)).isEqualTo(GroupError.ILLEGAL_GENERATION);
        assertThat(sync(reloaded, leader, Map.of()).get().assignment()).containsExactly(1);
        assertThat(commit(
                        reloaded,
                        "g",
                        follower.memberId(),
                        null,
                        2,
                        Map.of(new TopicPartitionKey("t", 1), new OffsetAndMetadata(3, -1, null, 1))))
                .isEqualTo(GroupError.NONE);

        // When: only the leader keeps heartbeating past the follower's session timeout (5 s from the reload)
        clock.addAndGet(4_000);
        heartbeat(reloaded, "g", leader.memberId(), null, 2);
        clock.addAndGet(2_000);
        tick(reloaded);

        // Then: the follower expired and the group rebalances as usual
        assertThat(describe(reloaded, "g").state()).isEqualTo(GroupState.PREPARING_REBALANCE);
        JoinResult alone = join(reloaded, leader.memberId(), protocols("range")).get();
        assertThat(alone.generation()).isEqualTo(3);
    }

    // ---------------------------------------------------------------- issue 11, defect 6: durable before visible

    @Test
    void aCommitIsServedAndAnsweredOnlyOnceItIsDurable() {
        // Given: the offsets partition's followers have not fetched what the coordinator appends
        GroupCoordinator coordinator = coordinator();
        TopicPartitionKey tp = new TopicPartitionKey("t", 0);
        int partition = coordinator.partitionFor("g");
        assertThat(commit(coordinator, "g", "", null, -1, Map.of(tp, new OffsetAndMetadata(5, -1, null, -1))))
                .isEqualTo(GroupError.NONE);
        log.hold(partition);

        // When
        AtomicReference<GroupError> answer = new AtomicReference<>();
        coordinator.commitOffsets("g", "", null, -1, Map.of(tp, new OffsetAndMetadata(10, -1, null, -1)), answer::set);
        runAll();

        // Then: appended, but neither answered nor served
        assertThat(log.partitions.get(partition)).hasSize(2);
        assertThat(answer.get()).isNull();
        assertThat(fetch(coordinator, "g", null).get(tp).offset()).isEqualTo(5);
        release(partition);
        assertThat(answer.get()).isEqualTo(GroupError.NONE);
        assertThat(fetch(coordinator, "g", null).get(tp).offset()).isEqualTo(10);
        assertThat(fetch(coordinator, "g", null).get(tp).commitTimestamp())
                .as("stamped by the clock")
                .isEqualTo(clock.get());
    }

    @Test
    void aCommitThatLosesItsLeadershipIsNeverServedAndFailsRetriably() {
        // Given
        GroupCoordinator coordinator = coordinator();
        TopicPartitionKey tp = new TopicPartitionKey("t", 0);
        int partition = coordinator.partitionFor("g");
        log.hold(partition);
        AtomicReference<GroupError> answer = new AtomicReference<>();
        coordinator.commitOffsets("g", "", null, -1, Map.of(tp, new OffsetAndMetadata(10, -1, null, -1)), answer::set);
        runAll();

        // When: another node takes over the offsets partition before the commit was replicated
        loseLeadership();

        // Then
        assertThat(answer.get()).isEqualTo(GroupError.NOT_COORDINATOR);
        assertThat(fetch(coordinator, "g", null)).isEmpty();
    }

    @Test
    void commitsTakeEffectInLogOrder() {
        GroupCoordinator coordinator = coordinator();
        TopicPartitionKey tp = new TopicPartitionKey("t", 0);
        int partition = coordinator.partitionFor("g");
        log.hold(partition);
        List<GroupError> answers = new ArrayList<>();
        for (long offset : new long[] {3, 7, 9}) {
            coordinator.commitOffsets(
                    "g", "", null, -1, Map.of(tp, new OffsetAndMetadata(offset, -1, null, -1)), answers::add);
        }
        runAll();
        assertThat(answers).isEmpty();
        release(partition);
        assertThat(answers).containsExactly(GroupError.NONE, GroupError.NONE, GroupError.NONE);
        assertThat(fetch(coordinator, "g", null).get(tp).offset()).isEqualTo(9);
    }

    @Test
    void committedOffsetsAreNotServedOnceTheReadLeaseLapsedAndAreAgainOnceItIsRenewed() {
        // Given: an active coordinator with a durable commit, whose node still holds its read lease
        AtomicBoolean lease = new AtomicBoolean(true);
        ManualShardLoops shardLoops = new ManualShardLoops(clock::get);
        GroupCoordinator coordinator = new GroupCoordinator(
                new GroupCoordinator.Config(3, 0, 1000, 60_000, 3_600_000),
                log,
                clock::get,
                () -> "m" + nextMemberId++,
                shardLoops,
                lease::get);
        coordinators.add(coordinator);
        loops.add(shardLoops);
        coordinator.startup();
        runAll();
        TopicPartitionKey tp = new TopicPartitionKey("t", 0);
        assertThat(commit(coordinator, "g", "", null, -1, Map.of(tp, new OffsetAndMetadata(5, -1, null, 1))))
                .isEqualTo(GroupError.NONE);
        assertThat(fetch(coordinator, "g", null).get(tp).offset()).isEqualTo(5);

        // When: the node's heartbeats stop being answered long enough for another leader to be possible
        lease.set(false);

        // Then: OffsetFetch is refused retriably (the client finds the coordinator again), with no offsets
        GroupApi.FetchResult refused = fetchResult(coordinator, "g", null);
        assertThat(refused.error()).isEqualTo(GroupError.COORDINATOR_NOT_AVAILABLE);
        assertThat(refused.offsets()).isEmpty();

        // And: served again once a heartbeat renews the lease
        lease.set(true);
        assertThat(fetch(coordinator, "g", null).get(tp).offset()).isEqualTo(5);
    }

    @Test
    void aNewCoordinatorServesItsReplayedLogOnlyOnceItIsDurable() {
        // Given: a log whose last commit is not on the followers yet
        GroupCoordinator first = coordinator();
        TopicPartitionKey tp = new TopicPartitionKey("t", 0);
        int partition = first.partitionFor("g");
        commit(first, "g", "", null, -1, Map.of(tp, new OffsetAndMetadata(5, -1, null, 1)));
        log.hold(partition);
        first.commitOffsets("g", "", null, -1, Map.of(tp, new OffsetAndMetadata(8, -1, null, 1)), e -> {});
        runAll();

        // When: a coordinator takes over the partition
        GroupCoordinator next = coordinator();

        // Then: loading until the replayed tail is durable, then serving it
        assertThat(next.isLoading(partition)).isTrue();
        assertThat(next.isActive(partition)).isFalse();
        release(partition);
        assertThat(next.isActive(partition)).isTrue();
        assertThat(fetch(next, "g", null).get(tp).offset()).isEqualTo(8);
    }

    @Test
    void aShardThisNodeDoesNotServeIsRefusedOnItsLoopAndNothingIsWritten() {
        // Given: a coordinator taking over a partition whose last commit is not durable yet
        GroupCoordinator first = coordinator();
        TopicPartitionKey tp = new TopicPartitionKey("t", 0);
        int partition = first.partitionFor("g");
        log.hold(partition);
        first.commitOffsets("g", "", null, -1, Map.of(tp, new OffsetAndMetadata(8, -1, null, 1)), e -> {});
        runAll();
        GroupCoordinator next = coordinator();
        assertThat(next.isLoading(partition)).isTrue();
        int records = log.partitions.get(partition).size();

        // When / Then: requests that got past the adapter's routing hear the loop's answer, and write nothing
        assertThat(commit(next, "g", "", null, -1, Map.of(tp, new OffsetAndMetadata(9, -1, null, 1))))
                .isEqualTo(GroupError.COORDINATOR_LOAD_IN_PROGRESS);
        assertThat(join(next, "", protocols("range")).get().error()).isEqualTo(GroupError.COORDINATOR_LOAD_IN_PROGRESS);
        assertThat(fetchResult(next, "g", null))
                .as("never an empty map a consumer would take for no commit")
                .isEqualTo(new GroupApi.FetchResult(GroupError.COORDINATOR_LOAD_IN_PROGRESS, Map.of()));
        assertThat(log.partitions.get(partition)).hasSize(records);

        // When: it serves, then resigns the partition
        release(partition);
        assertThat(fetch(next, "g", null).get(tp).offset()).isEqualTo(8);
        next.onResign(partition);
        runAll();

        // Then
        assertThat(next.isActive(partition)).isFalse();
        assertThat(heartbeat(next, "g", "m", null, 1)).isEqualTo(GroupError.NOT_COORDINATOR);
        assertThat(delete(next, "g")).isEqualTo(GroupError.NOT_COORDINATOR);
        assertThat(describe(next, "g").error()).isEqualTo(GroupError.NOT_COORDINATOR);
        assertThat(fetchResult(next, "g", null).error()).isEqualTo(GroupError.NOT_COORDINATOR);
        assertThat(log.partitions.get(partition)).hasSize(records);
    }

    @Test
    void syncGroupAnswersOnceTheAssignmentIsDurable() {
        GroupCoordinator coordinator = coordinator();
        JoinResult joined = joinNew(coordinator, protocols("range")).get();
        log.hold(coordinator.partitionFor("g"));
        AtomicReference<SyncResult> synced = sync(coordinator, joined, Map.of(joined.memberId(), new byte[] {7}));
        assertThat(synced.get()).as("waits for the group record").isNull();
        release(coordinator.partitionFor("g"));
        assertThat(synced.get().error()).isEqualTo(GroupError.NONE);
        assertThat(synced.get().assignment()).containsExactly(7);
    }

    @Test
    void aDeletedGroupKeepsItsOffsetsUntilTheTombstonesAreDurable() {
        GroupCoordinator coordinator = coordinator();
        TopicPartitionKey tp = new TopicPartitionKey("t", 0);
        commit(coordinator, "g", "", null, -1, Map.of(tp, new OffsetAndMetadata(5, -1, null, 1)));
        log.hold(coordinator.partitionFor("g"));
        AtomicReference<GroupError> deleted = new AtomicReference<>();
        coordinator.deleteGroup("g", deleted::set);
        runAll();
        assertThat(deleted.get()).isNull();
        assertThat(fetch(coordinator, "g", null)).containsKey(tp);
        AtomicReference<JoinResult> joining = join(coordinator, "", protocols("range"));
        release(coordinator.partitionFor("g"));
        assertThat(deleted.get()).isEqualTo(GroupError.NONE);
        assertThat(joining.get().error())
                .as("a Dead group took no members")
                .isEqualTo(GroupError.COORDINATOR_NOT_AVAILABLE);
        assertThat(fetch(coordinator, "g", null)).isEmpty();
        assertThat(list(coordinator)).isEmpty();
    }

    /** In these tests a member's protocol metadata is its comma-separated topics (protocols("a") reads topic a). */
    private static final GroupApi.SubscriptionReader TOPICS_CSV =
            metadata -> Optional.of(java.util.Set.of(new String(metadata, StandardCharsets.UTF_8).split(",")));

    private GroupApi.OffsetDeleteResult deleteOffsets(
            GroupCoordinator coordinator, String group, TopicPartitionKey... partitions) {
        AtomicReference<GroupApi.OffsetDeleteResult> result = new AtomicReference<>();
        coordinator.deleteOffsets(group, List.of(partitions), TOPICS_CSV, result::set);
        runAll();
        return result.get();
    }

    @Test
    void offsetDeleteTombstonesTheOffsetsSoThatTheNextCoordinatorDoesNotServeThemAgain() {
        GroupCoordinator coordinator = coordinator();
        TopicPartitionKey t0 = new TopicPartitionKey("t", 0);
        TopicPartitionKey t1 = new TopicPartitionKey("t", 1);
        TopicPartitionKey u0 = new TopicPartitionKey("u", 0);
        commit(
                coordinator,
                "g",
                "",
                null,
                -1,
                Map.of(
                        t0, new OffsetAndMetadata(5, -1, "", 1),
                        t1, new OffsetAndMetadata(6, -1, "", 1),
                        u0, new OffsetAndMetadata(7, -1, "", 1)));
        log.hold(coordinator.partitionFor("g"));
        AtomicReference<GroupApi.OffsetDeleteResult> deleted = new AtomicReference<>();
        coordinator.deleteOffsets("g", List.of(t0, t1), TOPICS_CSV, deleted::set);
        runAll();
        assertThat(deleted.get()).as("answered once the tombstones are durable").isNull();
        assertThat(fetch(coordinator, "g", null)).containsKeys(t0, t1, u0);

        release(coordinator.partitionFor("g"));
        assertThat(deleted.get().error()).isEqualTo(GroupError.NONE);
        assertThat(deleted.get().partitions())
                .containsOnly(Map.entry(t0, GroupError.NONE), Map.entry(t1, GroupError.NONE));
        assertThat(fetch(coordinator, "g", null)).containsOnlyKeys(u0);

        GroupCoordinator next = coordinator();
        assertThat(fetch(next, "g", null)).as("replayed with the tombstones").containsOnlyKeys(u0);
        assertThat(list(next)).extracting(GroupApi.GroupListing::groupId).containsExactly("g");
    }

    @Test
    void offsetDeleteRefusesTheTopicsTheMembersOfAConsumerGroupSubscribeToAndDeletesTheOthers() {
        GroupCoordinator coordinator = coordinator();
        JoinResult joined = joinNew(coordinator, protocols("read")).get();
        sync(coordinator, joined, Map.of(joined.memberId(), new byte[0]));
        TopicPartitionKey subscribed = new TopicPartitionKey("read", 0);
        TopicPartitionKey other = new TopicPartitionKey("old", 0);
        assertThat(commit(
                        coordinator,
                        "g",
                        joined.memberId(),
                        null,
                        joined.generation(),
                        Map.of(
                                subscribed, new OffsetAndMetadata(3, -1, "", -1),
                                other, new OffsetAndMetadata(4, -1, "", -1))))
                .isEqualTo(GroupError.NONE);

        GroupApi.OffsetDeleteResult result = deleteOffsets(coordinator, "g", subscribed, other);

        assertThat(result.error()).isEqualTo(GroupError.NONE);
        assertThat(result.partitions())
                .containsOnly(
                        Map.entry(subscribed, GroupError.GROUP_SUBSCRIBED_TO_TOPIC), Map.entry(other, GroupError.NONE));
        assertThat(fetch(coordinator, "g", null)).containsOnlyKeys(subscribed);
    }

    @Test
    void offsetDeleteOfAnUnknownGroupOrOfAnActiveGroupOfAnotherProtocolIsRefusedWhole() {
        GroupCoordinator coordinator = coordinator();
        TopicPartitionKey tp = new TopicPartitionKey("t", 0);
        assertThat(deleteOffsets(coordinator, "nobody", tp).error()).isEqualTo(GroupError.GROUP_ID_NOT_FOUND);

        AtomicReference<JoinResult> required = new AtomicReference<>();
        coordinator.joinGroup(
                "w", "", null, "connect", protocols("v1"), 5000, 10_000, "client", "/127.0.0.1", true, required::set);
        runAll();
        AtomicReference<JoinResult> joined = new AtomicReference<>();
        coordinator.joinGroup(
                "w",
                required.get().memberId(),
                null,
                "connect",
                protocols("v1"),
                5000,
                10_000,
                "client",
                "/127.0.0.1",
                true,
                joined::set);
        runAll();
        assertThat(joined.get().error()).isEqualTo(GroupError.NONE);

        GroupApi.OffsetDeleteResult result = deleteOffsets(coordinator, "w", tp);
        assertThat(result.error())
                .as("nothing tells which topics its members read")
                .isEqualTo(GroupError.NON_EMPTY_GROUP);
    }
}
