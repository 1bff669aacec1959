package dev.strait.broker.controller;

import dev.strait.broker.metadata.BrokerRegistration;
import dev.strait.broker.raft.RaftConfig;
import dev.strait.time.Time;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import java.util.function.UnaryOperator;

/**
 * N nodes, each a {@link QuorumMetadataSource} with its own controller (every node is broker and controller
 * voter), on 127.0.0.1 ports picked before start so that every node can name every voter. No BrokerServer:
 * each node registers a made-up client port. Timings are short so that elections and fencing take well under
 * a second or two. Every wait is bounded. A fatal fault of any node's quorum loop is recorded and fails
 * {@link #close()}.
 */
final class QuorumTestCluster implements AutoCloseable {

    static final long SESSION_TIMEOUT_MS = 1_500;
    static final long HEARTBEAT_MS = 250;
    static final Duration WAIT = Duration.ofSeconds(30);
    private static final AtomicLong STARTS = new AtomicLong();

    private final Path baseDir;
    private final Map<Integer, InetSocketAddress> voters = new LinkedHashMap<>();
    private final QuorumMetadataSource[] nodes;
    private final List<String> faults = new CopyOnWriteArrayList<>();
    private long sessionTimeoutMs = SESSION_TIMEOUT_MS;
    private UnaryOperator<QuorumEnvironment> environment = UnaryOperator.identity();

    QuorumTestCluster(Path baseDir, int size) {
        this.baseDir = baseDir;
        this.nodes = new QuorumMetadataSource[size];
        for (int id = 0; id < size; id++) {
            voters.put(id, new InetSocketAddress("127.0.0.1", freePort()));
        }
    }

    /** Every node's controller fences a silent node after this long (default {@value #SESSION_TIMEOUT_MS} ms). */
    QuorumTestCluster sessionTimeoutMs(long timeoutMs) {
        this.sessionTimeoutMs = timeoutMs;
        return this;
    }

    /** Changes every node's environment (e.g. its storage) before it opens. */
    QuorumTestCluster environment(UnaryOperator<QuorumEnvironment> change) {
        this.environment = change;
        return this;
    }

    /** The environment of a test node: the system clock, a seeded random source, faults recorded. */
    static QuorumEnvironment testEnvironment(int nodeId, List<String> faults) {
        // Every start is a new process: seeded by the node alone, a restarted node drew its previous life's
        // incarnation id, and the controller took its new registration for a retry of the old one.
        long start = STARTS.incrementAndGet();
        return QuorumEnvironment.of(
                Time.SYSTEM,
                new Random(31L * nodeId + 7 + 1_000_003L * start),
                (what, cause) -> faults.add(what + ": " + cause));
    }

    /** Fatal faults reported so far, one line each. */
    List<String> faults() {
        return faults;
    }

    /** Opens every node, then registers them all at once (registration waits for the quorum, briefly). */
    QuorumTestCluster startAll() {
        for (int id = 0; id < nodes.length; id++) {
            nodes[id] = open(id);
        }
        List<java.util.concurrent.CompletableFuture<Void>> registrations = new ArrayList<>();
        for (int id = 0; id < nodes.length; id++) {
            QuorumMetadataSource node = nodes[id];
            int port = 19_000 + id;
            registrations.add(
                    java.util.concurrent.CompletableFuture.runAsync(() -> node.registerLocalBroker("127.0.0.1", port)));
        }
        registrations.forEach(java.util.concurrent.CompletableFuture::join);
        return this;
    }

    QuorumMetadataSource start(int id) {
        QuorumMetadataSource node = open(id);
        node.registerLocalBroker("127.0.0.1", 19_000 + id);
        nodes[id] = node;
        return node;
    }

    private QuorumMetadataSource open(int id) {
        QuorumConfig settings = new QuorumConfig(
                id,
                voters,
                "127.0.0.1",
                voters.get(id).getPort(),
                baseDir.resolve("node-" + id).resolve("__cluster_metadata-0"),
                sessionTimeoutMs,
                HEARTBEAT_MS,
                1,
                10_000,
                2_000,
                new RaftConfig(500, 300, 250, 20, 200, 1_500, 500));
        return QuorumMetadataSource.open(settings, environment.apply(testEnvironment(id, faults)));
    }

    QuorumMetadataSource node(int id) {
        return nodes[id];
    }

    int size() {
        return nodes.length;
    }

    List<QuorumMetadataSource> running() {
        List<QuorumMetadataSource> running = new ArrayList<>();
        for (QuorumMetadataSource node : nodes) {
            if (node != null) {
                running.add(node);
            }
        }
        return running;
    }

    void stop(int id) {
        nodes[id].close();
        nodes[id] = null;
    }

    /** Stops a node without a controlled shutdown: its connections close, as when its process is killed. */
    void kill(int id) {
        nodes[id].closeAbruptly();
        nodes[id] = null;
    }

    /** The id of the active controller, once exactly one running node says it is. */
    int awaitActiveController() {
        int[] found = new int[1];
        await("an active controller", () -> {
            int active = -1;
            int count = 0;
            for (QuorumMetadataSource node : running()) {
                if (node.leaderInfo()[1] == 1) {
                    active = node.localNodeId();
                    count++;
                }
            }
            found[0] = active;
            return count == 1;
        });
        return found[0];
    }

    /** Waits until every running node sees every running node registered and unfenced. */
    void awaitAllUnfenced() {
        await("all running nodes registered and unfenced everywhere", () -> {
            List<Integer> ids =
                    running().stream().map(QuorumMetadataSource::localNodeId).toList();
            for (QuorumMetadataSource node : running()) {
                List<Integer> unfenced = node.brokers().stream()
                        .filter(b -> !b.fenced())
                        .map(BrokerRegistration::id)
                        .toList();
                if (!unfenced.containsAll(ids)) {
                    return false;
                }
            }
            return true;
        });
    }

    static void await(String what, BooleanSupplier condition) {
        long deadline = System.nanoTime() + WAIT.toNanos();
        while (System.nanoTime() < deadline) {
            if (condition.getAsBoolean()) {
                return;
            }
            try {
                Thread.sleep(20);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError("interrupted waiting for " + what);
            }
        }
        throw new AssertionError("timed out after " + WAIT + " waiting for " + what);
    }

    static int freePort() {
        return dev.strait.broker.server.LoopbackPorts.reserve();
    }

    @Override
    public void close() {
        for (int id = 0; id < nodes.length; id++) {
            if (nodes[id] != null) {
                try {
                    nodes[id].close();
                } catch (RuntimeException e) {
                    // keep closing the others
                }
                nodes[id] = null;
            }
        }
        if (!faults.isEmpty()) {
            throw new AssertionError("fatal faults in the quorum: " + faults);
        }
    }
}
