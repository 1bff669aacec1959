package dev.strait.broker.partition;

import dev.strait.broker.log.AppendResult;
import dev.strait.broker.log.CompactionTask;
import dev.strait.broker.log.DivergedSuffix;
import dev.strait.broker.log.EpochEndOffset;
import dev.strait.broker.log.LogConfig;
import dev.strait.broker.log.LogReadResult;
import dev.strait.broker.log.LogStorageException;
import dev.strait.broker.log.OffsetOutOfRangeException;
import dev.strait.broker.log.PartitionLog;
import dev.strait.broker.log.PendingFlush;
import dev.strait.broker.log.RecordBatchHeader;
import dev.strait.broker.log.RecordBatches;
import dev.strait.broker.log.TimestampAndOffset;
import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.replication.EpochCheck;
import dev.strait.broker.replication.IsrChange;
import dev.strait.broker.replication.PartitionAssignment;
import dev.strait.broker.replication.PartitionReplica;
import dev.strait.broker.replication.ProduceCheck;
import dev.strait.broker.replication.ReplicaLog;
import dev.strait.broker.replication.ReplicationConfig;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.jspecify.annotations.Nullable;

/**
 * One replica of a partition on this node, owning its {@link PartitionLog} and its replication state machine
 * ({@link PartitionReplica}, driven through a {@link ReplicaLog} adapter over the log). All log and replica access
 * goes through this object's lock (neither is thread-safe); returned slices are transferred outside it.
 *
 * <p>As leader it appends produced batches in its leader epoch, learns follower progress from their fetch
 * offsets and moves the high watermark to the smallest log end offset in the ISR. As follower it truncates where
 * the leader says its epoch ended, then appends fetched batches as they are. The idempotent producer state follows
 * the log: follower appends update it and a truncation rebuilds it from the remaining batches, so a new leader
 * recognises a retried batch its predecessor had already written. It is saved in {@link ProducerStateSnapshots} at
 * every segment roll and at close, and rebuilt from the latest one when the replica opens.
 */
public final class Partition {

    /** The leader epoch of every partition on a single node. */
    public static final int SINGLE_NODE_LEADER_EPOCH = 0;

    /** What applying a committed assignment did to this replica's role. */
    public enum RoleChange {
        NONE,
        UPDATED,
        BECAME_LEADER,
        BECAME_FOLLOWER
    }

    /** Result of a follower's fetch at the leader: whether the high watermark moved, and an ISR change to send. */
    public record FollowerFetch(boolean highWatermarkMoved, Optional<IsrChange> isrChange) {}

    /**
     * A leader append: the log result and the epoch whose leader answers it (acks=all completes in that epoch only).
     * A duplicate appended nothing; its result holds the offsets the original batch has in the log.
     */
    public record LeaderAppend(AppendResult result, int leaderEpoch, boolean duplicate) {}

    private final TopicPartition topicPartition;
    private final Uuid topicId;
    private final PartitionLog log;
    private final PartitionReplica replica;
    private ProducerStateTable producerState = new ProducerStateTable();
    private final TransactionState transactions = new TransactionState();
    /** Whether the log may hold transactions (a mirror topic's copy), so a restart or truncation reads them again. */
    private boolean tracksTransactions;
    /** The failback cut last applied here, once known (saves reading its file on every metadata change). */
    private @Nullable String appliedCutId;

    private final ProducerStateSnapshots producerSnapshots;

    Partition(TopicPartition topicPartition, Uuid topicId, PartitionLog log, int localId, ReplicationConfig config) {
        this.topicPartition = topicPartition;
        this.topicId = topicId;
        this.log = log;
        this.producerSnapshots = new ProducerStateSnapshots(log.dir(), "[" + topicPartition + "] ");
        this.replica = new PartitionReplica(localId, new LogAdapter(), config);
    }

    public TopicPartition topicPartition() {
        return topicPartition;
    }

    public Uuid topicId() {
        return topicId;
    }

    public synchronized int leaderEpoch() {
        return replica.leaderEpoch();
    }

    public synchronized boolean isLeader() {
        return replica.state() == PartitionReplica.State.LEADER;
    }

    /** The leader of the applied assignment, -1 if none. */
    public synchronized int leaderId() {
        return replica.assignment().map(PartitionAssignment::leader).orElse(PartitionState.NO_LEADER);
    }

    public synchronized PartitionReplica.State replicaState() {
        return replica.state();
    }

    /** The ISR acks=all and the high watermark use now (committed ISR plus a pending expansion). */
    public synchronized java.util.Set<Integer> maximalIsr() {
        return replica.maximalIsr();
    }

    /** Applies a committed partition state from the metadata; stale states are ignored. */
    synchronized RoleChange applyAssignment(PartitionState state, long nowMs) {
        boolean wasLeader = replica.state() == PartitionReplica.State.LEADER;
        int oldEpoch = replica.leaderEpoch();
        PartitionAssignment assignment = new PartitionAssignment(
                state.leader(),
                state.leaderEpoch(),
                state.replicas(),
                new TreeSet<>(state.isr()),
                state.partitionEpoch());
        if (!replica.applyAssignment(assignment, nowMs)) {
            return RoleChange.NONE;
        }
        boolean leader = replica.state() == PartitionReplica.State.LEADER;
        if (leader && (!wasLeader || oldEpoch != state.leaderEpoch())) {
            return RoleChange.BECAME_LEADER;
        }
        if (!leader && (wasLeader || oldEpoch != state.leaderEpoch())) {
            return RoleChange.BECAME_FOLLOWER;
        }
        return RoleChange.UPDATED;
    }

