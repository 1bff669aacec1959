package dev.strait.broker.txn;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import java.util.function.ToIntFunction;
import org.jspecify.annotations.Nullable;

/**
 * The transaction coordinator's rules for one shard (one partition of {@code __transaction_state}), modelled on
 * Kafka's transaction version 1 coordinator with KIP-360's producer recovery. Pure and single-threaded: no clock
 * (every call takes {@code nowMs}), no I/O, no threads; the shard's loop drives it, and the simulation drives it
 * directly.
 *
 * <h2>Durable first</h2>
 * An operation does not change the state. It returns a {@link TxnResult}: refused, answered at once (a retry of
 * something done), or a {@link TxnTransition} to append. The caller appends the transition's record and, once it
 * is durable (the partition's high watermark passed it), calls {@link #apply}, which makes the new value current
 * and returns the reply and the markers owed. Meanwhile the transactional id has that one transition pending and
 * every other request for it gets CONCURRENT_TRANSACTIONS, so the values written for one id form a chain, each
 * replacing the one before. The state is therefore always exactly what replaying the durable log yields
 * ({@link TransactionLoader#replay}), and a coordinator that crashes loses only answers nobody received.
 *
 * <h2>Transactions</h2>
 * InitProducerId hands out a producer id and epoch (Empty); AddPartitions/AddOffsets make it Ongoing; EndTxn
 * decides (PrepareCommit/PrepareAbort) and the requester is answered as soon as that is durable; the markers are
 * then written to every partition, and {@link #markersWritten} completes it (CompleteCommit/CompleteAbort). An
 * InitProducerId while a transaction is ongoing, or the transaction's timeout, aborts it with the epoch bumped
 * (Kafka's PrepareEpochFence), so the producer that ran it is fenced; the new producer is told
 * CONCURRENT_TRANSACTIONS until the abort completes, and then gets the next epoch. An exhausted epoch rotates to a
 * new producer id. EndTxn retried after its answer was lost: the same outcome while its markers are written gives
 * CONCURRENT_TRANSACTIONS, once complete NONE; the other outcome gives INVALID_TXN_STATE.
 *
 * <p>Not thread-safe: owned by the shard's loop.
 */
public final class TransactionCoordinatorCore {

    /** Whether this node serves the shard (as the group coordinator's shards). */
    public enum Status {
        /** Replayed; waits for what it replayed to be durable. */
        LOADING,
        ACTIVE,
        NOT_COORDINATOR
    }

    /** What {@link #apply} yields: the requester's answer and the markers now owed, if any. */
    public record Applied(
            TxnTransition transition,
            TxnReply reply,
            @Nullable WriteMarkers markers) {}

    private final int partition;
    private final int coordinatorEpoch;
    private final TxnConfig settings;
    private final Map<String, TransactionMetadata> transactions;
    private final Map<String, TxnTransition> pending = new HashMap<>();
    private Status status = Status.LOADING;

    private TransactionCoordinatorCore(
            int partition, int coordinatorEpoch, TxnConfig settings, Map<String, TransactionMetadata> state) {
        this.partition = partition;
        this.coordinatorEpoch = coordinatorEpoch;
        this.settings = settings;
        this.transactions = new HashMap<>(state);
    }

    /**
     * A shard taken over by this node in {@code coordinatorEpoch} (the partition's leader epoch), with the state its
     * replay yielded ({@link TransactionLoader#replay}); LOADING until {@link #activate}.
     */
    public static TransactionCoordinatorCore loaded(
            int partition, int coordinatorEpoch, TxnConfig settings, Map<String, TransactionMetadata> replayed) {
        return new TransactionCoordinatorCore(partition, coordinatorEpoch, settings, replayed);
    }

    /** The shard of {@code __transaction_state} a transactional id lives in (as Kafka computes it). */
    public static int partitionFor(String transactionalId, int partitions) {
        return (transactionalId.hashCode() & 0x7fffffff) % partitions;
    }

    public int partition() {
        return partition;
    }

    public int coordinatorEpoch() {
        return coordinatorEpoch;
    }

    public Status status() {
        return status;
    }

    /**
     * What it replayed is durable: serve, and write the markers of every transaction found decided but not complete
     * (a coordinator that failed over owes them; {@link TransactionLoader#markersToResend}).
     */
    public List<WriteMarkers> activate() {
        if (status != Status.LOADING) {
            throw new IllegalStateException("shard " + partition + ": activate in " + status);
        }
        status = Status.ACTIVE;
        return TransactionLoader.markersToResend(transactions.values(), coordinatorEpoch);
    }

