package dev.strait.broker.group;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Optional;

/**
 * The writes of one shard that are in its offsets partition but not durable yet, in log order. A write completes
 * (its durable changes, then its responses) when the partition's high watermark passes its end in the leader epoch
 * it was written in; writes complete strictly in order, so committed offsets move as the log does. When its
 * replication times out, its responses get COORDINATOR_NOT_AVAILABLE but it stays queued: the record is in the log
 * and may still become durable, and then its changes apply, exactly as a reload of the log would apply them. When
 * the shard's leader epoch ends, every write fails with NOT_COORDINATOR and nothing of them applies.
 *
 * <p>Not thread-safe: used only on the shard's loop.
 */
final class PendingWrites {

    /** One write and what waits for it. */
    static final class Pending {
        final OffsetsLog.Appended appended;
        final GroupResult result;
        /** A write that must not give up on a timeout, only on a lost leadership (the load of a shard). */
        final boolean untilDurable;

        private boolean answered;

        Pending(OffsetsLog.Appended appended, GroupResult result, boolean untilDurable) {
            this.appended = appended;
            this.result = result;
            this.untilDurable = untilDurable;
        }
    }

    private final Deque<Pending> queue = new ArrayDeque<>();

    boolean isEmpty() {
        return queue.isEmpty();
    }

    /** Where the last queued write ends, if any. */
    Optional<OffsetsLog.Appended> last() {
        return Optional.ofNullable(queue.peekLast()).map(p -> p.appended);
    }

    boolean contains(Pending pending) {
        return queue.contains(pending);
    }

    Pending add(OffsetsLog.Appended appended, GroupResult result, boolean untilDurable) {
        Pending pending = new Pending(appended, result, untilDurable);
        queue.addLast(pending);
        return pending;
    }

    /**
     * Completes, in order, the writes that {@code position} shows durable; if this node no longer leads the
     * partition in their epoch, fails them all.
     */
    void drain(Optional<OffsetsLog.Position> position, long nowMs) {
        while (!queue.isEmpty()) {
            Pending first = queue.peekFirst();
            if (position.isEmpty() || position.get().leaderEpoch() != first.appended.leaderEpoch()) {
                failAll(GroupError.NOT_COORDINATOR, nowMs);
                return;
            }
            if (first.appended.endOffset() > position.get().highWatermark()) {
                return;
            }
            queue.pollFirst();
            if (first.answered) {
                // Its client already heard an error (a timeout); the change is durable now, so it applies.
                first.result.applyDurableChanges();
            } else {
                first.answered = true;
                first.result.completeDurable();
            }
        }
    }

    /** Its replication timed out: its clients hear COORDINATOR_NOT_AVAILABLE now; it stays queued. */
    void timedOut(Pending pending, long nowMs) {
        if (pending.answered || !queue.contains(pending)) {
            return;
        }
        pending.answered = true;
        pending.result.failResponses(GroupError.COORDINATOR_NOT_AVAILABLE);
        pending.result.runFailureHandlers(GroupError.COORDINATOR_NOT_AVAILABLE, nowMs);
    }

    /** None of the queued writes will become durable here: error responses, and nothing applies. */
    void failAll(GroupError error, long nowMs) {
        while (!queue.isEmpty()) {
            Pending pending = queue.pollFirst();
            if (!pending.answered) {
                pending.answered = true;
                pending.result.failResponses(error);
                pending.result.runFailureHandlers(error, nowMs);
            }
        }
    }
}
