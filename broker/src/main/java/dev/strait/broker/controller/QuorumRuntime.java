package dev.strait.broker.controller;

import dev.strait.broker.controller.ControllerRequest.RegisterBroker;
import dev.strait.broker.log.FaultHandler;
import dev.strait.broker.raft.RaftStorage;
import dev.strait.broker.raft.metadata.MetadataImage;
import dev.strait.broker.raft.metadata.MetadataRecord;
import dev.strait.time.Time;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One node's share of the metadata quorum: opens its Raft storage and transport, and runs its {@link QuorumLoop}
 * (the Raft node, the metadata image, the controller while this node leads, the node's own calls to the
 * controller) on a thread of its own. Its storage, transport, time, randomness and thread come from a
 * {@link QuorumEnvironment}.
 *
 * <h2>Threads</h2>
 * One loop thread ({@code strait-quorum-<id>}) runs the loop, which owns all of the above; nothing there is locked.
 * Other threads only enqueue tasks on a bounded queue: the transport's readers (decoded frames; dropped with a log
 * line when the queue is full, the senders repeat) and callers of {@link #call} and the other methods here (which
 * wait for room). The image is published through a volatile field; change listeners run on the metadata source's
 * callback thread, never on the loop.
 *
 * <h2>One turn of the loop thread</h2>
 * Wait for a task, at most as long as the loop allows ({@link QuorumLoop#maxWaitMs}); hand the queued tasks to the
 * loop, up to {@value #MAX_TASKS_PER_TURN}; end the turn ({@link QuorumLoop#endTurn}), saying whether the queue was
 * drained. An unexpected exception on the loop is fatal for the node: pending calls fail, the loop stops, and the
 * environment's {@link FaultHandler} is told (which stops the broker), because a node whose metadata no longer
 * moves must not keep serving.
 */
final class QuorumRuntime implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(QuorumRuntime.class);
    private static final int QUEUE_TASKS = 10_000;
    private static final int MAX_TASKS_PER_TURN = 1_000;

    private final QuorumConfig settings;
    private final Time time;
    private final FaultHandler faults;
    private final int nodeId;
    private final String prefix;
    private final BlockingQueue<Runnable> tasks = new ArrayBlockingQueue<>(QUEUE_TASKS);
    private final RaftStorage storage;
    private final ControllerTransport transport;
    private final QuorumLoop loop;
    private final Thread thread;
    private final int boundPort;
    private final ReadLease readLease;

    private volatile boolean running = true;
    private volatile @Nullable Throwable fatal;

    /**
     * Opens the Raft log, binds the controller listener and starts the loop.
     *
     * @param publisher receives every new image, on the loop thread; must only publish it (no blocking)
     */
    QuorumRuntime(QuorumConfig settings, QuorumEnvironment environment, Consumer<ClusterImage> publisher) {
        this.settings = settings;
        this.time = environment.time;
        this.faults = environment.faults;
        this.nodeId = settings.nodeId();
        this.prefix = logPrefix(nodeId);
        PreviousLife previousLife = new PreviousLife(settings.metadataLogDir(), environment.bootIdFile);
        try {
            this.storage = environment.storage.open(settings.metadataLogDir());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot open the metadata log in " + settings.metadataLogDir(), e);
        }
        this.readLease = new ReadLease(time, QuorumController.fencingLowerBoundMs(settings.sessionTimeoutMs()));
        PeerLiveness liveness = new PeerLiveness(time, new ControllerTransport.Receiver() {
            @Override
            public void onMessage(ControllerMessage message) {
                onFrame(message);
            }

            @Override
            public void onPeerReachable(int peer) {}

            @Override
            public void onPeerUnreachable(int peer) {
                if (!tasks.offer(() -> loop.onPeerUnreachable(peer))) {
                    LOGGER.debug("{}event queue full; dropped node {} unreachable", prefix, peer);
                }
            }
        });
        this.transport = environment.transport.create(settings, time, liveness);
        this.loop = new QuorumLoop(
                settings,
                time,
                environment.random,
                storage,
                transport,
                liveness,
                readLease,
                previousLife,
                publisher,
                time.hiResClockMs());
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

    /** What every log line of a node's quorum starts with (the nemesis tests look for it). */
    static String logPrefix(int nodeId) {
        return "[QuorumRuntime " + nodeId + "] ";
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
        if (!enqueue(() -> loop.addCall(request, future, deadline), timeoutMs)) {
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
        enqueue(() -> loop.registerBroker(host, port, endpoints, previousNodeEpoch), settings.requestTimeoutMs());
    }

    long registeredNodeEpoch() {
        return loop.registeredNodeEpoch();
    }

    /** For tests: stop (or resume) heartbeating while still following the log, as a hung broker would. */
    void pauseHeartbeats(boolean paused) {
        enqueue(() -> loop.pauseHeartbeats(paused), settings.requestTimeoutMs());
    }

    /** Controlled shutdown: asks the controller to move leaderships away and fence us; bounded wait. */
    void controlledShutdown(long timeoutMs) {
        CompletableFuture<CompletableFuture<Void>> done = new CompletableFuture<>();
        boolean queued = enqueue(() -> done.complete(loop.beginControlledShutdown()), timeoutMs);
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
        enqueue(() -> result.complete(loop.describe()), 1000);
        return result;
    }

    /** The leader this node knows, or -1; and whether this node is the active controller. */
    CompletableFuture<int[]> leaderInfo() {
        CompletableFuture<int[]> result = new CompletableFuture<>();
        if (!enqueue(() -> result.complete(loop.leaderInfo()), 1000)) {
            result.completeExceptionally(new TimeoutException("quorum loop busy"));
        }
        return result;
    }

    /** The leader the loop last saw, or -1; any thread. */
    int knownLeader() {
        return loop.knownLeader();
    }

    /** Whether this node was the active controller when the loop last looked; any thread. */
    boolean isActive() {
        return loop.isActive();
    }

    /**
     * The incarnation this process registered the node with, or null; any thread. A restarted node's image (its
     * snapshot and the log up to its checkpointed high watermark) still shows its previous incarnation, which
     * says nothing about whether the controller accepted this one.
     */
    @Nullable
    UUID brokerIncarnation() {
        return loop.brokerIncarnation();
    }

    @Nullable
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
        if (!tasks.offer(() -> loop.onMessage(message))) {
            LOGGER.warn(
                    "{}event queue full; dropped an inbound {}",
                    prefix,
                    message.getClass().getSimpleName());
        }
    }

    // ---------------------------------------------------------------- the loop thread

    private void run() {
        try {
            while (running) {
                long waitMs = loop.maxWaitMs(time.hiResClockMs());
                Runnable task = tasks.poll(waitMs, TimeUnit.MILLISECONDS);
                int handled = 0;
                while (task != null && running) {
                    loop.handle(task, time.hiResClockMs());
                    task = ++handled < MAX_TASKS_PER_TURN ? tasks.poll() : null;
                }
                loop.endTurn(time.hiResClockMs(), handled < MAX_TASKS_PER_TURN);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Throwable t) {
            fatal = t;
            running = false;
            LOGGER.error("{}metadata quorum loop failed; this node stops following the metadata log", prefix, t);
            faults.handleFault("metadata quorum loop of node " + nodeId, t);
        } finally {
            loop.stop(fatal);
        }
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
        return loop.lastImage();
    }
}