    /** Whether the failback cut {@code cutId} was applied to this replica (a mirror waits for it before copying). */
    public synchronized boolean cutApplied(String cutId) {
        if (cutId.equals(appliedCutId)) {
            return true;
        }
        try {
            if (DivergedSuffix.appliedId(log.dir()).filter(cutId::equals).isPresent()) {
                appliedCutId = cutId;
                return true;
            }
            return false;
        } catch (IOException e) {
            throw new LogStorageException("[" + topicPartition + "] cannot read which failback cut was applied", e);
        }
    }

    /** What {@link #applyAssignmentAfterCut} did: the cut, if it cut anything, and the role change. */
    public record CutAndChange(Optional<DivergedSuffix.Cut> cut, RoleChange change) {}

    /**
     * A failback's cut ({@link #cutForFailback}) and then the committed state that starts the new leader epoch, under
     * one lock: no mirrored append lands in the old epoch between the two.
     */
    synchronized CutAndChange applyAssignmentAfterCut(PartitionState state, long nowMs, String cutId, long offset) {
        Optional<DivergedSuffix.Cut> cut = cutForFailback(cutId, offset);
        return new CutAndChange(cut, applyAssignment(state, nowMs));
    }

    synchronized void updateReplicationConfig(ReplicationConfig config) {
        replica.updateConfig(config);
    }

    /** Epoch fencing of a request that must reach the leader in {@code requestEpoch} (-1: any). */
    public synchronized void checkLeader(int requestEpoch) {
        EpochCheck check = replica.checkEpoch(requestEpoch);
        switch (check) {
            case OK:
                return;
            case NOT_LEADER:
                throw new PartitionRoleException(
                        PartitionRoleException.Reason.NOT_LEADER,
                        "node " + replica.localId() + " does not lead " + topicPartition);
            case FENCED:
                throw new PartitionRoleException(
                        PartitionRoleException.Reason.FENCED_EPOCH,
                        "epoch " + requestEpoch + " of " + topicPartition + " is older than " + replica.leaderEpoch());
            default:
                throw new PartitionRoleException(
                        PartitionRoleException.Reason.UNKNOWN_EPOCH,
                        "epoch " + requestEpoch + " of " + topicPartition + " is newer than " + replica.leaderEpoch());
        }
    }

    /**
     * Appends as leader in the current leader epoch; with no other ISR member the high watermark moves at once.
     *
     * @param producerBatches the idempotence fields of each batch in {@code batches}, in order
     * @param acksAll         whether the producer waits for the ISR (min.insync.replicas is checked first)
     * <p>A retried idempotent batch that is already in the log is not appended again: the result is the original
     * batch's offsets, and the caller answers it exactly like a fresh append (acks=all waits until the high
     * watermark passes those offsets in this epoch). Answering it at once would acknowledge a record that may be on
     * this replica only, which the next leader does not have (issue 11, defect 1).
     *
     * @throws PartitionRoleException for NOT_LEADER or NOT_ENOUGH_REPLICAS (nothing appended)
     * @throws ProducerStateException for a producer sequence or epoch error (nothing appended)
     */
    public synchronized LeaderAppend appendAsLeader(
            ByteBuffer batches, List<ProducerBatch> producerBatches, boolean acksAll) {
        ProduceCheck check = replica.checkAppend(acksAll);
        if (check == ProduceCheck.NOT_LEADER) {
            throw new PartitionRoleException(
                    PartitionRoleException.Reason.NOT_LEADER,
                    "node " + replica.localId() + " does not lead " + topicPartition);
        }
        if (check == ProduceCheck.NOT_ENOUGH_REPLICAS) {
            throw new PartitionRoleException(
                    PartitionRoleException.Reason.NOT_ENOUGH_REPLICAS,
                    "the ISR of "
                            + topicPartition + " "
                            + replica.assignment().map(PartitionAssignment::isr).orElse(java.util.Set.of())
                            + " is below min.insync.replicas");
        }
        Optional<ProducerStateTable.Duplicate> duplicate = producerState.check(producerBatches);
        int epoch = replica.leaderEpoch();
        if (duplicate.isPresent()) {
            return new LeaderAppend(
                    new AppendResult(
                            duplicate.get().firstOffset(),
                            duplicate.get().lastOffset(),
                            -1,
                            -1,
                            0,
                            0,
                            log.logStartOffset()),
                    epoch,
                    true);
        }
        int start = batches.position();
        boolean transactional = hasTransactionalBatch(batches);
        if (transactional) {
            markTransactional();
        }
        int segmentsBefore = log.segmentCount();
        AppendResult result = log.append(batches, epoch);
        producerState.update(producerBatches, result.firstOffset());
        if (transactional) {
            // The offsets are assigned in place: the headers now carry the offsets the open transactions start at.
            ByteBuffer appended = batches.duplicate();
            appended.position(start);
            for (RecordBatchHeader batch : RecordBatches.split(appended)) {
                transactions.onBatch(batch);
            }
        }
        snapshotIfRolled(segmentsBefore);
        replica.onLeaderAppend();
        return new LeaderAppend(result, epoch, false);
    }

    /** What a transaction coordinator's marker came to at this partition. */
    public enum MarkerOutcome {
        /** The marker is in the log (or the producer had nothing open here, and Kafka appends it anyway). */
        APPENDED,
        /** The producer's epoch here is newer than the marker's: a stale coordinator decision, refused. */
        PRODUCER_FENCED,
        /** A newer coordinator already wrote a marker for this producer: this coordinator was replaced. */
        COORDINATOR_FENCED
    }

    /** A marker append: the outcome, and where it ended and in which epoch, for acks=all completion. */
    public record MarkerAppend(MarkerOutcome outcome, long lastOffset, int leaderEpoch) {}

