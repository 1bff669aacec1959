package dev.strait.broker.group;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.group.GroupApi.FetchResult;
import dev.strait.broker.group.GroupApi.JoinResult;
import dev.strait.broker.group.GroupApi.OffsetAndMetadata;
import dev.strait.broker.group.GroupApi.Protocol;
import dev.strait.broker.group.GroupApi.TopicPartitionKey;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * TxnOffsetCommit and the end of its transaction, on the coordinator against {@link GroupCoordinatorTest.MemoryLog}
 * with its shard loops run by the test's thread: pending offsets are not served, become committed on the commit
 * marker (unless an ordinary commit came later in the log), are dropped on abort, and a reload of the log (a new
 * coordinator, as after a failover) rebuilds the same state from the records and markers.
 */
class TransactionalOffsetCommitTest {

    private static final long PRODUCER = 4000;
    private static final short EPOCH = 3;
    private static final TopicPartitionKey TP0 = new TopicPartitionKey("t", 0);
    private static final TopicPartitionKey TP1 = new TopicPartitionKey("t", 1);

    private final AtomicLong clock = new AtomicLong(1_000);
    private final GroupCoordinatorTest.MemoryLog log = new GroupCoordinatorTest.MemoryLog();
    private final List<GroupCoordinator> coordinators = new ArrayList<>();
    private final List<ManualShardLoops> loops = new ArrayList<>();
    private long nextMemberId;

    /** A coordinator over the shared log, started and loaded: a later one is a failover that replays the log. */
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

    private void runAll() {
        loops.forEach(ManualShardLoops::runAll);
    }

    @AfterEach
    void close() {
        coordinators.forEach(GroupCoordinator::close);
    }

    private static OffsetAndMetadata offset(long offset) {
        return new OffsetAndMetadata(offset, -1, "", 7);
    }

    private @Nullable GroupError txnCommit(
            GroupCoordinator coordinator,
            long producerId,
            short epoch,
            Map<TopicPartitionKey, OffsetAndMetadata> offsets) {
        return txnCommit(coordinator, producerId, epoch, "", null, -1, offsets);
    }

    private @Nullable GroupError txnCommit(
            GroupCoordinator coordinator,
            long producerId,
            short epoch,
            String memberId,
            @Nullable String instanceId,
            int generation,
            Map<TopicPartitionKey, OffsetAndMetadata> offsets) {
        AtomicReference<GroupError> result = new AtomicReference<>();
        coordinator.commitTransactionalOffsets(
                "g", producerId, epoch, memberId, instanceId, generation, offsets, result::set);
        runAll();
        return result.get();
    }

    private GroupError commit(GroupCoordinator coordinator, Map<TopicPartitionKey, OffsetAndMetadata> offsets) {
        AtomicReference<GroupError> result = new AtomicReference<>();
        coordinator.commitOffsets("g", "", null, -1, offsets, result::set);
        runAll();
        return result.get();
    }

    private FetchResult fetch(GroupCoordinator coordinator, @Nullable List<TopicPartitionKey> wanted, boolean stable) {
        AtomicReference<FetchResult> result = new AtomicReference<>();
        coordinator.fetchOffsets("g", null, -1, wanted, stable, result::set);
        runAll();
        assertThat(result.get().error()).isEqualTo(GroupError.NONE);
        return result.get();
    }

    private Map<TopicPartitionKey, OffsetAndMetadata> committed(GroupCoordinator coordinator) {
        return fetch(coordinator, null, false).offsets();
    }

    /** The transaction coordinator writes the producer's marker and tells the group coordinator once durable. */
    private void endTransaction(GroupCoordinator coordinator, long producerId, boolean commit) {
        int partition = coordinator.partitionFor("g");
        long marker = log.appendMarker(partition, producerId, commit);
        coordinator.completeTransaction(partition, producerId, commit, marker);
        runAll();
    }

