package dev.strait.broker.txn;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * One shard of the transaction coordinator at run time: its {@link TransactionCoordinatorCore} and the writes of it
 * that are in the {@code __transaction_state} partition but not durable yet. Durable first, as the group
 * coordinator's {@code PendingWrites}: a transition's record is appended, and only when the partition's high
 * watermark passed it (and every write before it) in the leader epoch it was written in does the core
 * {@link TransactionCoordinatorCore#apply apply} it, the requester hear its answer and the markers it owes go to
 * the {@link MarkerSink}. A write whose replication times out answers COORDINATOR_NOT_AVAILABLE but stays queued: it
 * may still become durable, and then it applies, exactly as a reload of the log would. When the leader epoch ends,
 * the core resigns and every queued write answers NOT_COORDINATOR.
 *
 * <p>Not thread-safe: driven by the shard's loop (the replica layer's progress callbacks are queued to it).
 */
public final class TransactionShard {

    /** Where the markers a PrepareCommit/PrepareAbort owes go once durable (the marker sender). */
    @FunctionalInterface
    public interface MarkerSink {
        void write(WriteMarkers markers);
    }

    private static final class Pending {
        final TxnTransition transition;
        final TransactionLog.Appended appended;
        final long appendedAtMs;
        final Consumer<TxnReply> answer;
        boolean answered;

        Pending(TxnTransition transition, TransactionLog.Appended appended, long appendedAtMs, Consumer<TxnReply> a) {
            this.transition = transition;
            this.appended = appended;
            this.appendedAtMs = appendedAtMs;
            this.answer = a;
        }
    }

    /** A decided transaction whose markers are all written: {@code prepared} is the value its completion replaces. */
    private record OwedCompletion(WriteMarkers markers, TransactionMetadata prepared) {}

    private final TransactionCoordinatorCore core;
    private final TransactionLog log;
    private final MarkerSink markers;
    private final long writeTimeoutMs;
    private final Deque<Pending> writes = new ArrayDeque<>();
    /**
     * Completions not applied yet, by transactional id. The marker sender reports a round once; if the Complete
     * record cannot be appended then (the partition refuses appends while its ISR is below min.insync.replicas), the
     * tick writes it again, or the transaction would stay prepared and every request of its id would answer
     * CONCURRENT_TRANSACTIONS until the next leader change.
     */
    private final Map<String, OwedCompletion> completions = new HashMap<>();

    /**
     * @param core a {@link TransactionCoordinatorCore#loaded loaded} core (LOADING); {@link #activate} once what it
     *     replayed is durable
     * @param writeTimeoutMs how long a requester waits for its write to become durable
     */
    public TransactionShard(
            TransactionCoordinatorCore core, TransactionLog log, MarkerSink markers, long writeTimeoutMs) {
        this.core = core;
        this.log = log;
        this.markers = markers;
        this.writeTimeoutMs = writeTimeoutMs;
    }

    public TransactionCoordinatorCore core() {
        return core;
    }

    /** Queued writes not yet durable (for tests and metrics). */
    public int pendingWrites() {
        return writes.size();
    }

    /** What was replayed is durable: serve, and send the markers a previous coordinator may not have written. */
    public void activate() {
        for (WriteMarkers owed : core.activate()) {
            markers.write(owed);
        }
    }

    /**
     * Carries out what a request to the core yielded: a refusal or an answer at once, a transition appended and
     * answered once durable.
     */
    public void complete(TxnResult result, long nowMs, Consumer<TxnReply> answer) {
        if (result instanceof TxnResult.Refused refused) {
            answer.accept(TxnReply.error(refused.error()));
        } else if (result instanceof TxnResult.Answered answered) {
            answer.accept(answered.reply());
        } else {
            write(((TxnResult.Write) result).transition(), nowMs, answer);
        }
    }