    /** This node no longer leads the partition: serve nothing; returns the transitions that will not be applied. */
    public List<TxnTransition> resign() {
        status = Status.NOT_COORDINATOR;
        List<TxnTransition> dropped = new ArrayList<>(pending.values());
        pending.clear();
        return dropped;
    }

    // ---------------------------------------------------------------- requests

    /**
     * InitProducerId with a transactional id.
     *
     * @param expected the producer id and epoch the producer holds (KIP-360), or null for a new producer
     * @param newProducerId hands out a new producer id (called only when one is needed)
     */
    public TxnResult initProducerId(
            String transactionalId,
            int txnTimeoutMs,
            @Nullable ProducerIdAndEpoch expected,
            LongSupplier newProducerId,
            long nowMs) {
        TxnError unavailable = checkRequest(transactionalId);
        if (unavailable != TxnError.NONE) {
            return TxnResult.refuse(unavailable);
        }
        if (txnTimeoutMs <= 0 || txnTimeoutMs > settings.maxTransactionTimeoutMs()) {
            return TxnResult.refuse(TxnError.INVALID_TRANSACTION_TIMEOUT);
        }
        TransactionMetadata current = transactions.get(transactionalId);
        if (current == null) {
            TransactionMetadata fresh =
                    TransactionMetadata.fresh(transactionalId, newProducerId.getAsLong(), txnTimeoutMs, nowMs);
            return write(TxnTransition.Kind.INIT_PRODUCER_ID, null, fresh, granted(fresh));
        }
        if (expected != null && !mayBelongTo(current, expected)) {
            return TxnResult.refuse(TxnError.PRODUCER_FENCED);
        }
        return switch (current.state()) {
            case PREPARE_COMMIT, PREPARE_ABORT -> TxnResult.refuse(TxnError.CONCURRENT_TRANSACTIONS);
            case EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT ->
                nextEpoch(current, txnTimeoutMs, expected, newProducerId, nowMs);
            case ONGOING ->
                write(
                        TxnTransition.Kind.FENCE,
                        current,
                        current.prepareFenceAndAbort(nowMs),
                        TxnReply.error(TxnError.CONCURRENT_TRANSACTIONS));
            case DEAD, PREPARE_EPOCH_FENCE ->
                throw new IllegalStateException("transactional id " + transactionalId + " found in " + current.state());
        };
    }

    /**
     * Whether the pair a KIP-360 producer holds may be this transactional id's: its producer id, or the one before
     * a rotation if the epoch it holds is exhausted (a retry of that rotation). The epoch is checked later.
     */
    private static boolean mayBelongTo(TransactionMetadata current, ProducerIdAndEpoch expected) {
        return expected.producerId() == current.producerId()
                || (expected.producerId() == current.previousProducerId()
                        && TransactionMetadata.isEpochExhausted(expected.epoch()));
    }

    /** InitProducerId with no transaction in progress: bump the epoch, rotate the producer id, or answer a retry. */
    private TxnResult nextEpoch(
            TransactionMetadata current,
            int txnTimeoutMs,
            @Nullable ProducerIdAndEpoch expected,
            LongSupplier newProducerId,
            long nowMs) {
        TransactionMetadata next;
        if (expected != null && expected.epoch() != current.producerEpoch()) {
            if (expected.epoch() != current.lastProducerEpoch()) {
                return TxnResult.refuse(TxnError.PRODUCER_FENCED);
            }
            // A retry of a bump (or rotation) this producer asked for and never heard of: the same epoch again. A
            // newer producer's InitProducerId would have cleared the last epoch, so nobody else holds this one.
            next = current.prepareEpoch(current.producerEpoch(), current.lastProducerEpoch(), txnTimeoutMs, nowMs);
        } else if (current.isProducerEpochExhausted()) {
            next = current.prepareProducerIdRotation(newProducerId.getAsLong(), txnTimeoutMs, expected != null, nowMs);
        } else {
            short last = expected == null ? TransactionMetadata.NO_PRODUCER_EPOCH : current.producerEpoch();
            next = current.prepareEpoch((short) (current.producerEpoch() + 1), last, txnTimeoutMs, nowMs);
        }
        return write(TxnTransition.Kind.INIT_PRODUCER_ID, current, next, granted(next));
    }

