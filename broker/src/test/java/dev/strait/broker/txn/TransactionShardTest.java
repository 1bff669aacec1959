package dev.strait.broker.txn;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The shard's durable-first pipeline over a fake partition whose high watermark the test moves: nothing applies
 * and nobody hears an answer before the record is durable; a lost leadership answers NOT_COORDINATOR and applies
 * nothing; markers are owed only once a decision is durable.
 */
class TransactionShardTest {

    private static final TxnConfig SETTINGS = new TxnConfig(60_000, 3_600_000L, "__consumer_offsets");
    private static final TxnPartition A0 = new TxnPartition("a", 0);

    /** A partition of {@code __transaction_state} held in memory; the test moves its high watermark. */
    private static final class FakeLog implements TransactionLog {
        final List<TransactionRecords.Entry> records = new ArrayList<>();
        long highWatermark;
        int leaderEpoch = 7;
        boolean leading = true;
        boolean failAppends;

        @Override
        public Appended append(int partition, TransactionRecords.Entry record) {
            if (failAppends) {
                throw new AppendFailedException(TxnError.NOT_COORDINATOR, "not the leader");
            }
            records.add(record);
            return new Appended(records.size(), leaderEpoch);
        }

        @Override
        public Optional<Position> position(int partition) {
            return leading ? Optional.of(new Position(highWatermark, records.size(), leaderEpoch)) : Optional.empty();
        }
    }

    private final FakeLog log = new FakeLog();
    private final List<WriteMarkers> markers = new ArrayList<>();
    private final List<TxnReply> replies = new ArrayList<>();
    private final TransactionShard shard =
            new TransactionShard(TransactionCoordinatorCore.loaded(0, 7, SETTINGS, Map.of()), log, markers::add, 5_000);
    private long nextProducerId = 100;

    private void init(String id, long nowMs) {
        shard.complete(
                shard.core().initProducerId(id, 10_000, null, () -> nextProducerId++, nowMs), nowMs, replies::add);
    }

    private void replicateAll() {
        log.highWatermark = log.records.size();
        shard.onReplicationProgress();
    }

    private TxnReply last() {
        return replies.get(replies.size() - 1);
    }

    /** AddPartitionsToTxn of A0 for {@code producer}'s id "t", made durable. */
    private void addA0(TxnReply producer, long nowMs) {
        shard.complete(
                shard.core().addPartitions("t", producer.producerId(), producer.producerEpoch(), Set.of(A0), nowMs),
                nowMs,
                replies::add);
        replicateAll();
    }

    /** EndTxn of "t", made durable (its markers are then owed). */
    private void end(TxnReply producer, boolean commit, long nowMs) {
        shard.complete(
                shard.core().endTxn("t", producer.producerId(), producer.producerEpoch(), commit, nowMs),
                nowMs,
                replies::add);
        replicateAll();
    }

    @Test
    void anAnswerWaitsForTheHighWatermark() {
        // Given
        shard.activate();
        init("t", 0);
        assertThat(replies).isEmpty();
        assertThat(shard.core().describe("t").error()).isEqualTo(TxnError.TRANSACTIONAL_ID_NOT_FOUND);

        // When
        replicateAll();

        // Then
        assertThat(replies).containsExactly(TxnReply.ok(100, (short) 0));
        assertThat(shard.core().describe("t").error()).isEqualTo(TxnError.NONE);
        assertThat(shard.pendingWrites()).isZero();
    }

    @Test
    void aDurableCommitDecisionOwesMarkersAndTheirWriteCompletesIt() {
        // Given
        shard.activate();
        init("t", 0);
        replicateAll();
        TxnReply producer = last();
        addA0(producer, 1);
        shard.complete(
                shard.core().endTxn("t", producer.producerId(), producer.producerEpoch(), true, 2), 2, replies::add);
        assertThat(markers).isEmpty();

        // When
        replicateAll();
        WriteMarkers owed = markers.get(0);
        shard.markersWritten(owed, 3);
        replicateAll();

        // Then
        assertThat(owed.commit()).isTrue();
        assertThat(owed.partitions()).containsExactly(A0);
        assertThat(owed.coordinatorEpoch()).isEqualTo(7);
        assertThat(java.util.Objects.requireNonNull(shard.core().describe("t").metadata())
                        .state())
                .isEqualTo(TransactionState.COMPLETE_COMMIT);
    }

