package dev.strait.broker.controller;

import dev.strait.broker.controller.ControllerMessage.Request;
import dev.strait.broker.controller.ControllerResponse.Error;
import dev.strait.time.Time;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;

/**
 * Both ends of the calls nodes make to the active controller, which together make a repeated attempt harmless.
 *
 * <p>Outbound, this node's pending calls: each goes to the node the Raft node knows as leader (handled in place if
 * that is this node), is repeated after {@code NOT_CONTROLLER}, after {@value #ATTEMPT_TIMEOUT_MS} ms without an
 * answer, or at once when another leader becomes known, and fails with {@link TimeoutException} at its deadline.
 * Every attempt of a call carries the same correlation id.
 *
 * <p>Inbound, while this node is the active controller: the requests it is handling or recently answered, by
 * caller and correlation id, so that a repeated attempt (the caller heard nothing in time) joins the first one
 * instead of applying the mutation twice. Bounded; forgotten when this node stops being the controller, so across
 * a failover a repeat may still find its own earlier attempt committed (e.g. TOPIC_EXISTS); registrations are
 * idempotent by incarnation id.
 *
 * <p>Not thread-safe: owned by the node's event loop ({@link QuorumLoop}), like the futures it completes.
 */
final class ControllerCalls {

    static final long ATTEMPT_TIMEOUT_MS = 3_000;
    static final long RETRY_BACKOFF_MS = 50;
    private static final int RECENT_REQUESTS = 1024;

    /** Where attempts go; the loop's view of the quorum. */
    interface Route {

        /** The node the Raft node knows as leader, or -1. */
        int leaderId();

        /** Handles an attempt in place if this node is the active controller; null if it is not. */
        @Nullable
        CompletableFuture<ControllerResponse> handleHere(long correlationId, ControllerRequest request);

        /** Sends an attempt to another node, best effort. */
        void send(int destination, Request request);
    }

    private final int nodeId;
    private final Time clock;
    private final Route route;
    private final Map<Long, PendingCall> pending = new LinkedHashMap<>();
    /** Random start, so that a restarted node's ids do not meet its previous life's in a controller's memory. */
    private long nextCorrelationId;

    private final Map<String, CompletableFuture<ControllerResponse>> recentRequests =
            new LinkedHashMap<>(256, 0.75f, false) {
                private static final long serialVersionUID = 1L;

                @Override
                protected boolean removeEldestEntry(Map.Entry<String, CompletableFuture<ControllerResponse>> eldest) {
                    return size() > RECENT_REQUESTS;
                }
            };

    private static final class PendingCall {
        final long correlationId;
        final ControllerRequest request;
        final CompletableFuture<ControllerResponse> future;
        final long deadlineMs;
        long nextAttemptMs;
        /** Where the last attempt went (-1: none yet); a new known leader makes the call due at once. */
        int sentTo = -1;

        PendingCall(
                long correlationId,
                ControllerRequest request,
                CompletableFuture<ControllerResponse> future,
                long deadlineMs,
                long nextAttemptMs) {
            this.correlationId = correlationId;
            this.request = request;
            this.future = future;
            this.deadlineMs = deadlineMs;
            this.nextAttemptMs = nextAttemptMs;
        }
    }

    /**
     * @param clock the loop's time of the event it is handling (monotonic ms); read whenever a call moves, answers
     *              to attempts handled in place included
     */
    ControllerCalls(int nodeId, long firstCorrelationId, Time clock, Route route) {
        this.nodeId = nodeId;
        this.nextCorrelationId = firstCorrelationId;
        this.clock = clock;
        this.route = route;
    }

    // ---------------------------------------------------------------- outbound

    /** Starts a call; {@code future} completes with the answer, or with a {@link TimeoutException} at the deadline. */
    void add(ControllerRequest request, CompletableFuture<ControllerResponse> future, long deadlineMs) {
        long id = nextCorrelationId++;
        pending.put(id, new PendingCall(id, request, future, deadlineMs, clock.milliseconds()));
        dispatch();
    }