    /**
     * Ends {@code producerId}'s transaction in this partition with a commit or abort marker, as the leader, at the
     * request of the transaction coordinator of {@code coordinatorEpoch} (WriteTxnMarkers). A marker whose producer
     * epoch is newer than the producer's here bumps it, fencing the older producer, as Kafka does when the
     * coordinator aborts a timed-out transaction. The caller waits for the high watermark to pass
     * {@link MarkerAppend#lastOffset()} before answering: a marker counts only once replicated.
     *
     * @throws PartitionRoleException for NOT_LEADER (nothing appended)
     */
    public synchronized MarkerAppend appendMarker(
            long producerId, short producerEpoch, boolean commit, int coordinatorEpoch, long nowMs) {
        if (replica.state() != PartitionReplica.State.LEADER) {
            throw new PartitionRoleException(
                    PartitionRoleException.Reason.NOT_LEADER,
                    "node " + replica.localId() + " does not lead " + topicPartition);
        }
        int epoch = replica.leaderEpoch();
        ProducerStateTable.MarkerCheck check = producerState.checkMarker(producerId, producerEpoch, coordinatorEpoch);
        if (check == ProducerStateTable.MarkerCheck.PRODUCER_FENCED) {
            return new MarkerAppend(MarkerOutcome.PRODUCER_FENCED, -1, epoch);
        }
        if (check == ProducerStateTable.MarkerCheck.COORDINATOR_FENCED) {
            return new MarkerAppend(MarkerOutcome.COORDINATOR_FENCED, -1, epoch);
        }
        markTransactional();
        ByteBuffer marker = RecordBatches.transactionMarker(
                producerId,
                producerEpoch,
                commit ? RecordBatchHeader.CONTROL_COMMIT : RecordBatchHeader.CONTROL_ABORT,
                coordinatorEpoch,
                nowMs);
        int segmentsBefore = log.segmentCount();
        AppendResult result = log.append(marker, epoch);
        producerState.onMarker(producerId, producerEpoch, coordinatorEpoch);
        transactions.onBatch(new RecordBatchHeader(marker, 0));
        snapshotIfRolled(segmentsBefore);
        replica.onLeaderAppend();
        return new MarkerAppend(MarkerOutcome.APPENDED, result.lastOffset(), epoch);
    }

    private static boolean hasTransactionalBatch(ByteBuffer batches) {
        int position = batches.position();
        while (position + RecordBatchHeader.LOG_OVERHEAD_BYTES <= batches.limit()) {
            int length = batches.getInt(position + RecordBatchHeader.BATCH_LENGTH_OFFSET);
            if (position + RecordBatchHeader.LOG_OVERHEAD_BYTES + length > batches.limit()) {
                return false;
            }
            if (new RecordBatchHeader(batches, position).isTransactional()) {
                return true;
            }
            position += RecordBatchHeader.LOG_OVERHEAD_BYTES + length;
        }
        return false;
    }

    /**
     * From the first transactional batch on, this partition's open and aborted transactions must survive a restart:
     * a mark in its directory, durable before that batch is, makes the next start read them from the log again.
     */
    private void markTransactional() {
        if (tracksTransactions) {
            return;
        }
        TransactionalMark.write(log.dir());
        tracksTransactions = true;
    }

    /** Whether an acks=all append ending at {@code lastOffset} in {@code appendEpoch} is done. */
    public synchronized ProduceCheck checkProduceCompletion(long lastOffset, int appendEpoch) {
        return replica.checkProduceCompletion(lastOffset, appendEpoch);
    }

    /** Reads committed data (below the high watermark) for a consumer. */
    public synchronized LogReadResult read(long offset, int maxBytes, boolean minOneBatch) {
        return log.read(offset, maxBytes, log.highWatermark(), minOneBatch);
    }

    /** Reads up to the log end offset, for a follower. */
    public synchronized LogReadResult readForFollower(long offset, int maxBytes) {
        return log.read(offset, maxBytes, log.logEndOffset(), true);
    }

    /**
     * A follower fetches from {@code fetchOffset} in {@code requestEpoch} (its current leader epoch, -1: any):
     * everything below it is on the follower. The epoch is checked under the same lock that counts the offset, so
     * a fetch that raced a leader change can never count in the new epoch (issue 22, defect 4): what a follower
     * held in an older epoch says nothing about what it holds of this one.
     *
     * @throws PartitionRoleException NOT_LEADER, FENCED_EPOCH, UNKNOWN_EPOCH, NOT_A_REPLICA, or OFFSET_OUT_OF_RANGE
     *                                beyond the log end; nothing is counted then
     */
    public synchronized FollowerFetch onFollowerFetch(int followerId, int requestEpoch, long fetchOffset, long nowMs) {
        return onFollowerFetch(followerId, requestEpoch, -1, fetchOffset, nowMs);
    }

    /** As above, from a follower that fetched with broker epoch {@code brokerEpoch} (-1: unknown; KIP-903). */
    public synchronized FollowerFetch onFollowerFetch(
            int followerId, int requestEpoch, long brokerEpoch, long fetchOffset, long nowMs) {
        checkLeader(requestEpoch);
        if (!replica.assignment().orElseThrow().replicas().contains(followerId) || followerId == replica.localId()) {
            throw new PartitionRoleException(
                    PartitionRoleException.Reason.NOT_A_REPLICA,
                    "node " + followerId + " is not a follower of " + topicPartition);
        }
        if (fetchOffset > log.logEndOffset() || fetchOffset < 0) {
            throw new PartitionRoleException(
                    PartitionRoleException.Reason.OFFSET_OUT_OF_RANGE,
                    "follower "
                            + followerId + " fetches " + topicPartition + " at " + fetchOffset + ", log end is "
                            + log.logEndOffset());
        }
        long before = log.highWatermark();
        Optional<IsrChange> change = replica.onFollowerFetch(followerId, brokerEpoch, fetchOffset, nowMs);
        return new FollowerFetch(log.highWatermark() != before, change);
    }