    /** AddPartitionsToTxn (transaction version 1: the producer adds each partition before it writes to it). */
    public TxnResult addPartitions(
            String transactionalId, long producerId, short producerEpoch, Set<TxnPartition> added, long nowMs) {
        TxnError unavailable = checkRequest(transactionalId);
        if (unavailable != TxnError.NONE) {
            return TxnResult.refuse(unavailable);
        }
        if (added.isEmpty()) {
            return TxnResult.refuse(TxnError.INVALID_REQUEST);
        }
        TransactionMetadata current = transactions.get(transactionalId);
        TxnError refused = checkProducer(current, producerId, producerEpoch);
        if (refused != TxnError.NONE) {
            return TxnResult.refuse(refused);
        }
        Objects.requireNonNull(current);
        return switch (current.state()) {
            case PREPARE_COMMIT, PREPARE_ABORT -> TxnResult.refuse(TxnError.CONCURRENT_TRANSACTIONS);
            case ONGOING ->
                current.partitions().containsAll(added)
                        ? new TxnResult.Answered(TxnReply.ok(producerId, producerEpoch))
                        : addTo(current, added, nowMs);
            case EMPTY, COMPLETE_COMMIT, COMPLETE_ABORT -> addTo(current, added, nowMs);
            case DEAD, PREPARE_EPOCH_FENCE ->
                throw new IllegalStateException("transactional id " + transactionalId + " found in " + current.state());
        };
    }

    /**
     * AddOffsetsToTxn: adds the partition of the offsets topic that holds the group's offsets, so that the
     * transaction's TxnOffsetCommit gets the transaction's marker.
     *
     * @param offsetsPartitionFor the group coordinator's sharding: the offsets partition of a group id
     */
    public TxnResult addOffsets(
            String transactionalId,
            long producerId,
            short producerEpoch,
            String groupId,
            ToIntFunction<String> offsetsPartitionFor,
            long nowMs) {
        TxnPartition offsets = new TxnPartition(settings.offsetsTopic(), offsetsPartitionFor.applyAsInt(groupId));
        return addPartitions(transactionalId, producerId, producerEpoch, Set.of(offsets), nowMs);
    }

    private TxnResult addTo(TransactionMetadata current, Set<TxnPartition> added, long nowMs) {
        return write(
                TxnTransition.Kind.ADD_PARTITIONS,
                current,
                current.prepareAddPartitions(added, nowMs),
                TxnReply.ok(current.producerId(), current.producerEpoch()));
    }

    /** EndTxn from the producer: commit or abort its transaction. */
    public TxnResult endTxn(String transactionalId, long producerId, short producerEpoch, boolean commit, long nowMs) {
        TxnError unavailable = checkRequest(transactionalId);
        if (unavailable != TxnError.NONE) {
            return TxnResult.refuse(unavailable);
        }
        TransactionMetadata current = transactions.get(transactionalId);
        TxnError refused = checkProducer(current, producerId, producerEpoch);
        if (refused != TxnError.NONE) {
            return TxnResult.refuse(refused);
        }
        Objects.requireNonNull(current);
        TransactionState state = current.state();
        if (state == TransactionState.ONGOING) {
            return write(
                    TxnTransition.Kind.END_TXN,
                    current,
                    current.prepareEnd(commit, nowMs),
                    TxnReply.ok(producerId, producerEpoch));
        }
        if (state == TransactionState.DEAD || state == TransactionState.PREPARE_EPOCH_FENCE) {
            throw new IllegalStateException("transactional id " + transactionalId + " found in " + state);
        }
        return endRetry(current, commit);
    }

    /** EndTxn with no transaction ongoing: a retry of the end that is under way or done, or a mistake. */
    private static TxnResult endRetry(TransactionMetadata current, boolean commit) {
        TransactionState state = current.state();
        boolean sameOutcome = commit
                ? state == TransactionState.PREPARE_COMMIT || state == TransactionState.COMPLETE_COMMIT
                : state == TransactionState.PREPARE_ABORT || state == TransactionState.COMPLETE_ABORT;
        if (!sameOutcome) {
            return TxnResult.refuse(TxnError.INVALID_TXN_STATE);
        }
        if (state.isPrepared()) {
            return TxnResult.refuse(TxnError.CONCURRENT_TRANSACTIONS);
        }
        return new TxnResult.Answered(TxnReply.ok(current.producerId(), current.producerEpoch()));
    }

