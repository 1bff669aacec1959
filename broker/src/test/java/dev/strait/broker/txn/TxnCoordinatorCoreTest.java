package dev.strait.broker.txn;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.time.ManualTime;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's rules one transition at a time, each write made durable by the test ({@link #durable}) so that
 * what waits for durability shows: nothing changes before {@code apply}.
 */
class TxnCoordinatorCoreTest {

    private static final TxnConfig SETTINGS = new TxnConfig(60_000, 3_600_000L, "__consumer_offsets");
    private static final int TIMEOUT_MS = 10_000;
    private static final TxnPartition A0 = new TxnPartition("a", 0);
    private static final TxnPartition A1 = new TxnPartition("a", 1);
    private static final TxnPartition B0 = new TxnPartition("b", 0);

    private final ManualTime time = new ManualTime();
    private long nextProducerId = 1000;
    private TransactionCoordinatorCore core = active(Map.of());

    private TransactionCoordinatorCore active(Map<String, TransactionMetadata> state) {
        TransactionCoordinatorCore loaded = TransactionCoordinatorCore.loaded(3, 5, SETTINGS, state);
        loaded.activate();
        return loaded;
    }

    private long now() {
        return time.milliseconds();
    }

    private static TxnTransition written(TxnResult result) {
        assertThat(result).isInstanceOf(TxnResult.Write.class);
        return ((TxnResult.Write) result).transition();
    }

    private static TxnError refused(TxnResult result) {
        assertThat(result).isInstanceOf(TxnResult.Refused.class);
        return ((TxnResult.Refused) result).error();
    }

    private static TxnReply answered(TxnResult result) {
        assertThat(result).isInstanceOf(TxnResult.Answered.class);
        return ((TxnResult.Answered) result).reply();
    }

    private TransactionCoordinatorCore.Applied durable(TxnResult result) {
        return core.apply(written(result));
    }

    private TxnResult initRequest(String id, ProducerIdAndEpoch expected) {
        return core.initProducerId(id, TIMEOUT_MS, expected, () -> nextProducerId++, now());
    }

    private TxnReply init(String id) {
        return durable(initRequest(id, null)).reply();
    }

    private TxnResult addRequest(String id, TxnReply producer, TxnPartition... partitions) {
        return core.addPartitions(id, producer.producerId(), producer.producerEpoch(), Set.of(partitions), now());
    }

    private TxnResult endRequest(String id, TxnReply producer, boolean commit) {
        return core.endTxn(id, producer.producerId(), producer.producerEpoch(), commit, now());
    }

    private WriteMarkers end(String id, TxnReply producer, boolean commit) {
        TransactionCoordinatorCore.Applied applied = durable(endRequest(id, producer, commit));
        assertThat(applied.reply().error()).isEqualTo(TxnError.NONE);
        assertThat(applied.markers()).isNotNull();
        return applied.markers();
    }

    private void complete(WriteMarkers markers) {
        durable(core.markersWritten(markers.transactionalId(), markers.producerId(), markers.producerEpoch(), now()));
    }

    private TransactionMetadata state(String id) {
        TxnView view = core.describe(id);
        assertThat(view.error()).isEqualTo(TxnError.NONE);
        return view.metadata();
    }

    @Test
    void aNewTransactionalIdGetsAProducerIdOnlyOnceItIsDurable() {
        // When
        TxnTransition transition = written(initRequest("t", null));

        // Then: nothing changed yet, and the id is busy
        assertThat(core.describe("t").error()).isEqualTo(TxnError.TRANSACTIONAL_ID_NOT_FOUND);
        assertThat(refused(initRequest("t", null))).isEqualTo(TxnError.CONCURRENT_TRANSACTIONS);
        assertThat(transition.from()).isNull();
        assertThat(transition.kind()).isEqualTo(TxnTransition.Kind.INIT_PRODUCER_ID);

        // When: durable
        TransactionCoordinatorCore.Applied applied = core.apply(transition);

        // Then
        assertThat(applied.reply()).isEqualTo(TxnReply.ok(1000, (short) 0));
        assertThat(applied.markers()).isNull();
        assertThat(state("t").state()).isEqualTo(TransactionState.EMPTY);
        assertThat(state("t").txnTimeoutMs()).isEqualTo(TIMEOUT_MS);
        assertThat(core.pending("t")).isNull();
    }