    synchronized Optional<IsrChange> maybeShrinkIsr(long nowMs) {
        return replica.maybeShrinkIsr(nowMs);
    }

    /** The controller did not apply {@code change}; ignored if another change is pending by now. */
    synchronized void onIsrChangeRejected(IsrChange change) {
        if (isPending(change)) {
            replica.onIsrChangeRejected();
        }
    }

    /** Whether {@code change} is still the ISR change waiting for the controller. */
    synchronized boolean isPending(IsrChange change) {
        return replica.pendingIsrChange().filter(change::equals).isPresent();
    }

    // ---- follower side -------------------------------------------------------------------------------

    /** The epoch to ask the leader of {@code leaderEpoch} about, if this replica is truncating in that epoch. */
    public synchronized OptionalInt epochToQuery(int leaderEpoch) {
        if (replica.state() != PartitionReplica.State.FOLLOWER_TRUNCATING || replica.leaderEpoch() != leaderEpoch) {
            return OptionalInt.empty();
        }
        return OptionalInt.of(replica.epochToQuery());
    }

    /** The leader's answer to OffsetForLeaderEpoch; ignored if the epoch moved on meanwhile. */
    public synchronized void onEpochEndOffset(int leaderEpoch, EpochEndOffset answer) {
        if (replica.state() != PartitionReplica.State.FOLLOWER_TRUNCATING || replica.leaderEpoch() != leaderEpoch) {
            return;
        }
        replica.onEpochEndOffset(answer);
    }

    /**
     * Where a fetching follower in {@code leaderEpoch} fetches from next, if it is fetching. The fetch offset tells
     * the leader what this replica holds; under flush.on.ack what it fetched is fsynced first (one fsync for the
     * whole previous fetch response), so that the leader's high watermark counts only flushed follower data.
     */
    public synchronized OptionalLong fetchOffset(int leaderEpoch) {
        if (replica.state() != PartitionReplica.State.FOLLOWER_FETCHING || replica.leaderEpoch() != leaderEpoch) {
            return OptionalLong.empty();
        }
        if (log.config().flushOnAck()) {
            log.flushRecords();
        }
        return OptionalLong.of(replica.fetchOffset());
    }

    /** The offset below which this replica's log is known to be on disk. */
    public synchronized long flushedOffset() {
        return log.recoveryPoint();
    }

    /** Whether acks=all waits for the ISR's fsync on this partition (flush.on.ack). */
    public synchronized boolean flushOnAck() {
        return log.config().flushOnAck();
    }

    /**
     * Group commit for flush.on.ack: forces what was appended since the last flush, without holding this
     * partition's lock during the fsync (appends meanwhile wait for the next one), then lets the high watermark
     * count the flushed records.
     *
     * @return whether the high watermark moved
     */
    boolean flushForAck() {
        Optional<PendingFlush> pending;
        synchronized (this) {
            pending = log.beginFlush();
        }
        if (pending.isEmpty()) {
            return false;
        }
        try {
            pending.get().force();
        } catch (java.nio.channels.ClosedChannelException e) {
            return false; // truncated, deleted or closed meanwhile; whoever appends next asks again
        } catch (IOException e) {
            synchronized (this) {
                log.failFlush(e);
            }
            return false;
        }
        synchronized (this) {
            log.completeFlush(pending.get());
            return replica.onLogFlushed();
        }
    }

    /**
     * Appends batches fetched from the leader of {@code leaderEpoch} at this replica's log end and takes the
     * leader's high watermark. Ignored if this replica no longer follows in that epoch, or the fetch was for
     * another offset.
     *
     * @param records whole batches only
     */
    public synchronized void appendAsFollower(
            int leaderEpoch,
            long fetchOffset,
            ByteBuffer records,
            long leaderHighWatermark,
            long leaderLogStartOffset) {
        if (replica.state() != PartitionReplica.State.FOLLOWER_FETCHING
                || replica.leaderEpoch() != leaderEpoch
                || log.logEndOffset() != fetchOffset) {
            return;
        }
        if (records.hasRemaining()) {
            List<RecordBatchHeader> batches = RecordBatches.split(records.duplicate());
            RecordBatchHeader first = batches.get(0);
            if (log.logEndOffset() == log.logStartOffset()
                    && first.baseOffset() < log.logEndOffset()
                    && first.lastOffset() >= log.logEndOffset()) {
                // An empty log restarted at the leader's log start, which lies inside this batch (DeleteRecords
                // cuts batches): take the whole batch; the log start moves up to the leader's below.
                restartEmptyAt(first.baseOffset());
            }
            if (!tracksTransactions && batches.stream().anyMatch(RecordBatchHeader::isTransactional)) {
                markTransactional();
            }
            int segmentsBefore = log.segmentCount();
            log.appendAsFollower(records);
            for (RecordBatchHeader batch : batches) {
                trackProducer(batch);
                transactions.onBatch(batch);
            }
            snapshotIfRolled(segmentsBefore);
        }
        replica.onFetchResponse(leaderHighWatermark);
        // DeleteRecords on the leader moved its log start: follow it as far as this replica's committed data goes.
        long newStart = Math.min(leaderLogStartOffset, log.highWatermark());
        if (newStart > log.logStartOffset()) {
            log.deleteRecordsBefore(newStart);
        }
    }

