package dev.strait.broker.partition;

import dev.strait.broker.log.AppendResult;
import dev.strait.broker.log.FaultHandler;
import dev.strait.broker.log.LogConfig;
import dev.strait.broker.log.LogStorageException;
import dev.strait.broker.log.OffsetOutOfRangeException;
import dev.strait.broker.log.PartitionLog;
import dev.strait.broker.log.PartitionMetadataFile;
import dev.strait.broker.metadata.MetadataSource;
import dev.strait.broker.metadata.MirrorTruncation;
import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.metadata.ReplicaAssignments;
import dev.strait.broker.metadata.StaleEpochException;
import dev.strait.broker.metadata.TopicExistsException;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.metadata.UnknownTopicException;
import dev.strait.broker.replication.IsrChange;
import dev.strait.broker.replication.ReplicationConfig;
import dev.strait.broker.replication.TruncationRule;
import dev.strait.time.Time;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's replicas of partitions, their logs, topic lifecycle, delayed fetches and produces, and the roles
 * the metadata gives them. Topic metadata and partition states (leader, epochs, replicas, ISR) live in the
 * {@link MetadataSource}; logs live under one log directory as {@code <topic>-<partition>}.
 *
 * <p>Reconciliation: after every metadata change (the source's listener only enqueues a pass on the single
 * {@code strait-replica-state} thread, so it never blocks the source) {@link #reconcile()} opens missing logs of
 * partitions this node is a replica of, applies each committed {@link PartitionState} to its {@link Partition},
 * tells {@link RoleListener}s (replica fetchers, the group coordinator) about leader and follower transitions, and
 * deletes logs of partitions that are gone. Topic admin calls reconcile synchronously, so a single node (leader
 * in epoch 0 of everything, ISR {self}) behaves as it always did.
 *
 * <p>Thread-safe: topic create/delete/config changes and reconciliation are serialized on this object; partition
 * access goes through each {@link Partition}'s lock; {@link RoleListener} callbacks run under this object's lock,
 * in reconciliation order, and must only enqueue work.
 */
public final class ReplicaManager implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(ReplicaManager.class);
    private static final Pattern LEGAL_TOPIC = Pattern.compile("[a-zA-Z0-9._-]+");
    private static final int MAX_TOPIC_NAME_LENGTH = 249;
    /** Kafka's suffix of a partition directory moved aside for deletion. */
    private static final String DELETE_SUFFIX = "-delete";

    /** Told about role transitions of local replicas, in order, under the replica manager's lock; must not block. */
    public interface RoleListener {
        default void onBecomeLeader(Partition partition, int leaderEpoch) {}

        default void onBecomeFollower(Partition partition, int leaderId, int leaderEpoch) {}

        /** The replica was deleted (topic deleted, or this node removed from the replicas). */
        default void onRemoved(TopicPartition topicPartition) {}
    }

    private final MetadataSource metadata;
    private final Path logDir;
    private final Map<String, String> brokerTopicDefaults;
    /** Parsed log configs by topic id; an entry is replaced when the topic's overrides change. */
    private final Map<Uuid, ParsedLogConfig> logConfigs = new ConcurrentHashMap<>();

    private final Time time;
    private final long replicaLagTimeMaxMs;
    /** ISR changes this node proposed as leader and the controller committed (Kafka's IsrShrinks/IsrExpands). */
    private final LongAdder isrShrinks = new LongAdder();

    private final LongAdder isrExpands = new LongAdder();
    private final int localId;
    private final ConcurrentHashMap<TopicPartition, Partition> partitions = new ConcurrentHashMap<>();
    /** How long a leader waits before asking again about an ISR change whose outcome it does not know. */
    static final long ISR_CHANGE_RETRY_BACKOFF_MS = 100;

    private final ScheduledExecutorService scheduler;
    private final DelayedOperationPurgatory fetchPurgatory;
    private final DelayedOperationPurgatory producePurgatory;
    private final List<RoleListener> roleListeners = new CopyOnWriteArrayList<>();
    private final ExecutorService stateThread;
    private final LogFlusher flusher;
    private final AtomicBoolean reconcilePending = new AtomicBoolean();
    private volatile boolean closed;
    private volatile FaultHandler faults = (what, cause) -> {};

    public ReplicaManager(
            MetadataSource metadata,
            Path logDir,
            Map<String, String> brokerTopicDefaults,
            Time time,
            ScheduledExecutorService scheduler) {
        this(metadata, logDir, brokerTopicDefaults, time, scheduler, ReplicationConfig.DEFAULT_REPLICA_LAG_TIME_MAX_MS);
    }

    /**
     * @param brokerTopicDefaults topic config defaults of this broker, min.insync.replicas included
     * @param replicaLagTimeMaxMs {@code replica.lag.time.max.ms}
     */
    public ReplicaManager(
            MetadataSource metadata,
            Path logDir,
            Map<String, String> brokerTopicDefaults,
            Time time,
            ScheduledExecutorService scheduler,
            long replicaLagTimeMaxMs) {
        this.metadata = metadata;
        this.logDir = logDir;
        this.brokerTopicDefaults = Map.copyOf(brokerTopicDefaults);
        this.time = time;
        this.replicaLagTimeMaxMs = replicaLagTimeMaxMs;
        this.localId = metadata.localNodeId();
        this.scheduler = scheduler;
        this.fetchPurgatory = new DelayedOperationPurgatory(scheduler);
        this.producePurgatory = new DelayedOperationPurgatory(scheduler);
        this.stateThread = Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, "strait-replica-state-" + localId);
            thread.setDaemon(true);
            return thread;
        });
        this.flusher = new LogFlusher(localId, p -> onHighWatermarkMaybeMoved(p.topicPartition()));
        TopicConfigs.validate(this.brokerTopicDefaults);
    }

    /** Told when reconciling the replicas with the metadata fails: the replicas no longer follow it. */
    public void setFaultHandler(FaultHandler handler) {
        this.faults = handler;
    }

    public void addRoleListener(RoleListener listener) {
        roleListeners.add(listener);
    }

    public int localId() {
        return localId;
    }

    public DelayedOperationPurgatory producePurgatory() {
        return producePurgatory;
    }

    /** Opens (recovering) the logs of every known topic. */
    public synchronized void startup() {
        deleteDirectoriesMovedAside();
        reconcile();
        metadata.addChangeListener(this::scheduleReconcile);
        LOGGER.info(
                "opened {} partitions of {} topics in {}",
                partitions.size(),
                metadata.topics().size(),
                logDir);
    }

    /** Called by the metadata source on every change: only enqueues a reconciliation pass (coalesced). */
    private void scheduleReconcile() {
        if (closed || !reconcilePending.compareAndSet(false, true)) {
            return;
        }
        try {
            stateThread.execute(() -> {
                reconcilePending.set(false);
                try {
                    reconcile();
                } catch (RuntimeException e) {
                    LOGGER.error("[broker {}] reconciling replicas with the metadata failed", localId, e);
                    if (!closed) {
                        faults.handleFault("replica reconciliation of broker " + localId, e);
                    }
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            reconcilePending.set(false); // shutting down
        }
    }

    /**
     * Brings the local replicas in line with the metadata: opens logs of partitions this node is a replica of,
     * applies their committed states, and deletes the logs of partitions that are gone.
     */
    public synchronized void reconcile() {
        if (closed) {
            return;
        }
        long nowMs = time.milliseconds();
        Set<TopicPartition> live = new HashSet<>();
        for (TopicMetadata topic : metadata.topics()) {
            ReplicationConfig replicationConfig = replicationConfigFor(topic);
            LogConfig logConfig = null;
            MirrorTruncation truncation = TopicConfigs.isMirror(topic.configs())
                    ? MirrorTruncation.from(topic.configs()).orElse(null)
                    : null;
            for (int i = 0; i < topic.partitions(); i++) {
                TopicPartition tp = new TopicPartition(topic.name(), i);
                Optional<PartitionState> state = metadata.partitionState(topic.topicId(), i);
                if (state.isEmpty() || !state.get().replicas().contains(localId)) {
                    continue;
                }
                Partition partition = partitions.get(tp);
                if (partition != null && !partition.topicId().equals(topic.topicId())) {
                    removePartition(tp); // the topic was deleted and created again under the same name
                    partition = null;
                }
                if (partition == null) {
                    if (logConfig == null) {
                        logConfig = logConfigFor(topic);
                    }
                    PartitionLog log = openLog(topic, i, logConfig);
                    partition = new Partition(tp, topic.topicId(), log, localId, replicationConfig);
                    partition.loadProducerState();
                    if (TopicConfigs.isMirror(topic.configs()) || partition.markedTransactional()) {
                        // Copied from another cluster, or written by transactional producers, the log may hold
                        // transactions: find the open and aborted ones.
                        partition.loadTransactions();
                    }
                    partitions.put(tp, partition);
                }
                live.add(tp);
                applyState(partition, state.get(), nowMs, truncation);
            }
        }
        for (TopicPartition tp : List.copyOf(partitions.keySet())) {
            if (!live.contains(tp)) {
                removePartition(tp);
            }
        }
    }

    /**
     * Deletes {@code <dir>.<old id>-delete} directories a crash left behind between moving a deleted topic's data
     * aside and deleting it. No partition directory ends so: those end with the partition number.
     */
    private void deleteDirectoriesMovedAside() {
        if (!Files.isDirectory(logDir)) {
            return;
        }
        try (Stream<Path> entries = Files.list(logDir)) {
            for (Path dir : entries.filter(p -> p.getFileName().toString().endsWith(DELETE_SUFFIX))
                    .toList()) {
                LOGGER.info("[broker {}] deleting {}, moved aside before a restart", localId, dir.getFileName());
                deleteRecursively(dir);
            }
        } catch (IOException | UncheckedIOException e) {
            LOGGER.warn(
                    "[broker {}] cannot delete the directories moved aside in {}: {}", localId, logDir, e.toString());
        }
    }

    /**
     * Opens the log of partition {@code index} of {@code topic}, recording the topic id in a new directory. A
     * directory of that name whose {@code partition.metadata} names another topic id holds a deleted topic's data
     * (deleted and created again while this node was down, or a crash interrupted the deletion): it is moved aside
     * as {@code <dir>.<old id>-delete}, as Kafka does, and deleted, never served under the new topic (issue 22,
     * defect 5; KIP-516). A directory without the file predates topic ids here and is taken as it is.
     *
     * @throws LogStorageException if the directory cannot be read, moved aside or opened
     */
    private PartitionLog openLog(TopicMetadata topic, int index, LogConfig config) {
        Path dir = logDir.resolve(topic.name() + "-" + index);
        Optional<String> recorded;
        try {
            recorded = Files.isDirectory(dir) ? PartitionMetadataFile.read(dir) : Optional.empty();
            if (recorded.isPresent() && !recorded.get().equals(topic.topicId().toString())) {
                Path aside = logDir.resolve(dir.getFileName() + "." + recorded.get() + DELETE_SUFFIX);
                LOGGER.warn(
                        "[broker {}] {} holds data of topic id {}, but topic {} now has id {}: the topic was deleted "
                                + "and created again while this node was away; moving the old data to {} and "
                                + "deleting it",
                        localId,
                        dir,
                        recorded.get(),
                        topic.name(),
                        topic.topicId(),
                        aside.getFileName());
                deleteRecursively(aside);
                Files.move(dir, aside, StandardCopyOption.ATOMIC_MOVE);
                PartitionMetadataFile.fsyncDirectory(logDir);
                deleteRecursively(aside);
                recorded = Optional.empty();
            }
        } catch (IOException e) {
            throw new LogStorageException("[broker " + localId + "] cannot check the topic id of " + dir, e);
        } catch (UncheckedIOException e) {
            throw new LogStorageException("[broker " + localId + "] cannot check the topic id of " + dir, e.getCause());
        }
        PartitionLog log = PartitionLog.open(dir, config, time);
        if (recorded.isEmpty()) {
            try {
                PartitionMetadataFile.write(dir, topic.topicId().toString());
                PartitionMetadataFile.fsyncDirectory(logDir);
            } catch (IOException e) {
                log.close();
                throw new LogStorageException("[broker " + localId + "] cannot record the topic id in " + dir, e);
            }
        }
        return log;
    }

    /**
     * Applies a committed partition state; when a failback (where the copies part) or a promote (at the last stable
     * offsets) asked this mirror topic's replicas to cut their logs ({@code truncation}), the cut comes first, under the same lock, so that
     * nothing is copied into the old leader epoch after it.
     */
    private void applyState(
            Partition partition, PartitionState state, long nowMs, @Nullable MirrorTruncation truncation) {
        Optional<Long> cutAt = truncation == null
                ? Optional.empty()
                : truncation.offsetOf(partition.topicPartition().partition());
        Partition.RoleChange change;
        if (cutAt.isEmpty()) {
            change = partition.applyAssignment(state, nowMs);
        } else {
            // A cut offset comes only from a truncation.
            String cutId =
                    Objects.requireNonNull(truncation, "the cut's truncation").id();
            Partition.CutAndChange done = partition.applyAssignmentAfterCut(state, nowMs, cutId, cutAt.get());
            done.cut()
                    .ifPresent(cut -> LOGGER.warn(
                            "[broker {}] mirror topic cut {}: cut {} to offset {}; its offsets {} to {} are saved in {}",
                            localId,
                            truncation.id(),
                            partition.topicPartition(),
                            cutAt.get(),
                            cut.fromOffset(),
                            cut.toOffset() - 1,
                            cut.savedTo()));
            change = done.change();
        }
        switch (change) {
            case BECAME_LEADER:
                LOGGER.info(
                        "[broker {}] leads {} in epoch {} (ISR {})",
                        localId,
                        partition.topicPartition(),
                        state.leaderEpoch(),
                        state.isr());
                for (RoleListener listener : roleListeners) {
                    listener.onBecomeLeader(partition, state.leaderEpoch());
                }
                break;
            case BECAME_FOLLOWER:
                LOGGER.info(
                        "[broker {}] follows {} led by {} in epoch {}",
                        localId,
                        partition.topicPartition(),
                        state.leader(),
                        state.leaderEpoch());
                for (RoleListener listener : roleListeners) {
                    listener.onBecomeFollower(partition, state.leader(), state.leaderEpoch());
                }
                break;
            default:
                break;
        }
        if (change == Partition.RoleChange.BECAME_LEADER && partition.flushOnAck()) {
            flusher.request(partition); // what it appended as follower may not be flushed yet
        }
        if (change != Partition.RoleChange.NONE) {
            // The ISR or the role changed: waiting produces and fetches may be done (or must fail) now.
            onHighWatermarkMaybeMoved(partition.topicPartition());
        }
    }

    private void removePartition(TopicPartition tp) {
        Partition partition = partitions.remove(tp);
        if (partition == null) {
            return;
        }
        for (RoleListener listener : roleListeners) {
            listener.onRemoved(tp);
        }
        partition.close();
        deleteRecursively(partition.dir());
        // fetches waiting on the partition can now answer UNKNOWN_TOPIC instead of waiting out max.wait.ms
        onHighWatermarkMaybeMoved(tp);
        LOGGER.info("[broker {}] deleted the replica of {}", localId, tp);
    }

    /** Completes delayed produces and fetches of a partition that may be satisfied now. */
    public void onHighWatermarkMaybeMoved(TopicPartition tp) {
        producePurgatory.checkAndComplete(tp);
        fetchPurgatory.checkAndComplete(tp);
    }

    /**
     * A follower fetched {@code tp} from {@code fetchOffset} in {@code requestEpoch} (-1: any): updates its
     * progress, completes what the high watermark now allows and sends an ISR expansion to the controller if one is
     * due. The epoch check and the update are one step of the partition.
     *
     * @throws PartitionRoleException if this node cannot serve the follower in that epoch
     */
    public void onFollowerFetch(TopicPartition tp, int followerId, int requestEpoch, long fetchOffset) {
        onFollowerFetch(tp, followerId, requestEpoch, -1, fetchOffset);
    }

    /** As above, from a follower that fetched with broker epoch {@code brokerEpoch} (-1: unknown; KIP-903). */
    public void onFollowerFetch(
            TopicPartition tp, int followerId, int requestEpoch, long brokerEpoch, long fetchOffset) {
        Partition partition = partition(tp).orElseThrow(() -> new UnknownTopicException("unknown partition " + tp));
        Partition.FollowerFetch result =
                partition.onFollowerFetch(followerId, requestEpoch, brokerEpoch, fetchOffset, time.milliseconds());
        if (result.highWatermarkMoved()) {
            onHighWatermarkMaybeMoved(tp);
        }
        result.isrChange().ifPresent(change -> submitIsrChange(partition, change));
    }

    /** Periodically: proposes removing ISR members that fell behind for longer than replica.lag.time.max.ms. */
    public void maybeShrinkIsr() {
        long nowMs = time.milliseconds();
        for (Partition partition : partitions.values()) {
            partition.maybeShrinkIsr(nowMs).ifPresent(change -> submitIsrChange(partition, change));
        }
    }

    private void submitIsrChange(Partition partition, IsrChange change) {
        TopicPartition tp = partition.topicPartition();
        LOGGER.info(
                "[broker {}] proposes ISR {} for {} (leader epoch {}, partition epoch {})",
                localId,
                change.newIsr(),
                tp,
                change.leaderEpoch(),
                change.partitionEpoch());
        int isrBefore = metadata.partitionState(partition.topicId(), tp.partition())
                .map(state -> state.isr().size())
                .orElse(-1);
        metadata.alterPartition(
                        partition.topicId(),
                        tp.partition(),
                        change.leaderEpoch(),
                        change.partitionEpoch(),
                        List.copyOf(new TreeSet<>(change.newIsr())),
                        change.brokerEpochs())
                .whenComplete((state, error) -> {
                    if (error != null) {
                        onIsrChangeFailed(partition, change, unwrap(error));
                    } else {
                        countIsrChange(
                                isrBefore,
                                state != null
                                        ? state.isr().size()
                                        : change.newIsr().size());
                    }
                    scheduleReconcile();
                });
    }

    private void countIsrChange(int before, int after) {
        if (before >= 0 && after < before) {
            isrShrinks.increment();
        } else if (before >= 0 && after > before) {
            isrExpands.increment();
        }
    }

    /** ISR shrinks this node proposed as a leader and the controller committed, since it started. */
    public long isrShrinks() {
        return isrShrinks.sum();
    }

    /** ISR expansions this node proposed as a leader and the controller committed, since it started. */
    public long isrExpands() {
        return isrExpands.sum();
    }

    /**
     * An AlterPartition did not come back with the committed state. Only an answer saying the controller did not
     * apply it drops the pending change; otherwise it may have been committed (its answer lost in a timeout or a
     * controller failover, and a retry then refused as stale), so it stays pending and keeps counting in the
     * maximal ISR until the metadata shows what the controller decided (issue 11, defect 4; Kafka's rule).
     */
    private void onIsrChangeFailed(Partition partition, IsrChange change, Throwable error) {
        TopicPartition tp = partition.topicPartition();
        if (error instanceof IllegalArgumentException || error instanceof UnknownTopicException) {
            // Checked against the current epochs and refused, or the topic is gone: not applied.
            LOGGER.info(
                    "[broker {}] ISR change {} for {} not applied: {}", localId, change.newIsr(), tp, error.toString());
            partition.onIsrChangeRejected(change);
        } else if (error instanceof StaleEpochException) {
            // Newer metadata exists (perhaps this very change, committed); it is on its way to this node.
            LOGGER.info(
                    "[broker {}] ISR change {} for {} is stale; it stays pending until the metadata catches up: {}",
                    localId,
                    change.newIsr(),
                    tp,
                    error.toString());
        } else {
            LOGGER.info(
                    "[broker {}] no answer to ISR change {} for {} ({}); asking again",
                    localId,
                    change.newIsr(),
                    tp,
                    error.toString());
            try {
                scheduler.schedule(
                        () -> retryIsrChange(partition, change), ISR_CHANGE_RETRY_BACKOFF_MS, TimeUnit.MILLISECONDS);
            } catch (java.util.concurrent.RejectedExecutionException e) {
                // shutting down
            }
        }
    }

    private void retryIsrChange(Partition partition, IsrChange change) {
        if (!closed && partitions.get(partition.topicPartition()) == partition && partition.isPending(change)) {
            submitIsrChange(partition, change);
        }
    }

    private static Throwable unwrap(Throwable error) {
        Throwable cause = error;
        while ((cause instanceof java.util.concurrent.CompletionException
                        || cause instanceof java.util.concurrent.ExecutionException)
                && cause.getCause() != null) {
            cause = cause.getCause();
        }
        return cause;
    }

    /** Replication settings of a topic: replica.lag.time.max.ms and its effective min.insync.replicas. */
    public ReplicationConfig replicationConfigFor(TopicMetadata topic) {
        int minInsync = Integer.parseInt(Objects.requireNonNull(
                        effectiveConfigs(topic).get(TopicConfigs.MIN_INSYNC_REPLICAS),
                        "min.insync.replicas has a broker default")
                .trim());
        return new ReplicationConfig(replicaLagTimeMaxMs, minInsync, TruncationRule.LEADER_EPOCH);
    }

    /** The clock this node's logs and replicas run on. */
    /** The directory that holds every local replica's log (this node's {@code log.dirs}). */
    public Path logDir() {
        return logDir;
    }

    public Time time() {
        return time;
    }

    public MetadataSource metadata() {
        return metadata;
    }

    public DelayedOperationPurgatory fetchPurgatory() {
        return fetchPurgatory;
    }

    public Collection<TopicMetadata> topics() {
        return metadata.topics();
    }

    public Optional<TopicMetadata> topic(String name) {
        return metadata.topic(name);
    }

    public Optional<TopicMetadata> topic(Uuid topicId) {
        return metadata.topic(topicId);
    }

    /** The partitions open now; a snapshot. */
    public List<Partition> partitions() {
        return List.copyOf(partitions.values());
    }

    public Optional<Partition> partition(TopicPartition topicPartition) {
        return Optional.ofNullable(partitions.get(topicPartition));
    }

    /** Effective config of a topic: every supported key. */
    public Map<String, String> effectiveConfigs(TopicMetadata topic) {
        return TopicConfigs.effective(brokerTopicDefaults, topic.configs());
    }

    public Map<String, String> brokerTopicDefaults() {
        return brokerTopicDefaults;
    }

    /**
     * Appends to a partition as leader and completes delayed fetches waiting on it.
     *
     * @throws ProducerStateException for a producer sequence/epoch error
     * @throws UnknownTopicException  if this node has no such partition
     */
    public AppendResult appendRecords(
            TopicPartition topicPartition, ByteBuffer batches, List<ProducerBatch> producerBatches) {
        return appendRecords(topicPartition, batches, producerBatches, false).result();
    }

    /**
     * Appends to a partition as leader (acks=all checks min.insync.replicas first) and completes delayed fetches
     * (of followers and, if the high watermark moved, consumers) and produces waiting on it.
     *
     * @throws PartitionRoleException if this node does not lead the partition, or acks=all lacks in-sync replicas
     */
    public Partition.LeaderAppend appendRecords(
            TopicPartition topicPartition, ByteBuffer batches, List<ProducerBatch> producerBatches, boolean acksAll) {
        Partition partition = partition(topicPartition)
                .orElseThrow(() -> new UnknownTopicException("unknown partition " + topicPartition));
        Partition.LeaderAppend result = partition.appendAsLeader(batches, producerBatches, acksAll);
        if (partition.flushOnAck()) {
            flusher.request(partition);
        }
        onHighWatermarkMaybeMoved(topicPartition);
        return result;
    }

    /**
     * Appends a transaction marker as the partition's leader (see {@link Partition#appendMarker}) and completes
     * delayed fetches and produces waiting on it.
     *
     * @throws UnknownTopicException if this node has no replica of the partition
     * @throws PartitionRoleException if this node does not lead it
     */
    public Partition.MarkerAppend appendMarker(
            TopicPartition topicPartition, long producerId, short producerEpoch, boolean commit, int coordinatorEpoch) {
        Partition partition = partition(topicPartition)
                .orElseThrow(() -> new UnknownTopicException("unknown partition " + topicPartition));
        Partition.MarkerAppend result =
                partition.appendMarker(producerId, producerEpoch, commit, coordinatorEpoch, time.milliseconds());
        if (partition.flushOnAck()) {
            flusher.request(partition);
        }
        onHighWatermarkMaybeMoved(topicPartition);
        return result;
    }

    /**
     * Appends a mirror topic's copied batches as the partition's leader in {@code leaderEpoch} (see
     * {@link Partition#appendMirrored}) and completes delayed fetches waiting on it.
     *
     * @return the partition's log end offset after the append
     */
    public long appendMirrored(
            TopicPartition topicPartition, int leaderEpoch, long requiredBaseOffset, ByteBuffer records) {
        Partition partition = partition(topicPartition)
                .orElseThrow(() -> new UnknownTopicException("unknown partition " + topicPartition));
        long logEnd = partition.appendMirrored(leaderEpoch, requiredBaseOffset, records);
        if (partition.flushOnAck()) {
            flusher.request(partition);
        }
        onHighWatermarkMaybeMoved(topicPartition);
        return logEnd;
    }

    /**
     * Creates a topic (or only validates the request).
     *
     * @throws IllegalArgumentException for a bad name, partition count or config
     * @throws TopicExistsException     if it exists
     */
    public synchronized TopicMetadata createTopic(
            String name, int partitionCount, Map<String, String> configs, boolean validateOnly) {
        return createTopic(name, partitionCount, -1, configs, validateOnly);
    }

    /**
     * Creates a topic with {@code replicationFactor} replicas per partition (-1: the cluster default).
     *
     * @throws dev.strait.broker.metadata.InvalidReplicationFactorException if there are too few brokers
     */
    public synchronized TopicMetadata createTopic(
            String name, int partitionCount, int replicationFactor, Map<String, String> configs, boolean validateOnly) {
        validateTopicName(name);
        if (partitionCount < 1) {
            throw new IllegalArgumentException("number of partitions must be >= 1, got " + partitionCount);
        }
        TopicConfigs.validate(configs);
        if (validateOnly) {
            requireAbsentHere(name);
            int brokers = metadata.brokers().size();
            if (replicationFactor > Math.max(1, brokers)) {
                throw new dev.strait.broker.metadata.InvalidReplicationFactorException("Replication factor: "
                        + replicationFactor + " larger than available brokers: " + brokers + ".");
            }
            return new TopicMetadata(name, Uuid.ZERO_UUID, partitionCount, configs);
        }
        TopicMetadata topic = metadata.createTopic(name, partitionCount, replicationFactor, configs);
        reconcile();
        LOGGER.info(
                "created topic {} ({}) with {} partitions and configs {}",
                name,
                topic.topicId(),
                partitionCount,
                configs);
        return topic;
    }

    /**
     * Creates a topic whose partition {@code i} has the replicas {@code assignments.get(i)}, the first in the ISR
     * leading (Kafka's CreateTopics with assignments).
     *
     * @throws dev.strait.broker.metadata.InvalidReplicaAssignmentException for a bad assignment
     */
    public synchronized TopicMetadata createTopic(
            String name, List<List<Integer>> assignments, Map<String, String> configs, boolean validateOnly) {
        validateTopicName(name);
        TopicConfigs.validate(configs);
        if (validateOnly) {
            requireAbsentHere(name);
            ReplicaAssignments.check(assignments, registeredBrokers()::contains);
            return new TopicMetadata(name, Uuid.ZERO_UUID, assignments.size(), configs);
        }
        TopicMetadata topic = metadata.createTopic(name, assignments, configs);
        reconcile();
        LOGGER.info(
                "created topic {} ({}) with replicas {} and configs {}", name, topic.topicId(), assignments, configs);
        return topic;
    }

    /** The brokers a manual assignment may name: the registered ones, or this node alone when it is single. */
    private Set<Integer> registeredBrokers() {
        Set<Integer> registered = new HashSet<>();
        metadata.brokers().forEach(b -> registered.add(b.id()));
        if (registered.isEmpty()) {
            registered.add(localId); // a single node registers with no one
        }
        return registered;
    }

    /**
     * Deletes a topic and its logs.
     *
     * @throws UnknownTopicException if there is no such topic
     */
    public synchronized TopicMetadata deleteTopic(String name) {
        TopicMetadata topic = metadata.deleteTopic(name);
        reconcile();
        logConfigs.remove(topic.topicId());
        LOGGER.info("deleted topic {} ({})", name, topic.topicId());
        return topic;
    }

    /**
     * Changes a topic's config overrides from {@code base}, the overrides the caller read, to {@code overrides} (or
     * only validates them), and applies the result to its logs. Only the keys that differ between the two change,
     * applied where the overrides are decided ({@link dev.strait.broker.metadata.MetadataSource#patchConfigs}), so a
     * change another node made meanwhile to other keys (a failback's pause, a promote) is never undone.
     *
     * @throws UnknownTopicException    if there is no such topic
     * @throws IllegalArgumentException for a bad config
     */
    public synchronized TopicMetadata changeTopicConfigs(
            String name, Map<String, String> base, Map<String, String> overrides, boolean validateOnly) {
        TopicMetadata topic =
                metadata.topic(name).orElseThrow(() -> new UnknownTopicException("unknown topic '" + name + "'"));
        TopicConfigs.validate(overrides);
        if (validateOnly) {
            return topic.withConfigs(overrides);
        }
        TopicMetadata updated = metadata.patchConfigs(name, base, overrides);
        LogConfig logConfig = logConfigFor(updated);
        ReplicationConfig replicationConfig = replicationConfigFor(updated);
        for (int i = 0; i < updated.partitions(); i++) {
            partition(new TopicPartition(name, i)).ifPresent(p -> {
                p.updateConfig(logConfig);
                p.updateReplicationConfig(replicationConfig);
                if (logConfig.flushOnAck()) {
                    flusher.request(p);
                }
            });
        }
        return updated;
    }

    /**
     * Raises a topic's partition count (or only validates the request) and opens the new partitions' logs, which
     * start empty at offset 0 with the topic's config, like the existing ones did.
     *
     * @throws UnknownTopicException    if there is no such topic
     * @throws IllegalArgumentException if {@code newCount} is not above the current count
     */
    public synchronized TopicMetadata createPartitions(String name, int newCount, boolean validateOnly) {
        return createPartitions(name, newCount, List.of(), validateOnly);
    }

    /**
     * As {@link #createPartitions(String, int, boolean)}, added partition {@code i} on the replicas
     * {@code assignments.get(i)} when there are assignments (Kafka's CreatePartitions with assignments).
     *
     * @throws dev.strait.broker.metadata.InvalidReplicaAssignmentException for a bad assignment
     */
    public synchronized TopicMetadata createPartitions(
            String name, int newCount, List<List<Integer>> assignments, boolean validateOnly) {
        TopicMetadata topic =
                metadata.topic(name).orElseThrow(() -> new UnknownTopicException("unknown topic '" + name + "'"));
        if (newCount <= topic.partitions()) {
            throw new IllegalArgumentException("Topic currently has " + topic.partitions()
                    + " partitions, which is higher than the requested " + newCount + ".");
        }
        if (validateOnly) {
            if (!assignments.isEmpty()) {
                ReplicaAssignments.checkCount(assignments, newCount - topic.partitions());
                int factor = metadata.partitionState(topic.topicId(), 0)
                        .map(p -> p.replicas().size() - p.removingReplicas().size())
                        .orElse(1);
                ReplicaAssignments.check(assignments, factor, registeredBrokers()::contains);
            }
            return topic.withPartitions(newCount);
        }
        // Metadata first: if opening a log fails, the restart opens it from the metadata instead of forgetting it.
        if (assignments.isEmpty()) {
            metadata.increasePartitions(name, newCount);
        } else {
            metadata.increasePartitions(name, newCount, assignments);
        }
        reconcile();
        TopicMetadata updated = metadata.topic(name).orElseThrow();
        LOGGER.info("topic {} now has {} partitions (was {})", name, newCount, topic.partitions());
        return updated;
    }

    /**
     * DeleteRecords: moves a partition's log start offset up to {@code offset} (-1: the high watermark), durably,
     * and deletes the segments wholly below it. Fetches waiting on the partition are re-checked, since reads below
     * the new start now fail.
     *
     * @return the new log start offset (the low watermark)
     * @throws UnknownTopicException         if this node has no such partition
     * @throws OffsetOutOfRangeException     if {@code offset} is negative (other than -1) or above the high watermark
     * @throws DeleteRecordsRefusedException if the topic's cleanup.policy does not include delete
     */
    public long deleteRecords(TopicPartition topicPartition, long offset) {
        Partition partition = partition(topicPartition)
                .orElseThrow(() -> new UnknownTopicException("unknown partition " + topicPartition));
        TopicMetadata topic = metadata.topic(topicPartition.topic())
                .orElseThrow(() -> new UnknownTopicException("unknown partition " + topicPartition));
        if (!logConfigFor(topic).cleanupPolicy().delete()) {
            throw new DeleteRecordsRefusedException(
                    "Records of partition " + topicPartition + " can not be deleted due to the configured policy");
        }
        long lowWatermark = partition.deleteRecordsBefore(offset);
        fetchPurgatory.checkAndComplete(topicPartition);
        return lowWatermark;
    }

    /** Applies retention to every partition; called periodically. */
    public void deleteSegmentsForRetention() {
        for (Partition partition : partitions.values()) {
            try {
                partition.deleteSegmentsForRetention();
            } catch (RuntimeException e) {
                LOGGER.warn("retention failed for {}: {}", partition.topicPartition(), e.toString());
            }
        }
    }

    /**
     * The log config in effect for a topic: built-in defaults, broker defaults, topic overrides. Asked on every
     * produce, so parsed once per topic and set of overrides (the broker defaults do not change while it runs).
     */
    public LogConfig logConfigFor(TopicMetadata topic) {
        ParsedLogConfig cached = logConfigs.get(topic.topicId());
        if (cached != null && cached.overrides().equals(topic.configs())) {
            return cached.config();
        }
        LogConfig config = TopicConfigs.toLogConfig(effectiveConfigs(topic));
        logConfigs.put(topic.topicId(), new ParsedLogConfig(topic.configs(), config));
        return config;
    }

    /** A topic's log config and the overrides it was parsed from. */
    private record ParsedLogConfig(Map<String, String> overrides, LogConfig config) {}

    /**
     * A validate-only create's check against this node's view. A real create leaves the check to the metadata source
     * (the active controller of a quorum): this node's view may not have applied a delete yet that the controller
     * committed, and refusing on it told a client that had just deleted the topic that it "already exists".
     */
    private void requireAbsentHere(String name) {
        if (metadata.topic(name).isPresent()) {
            throw new TopicExistsException(name);
        }
    }

    private static void validateTopicName(String name) {
        if (name == null || name.isEmpty() || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("topic name '" + name + "' is illegal");
        }
        if (name.length() > MAX_TOPIC_NAME_LENGTH) {
            throw new IllegalArgumentException("topic name is longer than " + MAX_TOPIC_NAME_LENGTH + " characters");
        }
        if (!LEGAL_TOPIC.matcher(name).matches()) {
            throw new IllegalArgumentException(
                    "topic name '" + name + "' may only contain ASCII letters, digits, '.', '_' and '-'");
        }
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            List<Path> all =
                    new ArrayList<>(paths.sorted(Comparator.reverseOrder()).toList());
            for (Path path : all) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        stateThread.shutdownNow();
        flusher.close();
        for (Partition partition : partitions.values()) {
            try {
                partition.close();
            } catch (RuntimeException e) {
                LOGGER.warn("closing {} failed: {}", partition.topicPartition(), e.toString());
            }
        }
        partitions.clear();
    }
}