    @Test
    void requestsAreRefusedWhileLoadingOrAfterResigningAndWhenMalformed() {
        // Given
        TransactionCoordinatorCore loading = TransactionCoordinatorCore.loaded(0, 1, SETTINGS, Map.of());

        // Then
        assertThat(refused(loading.initProducerId("t", TIMEOUT_MS, null, () -> 1, 0)))
                .isEqualTo(TxnError.COORDINATOR_LOAD_IN_PROGRESS);
        assertThat(loading.describe("t").error()).isEqualTo(TxnError.COORDINATOR_LOAD_IN_PROGRESS);
        assertThat(refused(core.initProducerId("t", 0, null, () -> 1, 0)))
                .isEqualTo(TxnError.INVALID_TRANSACTION_TIMEOUT);
        assertThat(refused(core.initProducerId("t", SETTINGS.maxTransactionTimeoutMs() + 1, null, () -> 1, 0)))
                .isEqualTo(TxnError.INVALID_TRANSACTION_TIMEOUT);
        assertThat(refused(core.initProducerId("", TIMEOUT_MS, null, () -> 1, 0)))
                .isEqualTo(TxnError.INVALID_REQUEST);

        // When: resigned with a write in flight
        TxnTransition inFlight = written(initRequest("t", null));
        List<TxnTransition> dropped = core.resign();

        // Then
        assertThat(dropped).containsExactly(inFlight);
        assertThat(refused(initRequest("t", null))).isEqualTo(TxnError.NOT_COORDINATOR);
        assertThat(refused(core.markersWritten("t", 1, (short) 0, now()))).isEqualTo(TxnError.NOT_COORDINATOR);
        assertThatThrownBy(() -> core.apply(inFlight)).isInstanceOf(IllegalStateException.class);
        assertThat(core.abortTimedOut(Long.MAX_VALUE)).isEmpty();
    }

    @Test
    void anAbandonedWriteLeavesTheStateAsItWas() {
        // Given
        TxnReply producer = init("t");
        TxnTransition add = written(addRequest("t", producer, A0));

        // When
        core.abandon(add);

        // Then
        assertThat(state("t").state()).isEqualTo(TransactionState.EMPTY);
        assertThat(core.pending("t")).isNull();
        assertThatThrownBy(() -> core.abandon(add)).isInstanceOf(IllegalStateException.class);
        assertThat(written(addRequest("t", producer, A0)).to().partitions()).containsExactly(A0);
    }

    @Test
    void addPartitionsStartsATransactionAndAddsOnlyWhatIsNew() {
        // Given
        TxnReply producer = init("t");
        long startMs = now();

        // When
        durable(addRequest("t", producer, A0));
        time.advance(5);
        TxnReply again = answered(addRequest("t", producer, A0));
        durable(addRequest("t", producer, A0, A1, B0));

        // Then
        assertThat(again).isEqualTo(producer);
        TransactionMetadata ongoing = state("t");
        assertThat(ongoing.state()).isEqualTo(TransactionState.ONGOING);
        assertThat(ongoing.partitions()).containsExactlyInAnyOrder(A0, A1, B0);
        assertThat(ongoing.txnStartTimestampMs()).isEqualTo(startMs);
        assertThat(ongoing.txnLastUpdateTimestampMs()).isEqualTo(startMs + 5);
        assertThat(refused(addRequest("t", producer))).isEqualTo(TxnError.INVALID_REQUEST);
    }

    @Test
    void addOffsetsAddsTheGroupsOffsetsPartition() {
        // Given
        TxnReply producer = init("t");

        // When
        durable(core.addOffsets("t", producer.producerId(), producer.producerEpoch(), "group-1", group -> 4, now()));

        // Then
        assertThat(state("t").partitions()).containsExactly(new TxnPartition("__consumer_offsets", 4));
    }