    /**
     * Appends batches copied from a mirror topic's source partition, at their source offsets, as the leader of
     * {@code leaderEpoch}; followers in this cluster then replicate them as any other. An empty log takes a first
     * batch that straddles its start whole (the source's log start lies inside it) and restarts there; the log start
     * comes back up with {@link #followSourceLogStart}.
     *
     * @param requiredBaseOffset where the copy continues: the log end offset the copier fetched from
     * @return the log end offset after the append
     * @throws PartitionRoleException if this node no longer leads in {@code leaderEpoch} (nothing appended)
     * @throws dev.strait.broker.log.MirrorOffsetMismatchException if the log does not end at
     *     {@code requiredBaseOffset}, or a batch overlaps it (nothing appended)
     */
    public synchronized long appendMirrored(int leaderEpoch, long requiredBaseOffset, ByteBuffer records) {
        requireLeaderIn(leaderEpoch);
        if (!records.hasRemaining()) {
            return log.logEndOffset();
        }
        List<RecordBatchHeader> batches = RecordBatches.split(records.duplicate());
        RecordBatchHeader first = batches.get(0);
        long required = requiredBaseOffset;
        long logStart = log.logStartOffset();
        boolean straddlesEmptyStart = log.logEndOffset() == logStart
                && requiredBaseOffset == logStart
                && first.baseOffset() < logStart
                && first.lastOffset() >= logStart;
        if (straddlesEmptyStart) {
            restartEmptyAt(first.baseOffset());
            required = first.baseOffset();
        }
        int segmentsBefore = log.segmentCount();
        log.appendMirrored(records, required, leaderEpoch);
        for (RecordBatchHeader batch : batches) {
            trackProducer(batch);
            transactions.onBatch(batch);
        }
        snapshotIfRolled(segmentsBefore);
        replica.onLeaderAppend();
        return log.logEndOffset();
    }

    /**
     * A mirror topic's source no longer holds the offsets this partition would copy next (its log start moved past
     * them, or the partition is new and the source's log starts later): restart this log, empty, at the source's
     * log start. Only the leader of {@code leaderEpoch} does this, and only forward.
     *
     * @return whether the log was restarted
     */
    public synchronized boolean restartMirrorAt(int leaderEpoch, long sourceLogStartOffset) {
        requireLeaderIn(leaderEpoch);
        if (sourceLogStartOffset <= log.logEndOffset()) {
            return false;
        }
        restartEmptyAt(sourceLogStartOffset);
        replica.onLeaderAppend();
        return true;
    }

    /**
     * A failback's cut (issue 23): this replica's log runs past the point where it parts from the cluster it will copy
     * from now; or a promote's: the records past the last stable offset (the copy's open transactions and what
     * followed them) go, so that no half transaction survives the promote. Once per {@code cutId}, every batch from {@code offset} to the log end is saved in a file beside the
     * log, and the log is then cut to {@code offset}, producer and transaction state rebuilt. Called before the
     * assignment that starts the new leader epoch is applied, so a leader never serves the old suffix in it and
     * followers find the cut by the usual epoch comparison.
     *
     * @return what was cut and where it was saved; empty if this cut was applied before or nothing lay past it
     * @throws LogStorageException if the suffix cannot be saved (nothing is cut then)
     */
    public synchronized Optional<DivergedSuffix.Cut> cutForFailback(String cutId, long offset) {
        if (cutId.equals(appliedCutId)) {
            return Optional.empty();
        }
        Path dir = log.dir();
        try {
            if (DivergedSuffix.appliedId(dir).filter(cutId::equals).isPresent()) {
                appliedCutId = cutId;
                return Optional.empty();
            }
            long end = log.logEndOffset();
            Optional<DivergedSuffix.Cut> cut = Optional.empty();
            if (end > offset) {
                long from = Math.max(offset, log.logStartOffset());
                List<ByteBuffer> batches = new java.util.ArrayList<>();
                long next = from;
                while (next < end) {
                    ByteBuffer buffer =
                            log.read(next, 1 << 20, end, true).records().readAll();
                    long before = next;
                    for (ByteBuffer batch : wholeBatches(buffer)) {
                        batches.add(batch);
                        next = new RecordBatchHeader(batch, 0).nextOffset();
                    }
                    if (next <= before) {
                        break;
                    }
                }
                Path file = DivergedSuffix.fileFor(dir, cutId, from, end);
                DivergedSuffix.save(file, batches);
                new LogAdapter().truncateTo(offset);
                cut = Optional.of(new DivergedSuffix.Cut(from, end, file));
            }
            DivergedSuffix.recordApplied(dir, cutId);
            appliedCutId = cutId;
            return cut;
        } catch (IOException e) {
            throw new LogStorageException("[" + topicPartition + "] cannot save the suffix a failback cuts", e);
        }
    }

    /** The whole batches at the start of {@code buffer}, each as a buffer of its own bytes. */
    private static List<ByteBuffer> wholeBatches(ByteBuffer buffer) {
        List<ByteBuffer> batches = new java.util.ArrayList<>();
        int position = 0;
        while (position + RecordBatchHeader.LOG_OVERHEAD_BYTES <= buffer.limit()) {
            int length = buffer.getInt(position + RecordBatchHeader.BATCH_LENGTH_OFFSET);
            if (position + RecordBatchHeader.LOG_OVERHEAD_BYTES + length > buffer.limit()) {
                break;
            }
            ByteBuffer one = buffer.duplicate();
            one.position(position).limit(position + RecordBatchHeader.LOG_OVERHEAD_BYTES + length);
            batches.add(one.slice());
            position += RecordBatchHeader.LOG_OVERHEAD_BYTES + length;
        }
        return batches;
    }