    /** Periodic work: abort transactions past their timeout, expire idle transactional ids, time out writes. */
    public void tick(long nowMs) {
        for (TxnTransition abort : core.abortTimedOut(nowMs)) {
            write(abort, nowMs, reply -> {});
        }
        for (TxnTransition expire : core.expireTransactionalIds(nowMs)) {
            write(expire, nowMs, reply -> {});
        }
        for (OwedCompletion owed : List.copyOf(completions.values())) {
            tryComplete(owed, nowMs);
        }
        for (Pending pending : writes) {
            if (!pending.answered && pending.appendedAtMs + writeTimeoutMs <= nowMs) {
                pending.answered = true;
                pending.answer.accept(TxnReply.error(TxnError.COORDINATOR_NOT_AVAILABLE));
            }
        }
        onReplicationProgress();
    }

    /** Every marker of a decided transaction was written: complete it (CompleteCommit/CompleteAbort). */
    public void markersWritten(WriteMarkers written, long nowMs) {
        TransactionMetadata prepared = core.current(written.transactionalId());
        if (prepared == null
                || !prepared.state().isPrepared()
                || prepared.producerId() != written.producerId()
                || prepared.producerEpoch() != written.producerEpoch()) {
            return; // the transaction moved on (a round a failover overtook)
        }
        OwedCompletion owed = new OwedCompletion(written, prepared);
        completions.put(written.transactionalId(), owed);
        tryComplete(owed, nowMs);
    }

    /**
     * Writes the completion of {@code owed} unless its transaction moved on (completed, or replaced by a newer value:
     * forgotten) or a write of its id is under way (the next tick looks again).
     */
    private void tryComplete(OwedCompletion owed, long nowMs) {
        String id = owed.markers().transactionalId();
        if (!owed.prepared().equals(core.current(id))) {
            completions.remove(id, owed);
            return;
        }
        if (core.pending(id) != null) {
            return;
        }
        complete(
                core.markersWritten(
                        id, owed.markers().producerId(), owed.markers().producerEpoch(), nowMs),
                nowMs,
                reply -> {});
    }

    /** The partition's high watermark moved or its leadership changed: complete, in order, what is durable. */
    public void onReplicationProgress() {
        Optional<TransactionLog.Position> position = log.position(core.partition());
        while (!writes.isEmpty()) {
            Pending first = writes.peekFirst();
            if (position.isEmpty() || position.get().leaderEpoch() != first.appended.leaderEpoch()) {
                resign();
                return;
            }
            if (first.appended.endOffset() > position.get().highWatermark()) {
                return;
            }
            writes.pollFirst();
            TransactionCoordinatorCore.Applied applied = core.apply(first.transition);
            if (!first.answered) {
                first.answered = true;
                first.answer.accept(applied.reply());
            }
            WriteMarkers owed = applied.markers();
            if (owed != null) {
                markers.write(owed);
            }
        }
    }

    /** This node no longer leads the partition: nothing queued applies, and its requesters find the new one. */
    public void resign() {
        core.resign();
        completions.clear();
        List<Pending> dropped = new ArrayList<>(writes);
        writes.clear();
        for (Pending pending : dropped) {
            if (!pending.answered) {
                pending.answered = true;
                pending.answer.accept(TxnReply.error(TxnError.NOT_COORDINATOR));
            }
        }
    }

    private void write(TxnTransition transition, long nowMs, Consumer<TxnReply> answer) {
        TransactionLog.Appended appended;
        try {
            appended = log.append(core.partition(), TransactionRecords.entry(transition.to()));
        } catch (TransactionLog.AppendFailedException e) {
            core.abandon(transition);
            answer.accept(TxnReply.error(e.error()));
            return;
        }
        writes.addLast(new Pending(transition, appended, nowMs, answer));
        onReplicationProgress();
    }

    /** The transition queued for {@code transactionalId}, if any (tests). */
    @Nullable
    TxnTransition queued(String transactionalId) {
        for (Pending pending : writes) {
            if (pending.transition.transactionalId().equals(transactionalId)) {
                return pending.transition;
            }
        }
        return null;
    }
}