    /** Fails the calls past their deadline and sends the attempts that are due. */
    void dispatch() {
        if (pending.isEmpty()) {
            return;
        }
        long nowMs = clock.milliseconds();
        List<PendingCall> due = new ArrayList<>();
        for (PendingCall call : List.copyOf(pending.values())) {
            if (nowMs >= call.deadlineMs) {
                pending.remove(call.correlationId);
                call.future.completeExceptionally(new TimeoutException("no answer from the metadata controller for "
                        + call.request.getClass().getSimpleName() + " (known leader " + route.leaderId() + ")"));
            } else if (nowMs >= call.nextAttemptMs || (call.sentTo >= 0 && call.sentTo != route.leaderId())) {
                due.add(call);
            }
        }
        for (PendingCall call : due) {
            CompletableFuture<ControllerResponse> here = route.handleHere(call.correlationId, call.request);
            if (here != null) {
                call.nextAttemptMs = nowMs + ATTEMPT_TIMEOUT_MS;
                call.sentTo = nodeId;
                here.whenComplete((response, error) -> onResponse(
                        call.correlationId,
                        error == null
                                ? response
                                : ControllerResponse.error(Error.INVALID_REQUEST, String.valueOf(error))));
                continue;
            }
            int leader = route.leaderId();
            if (leader >= 0 && leader != nodeId) {
                call.nextAttemptMs = nowMs + ATTEMPT_TIMEOUT_MS;
                call.sentTo = leader;
                route.send(leader, new Request(nodeId, call.correlationId, call.request));
            } else {
                call.sentTo = -1;
                call.nextAttemptMs = nowMs + 2 * RETRY_BACKOFF_MS; // no leader known yet (or not yet active)
            }
        }
    }

    /** An answer to some attempt of a call; {@code NOT_CONTROLLER} makes the call due again after a backoff. */
    void onResponse(long correlationId, ControllerResponse response) {
        PendingCall call = pending.get(correlationId);
        if (call == null) {
            return; // late answer to an attempt we gave up on
        }
        if (response.error() == Error.NOT_CONTROLLER) {
            call.sentTo = -1;
            call.nextAttemptMs = clock.milliseconds() + RETRY_BACKOFF_MS;
            return;
        }
        pending.remove(correlationId);
        call.future.complete(response);
    }

    /** When a call next needs {@link #dispatch()} (its next attempt or its deadline); {@code Long.MAX_VALUE} if none. */
    long nextDeadlineMs() {
        long next = Long.MAX_VALUE;
        for (PendingCall call : pending.values()) {
            next = Math.min(next, Math.min(call.deadlineMs, call.nextAttemptMs));
        }
        return next;
    }

    /** Fails every pending call, each with its own {@code error}: the loop stopped. */
    void failAll(Supplier<? extends Throwable> error) {
        for (PendingCall call : pending.values()) {
            call.future.completeExceptionally(error.get());
        }
        pending.clear();
    }

    // ---------------------------------------------------------------- inbound

    /**
     * The answer to an attempt from {@code source}: the earlier attempt's if one with the same correlation id is in
     * progress or answered (unless it failed or found this node not the controller), otherwise {@code handle}'s.
     */
    CompletableFuture<ControllerResponse> handleOnce(
            int source, long correlationId, Supplier<CompletableFuture<ControllerResponse>> handle) {
        String key = source + ":" + correlationId;
        CompletableFuture<ControllerResponse> earlier = recentRequests.get(key);
        if (earlier != null) {
            boolean repeatable = earlier.isCompletedExceptionally()
                    || (earlier.isDone() && earlier.join().error() == Error.NOT_CONTROLLER);
            if (!repeatable) {
                return earlier;
            }
        }
        CompletableFuture<ControllerResponse> result = handle.get();
        recentRequests.put(key, result);
        return result;
    }

    /** Forgets the recent requests: this node stopped being the controller, or became it for a new epoch. */
    void forgetRecentRequests() {
        recentRequests.clear();
    }
}