    /**
     * A promoted mirror topic's partition ends every transaction the copy left open with an abort marker, as the
     * leader of {@code leaderEpoch}: the source's coordinator will never end them here, and an open transaction
     * would hold read_committed consumers at its first offset for good. Nothing is deleted; the half transactions
     * stay in the log, aborted. The safety net for a promote set by hand: {@code strait failover --mirror-topics} cuts
     * each partition to its last stable offset before it promotes, so nothing is open here then.
     *
     * @return the producer ids whose transactions were aborted, oldest first
     */
    public synchronized List<Long> abortOpenTransactions(int leaderEpoch, long nowMs) {
        requireLeaderIn(leaderEpoch);
        List<Long> aborted = new java.util.ArrayList<>();
        for (TransactionState.Open open : transactions.open()) {
            ByteBuffer marker = RecordBatches.transactionMarker(
                    open.producerId(), open.producerEpoch(), RecordBatchHeader.CONTROL_ABORT, -1, nowMs);
            int segmentsBefore = log.segmentCount();
            log.append(marker, leaderEpoch);
            transactions.onBatch(new RecordBatchHeader(marker, 0));
            snapshotIfRolled(segmentsBefore);
            aborted.add(open.producerId());
        }
        if (!aborted.isEmpty()) {
            replica.onLeaderAppend();
        }
        return aborted;
    }

    /**
     * A producer with state in this partition, as DescribeProducers shows it.
     *
     * @param openTransactionFirstOffset where its open transaction starts, -1 if none is open
     */
    public record ProducerView(long producerId, short epoch, int lastSequence, long openTransactionFirstOffset) {}

    /** The producers with state here, by id; the leader's answer to DescribeProducers. */
    public synchronized List<ProducerView> producers() {
        java.util.Map<Long, Long> openAt = new java.util.HashMap<>();
        for (TransactionState.Open open : transactions.open()) {
            openAt.put(open.producerId(), open.firstOffset());
        }
        List<ProducerView> out = new java.util.ArrayList<>();
        for (ProducerStateTable.Active p : producerState.active()) {
            out.add(new ProducerView(
                    p.producerId(), p.epoch(), p.lastSequence(), openAt.getOrDefault(p.producerId(), -1L)));
        }
        return out;
    }

    /** Whether this partition's directory says its log holds transactions (read at open). */
    boolean markedTransactional() {
        return TransactionalMark.exists(log.dir());
    }

    /** Whether a transaction is open in this partition's log. */
    public synchronized boolean hasOpenTransactions() {
        return transactions.firstUnstableOffset() != Long.MAX_VALUE;
    }

    /** The source's log start moved up (retention, DeleteRecords): follow it as far as the committed copy goes. */
    public synchronized void followSourceLogStart(int leaderEpoch, long sourceLogStartOffset) {
        requireLeaderIn(leaderEpoch);
        long newStart = Math.min(sourceLogStartOffset, log.highWatermark());
        if (newStart > log.logStartOffset()) {
            log.deleteRecordsBefore(newStart);
            transactions.dropBelow(log.logStartOffset());
        }
    }

    private void requireLeaderIn(int leaderEpoch) {
        if (replica.state() != PartitionReplica.State.LEADER || replica.leaderEpoch() != leaderEpoch) {
            throw new PartitionRoleException(
                    PartitionRoleException.Reason.NOT_LEADER,
                    "node " + replica.localId() + " does not lead " + topicPartition + " in epoch " + leaderEpoch);
        }
    }

    /**
     * The leader of {@code leaderEpoch} answered OFFSET_OUT_OF_RANGE because its log now starts at
     * {@code leaderLogStartOffset}, beyond this replica's log end {@code fetchOffset}: start over there, empty.
     *
     * @return whether the log was reset
     */
    public synchronized boolean onLeaderLogStartAhead(int leaderEpoch, long fetchOffset, long leaderLogStartOffset) {
        if (replica.state() != PartitionReplica.State.FOLLOWER_FETCHING
                || replica.leaderEpoch() != leaderEpoch
                || log.logEndOffset() != fetchOffset
                || leaderLogStartOffset <= fetchOffset) {
            return false;
        }
        restartEmptyAt(leaderLogStartOffset);
        return true;
    }

    /** Empties the log and restarts it at {@code offset}, with no producer or transaction state left from before. */
    private void restartEmptyAt(long offset) {
        log.truncateFullyAndStartAt(offset);
        producerSnapshots.deleteAll();
        producerState = new ProducerStateTable();
        transactions.clear();
    }

    private void trackProducer(RecordBatchHeader batch) {
        if (batch.producerId() < 0) {
            return;
        }
        if (batch.isControl()) {
            producerState.onMarker(batch.producerId(), batch.producerEpoch(), -1);
            return;
        }
        int count = batch.lastOffsetDelta() + 1;
        int lastSequence = (int) ((batch.baseSequence() + (long) batch.lastOffsetDelta()) % (1L << 31));
        producerState.update(
                List.of(new ProducerBatch(
                        batch.producerId(), batch.producerEpoch(), batch.baseSequence(), lastSequence, count)),
                batch.baseOffset());
    }

    /**
     * Loads the idempotent producer state when the replica is opened, so that a replica that restarts and later
     * leads still recognises retried batches: from the latest producer state snapshot at or below the log end
     * (newer ones describe batches a crash or a truncation removed) plus the batches after it, or from the whole
     * log if there is no usable snapshot.
     */
    synchronized void loadProducerState() {
        long end = log.logEndOffset();
        producerSnapshots.deleteAbove(end);
        Optional<ProducerStateSnapshots.Loaded> loaded = producerSnapshots.loadLatestAtOrBelow(end);
        producerState = loaded.map(ProducerStateSnapshots.Loaded::table).orElseGet(ProducerStateTable::new);
        replayProducerState(Math.max(
                log.logStartOffset(),
                loaded.map(ProducerStateSnapshots.Loaded::offset).orElse(0L)));
    }