    @Test
    void committedTransactionsOffsetsBecomeVisible() {
        GroupCoordinator coordinator = coordinator();
        assertThat(txnCommit(coordinator, PRODUCER, EPOCH, Map.of(TP0, offset(10))))
                .isEqualTo(GroupError.NONE);
        assertThat(committed(coordinator)).isEmpty();

        endTransaction(coordinator, PRODUCER, true);

        assertThat(committed(coordinator)).containsExactlyEntriesOf(Map.of(TP0, offset(10)));
        assertThat(fetch(coordinator, List.of(TP0), true).unstable()).isEmpty();
        // The group exists (Empty), as after an ordinary commit.
        assertThat(describe(coordinator).state()).isEqualTo(GroupState.EMPTY);
    }

    @Test
    void abortedTransactionsOffsetsAreDropped() {
        GroupCoordinator coordinator = coordinator();
        commit(coordinator, Map.of(TP0, offset(5)));
        txnCommit(coordinator, PRODUCER, EPOCH, Map.of(TP0, offset(10), TP1, offset(11)));

        endTransaction(coordinator, PRODUCER, false);

        assertThat(committed(coordinator)).containsExactlyEntriesOf(Map.of(TP0, offset(5)));
        assertThat(fetch(coordinator, List.of(TP0, TP1), true).unstable()).isEmpty();
    }

    @Test
    void pendingOffsetsAreUnstableToRequireStableAndHiddenOtherwise() {
        GroupCoordinator coordinator = coordinator();
        commit(coordinator, Map.of(TP0, offset(5), TP1, offset(6)));
        txnCommit(coordinator, PRODUCER, EPOCH, Map.of(TP0, offset(10)));

        FetchResult plain = fetch(coordinator, List.of(TP0, TP1), false);
        assertThat(plain.offsets()).containsExactlyInAnyOrderEntriesOf(Map.of(TP0, offset(5), TP1, offset(6)));
        assertThat(plain.unstable()).isEmpty();

        FetchResult stable = fetch(coordinator, List.of(TP0, TP1), true);
        assertThat(stable.unstable()).containsExactly(TP0);
        assertThat(stable.offsets()).containsExactlyEntriesOf(Map.of(TP1, offset(6)));

        FetchResult all = fetch(coordinator, null, true);
        assertThat(all.unstable()).containsExactly(TP0);
        assertThat(all.offsets()).containsExactlyEntriesOf(Map.of(TP1, offset(6)));
    }

    @Test
    void anOrdinaryCommitLaterInTheLogWinsOverTheTransactions() {
        GroupCoordinator coordinator = coordinator();
        commit(coordinator, Map.of(TP1, offset(1)));
        txnCommit(coordinator, PRODUCER, EPOCH, Map.of(TP0, offset(10), TP1, offset(11)));
        commit(coordinator, Map.of(TP0, offset(20)));

        endTransaction(coordinator, PRODUCER, true);

        // TP0: the ordinary commit came after the transaction's record; TP1: before it.
        Map<TopicPartitionKey, OffsetAndMetadata> expected = Map.of(TP0, offset(20), TP1, offset(11));
        assertThat(committed(coordinator)).containsExactlyInAnyOrderEntriesOf(expected);
        assertThat(committed(coordinator())).containsExactlyInAnyOrderEntriesOf(expected);
    }

    @Test
    void aReloadReplaysTransactionalRecordsAndMarkersAsTheyHappened() {
        GroupCoordinator coordinator = coordinator();
        long committedProducer = 1;
        long abortedProducer = 2;
        long openProducer = 3;
        txnCommit(coordinator, abortedProducer, EPOCH, Map.of(TP1, offset(100)));
        txnCommit(coordinator, committedProducer, EPOCH, Map.of(TP0, offset(10)));
        commit(coordinator, Map.of(TP1, offset(5)));
        endTransaction(coordinator, committedProducer, true);
        endTransaction(coordinator, abortedProducer, false);
        txnCommit(coordinator, openProducer, EPOCH, Map.of(TP1, offset(50)));
        Map<TopicPartitionKey, OffsetAndMetadata> expected = Map.of(TP0, offset(10), TP1, offset(5));
        assertThat(committed(coordinator)).containsExactlyInAnyOrderEntriesOf(expected);

        GroupCoordinator reloaded = coordinator();

        assertThat(committed(reloaded)).containsExactlyInAnyOrderEntriesOf(expected);
        assertThat(fetch(reloaded, List.of(TP0, TP1), true).unstable())
                .as("the open transaction's offset is still pending after the reload")
                .containsExactly(TP1);
        endTransaction(reloaded, openProducer, true);
        assertThat(committed(reloaded)).containsExactlyInAnyOrderEntriesOf(Map.of(TP0, offset(10), TP1, offset(50)));
    }

