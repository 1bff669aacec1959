package dev.strait.broker.protocol;

import dev.strait.broker.group.GroupCoordinator;
import dev.strait.broker.partition.Partition;
import dev.strait.broker.partition.ProducerIdManager;
import dev.strait.broker.partition.ReplicaManager;
import dev.strait.broker.txn.TransactionCoordinator;
import dev.strait.broker.txn.TxnConfig;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RetriableException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A node's transaction coordinator at run time, put together: its topic ({@link TransactionTopicLog}), the shards
 * ({@link TransactionCoordinator}) on one loop thread, loaded and resigned as this node gains and loses the
 * leadership of {@code __transaction_state} partitions, the periodic abort of timed-out transactions, and the
 * marker path ({@link TxnMarkerSender} and {@link TxnMarkerWriter}, whose markers in {@code __consumer_offsets}
 * complete a transaction's offset commits in the group coordinator). The broker builds one and hands it to
 * {@link KafkaApis}, which serves the transaction APIs with it.
 */
public final class TransactionServices implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(TransactionServices.class);
    /** How long a WriteTxnMarkers waits for its markers to be replicated, as a produce with acks=all. */
    private static final long MARKER_TIMEOUT_MS = 30_000;

    /**
     * @param numPartitions {@code transaction.state.log.num.partitions}
     * @param replicationFactor {@code transaction.state.log.replication.factor}, -1 for the cluster default
     * @param tickIntervalMs how often timed-out transactions are looked for
     */
    public record Settings(
            int numPartitions, int replicationFactor, TxnConfig txn, long tickIntervalMs, int socketTimeoutMs) {}

    private final TransactionTopicLog topicLog;
    private final TransactionCoordinator coordinator;
    private final TxnMarkerWriter writer;
    private final TxnMarkerSender sender;
    private final ExecutorService loop;
    private final ScheduledFuture<?> ticks;

    private TransactionServices(
            TransactionTopicLog topicLog,
            TransactionCoordinator coordinator,
            TxnMarkerWriter writer,
            TxnMarkerSender sender,
            ExecutorService loop,
            ScheduledFuture<?> ticks) {
        this.topicLog = topicLog;
        this.coordinator = coordinator;
        this.writer = writer;
        this.sender = sender;
        this.loop = loop;
        this.ticks = ticks;
    }

    /**
     * Builds and starts the coordinator of node {@code localId}; call after the replica manager started, before the
     * listeners accept requests.
     */
    public static TransactionServices start(
            int localId,
            ReplicaManager replicaManager,
            GroupCoordinator groups,
            InterBrokerSecurity security,
            Settings settings,
            ScheduledExecutorService scheduler) {
        TransactionTopicLog topicLog =
                new TransactionTopicLog(replicaManager, settings.numPartitions(), settings.replicationFactor());
        TxnMarkerWriter writer = new TxnMarkerWriter(
                replicaManager,
                (tp, producerId, commit, markerOffset) -> {
                    if (tp.topic().equals(OffsetsTopicLog.TOPIC)) {
                        groups.completeTransaction(tp.partition(), producerId, commit, markerOffset);
                    }
                },
                MARKER_TIMEOUT_MS);
        TxnMarkerSender sender =
                new TxnMarkerSender(localId, replicaManager, writer, security, settings.socketTimeoutMs());
        ExecutorService loop = Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, "strait-txn-coordinator-" + localId);
            thread.setDaemon(true);
            return thread;
        });
        ProducerIdManager producerIds = new ProducerIdManager(replicaManager.metadata());
        int partitions = topicLog.numPartitions();
        TransactionCoordinator coordinator = new TransactionCoordinator(
                topicLog,
                topicLog::replay,
                (shard, task) -> loop.execute(() -> {
                    try {
                        task.run();
                    } catch (RuntimeException e) {
                        LOGGER.error("transaction coordinator shard {} failed a task", shard, e);
                    }
                }),
                settings.txn(),
                () -> {
                    try {
                        return producerIds.nextProducerId();
                    } catch (RuntimeException e) {
                        throw new TransactionCoordinator.ProducerIdsUnavailableException(
                                "no producer id from the controller: " + e.getMessage(), e);
                    }
                },
                replicaManager.time(),
                sender::send,
                partitions);
        sender.attach(coordinator);
        replicaManager.addRoleListener(new ReplicaManager.RoleListener() {
            @Override
            public void onBecomeLeader(Partition partition, int leaderEpoch) {
                if (partition.topicPartition().topic().equals(TransactionTopicLog.TOPIC)) {
                    LOGGER.info(
                            "node {} loads the transactions of {} as coordinator epoch {}",
                            localId,
                            partition.topicPartition(),
                            leaderEpoch);
                    coordinator.onLeadershipChange(partition.topicPartition().partition(), true, leaderEpoch);
                }
            }

            @Override
            public void onBecomeFollower(Partition partition, int leaderId, int leaderEpoch) {
                if (partition.topicPartition().topic().equals(TransactionTopicLog.TOPIC)) {
                    LOGGER.info(
                            "node {} no longer coordinates the transactions of {} (led by {} in epoch {})",
                            localId,
                            partition.topicPartition(),
                            leaderId,
                            leaderEpoch);
                    coordinator.onLeadershipChange(partition.topicPartition().partition(), false, leaderEpoch);
                }
            }

            @Override
            public void onRemoved(TopicPartition topicPartition) {
                if (topicPartition.topic().equals(TransactionTopicLog.TOPIC)) {
                    coordinator.onLeadershipChange(topicPartition.partition(), false, -1);
                }
            }
        });
        // Partitions this node already led before the listener was added: load them now (a second load is harmless).
        for (int p = 0; p < partitions; p++) {
            Optional<Partition> local = replicaManager.partition(new TopicPartition(TransactionTopicLog.TOPIC, p));
            if (local.isPresent() && local.get().isLeader()) {
                coordinator.onLeadershipChange(p, true, local.get().leaderEpoch());
            }
        }
        long tickMs = Math.max(1, Math.min(settings.tickIntervalMs(), 1_000));
        ScheduledFuture<?> ticks = scheduler.scheduleWithFixedDelay(
                () -> {
                    for (int p = 0; p < partitions; p++) {
                        coordinator.tick(p);
                    }
                },
                tickMs,
                tickMs,
                TimeUnit.MILLISECONDS);
        return new TransactionServices(topicLog, coordinator, writer, sender, loop, ticks);
    }

    TransactionCoordinator coordinator() {
        return coordinator;
    }

    TxnMarkerWriter writer() {
        return writer;
    }

    /**
     * The partition of {@code __transaction_state} that holds {@code transactionalId}, once the topic exists; the
     * first call creates it (empty while the cluster cannot place it yet).
     */
    Optional<Integer> partitionOf(String transactionalId) {
        boolean exists;
        try {
            exists = topicLog.ensureCreated();
        } catch (RetriableException e) {
            exists = false;
        } catch (RuntimeException e) {
            LOGGER.warn("cannot create {} yet: {}", TransactionTopicLog.TOPIC, e.toString());
            exists = false;
        }
        return exists ? Optional.of(coordinator.partitionFor(transactionalId)) : Optional.empty();
    }

    @Override
    public void close() {
        ticks.cancel(false);
        sender.close();
        loop.shutdownNow();
    }
}