    @Test
    void aCompletionWhoseAppendFailedIsWrittenAgainByTheTick() {
        // Given: a decided commit whose markers are all written, while the partition refuses appends (ISR below
        // min.insync.replicas after a node was killed): the first try to complete it is not written
        shard.activate();
        init("t", 0);
        replicateAll();
        TxnReply producer = last();
        addA0(producer, 1);
        end(producer, true, 2);
        log.failAppends = true;
        shard.markersWritten(markers.get(0), 3);
        shard.tick(4);
        assertThat(shard.core().describe("t").metadata().state()).isEqualTo(TransactionState.PREPARE_COMMIT);

        // When: the partition takes appends again (the old code left the transaction in PrepareCommit for good:
        // every AddPartitionsToTxn of the id answered CONCURRENT_TRANSACTIONS, and the producer hung)
        log.failAppends = false;
        shard.tick(5);
        replicateAll();

        // Then
        assertThat(shard.core().describe("t").metadata().state()).isEqualTo(TransactionState.COMPLETE_COMMIT);
        // and a later transaction of the same producer, decided but not yet marked, is not completed by a stale retry
        addA0(producer, 6);
        end(producer, true, 7);
        shard.tick(8);
        replicateAll();
        assertThat(shard.core().describe("t").metadata().state()).isEqualTo(TransactionState.PREPARE_COMMIT);
    }

    @Test
    void aLostLeadershipAnswersNotCoordinatorAndAppliesNothing() {
        // Given
        shard.activate();
        init("t", 0);

        // When
        log.leaderEpoch = 8;
        log.highWatermark = 1;
        shard.onReplicationProgress();

        // Then
        assertThat(replies).containsExactly(TxnReply.error(TxnError.NOT_COORDINATOR));
        assertThat(shard.core().status()).isEqualTo(TransactionCoordinatorCore.Status.NOT_COORDINATOR);
        assertThat(shard.pendingWrites()).isZero();
    }

    @Test
    void aFailedAppendLeavesTheIdFreeToChangeAgain() {
        // Given
        shard.activate();
        log.failAppends = true;
        init("t", 0);
        assertThat(replies).containsExactly(TxnReply.error(TxnError.NOT_COORDINATOR));

        // When
        log.failAppends = false;
        init("t", 1);
        replicateAll();

        // Then
        assertThat(last().error()).isEqualTo(TxnError.NONE);
    }

    @Test
    void aTimedOutWriteAnswersButStillAppliesWhenDurable() {
        // Given
        shard.activate();
        init("t", 0);

        // When
        shard.tick(5_000);

        // Then
        assertThat(replies).containsExactly(TxnReply.error(TxnError.COORDINATOR_NOT_AVAILABLE));
        assertThat(shard.queued("t")).isNotNull();
        replicateAll();
        assertThat(replies).hasSize(1);
        assertThat(shard.core().describe("t").error()).isEqualTo(TxnError.NONE);
    }

    @Test
    void anOngoingTransactionPastItsTimeoutIsAbortedByTheTick() {
        // Given
        shard.activate();
        init("t", 0);
        replicateAll();
        TxnReply producer = last();
        addA0(producer, 1);

        // When
        shard.tick(20_000);
        replicateAll();

        // Then
        assertThat(markers).hasSize(1);
        assertThat(markers.get(0).commit()).isFalse();
        assertThat(markers.get(0).producerEpoch()).isGreaterThan(producer.producerEpoch());
    }

    @Test
    void aNewCoordinatorResendsTheMarkersOfADecidedTransaction() {
        // Given
        shard.activate();
        init("t", 0);
        replicateAll();
        TxnReply producer = last();
        addA0(producer, 1);
        end(producer, false, 2);
        List<WriteMarkers> before = new ArrayList<>(markers);

        // When
        TransactionShard next = new TransactionShard(
                TransactionCoordinatorCore.loaded(0, 8, SETTINGS, TransactionLoader.replay(log.records)),
                log,
                markers::add,
                5_000);
        next.activate();

        // Then
        assertThat(before).hasSize(1);
        assertThat(markers).hasSize(2);
        assertThat(markers.get(1).commit()).isFalse();
        assertThat(markers.get(1).coordinatorEpoch()).isEqualTo(8);
    }
}