    @Test
    void aMarkerBeforeTheRecordsOfTheProducersNextTransactionEndsOnlyTheEarlierOne() {
        GroupCoordinator coordinator = coordinator();
        int partition = coordinator.partitionFor("g");
        txnCommit(coordinator, PRODUCER, EPOCH, Map.of(TP0, offset(10)));
        long marker = log.appendMarker(partition, PRODUCER, true);
        // The producer's next transaction commits offsets before the coordinator hears of the first one's marker.
        txnCommit(coordinator, PRODUCER, EPOCH, Map.of(TP0, offset(20)));

        coordinator.completeTransaction(partition, PRODUCER, true, marker);
        runAll();

        assertThat(committed(coordinator)).containsExactlyEntriesOf(Map.of(TP0, offset(10)));
        assertThat(fetch(coordinator, List.of(TP0), true).unstable()).containsExactly(TP0);
        // Told twice (a retry of the marker writer): nothing changes.
        coordinator.completeTransaction(partition, PRODUCER, true, marker);
        runAll();
        assertThat(committed(coordinator)).containsExactlyEntriesOf(Map.of(TP0, offset(10)));
        assertThat(committed(coordinator())).containsExactlyEntriesOf(Map.of(TP0, offset(10)));
    }

    @Test
    void aMarkerThatOvertakesTheCommitsReplicationReportStillEndsIt() {
        GroupCoordinator coordinator = coordinator();
        int partition = coordinator.partitionFor("g");
        log.hold(partition);
        AtomicReference<GroupError> answer = new AtomicReference<>();
        coordinator.commitTransactionalOffsets(
                "g", PRODUCER, EPOCH, "", null, -1, Map.of(TP0, offset(10)), answer::set);
        runAll();
        assertThat(answer.get()).as("not durable yet").isNull();
        long marker = log.appendMarker(partition, PRODUCER, true);
        // The partition is durable past the marker, but the replica layer's report has not reached the shard.
        synchronized (log) {
            log.heldHighWatermark.remove(partition);
        }

        coordinator.completeTransaction(partition, PRODUCER, true, marker);
        runAll();

        assertThat(answer.get()).isEqualTo(GroupError.NONE);
        assertThat(committed(coordinator)).containsExactlyEntriesOf(Map.of(TP0, offset(10)));
        assertThat(fetch(coordinator, List.of(TP0), true).unstable()).isEmpty();
    }

    @Test
    void aFailoverKeepsPendingOffsetsPendingUntilTheirMarker() {
        GroupCoordinator first = coordinator();
        commit(first, Map.of(TP0, offset(5)));
        txnCommit(first, PRODUCER, EPOCH, Map.of(TP0, offset(10)));
        first.onResign(first.partitionFor("g"));
        runAll();

        GroupCoordinator second = coordinator();

        assertThat(committed(second)).containsExactlyEntriesOf(Map.of(TP0, offset(5)));
        assertThat(fetch(second, List.of(TP0), true).unstable()).containsExactly(TP0);
        endTransaction(second, PRODUCER, true);
        assertThat(committed(second)).containsExactlyEntriesOf(Map.of(TP0, offset(10)));
    }

    @Test
    void aResignedShardIgnoresTheMarkerAndItsNextCoordinatorReplaysIt() {
        GroupCoordinator first = coordinator();
        txnCommit(first, PRODUCER, EPOCH, Map.of(TP0, offset(10)));
        first.onResign(first.partitionFor("g"));
        runAll();

        endTransaction(first, PRODUCER, true);

        assertThat(committed(coordinator())).containsExactlyEntriesOf(Map.of(TP0, offset(10)));
    }

