package dev.strait.broker.txn;

import dev.strait.time.Time;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;

/**
 * The transaction coordinator's shards at run time, one {@link TransactionShard} per partition of
 * {@code __transaction_state} this node leads, each owned by one loop ({@link Loops}) as the group coordinator's
 * shards are. On leadership a shard replays its partition ({@link TransactionLoader}) and serves once what it
 * replayed is durable (then resends the markers a previous coordinator owed); on loss it resigns. Requests are
 * handed to the shard's loop and answered through a future once their write is durable.
 */
public final class TransactionCoordinator {

    /** Thrown by the producer id supplier when no producer id can be had now (the controller does not answer). */
    public static final class ProducerIdsUnavailableException extends RuntimeException {
        private static final long serialVersionUID = 1L;

        public ProducerIdsUnavailableException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    /** Runs a shard's tasks one at a time, in order (the broker: a thread per few shards; tests: the caller). */
    @FunctionalInterface
    public interface Loops {
        void execute(int shard, Runnable task);
    }

    private final TransactionLog log;
    /** {@link #log}, whose appends also register for their durability report; what the shards write through. */
    private final TransactionLog shardLog;

    private final Function<Integer, List<TransactionRecords.Entry>> replayer;
    private final Loops loops;
    private final TxnConfig config;
    private final LongSupplier producerIds;
    private final Time clock;
    private final TransactionShard.MarkerSink markers;
    private final long writeTimeoutMs;
    private final int partitions;
    /** Written on the shards' loops; read there only (a map per node, so concurrent). */
    private final Map<Integer, TransactionShard> shards = new ConcurrentHashMap<>();

    private final Map<Integer, Long> loadedUpTo = new ConcurrentHashMap<>();

    public TransactionCoordinator(
            TransactionLog log,
            Function<Integer, List<TransactionRecords.Entry>> replayer,
            Loops loops,
            TxnConfig config,
            LongSupplier producerIds,
            Time clock,
            TransactionShard.MarkerSink markers,
            int partitions) {
        // Each append also asks to be told when it is durable, so that waiting requests complete without a poll.
        this.log = log;
        this.shardLog = new TransactionLog() {
            @Override
            public Appended append(int partition, TransactionRecords.Entry record) {
                Appended appended = log.append(partition, record);
                log.awaitReplication(partition, appended, () -> onReplicationProgress(partition));
                return appended;
            }

            @Override
            public Optional<Position> position(int partition) {
                return log.position(partition);
            }
        };
        this.replayer = replayer;
        this.loops = loops;
        this.config = config;
        this.producerIds = producerIds;
        this.clock = clock;
        this.markers = markers;
        this.writeTimeoutMs = 5_000;
        this.partitions = partitions;
    }

    public int partitionFor(String transactionalId) {
        return TransactionCoordinatorCore.partitionFor(transactionalId, partitions);
    }

    /** This node became leader of {@code partition} in {@code leaderEpoch}, or stopped leading it. */
    public void onLeadershipChange(int partition, boolean leading, int leaderEpoch) {
        loops.execute(partition, () -> {
            TransactionShard old = shards.remove(partition);
            if (old != null) {
                old.resign();
            }
            if (leading) {
                long logEnd = log.position(partition)
                        .map(TransactionLog.Position::logEndOffset)
                        .orElse(0L);
                List<TransactionRecords.Entry> records = replayer.apply(partition);
                TransactionShard shard = new TransactionShard(
                        TransactionCoordinatorCore.loaded(
                                partition, leaderEpoch, config, TransactionLoader.replay(records)),
                        shardLog,
                        markers,
                        writeTimeoutMs);
                shards.put(partition, shard);
                loadedUpTo.put(partition, logEnd);
                maybeActivate(partition, shard);
                if (shard.core().status() == TransactionCoordinatorCore.Status.LOADING) {
                    // No write of this shard will report progress while it loads: ask to hear when the high
                    // watermark reaches what was replayed (a new leader's lags until its followers fetch from it).
                    log.awaitReplication(
                            partition,
                            new TransactionLog.Appended(logEnd, leaderEpoch),
                            () -> onReplicationProgress(partition));
                }
            }
        });
    }

    /** The partition's high watermark moved: activate a loading shard, complete durable writes. */
    public void onReplicationProgress(int partition) {
        loops.execute(partition, () -> {
            TransactionShard shard = shards.get(partition);
            if (shard != null) {
                maybeActivate(partition, shard);
                shard.onReplicationProgress();
            }
        });
    }

    /**
     * Periodic work of a shard: timeouts, expiry, writes that took too long; a loading shard whose replayed records
     * became durable without a progress report (its wait timed out first) is activated here.
     */
    public void tick(int partition) {
        loops.execute(partition, () -> {
            TransactionShard shard = shards.get(partition);
            if (shard == null) {
                return;
            }
            maybeActivate(partition, shard);
            if (shard.core().status() == TransactionCoordinatorCore.Status.ACTIVE) {
                shard.tick(clock.milliseconds());
            }
        });
    }