    /**
     * Reads the log's transactions again from its start (a mirror topic's copy after a restart or a truncation), and
     * keeps doing so after truncations. Only batch headers and control records are read.
     */
    synchronized void loadTransactions() {
        markTransactional();
        transactions.clear();
        forEachBatch(log.logStartOffset(), transactions::onBatch);
    }

    /**
     * The last stable offset: below it no transaction is open, so a read_committed consumer reads up to it. Equal
     * to the high watermark on a partition without transactions.
     */
    public synchronized long lastStableOffset() {
        long highWatermark = log.highWatermark();
        return Math.max(log.logStartOffset(), Math.min(highWatermark, transactions.firstUnstableOffset()));
    }

    /** Reads what a read_committed consumer may see: data below the last stable offset. */
    public synchronized LogReadResult readCommitted(long offset, int maxBytes, boolean minOneBatch) {
        return log.read(offset, maxBytes, lastStableOffset(), minOneBatch);
    }

    /** An aborted transaction a read_committed consumer skips: its producer and first offset, as Fetch names it. */
    public record AbortedTransaction(long producerId, long firstOffset) {}

    /** The aborted transactions a read from {@code fetchOffset} below {@code upperBound} may meet. */
    public synchronized List<AbortedTransaction> abortedTransactions(long fetchOffset, long upperBound) {
        return transactions.abortedBetween(fetchOffset, upperBound).stream()
                .map(a -> new AbortedTransaction(a.producerId(), a.firstOffset()))
                .toList();
    }

    /** A segment rolled during an append: save the state there, so that a restart replays at most a segment. */
    private void snapshotIfRolled(int segmentsBefore) {
        if (log.segmentCount() > segmentsBefore) {
            producerSnapshots.write(log.logEndOffset(), producerState);
        }
    }

    /** Adds the batches at and after {@code fromOffset} to the producer state. */
    private void replayProducerState(long fromOffset) {
        forEachBatch(fromOffset, this::trackProducer);
    }

    /** Hands every batch header from {@code fromOffset} to the log end to {@code action}, in offset order. */
    private void forEachBatch(long fromOffset, java.util.function.Consumer<RecordBatchHeader> action) {
        long offset = fromOffset;
        long end = log.logEndOffset();
        while (offset < end) {
            LogReadResult read = log.read(offset, 1 << 20, end, true);
            if (read.records().isEmpty()) {
                break;
            }
            ByteBuffer buffer = read.records().readAll();
            long next = offset;
            int position = 0;
            while (position + RecordBatchHeader.LOG_OVERHEAD_BYTES <= buffer.limit()) {
                int length = buffer.getInt(position + RecordBatchHeader.BATCH_LENGTH_OFFSET);
                if (position + RecordBatchHeader.LOG_OVERHEAD_BYTES + length > buffer.limit()) {
                    break;
                }
                RecordBatchHeader batch = new RecordBatchHeader(buffer, position);
                action.accept(batch);
                next = batch.nextOffset();
                position += RecordBatchHeader.LOG_OVERHEAD_BYTES + length;
            }
            if (next <= offset) {
                break;
            }
            offset = next;
        }
    }

    /** The log as replication sees it; called under this partition's lock. */
    private final class LogAdapter implements ReplicaLog {
        @Override
        public long logEndOffset() {
            return log.logEndOffset();
        }

        @Override
        public long acknowledgeableEndOffset() {
            return log.config().flushOnAck() ? log.recoveryPoint() : log.logEndOffset();
        }

        @Override
        public long highWatermark() {
            return log.highWatermark();
        }

        @Override
        public boolean updateHighWatermark(long highWatermark) {
            return log.updateHighWatermark(highWatermark);
        }

        @Override
        public int latestEpoch() {
            return log.leaderEpochCache().latestEpoch();
        }

        @Override
        public EpochEndOffset endOffsetForEpoch(int epoch) {
            return log.endOffsetForEpoch(epoch);
        }

        @Override
        public void assignEpoch(int epoch, long startOffset) {
            try {
                log.leaderEpochCache().assign(epoch, startOffset);
            } catch (IOException e) {
                throw new LogStorageException("[" + topicPartition + "] cannot record leader epoch " + epoch, e);
            }
        }

        @Override
        public boolean truncateTo(long offset) {
            boolean truncated = log.truncateTo(offset);
            if (truncated) {
                loadProducerState();
                if (tracksTransactions || !transactions.isEmpty()) {
                    loadTransactions();
                }
            }
            return truncated;
        }
    }

    /** The high watermark, log end and leader epoch, read together; empty unless this replica leads. */
    public synchronized Optional<LeaderPosition> leaderPosition() {
        if (replica.state() != PartitionReplica.State.LEADER) {
            return Optional.empty();
        }
        return Optional.of(new LeaderPosition(log.highWatermark(), log.logEndOffset(), replica.leaderEpoch()));
    }

    /** A leader's view of its log at one instant. */
    public record LeaderPosition(long highWatermark, long logEndOffset, int leaderEpoch) {}

    public synchronized long logStartOffset() {
        return log.logStartOffset();
    }

    public synchronized long highWatermark() {
        return log.highWatermark();
    }

    public synchronized long logEndOffset() {
        return log.logEndOffset();
    }

    /**
     * ListOffsets LATEST for a client: the end of the committed log, the high watermark.
     *
     * @throws PartitionRoleException HIGH_WATERMARK_BEHIND_EPOCH_START while a new leader's high watermark is below
     *                                the start offset of its epoch: it lags the end its predecessor may already
     *                                have reported, and answering it would move a client's end offset backwards
     */
    public synchronized long latestOffsetForClient() {
        requireCommittedEndKnown();
        return log.highWatermark();
    }

    /** The end a read_committed client sees: the last stable offset (with the same check as above). */
    public synchronized long lastStableOffsetForClient() {
        requireCommittedEndKnown();
        return lastStableOffset();
    }

