package dev.strait.broker.controller;

import dev.strait.broker.controller.ControllerMessage.Raft;
import dev.strait.broker.controller.ControllerMessage.Request;
import dev.strait.broker.controller.ControllerMessage.Response;
import dev.strait.broker.controller.ControllerRequest.DescribeQuorum;
import dev.strait.broker.controller.ControllerRequest.Heartbeat;
import dev.strait.broker.controller.ControllerRequest.RegisterBroker;
import dev.strait.broker.controller.ControllerResponse.Error;
import dev.strait.broker.raft.LogEntry;
import dev.strait.broker.raft.QuorumDescription;
import dev.strait.broker.raft.RaftNode;
import dev.strait.broker.raft.RaftStorage;
import dev.strait.broker.raft.metadata.MetadataImage;
import dev.strait.broker.raft.metadata.MetadataRecord;
import dev.strait.broker.raft.metadata.MetadataRecord.RegisterNode;
import dev.strait.time.Time;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import org.apache.kafka.common.Uuid;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The state one node's share of the metadata quorum owns, and the events it handles: the {@link RaftNode}, the
 * metadata image built from its committed log, the {@link QuorumController} while this node leads, this node's
 * own calls to the controller ({@link ControllerCalls}) and its registration and heartbeats as a broker. No thread
 * and no clock of its own: its driver ({@link QuorumRuntime}) calls {@link #handle} for each event and
 * {@link #endTurn} after each batch of them, passing the time, and a test may do the same by hand.
 *
 * <h2>One turn</h2>
 * <ol>
 *   <li>Events, each followed by applying newly committed entries, (de)activating the controller as the leadership
 *       moves and sending due calls.</li>
 *   <li>{@link #endTurn}: append what the controller decided in this turn to the Raft log, all entries with one
 *       fsync (group commit). Decisions are also appended before any Raft message is handled or the Raft node ticks,
 *       since those may change the log or the leadership; so an entry's offset is known when it is decided. Then
 *       tick the Raft node and send this node's own heartbeat if due.</li>
 *   <li>Only if the driver drained its queue: let the controller fence silent nodes. A heartbeat queued behind a
 *       long event therefore always counts before a fencing decision, and a node is never fenced because the loop
 *       was busy.</li>
 * </ol>
 *
 * <p>Not thread-safe and never locked: every method runs on the driver's thread, except the getters that say
 * "any thread" (volatile fields). The image goes to the publisher on that thread.
 */
final class QuorumLoop {

    /** The runtime's logger: one logger for everything a node's quorum logs, whichever class does the work. */
    private static final Logger LOGGER = LoggerFactory.getLogger(QuorumRuntime.class);

    private static final long FENCED_HEARTBEAT_MS = 200;

    private final QuorumConfig settings;
    private final Time time;
    private final Random random;
    private final int nodeId;
    private final String prefix;
    private final Consumer<ClusterImage> publisher;
    private final PeerLiveness liveness;
    private final ControllerTransport transport;
    private final RaftNode raft;
    private final ReadLease readLease;
    /** Where the boot of each registration is kept, so that a crash without a reboot is no unclean shutdown. */
    private final PreviousLife previousLife;

    private final ControllerCalls calls;

    /** Decisions of this turn not yet in the Raft log; their offsets follow the log end in this order. */
    private final List<Unflushed> unflushed = new ArrayList<>();

    /** The time of the event or turn being handled (monotonic ms). */
    private long nowMs;

    private ClusterImage image = ClusterImage.EMPTY;
    /** Whether the publisher has seen an image: not before the Raft node caught up with the quorum. */
    private boolean published;

    private @Nullable QuorumController controller;
    private int controllerEpoch = -1;
    private @Nullable BrokerState broker;

    /** The Raft leader the loop last saw, for other threads; -1 if none. */
    private volatile int knownLeader = -1;
    /** Whether this node was the active controller after the loop's last round; for the metrics, any thread. */
    private volatile boolean active;
    /** Incarnation id of this process's broker registration, for other threads; null before it registers. */
    private volatile @Nullable UUID brokerIncarnation;
    /** This node's epoch as a broker once registered (-1 before): what its clean-shutdown marker records. */
    private volatile long registeredNodeEpoch = -1;

    /** This node as a broker: registration and heartbeat state, once it announced its listener. */
    private static final class BrokerState {
        final RegisterBroker registration;
        long nodeEpoch = -1;
        boolean callInFlight;
        long nextCallMs;
        boolean fenced = true;
        boolean wantShutdown;
        boolean heartbeatsPaused;
        /** A heartbeat answered with a lease grant, waiting for this node's metadata to reach the answer's offset. */
        @Nullable
        LeaseGrant leaseGrant;

        final CompletableFuture<Void> shutdownDone = new CompletableFuture<>();

        BrokerState(RegisterBroker registration) {
            this.registration = registration;
        }
    }

    private record LeaseGrant(long sentAtMs, long metadataOffset) {}

    private record Unflushed(byte[] payload, CompletableFuture<Long> committed) {}

    /**
     * Creates the Raft node on {@code storage}; it sends through {@code transport}, which the caller starts.
     *
     * @param publisher receives every new image, on the loop's thread; must only publish it (no blocking)
     */
    QuorumLoop(
            QuorumConfig settings,
            Time time,
            Random random,
            RaftStorage storage,
            ControllerTransport transport,
            PeerLiveness liveness,
            ReadLease readLease,
            PreviousLife previousLife,
            Consumer<ClusterImage> publisher,
            long nowMs) {
        this.settings = settings;
        this.time = time;
        this.random = random;
        this.nodeId = settings.nodeId();
        this.prefix = QuorumRuntime.logPrefix(nodeId);
        this.publisher = publisher;
        this.transport = transport;
        this.liveness = liveness;
        this.readLease = readLease;
        this.previousLife = previousLife;
        this.nowMs = nowMs;
        // Drawn before the Raft node draws its first election timeout, as ever: a seeded test replays the same ids.
        this.calls = new ControllerCalls(nodeId, random.nextLong() & Long.MAX_VALUE, () -> this.nowMs, new Route());
        this.raft = new RaftNode(
                nodeId,
                settings.voters().keySet(),
                settings.raftConfig(),
                storage,
                message -> transport.send(message.destination(), new Raft(message)),
                random,
                nowMs);
    }

    // ---------------------------------------------------------------- the driver's calls

    /**
     * How long the driver may wait for the next event at {@code nowMs}: until the next deadline of the Raft node,
     * a call, a heartbeat or the controller, at most 100 ms, and not at all while decisions wait to be appended.
     */
    long maxWaitMs(long nowMs) {
        this.nowMs = nowMs;
        long wakeAt = Math.min(raft.nextDeadlineMs(), nextLocalDeadline());
        return unflushed.isEmpty() ? Math.max(0, Math.min(100, wakeAt - nowMs)) : 0;
    }

    /** Handles one event (one of the methods below, or a queued task calling them) at {@code nowMs}. */
    void handle(Runnable event, long nowMs) {
        this.nowMs = nowMs;
        event.run();
        afterEvents();
    }

    /**
     * Ends a turn at {@code nowMs}: appends its decisions, ticks the Raft node and, if {@code drained} (no event
     * was left waiting), lets the controller fence silent nodes.
     */
    void endTurn(long nowMs, boolean drained) {
        this.nowMs = nowMs;
        flushDecisions();
        raft.tick(nowMs);
        afterEvents();
        QuorumController current = controller;
        if (drained && current != null) {
            current.tick(nowMs);
        }
        flushDecisions();
        afterEvents(); // a lone voter commits on the flush: apply it now, not after the next wait
    }

    /** The loop stops for good (closed, or failed with {@code fatal}): everything still waiting on it fails. */
    void stop(@Nullable Throwable fatal) {
        failUnflushed(new IllegalStateException("metadata quorum of node " + nodeId + " stopped", fatal));
        calls.failAll(() -> new IllegalStateException("metadata quorum of node " + nodeId + " stopped", fatal));
        if (broker != null) {
            broker.shutdownDone.complete(null);
        }
    }

    // ---------------------------------------------------------------- events

    /** A call to the active controller (see {@link ControllerCalls}). */
    void addCall(ControllerRequest request, CompletableFuture<ControllerResponse> future, long deadlineMs) {
        calls.add(request, future, deadlineMs);
    }

    /** Starts registering this node as a broker, unless it already did with this endpoint in this process. */
    void registerBroker(String host, int port, List<MetadataRecord.Endpoint> endpoints, long previousNodeEpoch) {
        if (broker != null
                && broker.registration.host().equals(host)
                && broker.registration.port() == port
                && broker.registration.endpoints().equals(endpoints)) {
            return; // already registered (or registering) with this endpoint in this process
        }
        UUID incarnation = new UUID(random.nextLong(), random.nextLong());
        broker = new BrokerState(new RegisterBroker(nodeId, incarnation, host, port, endpoints, previousNodeEpoch));
        broker.nextCallMs = nowMs;
        brokerIncarnation = incarnation;
    }

    void pauseHeartbeats(boolean paused) {
        if (broker != null) {
            broker.heartbeatsPaused = paused;
        }
    }

    /** Starts a controlled shutdown; the result completes when the controller fenced this node (or the loop stops). */
    CompletableFuture<Void> beginControlledShutdown() {
        if (broker == null || broker.nodeEpoch < 0) {
            return CompletableFuture.completedFuture(null);
        }
        broker.wantShutdown = true;
        broker.nextCallMs = nowMs;
        return broker.shutdownDone;
    }

    /** Role, epoch and leader of the Raft node, for tests and logs. */
    String describe() {
        return raft.roleName() + " epoch=" + raft.epoch() + " leader=" + raft.leaderId() + " hw=" + raft.highWatermark()
                + " active=" + (controller != null);
    }

    /** The leader this node knows, or -1; and whether this node is the active controller (1) or not (0). */
    int[] leaderInfo() {
        return new int[] {raft.leaderId(), controller != null ? 1 : 0};
    }

    /** The transport says {@code peer} is gone: if it was the Raft leader, no need to wait out the election timeout. */
    void onPeerUnreachable(int peer) {
        raft.onPeerUnreachable(peer, nowMs);
    }

    void onMessage(ControllerMessage message) {
        if (message instanceof Raft m) {
            if (m.message().destination() != nodeId) {
                LOGGER.warn(
                        "{}dropped a raft message for node {}",
                        prefix,
                        m.message().destination());
                return;
            }
            flushDecisions();
            raft.handle(m.message(), nowMs);
        } else if (message instanceof Request m) {
            QuorumController current = activeController();
            if (current == null) {
                transport.send(
                        m.source(),
                        new Response(m.source(), m.correlationId(), ControllerResponse.notController(raft.leaderId())));
                return;
            }
            handleOnce(current, m.source(), m.correlationId(), m.request())
                    .whenComplete((response, error) -> transport.send(
                            m.source(),
                            new Response(
                                    m.source(),
                                    m.correlationId(),
                                    error == null
                                            ? response
                                            : ControllerResponse.error(Error.INVALID_REQUEST, String.valueOf(error)))));
        } else if (message instanceof Response m) {
            calls.onResponse(m.correlationId(), m.response());
        }
    }

    // ---------------------------------------------------------------- for other threads

    /** The leader the loop last saw, or -1; any thread. */
    int knownLeader() {
        return knownLeader;
    }

    /** Whether this node was the active controller when the loop last looked; any thread. */
    boolean isActive() {
        return active;
    }

    /** The incarnation this process registered the node with, or null; any thread. */
    @Nullable
    UUID brokerIncarnation() {
        return brokerIncarnation;
    }

    /** This node's epoch as a broker once registered, or -1; any thread. */
    long registeredNodeEpoch() {
        return registeredNodeEpoch;
    }

    /** The last image, for logs. */
    MetadataImage lastImage() {
        return image.image();
    }

    // ---------------------------------------------------------------- requests to the active controller

    /** How this node's calls reach the controller: in place while this node is the active one. */
    private final class Route implements ControllerCalls.Route {
        @Override
        public int leaderId() {
            return raft.leaderId();
        }

        @Override
        public @Nullable CompletableFuture<ControllerResponse> handleHere(
                long correlationId, ControllerRequest request) {
            QuorumController current = activeController();
            return current == null ? null : handleOnce(current, nodeId, correlationId, request);
        }

        @Override
        public void send(int destination, Request request) {
            transport.send(destination, request);
        }
    }

    private CompletableFuture<ControllerResponse> handleOnce(
            QuorumController current, int source, long correlationId, ControllerRequest request) {
        if (request instanceof DescribeQuorum) {
            // Read-only and answered from the Raft node: nothing to deduplicate, nothing for the controller.
            return CompletableFuture.completedFuture(describeQuorumHere());
        }
        return calls.handleOnce(source, correlationId, () -> {
            CompletableFuture<ControllerResponse> result = current.handle(request, nowMs);
            if (request instanceof Heartbeat) {
                // Half an election timeout: no other controller can have been elected since (ReadLease).
                boolean confirmed = raft.leadershipConfirmedWithin(
                        nowMs, settings.raftConfig().electionTimeoutMs() / 2);
                result = result.thenApply(r -> r.isOk() ? withLeaseGrant(r, confirmed) : r);
            }
            return result;
        });
    }

    private static ControllerResponse withLeaseGrant(ControllerResponse r, boolean confirmed) {
        return new ControllerResponse(r.error(), r.message(), r.offset(), confirmed ? 1 : 0, r.flag());
    }

    /**
     * This node's Raft leader view of the quorum, its times moved from the loop's monotonic clock to the wall
     * clock (DescribeQuorum reports the leader's wall-clock times); NOT_CONTROLLER if it does not lead.
     */
    private ControllerResponse describeQuorumHere() {
        Optional<QuorumDescription> described = raft.describeQuorum(nowMs);
        if (described.isEmpty()) {
            return ControllerResponse.notController(raft.leaderId());
        }
        long wallMinusMonotonicMs = time.milliseconds() - nowMs;
        QuorumDescription q = described.get();
        return ControllerResponse.quorum(new QuorumDescription(
                q.leaderId(),
                q.leaderEpoch(),
                q.highWatermark(),
                toWallClock(q.voters(), wallMinusMonotonicMs),
                toWallClock(q.observers(), wallMinusMonotonicMs)));
    }

    private static List<QuorumDescription.Replica> toWallClock(
            List<QuorumDescription.Replica> replicas, long offsetMs) {
        List<QuorumDescription.Replica> moved = new ArrayList<>(replicas.size());
        for (QuorumDescription.Replica r : replicas) {
            moved.add(new QuorumDescription.Replica(
                    r.nodeId(),
                    r.logEndOffset(),
                    shift(r.lastFetchMs(), offsetMs),
                    shift(r.lastCaughtUpMs(), offsetMs)));
        }
        return moved;
    }

    private static OptionalLong shift(OptionalLong ms, long offsetMs) {
        return ms.isPresent() ? OptionalLong.of(ms.getAsLong() + offsetMs) : ms;
    }

    // ---------------------------------------------------------------- after every event

    private long nextLocalDeadline() {
        long next = calls.nextDeadlineMs();
        if (broker != null && !broker.callInFlight) {
            next = Math.min(next, broker.nextCallMs);
        }
        if (controller != null) {
            next = Math.min(next, controller.nextDeadlineMs());
        }
        return next;
    }

    private void afterEvents() {
        applyCommitted();
        knownLeader = raft.leaderId();
        active = activeController() != null;
        maybeCallForBroker();
        calls.dispatch();
    }

    private void applyCommitted() {
        long committedEnd = raft.highWatermark();
        ClusterImage next = MetadataSnapshots.catchUp(raft, image);
        for (long offset = next.endOffset(); offset < committedEnd; offset++) {
            LogEntry entry = raft.entry(offset);
            if (entry.kind() == LogEntry.Kind.DATA) {
                List<MetadataRecord> batch = MetadataEntries.decode(entry.payload());
                next = next.apply(offset, batch);
                for (MetadataRecord record : batch) {
                    if (record instanceof RegisterNode registered) {
                        // Registered through some controller since: whatever closed before is an older life.
                        liveness.reachable(registered.nodeId());
                    }
                }
            }
        }
        next = next.withEndOffset(Math.max(next.endOffset(), committedEnd));
        boolean changed = next != image;
        image = next;
        // A restarted node's own log and checkpointed high watermark describe the cluster as it was when it went
        // down: leaders and coordinators that may have moved long since. Serving from that image would let it
        // answer as a leader it no longer is (acks=1 produces, old committed offsets), so, as Kafka's metadata
        // loader, publish nothing until the high watermark learned from the current leader is reached.
        if (raft.hasCaughtUpWithQuorum() && (changed || !published)) {
            if (!published) {
                LOGGER.info("{}caught up with the metadata quorum at offset {}; publishing", prefix, committedEnd);
            }
            published = true;
            publisher.accept(next);
        }
        MetadataSnapshots.maybeTake(raft, image, nowMs);
    }

    // ---------------------------------------------------------------- the controller and its decisions

    /** The controller, if this node leads the current epoch; (de)activates it as leadership moves. */
    private @Nullable QuorumController activeController() {
        if (!raft.isLeader()) {
            if (controller != null) {
                LOGGER.info(
                        "{}no longer the active controller (epoch {}, leader {})",
                        prefix,
                        raft.epoch(),
                        raft.leaderId());
                controller = null;
                controllerEpoch = -1;
                calls.forgetRecentRequests();
            }
            return null;
        }
        if (controller == null || controllerEpoch != raft.epoch()) {
            if (!unflushed.isEmpty()) {
                throw new IllegalStateException(prefix + "decisions of an earlier term were never appended");
            }
            ClusterImage projected = image;
            for (long offset = projected.endOffset(); offset < raft.endOffset(); offset++) {
                LogEntry entry = raft.entry(offset);
                if (entry.kind() == LogEntry.Kind.DATA) {
                    projected = projected.apply(offset, MetadataEntries.decode(entry.payload()));
                }
            }
            projected = projected.withEndOffset(raft.endOffset());
            controllerEpoch = raft.epoch();
            calls.forgetRecentRequests();
            controller = new QuorumController(
                    nodeId,
                    settings.sessionTimeoutMs(),
                    settings.defaultReplicationFactor(),
                    settings.defaultMinInsyncReplicas(),
                    settings.defaultFlushOnAck(),
                    projected,
                    this::propose,
                    this::newTopicId,
                    liveness,
                    nowMs);
        }
        return controller;
    }

    /** Takes one decision for the Raft log; it is appended by the next {@link #flushDecisions()}. */
    private QuorumController.Proposal propose(List<MetadataRecord> batch) {
        if (!raft.isLeader()) {
            throw new IllegalStateException(prefix + "a decision while not the Raft leader: " + batch);
        }
        long offset = raft.endOffset() + unflushed.size();
        CompletableFuture<Long> committed = new CompletableFuture<>();
        unflushed.add(new Unflushed(MetadataEntries.encode(batch), committed));
        return new QuorumController.Proposal(offset, committed);
    }

    /** Appends this turn's decisions with one fsync; if the leadership is gone, they fail (not controller). */
    private void flushDecisions() {
        if (unflushed.isEmpty()) {
            return;
        }
        List<Unflushed> decisions = List.copyOf(unflushed);
        unflushed.clear();
        List<byte[]> payloads = new ArrayList<>(decisions.size());
        for (Unflushed decision : decisions) {
            payloads.add(decision.payload());
        }
        long expectedEnd = raft.endOffset() + payloads.size();
        List<CompletableFuture<Long>> results = raft.propose(payloads, nowMs);
        if (raft.isLeader() && raft.endOffset() != expectedEnd) {
            throw new IllegalStateException(prefix + "decisions appended at the wrong offsets: log end "
                    + raft.endOffset() + ", expected " + expectedEnd);
        }
        for (int i = 0; i < decisions.size(); i++) {
            CompletableFuture<Long> committed = decisions.get(i).committed();
            results.get(i).whenComplete((offset, error) -> {
                if (error != null) {
                    committed.completeExceptionally(error);
                } else {
                    committed.complete(offset);
                }
            });
        }
    }

    private void failUnflushed(Throwable error) {
        for (Unflushed decision : unflushed) {
            decision.committed().completeExceptionally(error);
        }
        unflushed.clear();
    }

    /** A topic id as Kafka's {@code Uuid.randomUuid} would pick it (never a reserved id, never starting '-'). */
    private UUID newTopicId() {
        while (true) {
            Uuid id = new Uuid(random.nextLong(), random.nextLong());
            if (!id.equals(Uuid.ZERO_UUID)
                    && !id.equals(Uuid.ONE_UUID)
                    && !id.toString().startsWith("-")) {
                return new UUID(id.getMostSignificantBits(), id.getLeastSignificantBits());
            }
        }
    }

    // ---------------------------------------------------------------- this node as a broker

    /**
     * Renews the read lease from the last granting heartbeat once this node's metadata holds every decision the
     * controller had made when it answered: until then this node may not know yet that it was moved.
     */
    private void maybeRenewLease(BrokerState state) {
        LeaseGrant grant = state.leaseGrant;
        if (grant != null && image.endOffset() > grant.metadataOffset()) {
            state.leaseGrant = null;
            readLease.renew(grant.sentAtMs());
        }
    }

    private void maybeCallForBroker() {
        BrokerState state = broker;
        if (state != null) {
            maybeRenewLease(state);
        }
        if (state == null || state.callInFlight || nowMs < state.nextCallMs) {
            return;
        }
        if (state.nodeEpoch < 0) {
            state.callInFlight = true;
            CompletableFuture<ControllerResponse> registered = new CompletableFuture<>();
            registered.whenComplete((r, e) -> {
                state.callInFlight = false;
                if (e == null && r.isOk()) {
                    state.nodeEpoch = r.value();
                    registeredNodeEpoch = r.value();
                    previousLife.record(r.value());
                    state.nextCallMs = nowMs;
                    LOGGER.info("{}registered as broker with epoch {}", prefix, state.nodeEpoch);
                } else {
                    state.nextCallMs = nowMs + FENCED_HEARTBEAT_MS;
                }
            });
            calls.add(state.registration, registered, nowMs + settings.requestTimeoutMs());
            return;
        }
        if (state.heartbeatsPaused && !state.wantShutdown) {
            state.nextCallMs = nowMs + settings.heartbeatIntervalMs();
            return;
        }
        state.callInFlight = true;
        boolean shutdown = state.wantShutdown;
        long sentAtMs = nowMs; // every attempt of the call goes out at or after this
        CompletableFuture<ControllerResponse> future = new CompletableFuture<>();
        future.whenComplete((r, e) -> {
            state.callInFlight = false;
            if (e == null && r.isOk() && !r.flag() && r.value() == 1 && !shutdown) {
                state.leaseGrant = new LeaseGrant(sentAtMs, r.offset());
            } else if (e == null && r.isOk() && r.flag()) {
                state.leaseGrant = null;
                readLease.revoke();
            }
            maybeRenewLease(state);
            if (e != null) {
                state.nextCallMs = nowMs + ControllerCalls.RETRY_BACKOFF_MS;
            } else if (r.error() == Error.STALE_BROKER_EPOCH) {
                readLease.revoke();
                LOGGER.info("{}controller does not know epoch {}: registering again", prefix, state.nodeEpoch);
                state.nodeEpoch = -1;
                state.nextCallMs = nowMs;
            } else if (r.isOk()) {
                if (shutdown && r.flag()) {
                    state.shutdownDone.complete(null);
                }
                state.fenced = !shutdown && r.flag();
                // Often enough that the read lease, far shorter than the session, holds without gaps.
                state.nextCallMs = nowMs
                        + (state.fenced || state.wantShutdown
                                ? FENCED_HEARTBEAT_MS
                                : Math.min(settings.heartbeatIntervalMs(), readLease.renewEveryMs()));
            } else {
                state.nextCallMs = nowMs + FENCED_HEARTBEAT_MS;
            }
        });
        calls.add(
                new Heartbeat(nodeId, state.nodeEpoch, image.endOffset(), shutdown),
                future,
                nowMs + Math.max(settings.heartbeatIntervalMs(), ControllerCalls.ATTEMPT_TIMEOUT_MS));
    }
}
