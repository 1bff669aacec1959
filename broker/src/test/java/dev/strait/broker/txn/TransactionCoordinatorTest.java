package dev.strait.broker.txn;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.time.ManualTime;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import org.junit.jupiter.api.Test;

/**
 * The coordinator's shards over fake partitions, every loop the test's thread: a shard serves only while this node
 * leads its partition and once what it replayed is durable; a new leader replays and resends owed markers.
 */
class TransactionCoordinatorTest {

    private static final int PARTITIONS = 4;
    private static final TxnPartition A0 = new TxnPartition("a", 0);

    /** Partitions of {@code __transaction_state} in memory; the test moves the high watermarks. */
    private static final class FakeLog implements TransactionLog {
        final Map<Integer, List<TransactionRecords.Entry>> records = new HashMap<>();
        final Map<Integer, Long> highWatermarks = new HashMap<>();
        final Map<Integer, Integer> leaderEpochs = new HashMap<>();

        @Override
        public Appended append(int partition, TransactionRecords.Entry record) {
            List<TransactionRecords.Entry> log = records.computeIfAbsent(partition, p -> new ArrayList<>());
            log.add(record);
            return new Appended(log.size(), leaderEpochs.getOrDefault(partition, -1));
        }

        @Override
        public Optional<Position> position(int partition) {
            Integer epoch = leaderEpochs.get(partition);
            int end = records.getOrDefault(partition, List.of()).size();
            return epoch == null
                    ? Optional.empty()
                    : Optional.of(new Position(highWatermarks.getOrDefault(partition, 0L), end, epoch));
        }

        List<TransactionRecords.Entry> replay(int partition) {
            return new ArrayList<>(records.getOrDefault(partition, List.of()));
        }

        void replicate(int partition) {
            highWatermarks.put(
                    partition, (long) records.getOrDefault(partition, List.of()).size());
        }
    }

    private final FakeLog log = new FakeLog();
    private final List<WriteMarkers> markers = new ArrayList<>();
    private final ManualTime time = new ManualTime();
    private long nextProducerId = 500;
    private final TransactionCoordinator coordinator = coordinator();

    private TransactionCoordinator coordinator() {
        return new TransactionCoordinator(
                log,
                log::replay,
                (shard, task) -> task.run(),
                TxnConfig.DEFAULTS,
                () -> nextProducerId++,
                time,
                markers::add,
                PARTITIONS);
    }

    private void lead(TransactionCoordinator node, int partition, int epoch) {
        log.leaderEpochs.put(partition, epoch);
        node.onLeadershipChange(partition, true, epoch);
    }

    private TxnReply durable(int partition, CompletableFuture<TxnReply> reply) {
        log.replicate(partition);
        coordinator.onReplicationProgress(partition);
        return reply.join();
    }

    /** A node whose loop logs a task's failure and goes on, as the broker's does, with the given producer ids. */
    private TransactionCoordinator nodeWith(
            java.util.function.LongSupplier producerIds, List<RuntimeException> failed) {
        return new TransactionCoordinator(
                log,
                log::replay,
                (shard, task) -> {
                    try {
                        task.run();
                    } catch (RuntimeException e) {
                        failed.add(e);
                    }
                },
                TxnConfig.DEFAULTS,
                producerIds,
                time,
                markers::add,
                PARTITIONS);
    }

    @Test
    void aRequestTheCoordinatorFailsOnIsAnsweredNotLeftHanging() {
        // Given: the controller does not answer for producer ids; and, on another node, a broken invariant
        List<RuntimeException> failures = new ArrayList<>();
        TransactionCoordinator unanswered = nodeWith(
                () -> {
                    throw new TransactionCoordinator.ProducerIdsUnavailableException(
                            "no answer from the controller", new IllegalStateException());
                },
                failures);
        TransactionCoordinator broken = nodeWith(
                () -> {
                    throw new IllegalStateException("a broken invariant");
                },
                failures);
        int partition = unanswered.partitionFor("t");
        lead(unanswered, partition, 3);
        lead(broken, partition, 3);

        // When
        CompletableFuture<TxnReply> retry = unanswered.initProducerId("t", 10_000, null);
        CompletableFuture<TxnReply> fail = broken.initProducerId("t", 10_000, null);

        // Then: the old code completed neither answer (initTransactions hung); now a retriable error, and an error
        // the client reports with the failure logged on the node
        assertThat(retry).isCompletedWithValue(TxnReply.error(TxnError.COORDINATOR_NOT_AVAILABLE));
        assertThat(fail).isCompletedWithValue(TxnReply.error(TxnError.UNKNOWN_SERVER_ERROR));
        assertThat(failures).hasSize(1);
    }