    @Test
    void requestsOfAnotherProducerIdOrAnOlderEpochAreRefused() {
        // Given: a producer, then a second instance of it that bumped the epoch
        TxnReply first = init("t");
        TxnReply second = init("t");

        // Then
        assertThat(second.producerEpoch()).isEqualTo((short) 1);
        assertThat(refused(addRequest("t", first, A0))).isEqualTo(TxnError.PRODUCER_FENCED);
        assertThat(refused(endRequest("t", first, true))).isEqualTo(TxnError.PRODUCER_FENCED);
        assertThat(refused(addRequest("t", new TxnReply(TxnError.NONE, 99, (short) 1), A0)))
                .isEqualTo(TxnError.INVALID_PRODUCER_ID_MAPPING);
        assertThat(refused(addRequest("unknown", second, A0))).isEqualTo(TxnError.INVALID_PRODUCER_ID_MAPPING);
        assertThat(refused(endRequest("unknown", second, true))).isEqualTo(TxnError.INVALID_PRODUCER_ID_MAPPING);
        assertThat(refused(addRequest("t", new TxnReply(TxnError.NONE, 1000, (short) 2), A0)))
                .as("a newer epoch than the coordinator's is no less wrong")
                .isEqualTo(TxnError.PRODUCER_FENCED);
    }

    @Test
    void commitIsAnsweredWhenDecidedAndCompletedWhenTheMarkersAreWritten() {
        // Given
        TxnReply producer = init("t");
        durable(addRequest("t", producer, A0, B0));

        // When
        WriteMarkers markers = end("t", producer, true);

        // Then
        assertThat(markers)
                .isEqualTo(new WriteMarkers(
                        "t", producer.producerId(), producer.producerEpoch(), true, Set.of(A0, B0), 5));
        assertThat(state("t").state()).isEqualTo(TransactionState.PREPARE_COMMIT);
        assertThat(refused(addRequest("t", producer, A1))).isEqualTo(TxnError.CONCURRENT_TRANSACTIONS);
        assertThat(refused(initRequest("t", null))).isEqualTo(TxnError.CONCURRENT_TRANSACTIONS);

        // When
        complete(markers);

        // Then
        TransactionMetadata done = state("t");
        assertThat(done.state()).isEqualTo(TransactionState.COMPLETE_COMMIT);
        assertThat(done.partitions()).isEmpty();
        assertThat(done.producerEpoch()).isEqualTo(producer.producerEpoch());
    }

    @Test
    void endTxnRetriesAreIdempotentAndTheOtherOutcomeIsRefused() {
        // Given: a commit decided, markers not yet written
        TxnReply producer = init("t");
        durable(addRequest("t", producer, A0));
        WriteMarkers markers = end("t", producer, true);

        // Then: while the markers are written, the same end is asked to wait; the other one is wrong
        assertThat(refused(endRequest("t", producer, true))).isEqualTo(TxnError.CONCURRENT_TRANSACTIONS);
        assertThat(refused(endRequest("t", producer, false))).isEqualTo(TxnError.INVALID_TXN_STATE);

        // When
        complete(markers);

        // Then: once complete, the same end succeeds at once with nothing written
        assertThat(answered(endRequest("t", producer, true))).isEqualTo(producer);
        assertThat(refused(endRequest("t", producer, false))).isEqualTo(TxnError.INVALID_TXN_STATE);
        assertThat(refused(core.markersWritten("t", producer.producerId(), producer.producerEpoch(), now())))
                .as("markers reported twice")
                .isEqualTo(TxnError.INVALID_TXN_STATE);
    }