    /**
     * Every partition of a decided transaction has its marker: complete it. Ignored (Refused) if the transaction
     * moved on meanwhile (a marker round that a failover overtook).
     */
    public TxnResult markersWritten(String transactionalId, long producerId, short producerEpoch, long nowMs) {
        if (status != Status.ACTIVE) {
            return TxnResult.refuse(
                    status == Status.LOADING ? TxnError.COORDINATOR_LOAD_IN_PROGRESS : TxnError.NOT_COORDINATOR);
        }
        TransactionMetadata current = transactions.get(transactionalId);
        if (pending.containsKey(transactionalId)) {
            return TxnResult.refuse(TxnError.CONCURRENT_TRANSACTIONS);
        }
        if (current == null
                || !current.state().isPrepared()
                || current.producerId() != producerId
                || current.producerEpoch() != producerEpoch) {
            return TxnResult.refuse(TxnError.INVALID_TXN_STATE);
        }
        return write(
                TxnTransition.Kind.COMPLETE,
                current,
                current.prepareComplete(nowMs),
                TxnReply.ok(producerId, producerEpoch));
    }

    // ---------------------------------------------------------------- scans

    /**
     * Transactions ongoing for longer than their timeout, with nothing pending: each is aborted with its epoch
     * bumped, so the producer that ran it is fenced. The transitions are pending on return; write each.
     */
    public List<TxnTransition> abortTimedOut(long nowMs) {
        if (status != Status.ACTIVE) {
            return List.of();
        }
        List<TxnTransition> aborts = new ArrayList<>();
        for (TransactionMetadata txn : sorted(transactions.values())) {
            boolean timedOut =
                    txn.state() == TransactionState.ONGOING && txn.txnStartTimestampMs() + txn.txnTimeoutMs() < nowMs;
            if (timedOut && !pending.containsKey(txn.transactionalId())) {
                aborts.add(prepare(
                        TxnTransition.Kind.TIMEOUT_ABORT,
                        txn,
                        txn.prepareFenceAndAbort(nowMs),
                        TxnReply.ok(txn.producerId(), txn.producerEpoch())));
            }
        }
        return aborts;
    }

    /**
     * Transactional ids idle (no transaction in progress) for {@code transactional.id.expiration.ms}: each gets a
     * tombstone. The transitions are pending on return; write each.
     */
    public List<TxnTransition> expireTransactionalIds(long nowMs) {
        if (status != Status.ACTIVE) {
            return List.of();
        }
        List<TxnTransition> expired = new ArrayList<>();
        for (TransactionMetadata txn : sorted(transactions.values())) {
            boolean idle = txn.state().isExpirationAllowed()
                    && txn.txnLastUpdateTimestampMs() + settings.transactionalIdExpirationMs() <= nowMs;
            if (idle && !pending.containsKey(txn.transactionalId())) {
                expired.add(prepare(
                        TxnTransition.Kind.EXPIRE,
                        txn,
                        txn.prepareDead(nowMs),
                        TxnReply.ok(txn.producerId(), txn.producerEpoch())));
            }
        }
        return expired;
    }

    // ---------------------------------------------------------------- durability

    /**
     * The transition's record is durable: its value becomes current (Dead removes the id).
     *
     * @return the requester's reply, and for a PrepareCommit/PrepareAbort the markers to write
     * @throws IllegalStateException if the transition is not the one pending for its id
     */
    public Applied apply(TxnTransition transition) {
        String id = transition.transactionalId();
        if (!transition.equals(pending.get(id))) {
            throw new IllegalStateException("shard " + partition + ": " + transition + " is not pending");
        }
        pending.remove(id);
        if (!Objects.equals(transactions.get(id), transition.from())) {
            throw new IllegalStateException(
                    "shard " + partition + ": " + id + " changed under its pending transition " + transition);
        }
        TransactionMetadata to = transition.to();
        if (to.state() == TransactionState.DEAD) {
            transactions.remove(id);
        } else {
            transactions.put(id, to);
        }
        WriteMarkers markers = to.state().isPrepared() ? WriteMarkers.of(to, coordinatorEpoch) : null;
        return new Applied(transition, transition.reply(), markers);
    }

    /**
     * The transition's record will not become durable (the append failed): the id keeps its value and may change
     * again. Only for an append known to have failed; one that timed out may still become durable, and stays
     * pending until it does or the shard is resigned.
     */
    public void abandon(TxnTransition transition) {
        if (!pending.remove(transition.transactionalId(), transition)) {
            throw new IllegalStateException("shard " + partition + ": " + transition + " is not pending");
        }
    }

