package dev.strait.broker.controller;

import dev.strait.broker.controller.ControllerMessage.Raft;
import dev.strait.broker.controller.ControllerMessage.Request;
import dev.strait.broker.controller.ControllerMessage.Response;
import dev.strait.broker.controller.ControllerRequest.DescribeQuorum;
import dev.strait.broker.controller.ControllerRequest.Heartbeat;
import dev.strait.broker.controller.ControllerRequest.RegisterBroker;
import dev.strait.broker.controller.ControllerResponse.Error;
import dev.strait.broker.log.FaultHandler;
import dev.strait.broker.log.Time;
import dev.strait.broker.raft.LogEntry;
import dev.strait.broker.raft.QuorumDescription;
import dev.strait.broker.raft.RaftNode;
import dev.strait.broker.raft.RaftStorage;
import dev.strait.broker.raft.metadata.MetadataImage;
import dev.strait.broker.raft.metadata.MetadataRecord;
import dev.strait.broker.raft.metadata.MetadataRecord.RegisterNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's share of the metadata quorum: the event loop that owns the {@link RaftNode}, the metadata image
 * built from its committed log, the {@link QuorumController} while this node leads, and the node's own calls to
 * the controller (registration, heartbeats, mutations of its {@link QuorumMetadataSource}). Its storage,
 * transport, time, randomness and thread come from a {@link QuorumEnvironment}.
 *
 * <h2>Threads</h2>
 * One loop thread ({@code strait-quorum-<id>}) owns all of the above; nothing here is locked. Other threads
 * only enqueue tasks on a bounded queue: the transport's readers (decoded frames; dropped with a log line when
 * the queue is full, the senders repeat) and callers of {@link #call} (which wait for room). The image is
 * published through a volatile field; change listeners run on the metadata source's callback thread, never on
 * the loop.
 *
 * <h2>One turn of the loop</h2>
 * <ol>
 *   <li>Run the queued tasks (up to {@value #MAX_TASKS_PER_TURN}), each followed by applying newly committed
 *       entries, (de)activating the controller as the leadership moves and sending due calls.</li>
 *   <li>Append what the controller decided in this turn to the Raft log, all entries with one fsync (group
 *       commit). Decisions are also appended before any Raft message is handled or the Raft node ticks, since
 *       those may change the log or the leadership; so an entry's offset is known when it is decided.</li>
 *   <li>Tick the Raft node; send this node's own heartbeat if due.</li>
 *   <li>Only if the queue was drained: let the controller fence silent nodes. A heartbeat queued behind a long
 *       task therefore always counts before a fencing decision, and a node is never fenced because this loop
 *       was busy.</li>
 * </ol>
 * An unexpected exception on the loop is fatal for the node: pending calls fail, the loop stops, and the
 * environment's {@link FaultHandler} is told (which stops the broker), because a node whose metadata no longer
 * moves must not keep serving.
 *
 * <h2>Calls to the controller</h2>
 * A call goes to the node the Raft node knows as leader (handled in place if that is this node), is repeated
 * after {@code NOT_CONTROLLER} or a silent attempt, and fails with {@link TimeoutException} at its deadline.
 * A repeated mutation may find its own earlier attempt committed (e.g. TOPIC_EXISTS); registrations are
 * idempotent by incarnation id.
 */
final class QuorumRuntime implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(QuorumRuntime.class);
    private static final int QUEUE_TASKS = 10_000;
    private static final int MAX_TASKS_PER_TURN = 1_000;
    private static final long ATTEMPT_TIMEOUT_MS = 3_000;
    private static final long RETRY_BACKOFF_MS = 50;
    private static final long FENCED_HEARTBEAT_MS = 200;

    private final QuorumSettings settings;
    private final Time time;
    private final Random random;
    private final FaultHandler faults;
    private final int nodeId;
    private final String prefix;
    private final BlockingQueue<Runnable> tasks = new ArrayBlockingQueue<>(QUEUE_TASKS);
    private final Consumer<ClusterImage> publisher;
    private final RaftStorage storage;
    private final PeerLiveness liveness;
    private final ControllerTransport transport;
    private final RaftNode raft;
    private final Thread thread;
    private final int boundPort;
    private final ReadLease readLease;

    // Owned by the loop thread.
    private final Map<Long, PendingCall> pending = new LinkedHashMap<>();
    /** Random start, so that a restarted node's ids do not meet its previous life's in a controller's memory. */
    private long nextCorrelationId;
    /**
     * Requests the active controller is handling or recently answered, by caller and correlation id: a repeated
     * attempt (the caller heard nothing in time) joins the first one instead of applying the mutation twice.
     * Bounded; cleared when this node stops being the controller (across a failover a repeat may still find its
     * own earlier attempt committed, e.g. TOPIC_EXISTS).
     */
    private final Map<String, CompletableFuture<ControllerResponse>> recentRequests =
            new LinkedHashMap<>(256, 0.75f, false) {
                private static final long serialVersionUID = 1L;

                @Override
                protected boolean removeEldestEntry(Map.Entry<String, CompletableFuture<ControllerResponse>> eldest) {
                    return size() > 1024;
                }
            };
    /** Decisions of this turn not yet in the Raft log; their offsets follow the log end in this order. */
    private final List<Unflushed> unflushed = new ArrayList<>();

    private long nowMs;
    private ClusterImage image = ClusterImage.EMPTY;
    /** Whether the publisher has seen an image: not before the Raft node caught up with the quorum. */
    private boolean published;

    private QuorumController controller;
    private int controllerEpoch = -1;
    private BrokerState broker;

    private volatile boolean running = true;
    /** The Raft leader the loop last saw, for other threads; -1 if none. */
    private volatile int knownLeader = -1;
    /** Whether this node was the active controller after the loop's last round; for the metrics, any thread. */
    private volatile boolean active;
    /** Incarnation id of this process's broker registration, for other threads; null before it registers. */
    private volatile UUID brokerIncarnation;
    /** This node's epoch as a broker once registered (-1 before): what its clean-shutdown marker records. */
    private volatile long registeredNodeEpoch = -1;
    /** Where the boot of each registration is kept, so that a crash without a reboot is no unclean shutdown. */
    private final PreviousLife previousLife;

    private volatile Throwable fatal;

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
        LeaseGrant leaseGrant;

        final CompletableFuture<Void> shutdownDone = new CompletableFuture<>();

        BrokerState(RegisterBroker registration) {
            this.registration = registration;
        }
    }

    private record LeaseGrant(long sentAtMs, long metadataOffset) {}

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

    private record Unflushed(byte[] payload, CompletableFuture<Long> committed) {}

    /**
     * Opens the Raft log, binds the controller listener and starts the loop.
     *
     * @param publisher receives every new image, on the loop thread; must only publish it (no blocking)
     */
    QuorumRuntime(QuorumSettings settings, QuorumEnvironment environment, Consumer<ClusterImage> publisher) {
        this.settings = settings;
        this.time = environment.time;
        this.random = environment.random;
        this.faults = environment.faults;
        this.nodeId = settings.nodeId();
        this.prefix = "[QuorumRuntime " + nodeId + "] ";
        this.publisher = publisher;
        this.previousLife = new PreviousLife(settings.metadataLogDir(), environment.bootIdFile);
        this.nextCorrelationId = random.nextLong() & Long.MAX_VALUE;
        try {
            this.storage = environment.storage.open(settings.metadataLogDir());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the metadata log in " + settings.metadataLogDir(), e);
        }
        this.readLease =
                new ReadLease(time::hiResClockMs, QuorumController.fencingLowerBoundMs(settings.sessionTimeoutMs()));
        this.liveness = new PeerLiveness(time, new ControllerTransport.Receiver() {
            @Override
            public void onMessage(ControllerMessage message) {
                onFrame(message);
            }

            @Override
            public void onPeerReachable(int peer) {}

            @Override
            public void onPeerUnreachable(int peer) {
                // If it was the Raft leader, the followers need not wait out their election timeout.
                if (!tasks.offer(() -> raft.onPeerUnreachable(peer, nowMs))) {
                    LOGGER.debug("{}event queue full; dropped node {} unreachable", prefix, peer);
                }
            }
        });
        this.transport = environment.transport.create(settings, time, liveness);
        nowMs = time.hiResClockMs();
        this.raft = new RaftNode(
                nodeId,
                settings.voters().keySet(),
                settings.raftConfig(),
                storage,
                message -> transport.send(message.destination(), new Raft(message)),
                random,
                nowMs);
        try {
            this.boundPort = transport.start();
        } catch (IOException e) {
            closeQuietly();
            throw new UncheckedIOException(
                    "node " + nodeId + " cannot bind its controller listener " + settings.listenHost() + ":"
                            + settings.listenPort(),
                    e);
        }
        this.thread = environment.threads.newThread(this::run);
        thread.setName("strait-quorum-" + nodeId);
        thread.start();
        LOGGER.info(
                "{}started: voters {}, controller listener port {}, metadata log {}",
                prefix,
                settings.voters(),
                boundPort,
                settings.metadataLogDir());
    }

    int boundPort() {
        return boundPort;
    }

    /** Whether this node may still trust what its metadata says it leads (renewed by its heartbeats). */
    ReadLease readLease() {
        return readLease;
    }

    // ---------------------------------------------------------------- API for other threads

    /** Sends {@code request} to the active controller, retrying until {@code timeoutMs} has passed. */
    CompletableFuture<ControllerResponse> call(ControllerRequest request, long timeoutMs) {
        CompletableFuture<ControllerResponse> future = new CompletableFuture<>();
        long deadline = time.hiResClockMs() + timeoutMs;
        if (!enqueue(() -> addCall(request, future, deadline), timeoutMs)) {
            future.completeExceptionally(new TimeoutException(
                    "metadata quorum of node " + nodeId + " is " + (running ? "busy" : "stopped")));
        }
        return future;
    }

    /**
     * Starts registering this node as a broker; heartbeats follow. Does not wait for the quorum. Repeating it with
     * the same endpoint is a no-op; a different endpoint registers a new incarnation.
     */
    void registerBroker(String host, int port, List<MetadataRecord.Endpoint> endpoints) {
        registerBroker(host, port, endpoints, RegisterBroker.UNCLEAN);
    }

    /** As above, naming the node epoch of the previous process's clean shutdown (or {@code UNCLEAN}). */
    void registerBroker(String host, int port, List<MetadataRecord.Endpoint> endpoints, long previousNodeEpoch) {
        enqueue(
                () -> {
                    if (broker != null
                            && broker.registration.host().equals(host)
                            && broker.registration.port() == port
                            && broker.registration.endpoints().equals(endpoints)) {
                        return; // already registered (or registering) with this endpoint in this process
                    }
                    UUID incarnation = new UUID(random.nextLong(), random.nextLong());
                    broker = new BrokerState(
                            new RegisterBroker(nodeId, incarnation, host, port, endpoints, previousNodeEpoch));
                    broker.nextCallMs = nowMs;
                    brokerIncarnation = incarnation;
                },
                settings.requestTimeoutMs());
    }

    long registeredNodeEpoch() {
        return registeredNodeEpoch;
    }

    /** For tests: stop (or resume) heartbeating while still following the log, as a hung broker would. */
    void pauseHeartbeats(boolean paused) {
        enqueue(
                () -> {
                    if (broker != null) {
                        broker.heartbeatsPaused = paused;
                    }
                },
                settings.requestTimeoutMs());
    }

    /** Controlled shutdown: asks the controller to move leaderships away and fence us; bounded wait. */
    void controlledShutdown(long timeoutMs) {
        CompletableFuture<CompletableFuture<Void>> done = new CompletableFuture<>();
        boolean queued = enqueue(
                () -> {
                    if (broker == null || broker.nodeEpoch < 0) {
                        done.complete(CompletableFuture.completedFuture(null));
                        return;
                    }
                    broker.wantShutdown = true;
                    broker.nextCallMs = nowMs;
                    done.complete(broker.shutdownDone);
                },
                timeoutMs);
        if (!queued) {
            return;
        }
        try {
            done.get(timeoutMs, TimeUnit.MILLISECONDS).get(timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOGGER.warn("{}controlled shutdown did not complete within {} ms; stopping anyway", prefix, timeoutMs);
        }
    }

    /** A snapshot for tests and logs: role, epoch and leader of the Raft node. */
    CompletableFuture<String> describe() {
        CompletableFuture<String> result = new CompletableFuture<>();
        enqueue(
                () -> result.complete(raft.roleName() + " epoch=" + raft.epoch() + " leader=" + raft.leaderId() + " hw="
                        + raft.highWatermark() + " active=" + (controller != null)),
                1000);
        return result;
    }

    /** The leader this node knows, or -1; and whether this node is the active controller. */
    CompletableFuture<int[]> leaderInfo() {
        CompletableFuture<int[]> result = new CompletableFuture<>();
        if (!enqueue(() -> result.complete(new int[] {raft.leaderId(), controller != null ? 1 : 0}), 1000)) {
            result.completeExceptionally(new TimeoutException("quorum loop busy"));
        }
        return result;
    }

    /** The leader the loop last saw, or -1; any thread. */
    int knownLeader() {
        return knownLeader;
    }

    /** Whether this node was the active controller when the loop last looked; any thread. */
    boolean isActive() {
        return active;
    }

    /**
     * The incarnation this process registered the node with, or null; any thread. A restarted node's image (its
     * snapshot and the log up to its checkpointed high watermark) still shows its previous incarnation, which
     * says nothing about whether the controller accepted this one.
     */
    UUID brokerIncarnation() {
        return brokerIncarnation;
    }

    Throwable fatalError() {
        return fatal;
    }

    private boolean enqueue(Runnable task, long timeoutMs) {
        if (!running) {
            return false;
        }
        try {
            return tasks.offer(task, timeoutMs, TimeUnit.MILLISECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private void onFrame(ControllerMessage message) {
        if (!tasks.offer(() -> onMessage(message))) {
            LOGGER.warn(
                    "{}event queue full; dropped an inbound {}",
                    prefix,
                    message.getClass().getSimpleName());
        }
    }

    // ---------------------------------------------------------------- the loop

    private void run() {
        try {
            while (running) {
                nowMs = time.hiResClockMs();
                long wakeAt = Math.min(raft.nextDeadlineMs(), nextLocalDeadline());
                long waitMs = unflushed.isEmpty() ? Math.max(0, Math.min(100, wakeAt - nowMs)) : 0;
                Runnable task = tasks.poll(waitMs, TimeUnit.MILLISECONDS);
                int handled = 0;
                while (task != null && running) {
                    nowMs = time.hiResClockMs();
                    task.run();
                    afterEvents();
                    task = ++handled < MAX_TASKS_PER_TURN ? tasks.poll() : null;
                }
                boolean drained = handled < MAX_TASKS_PER_TURN;
                nowMs = time.hiResClockMs();
                flushDecisions();
                raft.tick(nowMs);
                afterEvents();
                QuorumController active = controller;
                if (drained && active != null) {
                    active.tick(nowMs);
                }
                flushDecisions();
                afterEvents(); // a lone voter commits on the flush: apply it now, not after the next wait
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable t) {
            fatal = t;
            running = false;
            LOGGER.error("{}metadata quorum loop failed; this node stops following the metadata log", prefix, t);
            faults.handleFault("metadata quorum loop of node " + nodeId, t);
        } finally {
            failUnflushed(new IllegalStateException("metadata quorum of node " + nodeId + " stopped", fatal));
            for (PendingCall call : pending.values()) {
                call.future.completeExceptionally(
                        new IllegalStateException("metadata quorum of node " + nodeId + " stopped", fatal));
            }
            pending.clear();
            if (broker != null) {
                broker.shutdownDone.complete(null);
            }
        }
    }

    private long nextLocalDeadline() {
        long next = Long.MAX_VALUE;
        for (PendingCall call : pending.values()) {
            next = Math.min(next, Math.min(call.deadlineMs, call.nextAttemptMs));
        }
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
        dispatchCalls();
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

    /** The controller, if this node leads the current epoch; (de)activates it as leadership moves. */
    private QuorumController activeController() {
        if (!raft.isLeader()) {
            if (controller != null) {
                LOGGER.info(
                        "{}no longer the active controller (epoch {}, leader {})",
                        prefix,
                        raft.epoch(),
                        raft.leaderId());
                controller = null;
                controllerEpoch = -1;
                recentRequests.clear();
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
            recentRequests.clear();
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

    // ---------------------------------------------------------------- inbound

    private void onMessage(ControllerMessage message) {
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
            QuorumController active = activeController();
            if (active == null) {
                transport.send(
                        m.source(),
                        new Response(m.source(), m.correlationId(), ControllerResponse.notController(raft.leaderId())));
                return;
            }
            handleOnce(active, m.source(), m.correlationId(), m.request())
                    .whenComplete((response, error) -> transport.send(
                            m.source(),
                            new Response(
                                    m.source(),
                                    m.correlationId(),
                                    error == null
                                            ? response
                                            : ControllerResponse.error(Error.INVALID_REQUEST, String.valueOf(error)))));
        } else if (message instanceof Response m) {
            onResponse(m.correlationId(), m.response());
        }
    }

    private CompletableFuture<ControllerResponse> handleOnce(
            QuorumController active, int source, long correlationId, ControllerRequest request) {
        if (request instanceof DescribeQuorum) {
            // Read-only and answered from the Raft node: nothing to deduplicate, nothing for the controller.
            return CompletableFuture.completedFuture(describeQuorumHere());
        }
        String key = source + ":" + correlationId;
        CompletableFuture<ControllerResponse> earlier = recentRequests.get(key);
        if (earlier != null) {
            boolean repeatable = earlier.isCompletedExceptionally()
                    || (earlier.isDone() && earlier.join().error() == Error.NOT_CONTROLLER);
            if (!repeatable) {
                return earlier;
            }
        }
        CompletableFuture<ControllerResponse> result = active.handle(request, nowMs);
        if (request instanceof Heartbeat) {
            // Half an election timeout: no other controller can have been elected since (ReadLease).
            boolean confirmed =
                    raft.leadershipConfirmedWithin(nowMs, settings.raftConfig().electionTimeoutMs() / 2);
            result = result.thenApply(r -> r.isOk() ? withLeaseGrant(r, confirmed) : r);
        }
        recentRequests.put(key, result);
        return result;
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

    // ---------------------------------------------------------------- outbound calls

    private void addCall(ControllerRequest request, CompletableFuture<ControllerResponse> future, long deadlineMs) {
        long id = nextCorrelationId++;
        pending.put(id, new PendingCall(id, request, future, deadlineMs, nowMs));
        dispatchCalls();
    }

    private void dispatchCalls() {
        if (pending.isEmpty()) {
            return;
        }
        List<PendingCall> due = new ArrayList<>();
        for (PendingCall call : List.copyOf(pending.values())) {
            if (nowMs >= call.deadlineMs) {
                pending.remove(call.correlationId);
                call.future.completeExceptionally(new TimeoutException("no answer from the metadata controller for "
                        + call.request.getClass().getSimpleName() + " (known leader " + raft.leaderId() + ")"));
            } else if (nowMs >= call.nextAttemptMs || (call.sentTo >= 0 && call.sentTo != currentTarget())) {
                due.add(call);
            }
        }
        for (PendingCall call : due) {
            QuorumController active = activeController();
            if (active != null) {
                call.nextAttemptMs = nowMs + ATTEMPT_TIMEOUT_MS;
                call.sentTo = nodeId;
                handleOnce(active, nodeId, call.correlationId, call.request)
                        .whenComplete((response, error) -> onResponse(
                                call.correlationId,
                                error == null
                                        ? response
                                        : ControllerResponse.error(Error.INVALID_REQUEST, String.valueOf(error))));
                continue;
            }
            int leader = raft.leaderId();
            if (leader >= 0 && leader != nodeId) {
                call.nextAttemptMs = nowMs + ATTEMPT_TIMEOUT_MS;
                call.sentTo = leader;
                transport.send(leader, new Request(nodeId, call.correlationId, call.request));
            } else {
                call.sentTo = -1;
                call.nextAttemptMs = nowMs + 2 * RETRY_BACKOFF_MS; // no leader known yet (or not yet active)
            }
        }
    }

    /** The node calls go to now: the known Raft leader, or -1. */
    private int currentTarget() {
        return raft.leaderId();
    }

    private void onResponse(long correlationId, ControllerResponse response) {
        PendingCall call = pending.get(correlationId);
        if (call == null) {
            return; // late answer to an attempt we gave up on
        }
        if (response.error() == Error.NOT_CONTROLLER) {
            call.sentTo = -1;
            call.nextAttemptMs = nowMs + RETRY_BACKOFF_MS;
            return;
        }
        pending.remove(correlationId);
        call.future.complete(response);
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
            addCall(state.registration, registered, nowMs + settings.requestTimeoutMs());
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
                state.nextCallMs = nowMs + RETRY_BACKOFF_MS;
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
        addCall(
                new Heartbeat(nodeId, state.nodeEpoch, image.endOffset(), shutdown),
                future,
                nowMs + Math.max(settings.heartbeatIntervalMs(), ATTEMPT_TIMEOUT_MS));
    }

    // ---------------------------------------------------------------- close

    @Override
    public void close() {
        // No interrupt: it would close the Raft log's file channels under the loop (ClosedByInterruptException).
        running = false;
        tasks.offer(() -> {});
        if (Thread.currentThread() != thread) {
            try {
                thread.join(5_000);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        closeQuietly();
        LOGGER.info("{}stopped", prefix);
    }

    private void closeQuietly() {
        transport.close();
        if (storage instanceof AutoCloseable closeable) {
            try {
                closeable.close();
            } catch (Exception e) {
                LOGGER.warn("{}closing the metadata log: {}", prefix, e.toString());
            }
        }
    }

    /** For logs. */
    MetadataImage lastImage() {
        return image.image();
    }
}