    @Test
    void anOlderEpochOfTheProducerIsFenced() {
        GroupCoordinator coordinator = coordinator();
        assertThat(txnCommit(coordinator, PRODUCER, EPOCH, Map.of(TP0, offset(10))))
                .isEqualTo(GroupError.NONE);

        assertThat(txnCommit(coordinator, PRODUCER, (short) (EPOCH - 1), Map.of(TP0, offset(99))))
                .isEqualTo(GroupError.INVALID_PRODUCER_EPOCH);

        endTransaction(coordinator, PRODUCER, true);
        assertThat(committed(coordinator)).containsExactlyEntriesOf(Map.of(TP0, offset(10)));
    }

    @Test
    void aClassicGroupsMemberAndGenerationAreValidatedWhenNamed() {
        GroupCoordinator coordinator = coordinator();
        List<Protocol> protocols = List.of(new Protocol("range", "range".getBytes(StandardCharsets.UTF_8)));
        JoinResult required = join(coordinator, "", protocols);
        JoinResult joined = join(coordinator, required.memberId(), protocols);
        assertThat(joined.error()).isEqualTo(GroupError.NONE);
        Map<TopicPartitionKey, OffsetAndMetadata> offsets = Map.of(TP0, offset(10));

        assertThat(txnCommit(coordinator, PRODUCER, EPOCH, joined.memberId(), null, joined.generation(), offsets))
                .isEqualTo(GroupError.NONE);
        assertThat(txnCommit(coordinator, PRODUCER, EPOCH, joined.memberId(), null, joined.generation() + 1, offsets))
                .isEqualTo(GroupError.ILLEGAL_GENERATION);
        assertThat(txnCommit(coordinator, PRODUCER, EPOCH, "stranger", null, joined.generation(), offsets))
                .isEqualTo(GroupError.UNKNOWN_MEMBER_ID);
        // TxnOffsetCommit v0-2 names no member nor generation: accepted whatever the group's state.
        assertThat(txnCommit(coordinator, PRODUCER, EPOCH, "", null, -1, offsets))
                .isEqualTo(GroupError.NONE);
    }

    @Test
    void anUnknownGroupTakesCommitsWithoutAGenerationOnly() {
        GroupCoordinator coordinator = coordinator();

        assertThat(txnCommit(coordinator, PRODUCER, EPOCH, "m", null, 1, Map.of(TP0, offset(10))))
                .isEqualTo(GroupError.ILLEGAL_GENERATION);
        assertThat(txnCommit(coordinator, PRODUCER, EPOCH, Map.of(TP0, offset(10))))
                .isEqualTo(GroupError.NONE);
    }

    @Test
    void deletingTheGroupDropsItsPendingOffsetsHereAndOnReload() {
        GroupCoordinator coordinator = coordinator();
        commit(coordinator, Map.of(TP0, offset(5)));
        txnCommit(coordinator, PRODUCER, EPOCH, Map.of(TP0, offset(10), TP1, offset(11)));
        AtomicReference<GroupError> deleted = new AtomicReference<>();
        coordinator.deleteGroup("g", deleted::set);
        runAll();
        assertThat(deleted.get()).isEqualTo(GroupError.NONE);

        endTransaction(coordinator, PRODUCER, true);

        assertThat(committed(coordinator)).isEmpty();
        assertThat(committed(coordinator())).isEmpty();
    }

    private JoinResult join(GroupCoordinator coordinator, String memberId, List<Protocol> protocols) {
        AtomicReference<JoinResult> result = new AtomicReference<>();
        coordinator.joinGroup(
                "g", memberId, null, "consumer", protocols, 5000, 10_000, "client", "/127.0.0.1", true, result::set);
        runAll();
        return result.get();
    }

    private GroupApi.GroupDescription describe(GroupCoordinator coordinator) {
        AtomicReference<GroupApi.GroupDescription> result = new AtomicReference<>();
        coordinator.describeGroup("g", result::set);
        runAll();
        return result.get();
    }
}