    // ---------------------------------------------------------------- views

    /** DescribeTransactions: the durable value of one id. */
    public TxnView describe(String transactionalId) {
        TxnError unavailable = serving();
        if (unavailable != TxnError.NONE) {
            return new TxnView(unavailable, null);
        }
        TransactionMetadata txn = transactions.get(transactionalId);
        return txn == null ? new TxnView(TxnError.TRANSACTIONAL_ID_NOT_FOUND, null) : new TxnView(TxnError.NONE, txn);
    }

    /**
     * ListTransactions: the ids in this shard, by id; each filter applies only if given (empty sets, a negative
     * duration), the duration one to transactions running for at least that long (KIP-994).
     */
    public List<TransactionListing> listTransactions(
            Set<TransactionState> states, Set<Long> producerIds, long minDurationMs, long nowMs) {
        List<TransactionListing> listed = new ArrayList<>();
        for (TransactionMetadata txn : sorted(transactions.values())) {
            boolean stateOk = states.isEmpty() || states.contains(txn.state());
            boolean producerOk = producerIds.isEmpty() || producerIds.contains(txn.producerId());
            boolean durationOk = minDurationMs < 0
                    || (txn.txnStartTimestampMs() >= 0 && nowMs - txn.txnStartTimestampMs() >= minDurationMs);
            if (stateOk && producerOk && durationOk) {
                listed.add(new TransactionListing(txn.transactionalId(), txn.producerId(), txn.state()));
            }
        }
        return listed;
    }

    /** Every durable value, by id: what a replay of the durable log yields. */
    public Map<String, TransactionMetadata> snapshot() {
        return new TreeMap<>(transactions);
    }

    /** The durable value of an id, or null when it has none. */
    public @Nullable TransactionMetadata current(String transactionalId) {
        return transactions.get(transactionalId);
    }

    /** The transition pending for an id, if any. */
    public @Nullable TxnTransition pending(String transactionalId) {
        return pending.get(transactionalId);
    }

    // ---------------------------------------------------------------- helpers

    private TxnError serving() {
        return switch (status) {
            case ACTIVE -> TxnError.NONE;
            case LOADING -> TxnError.COORDINATOR_LOAD_IN_PROGRESS;
            case NOT_COORDINATOR -> TxnError.NOT_COORDINATOR;
        };
    }

    /** NONE if a request for this id may go on: the shard serves, the id is valid, nothing is pending for it. */
    private TxnError checkRequest(String transactionalId) {
        TxnError unavailable = serving();
        if (unavailable != TxnError.NONE) {
            return unavailable;
        }
        if (transactionalId.isEmpty()) {
            return TxnError.INVALID_REQUEST;
        }
        return pending.containsKey(transactionalId) ? TxnError.CONCURRENT_TRANSACTIONS : TxnError.NONE;
    }

    /** A request of a running producer (not InitProducerId) names the id's producer id and exactly its epoch. */
    private static TxnError checkProducer(@Nullable TransactionMetadata current, long producerId, short epoch) {
        if (current == null || current.producerId() != producerId) {
            return TxnError.INVALID_PRODUCER_ID_MAPPING;
        }
        return current.producerEpoch() == epoch ? TxnError.NONE : TxnError.PRODUCER_FENCED;
    }

    private static TxnReply granted(TransactionMetadata next) {
        return TxnReply.ok(next.producerId(), next.producerEpoch());
    }

    private TxnResult write(
            TxnTransition.Kind kind, @Nullable TransactionMetadata from, TransactionMetadata to, TxnReply reply) {
        return new TxnResult.Write(prepare(kind, from, to, reply));
    }

    private TxnTransition prepare(
            TxnTransition.Kind kind, @Nullable TransactionMetadata from, TransactionMetadata to, TxnReply reply) {
        TxnTransition transition = new TxnTransition(to.transactionalId(), kind, from, to, reply);
        TxnTransition previous = pending.putIfAbsent(to.transactionalId(), transition);
        if (previous != null) {
            throw new IllegalStateException("shard " + partition + ": " + to.transactionalId()
                    + " already has a pending transition " + previous);
        }
        return transition;
    }

    private static List<TransactionMetadata> sorted(Iterable<TransactionMetadata> values) {
        List<TransactionMetadata> list = new ArrayList<>();
        values.forEach(list::add);
        list.sort(Comparator.comparing(TransactionMetadata::transactionalId));
        return list;
    }
}