    @Test
    void abortRetriesAreIdempotentToo() {
        // Given
        TxnReply producer = init("t");
        durable(addRequest("t", producer, A0));
        WriteMarkers markers = end("t", producer, false);

        // Then
        assertThat(markers.commit()).isFalse();
        assertThat(refused(endRequest("t", producer, false))).isEqualTo(TxnError.CONCURRENT_TRANSACTIONS);
        assertThat(refused(endRequest("t", producer, true))).isEqualTo(TxnError.INVALID_TXN_STATE);
        complete(markers);
        assertThat(state("t").state()).isEqualTo(TransactionState.COMPLETE_ABORT);
        assertThat(answered(endRequest("t", producer, false))).isEqualTo(producer);
        assertThat(refused(endRequest("t", producer, true))).isEqualTo(TxnError.INVALID_TXN_STATE);
    }

    @Test
    void endTxnWithoutATransactionIsInvalid() {
        // Given
        TxnReply producer = init("t");

        // Then
        assertThat(refused(endRequest("t", producer, true))).isEqualTo(TxnError.INVALID_TXN_STATE);
        assertThat(refused(endRequest("t", producer, false))).isEqualTo(TxnError.INVALID_TXN_STATE);
    }

    @Test
    void aNewProducerAbortsTheOngoingTransactionWithABumpedEpochFirst() {
        // Given: a producer in a transaction
        TxnReply zombie = init("t");
        durable(addRequest("t", zombie, A0));

        // When: another instance starts
        TransactionCoordinatorCore.Applied fence = durable(initRequest("t", null));

        // Then: the transaction is aborted under a new epoch, the newcomer is told to retry
        assertThat(fence.transition().kind()).isEqualTo(TxnTransition.Kind.FENCE);
        assertThat(fence.reply().error()).isEqualTo(TxnError.CONCURRENT_TRANSACTIONS);
        WriteMarkers markers = fence.markers();
        assertThat(markers.commit()).isFalse();
        assertThat(markers.producerEpoch()).isEqualTo((short) 1);
        assertThat(markers.partitions()).containsExactly(A0);
        assertThat(state("t").state()).isEqualTo(TransactionState.PREPARE_ABORT);
        assertThat(state("t").lastProducerEpoch()).isEqualTo(TransactionMetadata.NO_PRODUCER_EPOCH);
        assertThat(refused(endRequest("t", zombie, true))).isEqualTo(TxnError.PRODUCER_FENCED);
        assertThat(refused(initRequest("t", null))).isEqualTo(TxnError.CONCURRENT_TRANSACTIONS);

        // When: the abort completes and the newcomer retries
        complete(markers);
        TxnReply newcomer = init("t");

        // Then
        assertThat(newcomer).isEqualTo(TxnReply.ok(zombie.producerId(), (short) 2));
        assertThat(refused(addRequest("t", zombie, A0))).isEqualTo(TxnError.PRODUCER_FENCED);
    }

    @Test
    void aTransactionPastItsTimeoutIsAbortedWithABumpedEpoch() {
        // Given
        TxnReply producer = init("t");
        durable(addRequest("t", producer, A0));
        init("idle");

        // When: exactly at the timeout nothing happens; one millisecond later the transaction is aborted
        time.advance(TIMEOUT_MS);
        List<TxnTransition> atTimeout = core.abortTimedOut(now());
        time.advance(1);
        List<TxnTransition> after = core.abortTimedOut(now());

        // Then
        assertThat(atTimeout).isEmpty();
        assertThat(after).hasSize(1);
        TxnTransition abort = after.get(0);
        assertThat(abort.kind()).isEqualTo(TxnTransition.Kind.TIMEOUT_ABORT);
        assertThat(abort.to().state()).isEqualTo(TransactionState.PREPARE_ABORT);
        assertThat(abort.to().producerEpoch()).isEqualTo((short) 1);
        assertThat(core.abortTimedOut(now())).as("already pending").isEmpty();
        assertThat(refused(endRequest("t", producer, true))).isEqualTo(TxnError.CONCURRENT_TRANSACTIONS);

        // When
        WriteMarkers markers = core.apply(abort).markers();

        // Then
        assertThat(markers.commit()).isFalse();
        assertThat(refused(endRequest("t", producer, true))).isEqualTo(TxnError.PRODUCER_FENCED);
        assertThat(refused(endRequest("t", producer, false)))
                .as("the producer's own abort retried is fenced too: its epoch is gone")
                .isEqualTo(TxnError.PRODUCER_FENCED);
    }