    public CompletableFuture<TxnReply> initProducerId(
            String transactionalId, int txnTimeoutMs, @Nullable ProducerIdAndEpoch expected) {
        return run(
                transactionalId,
                (core, now) -> core.initProducerId(transactionalId, txnTimeoutMs, expected, producerIds, now));
    }

    public CompletableFuture<TxnReply> addPartitions(
            String transactionalId, long producerId, short producerEpoch, Set<TxnPartition> added) {
        return run(
                transactionalId,
                (core, now) -> core.addPartitions(transactionalId, producerId, producerEpoch, added, now));
    }

    public CompletableFuture<TxnReply> addOffsets(
            String transactionalId,
            long producerId,
            short producerEpoch,
            String groupId,
            ToIntFunction<String> offsetsPartitionFor) {
        return run(
                transactionalId,
                (core, now) ->
                        core.addOffsets(transactionalId, producerId, producerEpoch, groupId, offsetsPartitionFor, now));
    }

    public CompletableFuture<TxnReply> endTxn(
            String transactionalId, long producerId, short producerEpoch, boolean commit) {
        return run(
                transactionalId, (core, now) -> core.endTxn(transactionalId, producerId, producerEpoch, commit, now));
    }

    /** Every marker of a decided transaction is written (the marker sender reports it). */
    public void markersWritten(int partition, WriteMarkers written) {
        loops.execute(partition, () -> {
            TransactionShard shard = shards.get(partition);
            if (shard != null && shard.core().coordinatorEpoch() == written.coordinatorEpoch()) {
                shard.markersWritten(written, clock.milliseconds());
            }
        });
    }

    /** The shards of {@code __transaction_state}. */
    public int partitions() {
        return partitions;
    }

    /**
     * ListTransactions over the shards this node serves; the filters as {@link TransactionCoordinatorCore#listTransactions}.
     * Completes once every shard answered, on the last one's loop.
     */
    public CompletableFuture<List<TransactionListing>> listTransactions(
            Set<TransactionState> states, Set<Long> producerIds, long minDurationMs) {
        List<CompletableFuture<List<TransactionListing>>> parts = new java.util.ArrayList<>();
        for (int partition = 0; partition < partitions; partition++) {
            int shardId = partition;
            CompletableFuture<List<TransactionListing>> part = new CompletableFuture<>();
            loops.execute(shardId, () -> {
                TransactionShard shard = shards.get(shardId);
                part.complete(
                        shard == null || shard.core().status() != TransactionCoordinatorCore.Status.ACTIVE
                                ? List.of()
                                : shard.core()
                                        .listTransactions(states, producerIds, minDurationMs, clock.milliseconds()));
            });
            parts.add(part);
        }
        return CompletableFuture.allOf(parts.toArray(CompletableFuture[]::new))
                .thenApply(ignored ->
                        parts.stream().flatMap(p -> p.join().stream()).toList());
    }

    /** DescribeTransactions for one id, on its shard's loop. */
    public CompletableFuture<TxnView> describe(String transactionalId) {
        int partition = partitionFor(transactionalId);
        CompletableFuture<TxnView> answer = new CompletableFuture<>();
        loops.execute(partition, () -> {
            TransactionShard shard = shards.get(partition);
            answer.complete(
                    shard == null
                            ? new TxnView(TxnError.NOT_COORDINATOR, null)
                            : shard.core().describe(transactionalId));
        });
        return answer;
    }

    @FunctionalInterface
    private interface Operation {
        TxnResult on(TransactionCoordinatorCore core, long nowMs);
    }

    private CompletableFuture<TxnReply> run(String transactionalId, Operation operation) {
        int partition = partitionFor(transactionalId);
        CompletableFuture<TxnReply> answer = new CompletableFuture<>();
        loops.execute(partition, () -> {
            TransactionShard shard = shards.get(partition);
            if (shard == null) {
                answer.complete(TxnReply.error(TxnError.NOT_COORDINATOR));
                return;
            }
            long now = clock.milliseconds();
            try {
                shard.complete(operation.on(shard.core(), now), now, answer::complete);
            } catch (ProducerIdsUnavailableException e) {
                // The controller hands out producer ids; while it cannot, the client retries.
                answer.complete(TxnReply.error(TxnError.COORDINATOR_NOT_AVAILABLE));
            } catch (RuntimeException e) {
                // A request left unanswered would be retried by the client for good: it hears an error instead, and
                // the loop logs the failure.
                answer.complete(TxnReply.error(TxnError.UNKNOWN_SERVER_ERROR));
                throw e;
            }
        });
        return answer;
    }

    /** A loading shard serves once the high watermark passed what it replayed. */
    private void maybeActivate(int partition, TransactionShard shard) {
        if (shard.core().status() != TransactionCoordinatorCore.Status.LOADING) {
            return;
        }
        Optional<TransactionLog.Position> position = log.position(partition);
        if (position.isEmpty() || position.get().leaderEpoch() != shard.core().coordinatorEpoch()) {
            shards.remove(partition, shard);
            shard.resign();
            return;
        }
        if (position.get().highWatermark() >= loadedUpTo.getOrDefault(partition, 0L)) {
            shard.activate();
        }
    }
}