    @Test
    void aRequestForAShardThisNodeDoesNotLeadIsNotCoordinator() {
        assertThat(coordinator.initProducerId("t", 10_000, null).join())
                .isEqualTo(TxnReply.error(TxnError.NOT_COORDINATOR));
    }

    @Test
    void aLedShardAnswersOnceDurable() {
        // Given
        int partition = coordinator.partitionFor("t");
        lead(coordinator, partition, 1);

        // When
        CompletableFuture<TxnReply> reply = coordinator.initProducerId("t", 10_000, null);

        // Then
        assertThat(reply).isNotDone();
        assertThat(durable(partition, reply)).isEqualTo(TxnReply.ok(500, (short) 0));
    }

    @Test
    void aShardLoadsUntilWhatItReplayedIsDurable() {
        // Given: a record above the high watermark
        int partition = coordinator.partitionFor("t");
        lead(coordinator, partition, 1);
        coordinator.initProducerId("t", 10_000, null);
        lead(coordinator, partition, 2);

        // When
        TxnReply loading = coordinator.initProducerId("t", 10_000, null).join();
        log.replicate(partition);
        coordinator.onReplicationProgress(partition);

        // Then
        assertThat(loading.error()).isEqualTo(TxnError.COORDINATOR_LOAD_IN_PROGRESS);
        assertThat(coordinator.describe("t").join().error()).isEqualTo(TxnError.NONE);
    }

    @Test
    void aLoadingShardServesOnItsNextTickOnceTheHighWatermarkCaughtUpWithoutAProgressReport() {
        // Given: a new leader whose high watermark lags its log end (its followers have not fetched from it yet)
        int partition = coordinator.partitionFor("t");
        lead(coordinator, partition, 1);
        coordinator.initProducerId("t", 10_000, null);
        lead(coordinator, partition, 2);
        assertThat(coordinator.describe("t").join().error()).isEqualTo(TxnError.COORDINATOR_LOAD_IN_PROGRESS);

        // When: the high watermark catches up, and nothing reports it (no write of the loading shard waits on it)
        log.replicate(partition);
        coordinator.tick(partition);

        // Then: before, the shard loaded for good and every request of its ids was COORDINATOR_LOAD_IN_PROGRESS
        assertThat(coordinator.describe("t").join().error()).isEqualTo(TxnError.NONE);
    }

    @Test
    void aNewLeaderResendsTheMarkersOfADecidedTransaction() {
        // Given
        int partition = coordinator.partitionFor("t");
        lead(coordinator, partition, 1);
        TxnReply producer = durable(partition, coordinator.initProducerId("t", 10_000, null));
        durable(partition, coordinator.addPartitions("t", producer.producerId(), producer.producerEpoch(), Set.of(A0)));
        durable(partition, coordinator.endTxn("t", producer.producerId(), producer.producerEpoch(), true));
        assertThat(markers).hasSize(1);

        // When
        TransactionCoordinator next = coordinator();
        lead(next, partition, 2);

        // Then
        assertThat(markers).hasSize(2);
        assertThat(markers.get(1).commit()).isTrue();
        assertThat(markers.get(1).coordinatorEpoch()).isEqualTo(2);
    }

    @Test
    void markersWrittenCompleteTheTransaction() {
        // Given
        int partition = coordinator.partitionFor("t");
        lead(coordinator, partition, 1);
        TxnReply producer = durable(partition, coordinator.initProducerId("t", 10_000, null));
        durable(partition, coordinator.addPartitions("t", producer.producerId(), producer.producerEpoch(), Set.of(A0)));
        durable(partition, coordinator.endTxn("t", producer.producerId(), producer.producerEpoch(), false));

        // When
        coordinator.markersWritten(partition, markers.get(0));
        log.replicate(partition);
        coordinator.onReplicationProgress(partition);

        // Then
        TransactionMetadata state = java.util.Objects.requireNonNull(
                coordinator.describe("t").join().metadata());
        assertThat(state.state()).isEqualTo(TransactionState.COMPLETE_ABORT);
    }

    @Test
    void aLostLeadershipAnswersNotCoordinator() {
        // Given
        int partition = coordinator.partitionFor("t");
        lead(coordinator, partition, 1);
        CompletableFuture<TxnReply> pending = coordinator.initProducerId("t", 10_000, null);

        // When
        log.leaderEpochs.remove(partition);
        coordinator.onLeadershipChange(partition, false, 1);

        // Then
        assertThat(pending.join()).isEqualTo(TxnReply.error(TxnError.NOT_COORDINATOR));
        assertThat(coordinator.describe("t").join().error()).isEqualTo(TxnError.NOT_COORDINATOR);
    }
}