    @Test
    void kip360RecoveryBumpsOnceAndRecognisesARetry() {
        // Given
        TxnReply producer = init("t");
        ProducerIdAndEpoch held = new ProducerIdAndEpoch(producer.producerId(), producer.producerEpoch());

        // When: the producer asks for a bump, and asks again as if the answer were lost
        TxnReply bumped = durable(initRequest("t", held)).reply();
        TxnReply retried = durable(initRequest("t", held)).reply();

        // Then
        assertThat(bumped).isEqualTo(TxnReply.ok(producer.producerId(), (short) 1));
        assertThat(retried).isEqualTo(bumped);
        assertThat(state("t").lastProducerEpoch()).isEqualTo((short) 0);
        assertThat(refused(initRequest("t", new ProducerIdAndEpoch(producer.producerId(), (short) 7))))
                .isEqualTo(TxnError.PRODUCER_FENCED);
        assertThat(refused(initRequest("t", new ProducerIdAndEpoch(42, (short) 0))))
                .isEqualTo(TxnError.PRODUCER_FENCED);

        // When: another producer starts without an expected pair
        init("t");

        // Then: the first one's retry no longer matches
        assertThat(refused(initRequest("t", held))).isEqualTo(TxnError.PRODUCER_FENCED);
    }

    @Test
    void kip360RecoveryOfAnUnknownIdStartsAtEpochZero() {
        // When
        TxnReply reply =
                durable(initRequest("t", new ProducerIdAndEpoch(77, (short) 3))).reply();

        // Then
        assertThat(reply).isEqualTo(TxnReply.ok(1000, (short) 0));
    }

    @Test
    void anExhaustedEpochRotatesTheProducerIdAndARetryOfTheRotationIsRecognised() {
        // Given: a producer one bump away from the last epoch
        short nearlyExhausted = (short) (Short.MAX_VALUE - 2);
        core = active(Map.of("t", metadata("t", 5, nearlyExhausted, TransactionState.COMPLETE_COMMIT)));

        // When
        TxnReply last = init("t");
        ProducerIdAndEpoch held = new ProducerIdAndEpoch(last.producerId(), last.producerEpoch());
        TxnReply rotated = durable(initRequest("t", held)).reply();
        TxnReply retried = durable(initRequest("t", held)).reply();

        // Then
        assertThat(last).isEqualTo(TxnReply.ok(5, (short) (Short.MAX_VALUE - 1)));
        assertThat(TransactionMetadata.isEpochExhausted(last.producerEpoch())).isTrue();
        assertThat(rotated).isEqualTo(TxnReply.ok(1000, (short) 0));
        assertThat(retried).isEqualTo(rotated);
        assertThat(state("t").previousProducerId()).isEqualTo(5);
        assertThat(refused(initRequest("t", new ProducerIdAndEpoch(5, (short) 3))))
                .as("the old producer id with an epoch that was not exhausted")
                .isEqualTo(TxnError.PRODUCER_FENCED);
    }

    @Test
    void fencingAnExhaustedEpochUsesTheSpareEpochAndTheNextInitRotates() {
        // Given: a transaction at the last epoch handed out
        core = active(Map.of("t", metadata("t", 5, (short) (Short.MAX_VALUE - 1), TransactionState.EMPTY)));
        TxnReply producer = TxnReply.ok(5, (short) (Short.MAX_VALUE - 1));
        durable(addRequest("t", producer, A0));

        // When
        WriteMarkers markers = durable(initRequest("t", null)).markers();
        complete(markers);
        TxnReply next = init("t");

        // Then
        assertThat(markers.producerEpoch()).isEqualTo(Short.MAX_VALUE);
        assertThat(next).isEqualTo(TxnReply.ok(1000, (short) 0));
    }