    /**
     * ListOffsets by timestamp for a client: the first committed record at or after {@code timestampMs}; empty if
     * the record found is not committed yet (it may still be lost with this leader), as Kafka answers.
     *
     * @throws PartitionRoleException HIGH_WATERMARK_BEHIND_EPOCH_START if the answer is not below the high
     *                                watermark while that lags the epoch start (see {@link #latestOffsetForClient})
     */
    public synchronized Optional<TimestampAndOffset> offsetForTimestamp(long timestampMs) {
        return committedOnly(log.findOffsetByTimestamp(timestampMs));
    }

    /**
     * Kafka's rule for a timestamp lookup (Partition.fetchOffsetForTimestamp, then ReplicaManager): a record below
     * the high watermark is the answer; otherwise the answer is unknown while the high watermark lags the epoch
     * start, and "none" once it does not.
     */
    private Optional<TimestampAndOffset> committedOnly(Optional<TimestampAndOffset> found) {
        if (found.isPresent() && found.get().offset() < log.highWatermark()) {
            return found;
        }
        requireCommittedEndKnown();
        return Optional.empty();
    }

    private void requireCommittedEndKnown() {
        OptionalLong epochStart = replica.leaderEpochStartOffset();
        if (epochStart.isPresent() && epochStart.getAsLong() > log.highWatermark()) {
            throw new PartitionRoleException(
                    PartitionRoleException.Reason.HIGH_WATERMARK_BEHIND_EPOCH_START,
                    "the high watermark " + log.highWatermark() + " of " + topicPartition + " is behind offset "
                            + epochStart.getAsLong() + ", where leader epoch " + replica.leaderEpoch()
                            + " starts: retry once the followers in the ISR have fetched from the new leader");
        }
    }

    /**
     * ListOffsets with MAX_TIMESTAMP: the first record carrying the largest timestamp in the log, found by a
     * binary search over {@link PartitionLog#findOffsetByTimestamp} (at most 64 index lookups; the log keeps no
     * per-log maximum). Empty if no record has a timestamp >= 0, or, as in Kafka, if that record is not committed
     * yet.
     *
     * @throws PartitionRoleException as {@link #offsetForTimestamp}
     */
    public synchronized Optional<TimestampAndOffset> offsetOfMaxTimestamp() {
        return committedOnly(findMaxTimestamp());
    }

    private Optional<TimestampAndOffset> findMaxTimestamp() {
        if (log.findOffsetByTimestamp(0).isEmpty()) {
            return Optional.empty();
        }
        long low = 0; // some record has a timestamp >= low
        long high = Long.MAX_VALUE; // no record has a timestamp > high
        while (low < high) {
            long mid = low + (high - low) / 2 + 1;
            if (log.findOffsetByTimestamp(mid).isPresent()) {
                low = mid;
            } else {
                high = mid - 1;
            }
        }
        return log.findOffsetByTimestamp(low);
    }

    public synchronized EpochEndOffset endOffsetForEpoch(int epoch) {
        return log.endOffsetForEpoch(epoch);
    }

    /**
     * Moves the log start offset up; -1 means the high watermark.
     *
     * @return the new log start offset
     * @throws OffsetOutOfRangeException if {@code offset} is another negative value or above the high watermark
     */
    synchronized long deleteRecordsBefore(long offset) {
        checkLeader(-1); // followers follow the leader's log start offset from its fetch responses
        if (offset < -1) {
            throw new OffsetOutOfRangeException(
                    "[" + topicPartition + "] cannot delete records before offset " + offset);
        }
        return log.deleteRecordsBefore(offset == -1 ? log.highWatermark() : offset);
    }

    /**
     * One compaction pass if the log is compacted and has dirty closed segments. The segments are read and
     * rewritten without this partition's lock; only the start and the swap take it, so produce and fetch continue.
     *
     * @return true if compacted segments were swapped in
     * @throws IOException if the pass failed before the swap (the log is unchanged; a segment it read may have been
     *                     deleted by retention meanwhile)
     */
    boolean compact(long maxMapBytes, CompactionTask.IoThrottle throttle) throws IOException, InterruptedException {
        Optional<CompactionTask> task;
        synchronized (this) {
            java.util.Map<Long, List<TransactionState.Aborted>> abortedByProducer = new java.util.HashMap<>();
            for (TransactionState.Aborted a : transactions.abortedBetween(0, Long.MAX_VALUE)) {
                abortedByProducer
                        .computeIfAbsent(a.producerId(), id -> new java.util.ArrayList<>())
                        .add(a);
            }
            task = log.beginCompaction(
                    maxMapBytes,
                    Math.min(log.highWatermark(), transactions.firstUnstableOffset()),
                    (producerId, offset) -> abortedByProducer.getOrDefault(producerId, List.of()).stream()
                            .anyMatch(a -> a.firstOffset() <= offset && offset < a.lastOffset()));
        }
        if (task.isEmpty()) {
            return false;
        }
        task.get().prepare(throttle);
        boolean swapped;
        synchronized (this) {
            swapped = log.completeCompaction(task.get());
        }
        return swapped;
    }

    public synchronized long sizeBytes() {
        return log.sizeBytes();
    }

    synchronized void updateConfig(LogConfig config) {
        log.updateConfig(config);
    }

    synchronized int deleteSegmentsForRetention() {
        return log.deleteSegmentsForRetention();
    }

    /** Closes the log, saving the producer state first so that the next open replays nothing. */
    synchronized void close() {
        producerSnapshots.write(log.logEndOffset(), producerState);
        log.close();
    }

    java.nio.file.Path dir() {
        return log.dir();
    }

    @Override
    public String toString() {
        return "Partition[" + topicPartition + "]";
    }
}
