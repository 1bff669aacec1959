package dev.strait.broker.protocol;

import dev.strait.broker.metadata.BrokerRegistration;
import dev.strait.broker.metadata.MetadataSource;
import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.partition.ReplicaManager;
import dev.strait.broker.txn.MarkerRounds;
import dev.strait.broker.txn.TransactionCoordinator;
import dev.strait.broker.txn.TxnPartition;
import dev.strait.broker.txn.WriteMarkers;
import dev.strait.time.Time;
import java.io.IOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.TransactionResult;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.apache.kafka.common.requests.WriteTxnMarkersResponse;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The transaction coordinator's marker sender: once a PrepareCommit or PrepareAbort is durable, writes the commit or
 * abort marker into every partition of the transaction (here through {@link TxnMarkerWriter} where this node leads
 * the partition, with WriteTxnMarkers to its leader otherwise), retrying each partition until it has its marker,
 * then tells the coordinator, which completes the transaction. The bookkeeping is {@link MarkerRounds}, owned by
 * this sender's one thread; requests to other nodes go out on a second thread, so that a node that does not answer
 * delays only the markers bound for other nodes, never the local ones or the bookkeeping.
 */
public final class TxnMarkerSender implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(TxnMarkerSender.class);
    private static final short WRITE_TXN_MARKERS_VERSION = 1;
    private static final long RETRY_BACKOFF_MS = 100;

    private final int localId;
    private final ReplicaManager replicaManager;
    private final TxnMarkerWriter writer;
    private final InterBrokerSecurity security;
    private final int socketTimeoutMs;
    private final Time time;
    private final MarkerRounds rounds = new MarkerRounds(RETRY_BACKOFF_MS);
    private final ScheduledExecutorService loop;
    private final ExecutorService remote;
    /** Used on the remote thread only. */
    private final Map<Integer, WireChannel> channels = new HashMap<>();

    private volatile @Nullable TransactionCoordinator coordinator;

    TxnMarkerSender(
            int localId,
            ReplicaManager replicaManager,
            TxnMarkerWriter writer,
            InterBrokerSecurity security,
            int socketTimeoutMs) {
        this.localId = localId;
        this.replicaManager = replicaManager;
        this.writer = writer;
        this.security = security;
        this.socketTimeoutMs = socketTimeoutMs;
        this.time = replicaManager.time();
        this.loop = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "strait-txn-markers-" + localId));
        this.remote = Executors.newSingleThreadExecutor(r -> daemon(r, "strait-txn-markers-io-" + localId));
        loop.scheduleWithFixedDelay(this::guardedPump, RETRY_BACKOFF_MS, RETRY_BACKOFF_MS, TimeUnit.MILLISECONDS);
    }

    private static Thread daemon(Runnable r, String name) {
        Thread thread = new Thread(r, name);
        thread.setDaemon(true);
        return thread;
    }

    /** The coordinator to tell when a transaction's markers are all written (set once, before any marker). */
    void attach(TransactionCoordinator coordinator) {
        this.coordinator = coordinator;
    }

    /** A decision is durable: its markers are owed. Called on a coordinator shard's loop. */
    public void send(WriteMarkers markers) {
        loop.execute(() -> {
            rounds.start(markers, time.milliseconds()).ifPresent(this::completed);
            guardedPump();
        });
    }

    private void completed(WriteMarkers round) {
        TransactionCoordinator c = java.util.Objects.requireNonNull(coordinator, "attached before any marker");
        c.markersWritten(c.partitionFor(round.transactionalId()), round);
    }

    private void guardedPump() {
        try {
            pump();
        } catch (RuntimeException e) {
            LOGGER.error("transaction marker sender failed a round; it is retried", e);
        }
    }

    private void pump() {
        for (MarkerRounds.Attempt attempt : rounds.due(time.milliseconds())) {
            new AttemptRun(attempt).start();
        }
    }

    /** One attempt of a round: its partitions grouped by leader, each group written, the outcomes gathered. */
    private final class AttemptRun {
        private final MarkerRounds.Attempt attempt;
        private final Map<TxnPartition, MarkerRounds.Outcome> outcomes = new HashMap<>();
        private int groupsLeft;

        AttemptRun(MarkerRounds.Attempt attempt) {
            this.attempt = attempt;
        }

        void start() {
            Map<Integer, List<TxnPartition>> byLeader = new HashMap<>();
            for (TxnPartition p : attempt.partitions()) {
                Optional<TopicMetadata> topic = replicaManager.topic(p.topic());
                if (topic.isEmpty() || p.partition() >= topic.get().partitions()) {
                    outcomes.put(p, MarkerRounds.Outcome.GONE);
                    continue;
                }
                Optional<PartitionState> state =
                        replicaManager.metadata().partitionState(topic.get().topicId(), p.partition());
                if (state.isEmpty() || !state.get().hasLeader()) {
                    outcomes.put(p, MarkerRounds.Outcome.RETRY);
                    continue;
                }
                byLeader.computeIfAbsent(state.get().leader(), l -> new ArrayList<>())
                        .add(p);
            }
            groupsLeft = byLeader.size();
            if (groupsLeft == 0) {
                finish();
                return;
            }
            WriteMarkers round = attempt.round();
            for (Map.Entry<Integer, List<TxnPartition>> group : byLeader.entrySet()) {
                List<TopicPartition> partitions = group.getValue().stream()
                        .map(p -> new TopicPartition(p.topic(), p.partition()))
                        .toList();
                if (group.getKey() == localId) {
                    writer.write(
                            new TxnMarkerWriter.Request(
                                    round.producerId(),
                                    round.producerEpoch(),
                                    round.commit(),
                                    round.coordinatorEpoch(),
                                    partitions),
                            errors -> loop.execute(() -> groupDone(errors)));
                } else {
                    int leader = group.getKey();
                    remote.execute(() -> {
                        Map<TopicPartition, Errors> errors = sendRemote(leader, round, partitions);
                        loop.execute(() -> groupDone(errors));
                    });
                }
            }
        }

        private void groupDone(Map<TopicPartition, Errors> errors) {
            for (Map.Entry<TopicPartition, Errors> e : errors.entrySet()) {
                outcomes.put(
                        new TxnPartition(e.getKey().topic(), e.getKey().partition()),
                        outcome(e.getKey(), e.getValue()));
            }
            if (--groupsLeft == 0) {
                finish();
            }
        }

        private void finish() {
            rounds.onOutcomes(attempt, outcomes, time.milliseconds()).ifPresent(TxnMarkerSender.this::completed);
        }
    }

    /** What a partition's answer means for the round, as Kafka's coordinator reads WriteTxnMarkers answers. */
    private MarkerRounds.Outcome outcome(TopicPartition tp, Errors error) {
        switch (error) {
            case NONE:
                return MarkerRounds.Outcome.WRITTEN;
            case UNKNOWN_TOPIC_OR_PARTITION:
                return replicaManager.topic(tp.topic()).isEmpty()
                        ? MarkerRounds.Outcome.GONE
                        : MarkerRounds.Outcome.RETRY;
            case INVALID_PRODUCER_EPOCH:
            case TRANSACTION_COORDINATOR_FENCED:
                // A newer coordinator or producer epoch wrote here: this coordinator's decision is stale.
                LOGGER.warn("the transaction marker for {} was refused with {}: dropping the round", tp, error);
                return MarkerRounds.Outcome.STALE_COORDINATOR;
            default:
                return MarkerRounds.Outcome.RETRY;
        }
    }

    /** WriteTxnMarkers to another node; any failure to get an answer is a retry of every partition. */
    private Map<TopicPartition, Errors> sendRemote(int leader, WriteMarkers round, List<TopicPartition> partitions) {
        Map<TopicPartition, Errors> errors = new HashMap<>();
        try {
            WireChannel channel = channel(leader);
            WriteTxnMarkersRequest request = new WriteTxnMarkersRequest.Builder(
                            List.of(new WriteTxnMarkersRequest.TxnMarkerEntry(
                                    round.producerId(),
                                    round.producerEpoch(),
                                    round.coordinatorEpoch(),
                                    round.commit() ? TransactionResult.COMMIT : TransactionResult.ABORT,
                                    partitions)))
                    .build(WRITE_TXN_MARKERS_VERSION);
            WriteTxnMarkersResponse response = (WriteTxnMarkersResponse)
                    channel.send(ApiKeys.WRITE_TXN_MARKERS, WRITE_TXN_MARKERS_VERSION, request);
            Map<TopicPartition, Errors> answered = response.errorsByProducerId().get(round.producerId());
            for (TopicPartition tp : partitions) {
                errors.put(
                        tp,
                        answered == null
                                ? Errors.UNKNOWN_SERVER_ERROR
                                : answered.getOrDefault(tp, Errors.UNKNOWN_SERVER_ERROR));
            }
        } catch (IOException | RuntimeException e) {
            WireChannel broken = channels.remove(leader);
            if (broken != null) {
                broken.close();
            }
            LOGGER.info("transaction markers to node {} not written yet ({}); retrying", leader, e.toString());
            for (TopicPartition tp : partitions) {
                errors.put(tp, Errors.NETWORK_EXCEPTION);
            }
        }
        return errors;
    }

    private WireChannel channel(int leader) throws IOException {
        WireChannel channel = channels.get(leader);
        if (channel != null) {
            return channel;
        }
        MetadataSource metadata = replicaManager.metadata();
        Optional<BrokerRegistration> broker = metadata.brokers().stream()
                .filter(b -> b.id() == leader && !b.fenced())
                .findFirst();
        if (broker.isEmpty()) {
            throw new IOException("node " + leader + " is not registered");
        }
        channel = WireChannel.connect(
                "strait-txn-markers-" + localId,
                "node " + leader,
                broker.get().host(),
                broker.get().port(),
                socketTimeoutMs,
                security);
        channels.put(leader, channel);
        return channel;
    }

    @Override
    public void close() {
        loop.shutdownNow();
        remote.shutdownNow();
        for (WireChannel channel : channels.values()) {
            channel.close();
        }
    }
}