    @Test
    void idleTransactionalIdsExpireAsTombstones() {
        // Given: one idle id, one in a transaction
        init("idle");
        TxnReply busy = init("busy");
        durable(addRequest("busy", busy, A0));

        // When
        time.advance(SETTINGS.transactionalIdExpirationMs());
        List<TxnTransition> expired = core.expireTransactionalIds(now());

        // Then
        assertThat(expired).hasSize(1);
        TxnTransition tombstone = expired.get(0);
        assertThat(tombstone.transactionalId()).isEqualTo("idle");
        assertThat(tombstone.to().state()).isEqualTo(TransactionState.DEAD);
        assertThat(TransactionRecords.value(tombstone.to())).isNull();

        // When
        core.apply(tombstone);

        // Then
        assertThat(core.describe("idle").error()).isEqualTo(TxnError.TRANSACTIONAL_ID_NOT_FOUND);
        assertThat(core.snapshot()).containsOnlyKeys("busy");
    }

    @Test
    void listAndDescribeShowTheDurableState() {
        // Given
        TxnReply one = init("one");
        durable(addRequest("one", one, A0));
        TxnReply two = init("two");
        written(addRequest("two", two, A0)); // pending, not shown
        time.advance(100);

        // Then
        assertThat(core.listTransactions(Set.of(), Set.of(), -1, now()))
                .containsExactly(
                        new TransactionListing("one", one.producerId(), TransactionState.ONGOING),
                        new TransactionListing("two", two.producerId(), TransactionState.EMPTY));
        assertThat(core.listTransactions(Set.of(TransactionState.EMPTY), Set.of(), -1, now()))
                .extracting(TransactionListing::transactionalId)
                .containsExactly("two");
        assertThat(core.listTransactions(Set.of(), Set.of(one.producerId()), -1, now()))
                .extracting(TransactionListing::transactionalId)
                .containsExactly("one");
        assertThat(core.listTransactions(Set.of(), Set.of(), 100, now())).hasSize(1);
        assertThat(core.listTransactions(Set.of(), Set.of(), 101, now())).isEmpty();
        assertThat(core.describe("one").metadata().partitions()).containsExactly(A0);
    }

    @Test
    void aLoadedCoordinatorOwesTheMarkersOfEveryDecidedTransaction() {
        // Given
        Map<String, TransactionMetadata> replayed = Map.of(
                "c", metadata("c", 1, (short) 0, TransactionState.PREPARE_COMMIT),
                "a", metadata("a", 2, (short) 0, TransactionState.PREPARE_ABORT),
                "o", metadata("o", 3, (short) 0, TransactionState.ONGOING),
                "e", metadata("e", 4, (short) 0, TransactionState.COMPLETE_ABORT));
        TransactionCoordinatorCore loaded = TransactionCoordinatorCore.loaded(0, 9, SETTINGS, replayed);

        // When
        List<WriteMarkers> owed = loaded.activate();

        // Then
        assertThat(owed)
                .containsExactly(
                        new WriteMarkers("a", 2, (short) 0, false, Set.of(A0), 9),
                        new WriteMarkers("c", 1, (short) 0, true, Set.of(A0), 9));
        assertThatThrownBy(loaded::activate).isInstanceOf(IllegalStateException.class);
    }

    @Test
    void applyingATransitionThatIsNotPendingIsAProgrammingError() {
        // Given
        TxnReply producer = init("t");
        TxnTransition stale = new TxnTransition(
                "t",
                TxnTransition.Kind.ADD_PARTITIONS,
                state("t"),
                state("t").prepareAddPartitions(Set.of(A0), 1),
                producer);

        // Then
        assertThatThrownBy(() -> core.apply(stale))
                .isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("not pending");
    }

    static TransactionMetadata metadata(String id, long producerId, short epoch, TransactionState state) {
        Set<TxnPartition> partitions = state == TransactionState.ONGOING || state.isPrepared() ? Set.of(A0) : Set.of();
        return new TransactionMetadata(id, producerId, -1, -1, epoch, (short) -1, TIMEOUT_MS, state, partitions, 0, 0);
    }
}
