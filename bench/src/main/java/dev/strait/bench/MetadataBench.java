package dev.strait.bench;

import dev.strait.broker.controller.QuorumConfig;
import dev.strait.broker.controller.QuorumEnvironment;
import dev.strait.broker.controller.QuorumMetadataSource;
import dev.strait.broker.metadata.BrokerRegistration;
import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.raft.RaftConfig;
import dev.strait.mirror.progress.Progress;
import dev.strait.time.Time;
import java.io.IOException;
import java.lang.management.ManagementFactory;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.kafka.common.Uuid;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The metadata quorum under a long history: {@code bin/bench metadata [--changes 100000] [--partitions 50]
 * [--snapshot-bytes 1048576] [--mode both|snapshots|whole-log] [--dir DIR]}.
 *
 * <p>Three in-process nodes, each a real {@link QuorumMetadataSource} (Raft node on files, controller, controller
 * listener on 127.0.0.1), every node broker and controller voter. A topic of P partitions (RF 3); then N ISR
 * flaps through the controller (each partition's leader asks, with Kafka's AlterPartition, to shrink the ISR to
 * itself, then to expand it back; P partitions flap concurrently), each one a committed metadata record. Then:
 * heap used after a full GC with the three nodes up, the metadata directories on disk, and a restart of all
 * three nodes (crash-style, no controlled shutdown) timed from {@code open()} until every node's own image
 * holds every change (after a two-second pause, so a checkpoint of the high watermark is on disk), and the heap
 * after that.
 *
 * <p>Mode {@code snapshots}: {@code metadata.log.max.record.bytes.between.snapshots} = the given bytes, and the
 * high watermark checkpointed every second. Mode {@code whole-log} emulates the code before snapshots: no
 * snapshot and no high-watermark checkpoint, so the whole log is kept, on disk and on the heap, and a restarted
 * node replays it from offset 0 once a leader told it what is committed. {@code both} runs one after the other in this JVM.
 * Data goes to a temporary directory under {@code --dir} (default: the system temp dir), deleted at the end.
 */
public final class MetadataBench {

    private static final int NODES = 3;
    private static final String TOPIC = "flaps";
    private static final long WAIT_MS = 600_000;

    private MetadataBench() {}

    record Options(long changes, int partitions, long snapshotBytes, List<Boolean> modes, Path dir) {}

    record Result(
            String mode,
            long changes,
            double seconds,
            long heapBeforeBytes,
            long heapAfterBytes,
            long logBytesPerNode,
            long snapshotBytesPerNode,
            long restartOpenMs,
            long restartCaughtUpMs,
            long heapAfterRestartBytes) {}

    public static void main(String[] args) throws Exception {
        Options options = BenchFlags.parseOrExit("bench metadata", args, MetadataBench::parse, MetadataBench::usage);
        if (options == null) {
            return;
        }
        List<Result> results = new ArrayList<>();
        for (boolean snapshots : options.modes()) {
            results.add(run(options, snapshots));
        }
        print(options, results);
    }

    /** The flags of {@code bin/bench metadata} (picocli), with their defaults. */
    @Command(
            name = "bin/bench metadata",
            description = "The metadata quorum under a long history of ISR changes, with and without snapshots: "
                    + "heap, bytes on disk and the time of a restart of all three nodes.")
    static final class Flags {
        @Option(names = "--changes", paramLabel = "N", description = "ISR changes committed.")
        long changes = 100_000;

        @Option(names = "--partitions", paramLabel = "P", description = "Partitions of the topic (RF 3).")
        int partitions = 50;

        @Option(
                names = "--snapshot-bytes",
                paramLabel = "BYTES",
                description = "metadata.log.max.record.bytes.between.snapshots of mode snapshots.")
        long snapshotBytes = 1024 * 1024;

        @Option(names = "--mode", paramLabel = "both|snapshots|whole-log", description = "Which modes, in turn.")
        String mode = "both";

        @Option(
                names = "--dir",
                paramLabel = "DIR",
                description = "Where the temporary data directory goes (default: the system temp dir).")
        Path dir = Path.of(System.getProperty("java.io.tmpdir"));
    }

    static String usage() {
        return BenchFlags.usage(new Flags());
    }

    /** The options, or null if help was asked for. */
    static @Nullable Options parse(String[] args) {
        Flags f = new Flags();
        if (!BenchFlags.parse(f, args)) {
            return null;
        }
        List<Boolean> modes = switch (f.mode) {
            case "both" -> List.of(true, false);
            case "snapshots" -> List.of(true);
            case "whole-log" -> List.of(false);
            default -> throw new IllegalArgumentException("--mode must be both, snapshots or whole-log, not " + f.mode);
        };
        if (f.changes < 1 || f.partitions < 1 || f.snapshotBytes < 1) {
            throw new IllegalArgumentException("--changes, --partitions and --snapshot-bytes must be positive");
        }
        return new Options(f.changes, f.partitions, f.snapshotBytes, modes, f.dir);
    }

    // ---------------------------------------------------------------- one mode

    private static Result run(Options options, boolean snapshots) throws Exception {
        String mode = snapshots ? "snapshots every " + options.snapshotBytes() + " B" : "whole log, as before";
        System.err.printf(Locale.ROOT, "bench metadata: %s: starting 3 nodes%n", mode);
        Path base = Files.createTempDirectory(options.dir(), "strait-metadata-bench-");
        Map<Integer, InetSocketAddress> voters = new LinkedHashMap<>();
        for (int id = 0; id < NODES; id++) {
            voters.put(id, new InetSocketAddress("127.0.0.1", freePort()));
        }
        RaftConfig raft = snapshots
                ? RaftConfig.defaults().withSnapshots(options.snapshotBytes(), 0)
                // the behaviour before snapshots: no snapshot, and no high-watermark checkpoint after the first
                : RaftConfig.defaults()
                        .withSnapshots(Long.MAX_VALUE, 0)
                        .withTransfer(RaftConfig.DEFAULT_SNAPSHOT_CHUNK_BYTES, Long.MAX_VALUE / 4);
        QuorumMetadataSource[] nodes = new QuorumMetadataSource[NODES];
        try {
            for (int id = 0; id < NODES; id++) {
                nodes[id] = QuorumMetadataSource.open(
                        settings(id, voters, base, raft),
                        QuorumEnvironment.of(Time.SYSTEM, new Random(id), (what, cause) -> {
                            throw new IllegalStateException(what, cause);
                        }));
            }
            List<CompletableFuture<Void>> registrations = new ArrayList<>();
            for (int id = 0; id < NODES; id++) {
                QuorumMetadataSource node = nodes[id];
                int port = 29_000 + id; // a made-up client port: no broker serves here, only metadata is measured
                registrations.add(CompletableFuture.runAsync(() -> node.registerLocalBroker("127.0.0.1", port)));
            }
            registrations.forEach(CompletableFuture::join);
            await(
                    "all three brokers unfenced",
                    () -> nodes[0].brokers().stream()
                                    .filter(b -> !b.fenced())
                                    .map(BrokerRegistration::id)
                                    .count()
                            == NODES);
            TopicMetadata topic = nodes[0].createTopic(TOPIC, options.partitions(), NODES, Map.of());
            long heapBefore = usedHeapAfterGc();

            long startNs = System.nanoTime();
            long done = flap(nodes, topic.topicId(), options.partitions(), options.changes());
            double seconds = (System.nanoTime() - startNs) / 1e9;
            int[] targetEpochs = agreedPartitionEpochs(nodes, topic.topicId(), options.partitions());
            long heapAfter = usedHeapAfterGc();
            long logBytes = 0;
            long snapshotBytes = 0;
            for (int id = 0; id < NODES; id++) {
                logBytes = Math.max(logBytes, sizeOf(metadataDir(base, id), ".log"));
                snapshotBytes = Math.max(snapshotBytes, sizeOf(metadataDir(base, id), ".checkpoint"));
            }
            System.err.printf(
                    Locale.ROOT,
                    "bench metadata: %s: %d changes in %.1f s; restarting all nodes%n",
                    mode,
                    done,
                    seconds);
            // a restart after a quiet moment, as an operator's would be: the high-watermark checkpoint is current
            Thread.sleep(2 * RaftConfig.DEFAULT_HIGH_WATERMARK_CHECKPOINT_MS);

            for (int id = 0; id < NODES; id++) {
                nodes[id].closeAbruptly();
                nodes[id] = null;
            }
            long restartNs = System.nanoTime();
            for (int id = 0; id < NODES; id++) {
                nodes[id] = QuorumMetadataSource.open(
                        settings(id, voters, base, raft),
                        QuorumEnvironment.of(Time.SYSTEM, new Random(id), (what, cause) -> {
                            throw new IllegalStateException(what, cause);
                        }));
            }
            long openedNs = System.nanoTime();
            long[] nodeCaughtUpNs = new long[NODES];
            await("every restarted node holds every change", () -> {
                boolean all = true;
                for (int id = 0; id < NODES; id++) {
                    if (nodeCaughtUpNs[id] == 0 && holds(nodes[id], topic.topicId(), targetEpochs)) {
                        nodeCaughtUpNs[id] = System.nanoTime();
                    }
                    all &= nodeCaughtUpNs[id] != 0;
                }
                return all;
            });
            long caughtUpNs = System.nanoTime();
            StringBuilder perNode = new StringBuilder();
            for (int id = 0; id < NODES; id++) {
                perNode.append(id == 0 ? "" : ", ")
                        .append("node ")
                        .append(id)
                        .append(' ')
                        .append((nodeCaughtUpNs[id] - restartNs) / 1_000_000)
                        .append(" ms");
            }
            System.err.printf(Locale.ROOT, "bench metadata: %s: caught up after the restart: %s%n", mode, perNode);
            long heapAfterRestart = usedHeapAfterGc();
            return new Result(
                    mode,
                    done,
                    seconds,
                    heapBefore,
                    heapAfter,
                    logBytes,
                    snapshotBytes,
                    (openedNs - restartNs) / 1_000_000,
                    (caughtUpNs - restartNs) / 1_000_000,
                    heapAfterRestart);
        } finally {
            for (QuorumMetadataSource node : nodes) {
                if (node != null) {
                    node.closeAbruptly();
                }
            }
            deleteRecursively(base);
        }
    }

    private static QuorumConfig settings(int id, Map<Integer, InetSocketAddress> voters, Path base, RaftConfig raft) {
        return new QuorumConfig(
                id,
                voters,
                "127.0.0.1",
                Objects.requireNonNull(voters.get(id), "every node is a voter").getPort(),
                metadataDir(base, id),
                9_000,
                2_000,
                NODES,
                30_000,
                5_000,
                raft);
    }

    private static Path metadataDir(Path base, int id) {
        return base.resolve("node-" + id).resolve("__cluster_metadata-0");
    }

    /**
     * Flaps the ISR of every partition until {@code changes} changes committed: each partition's leader shrinks
     * the ISR to itself, then expands it back to all replicas, one change at a time per partition, all
     * partitions at once. Returns how many changes committed.
     */
    private static long flap(QuorumMetadataSource[] nodes, Uuid topicId, int partitions, long changes)
            throws InterruptedException {
        AtomicLong issued = new AtomicLong();
        AtomicLong committed = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CountDownLatch chains = new CountDownLatch(partitions);
        for (int p = 0; p < partitions; p++) {
            int partition = p;
            PartitionState state = nodes[0].partitionState(topicId, partition).orElseThrow();
            next(nodes, topicId, partition, state, issued, committed, changes, failure, chains);
        }
        try (Progress progress = BenchProgress.of("bench metadata: ISR changes committed", "changes")
                .start(changes)) {
            while (!chains.await(250, TimeUnit.MILLISECONDS)) {
                if (failure.get() != null) {
                    throw new IllegalStateException("an ISR change failed", failure.get());
                }
                progress.update(committed.get());
            }
            progress.update(committed.get());
        }
        if (failure.get() != null) {
            throw new IllegalStateException("an ISR change failed", failure.get());
        }
        return committed.get();
    }

    private static void next(
            QuorumMetadataSource[] nodes,
            Uuid topicId,
            int partition,
            PartitionState state,
            AtomicLong issued,
            AtomicLong committed,
            long changes,
            AtomicReference<Throwable> failure,
            CountDownLatch chains) {
        if (failure.get() != null || issued.incrementAndGet() > changes) {
            chains.countDown();
            return;
        }
        List<Integer> isr = state.isr().size() == 1 ? state.replicas() : List.of(state.leader());
        nodes[state.leader()]
                .alterPartition(topicId, partition, state.leaderEpoch(), state.partitionEpoch(), isr)
                .whenComplete((after, error) -> {
                    if (error != null) {
                        failure.compareAndSet(null, error);
                        chains.countDown();
                        return;
                    }
                    committed.incrementAndGet();
                    next(nodes, topicId, partition, after, issued, committed, changes, failure, chains);
                });
    }

    /** Every partition's epoch, once all three nodes agree on it. */
    private static int[] agreedPartitionEpochs(QuorumMetadataSource[] nodes, Uuid topicId, int partitions)
            throws InterruptedException {
        int[] epochs = new int[partitions];
        await("all nodes agree on every partition", () -> {
            for (int p = 0; p < partitions; p++) {
                PartitionState first = nodes[0].partitionState(topicId, p).orElse(null);
                if (first == null) {
                    return false;
                }
                for (QuorumMetadataSource node : nodes) {
                    if (!node.partitionState(topicId, p).equals(java.util.Optional.of(first))) {
                        return false;
                    }
                }
                epochs[p] = first.partitionEpoch();
            }
            return true;
        });
        return epochs;
    }

    private static boolean holds(QuorumMetadataSource node, Uuid topicId, int[] epochs) {
        for (int p = 0; p < epochs.length; p++) {
            int epoch = node.partitionState(topicId, p)
                    .map(PartitionState::partitionEpoch)
                    .orElse(-1);
            if (epoch < epochs[p]) {
                return false;
            }
        }
        return true;
    }

    // ---------------------------------------------------------------- helpers

    private static long usedHeapAfterGc() {
        for (int i = 0; i < 3; i++) {
            System.gc();
        }
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed();
    }

    private static long sizeOf(Path dir, String suffix) throws IOException {
        try (Stream<Path> files = Files.list(dir)) {
            long total = 0;
            for (Path file : files.filter(f -> f.getFileName().toString().endsWith(suffix))
                    .toList()) {
                total += Files.size(file);
            }
            return total;
        }
    }

    private static void await(String what, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(WAIT_MS);
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("timed out after " + WAIT_MS + " ms waiting until " + what);
            }
            Thread.sleep(1);
        }
    }

    private static int freePort() {
        return dev.strait.broker.server.LoopbackPorts.reserve();
    }

    private static void deleteRecursively(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        }
    }

    private static void print(Options options, List<Result> results) {
        System.out.printf(
                Locale.ROOT,
                "Metadata quorum: 3 nodes in one JVM, %d ISR changes through the controller "
                        + "on %d partitions (RF 3)%n%n",
                options.changes(),
                options.partitions());
        System.out.printf(
                Locale.ROOT,
                "| %-30s | %9s | %10s | %14s | %16s | %14s | %13s | %15s | %18s |%n",
                "mode",
                "changes",
                "changes/s",
                "heap used MiB",
                "log on disk KiB",
                "snapshot KiB",
                "restart open",
                "restart caught up",
                "heap after restart");
        System.out.printf(
                Locale.ROOT,
                "|%s|%s|%s|%s|%s|%s|%s|%s|%s|%n",
                "-".repeat(32),
                "-".repeat(11),
                "-".repeat(12),
                "-".repeat(16),
                "-".repeat(18),
                "-".repeat(16),
                "-".repeat(15),
                "-".repeat(17),
                "-".repeat(20));
        for (Result r : results) {
            System.out.printf(
                    Locale.ROOT,
                    "| %-30s | %9d | %10.0f | %5.1f -> %5.1f | %16d | %14d | %10d ms | %14d ms |" + " %14.1f MiB |%n",
                    r.mode(),
                    r.changes(),
                    r.changes() / r.seconds(),
                    mib(r.heapBeforeBytes()),
                    mib(r.heapAfterBytes()),
                    r.logBytesPerNode() / 1024,
                    r.snapshotBytesPerNode() / 1024,
                    r.restartOpenMs(),
                    r.restartCaughtUpMs(),
                    mib(r.heapAfterRestartBytes()));
        }
        System.out.println();
        System.out.println("heap used: after a full GC, all three nodes in this JVM, before -> after the changes. "
                + "log/snapshot: the largest node's metadata log file(s) and snapshot file. restart: all three "
                + "nodes closed without a controlled shutdown and reopened; 'open' until the three open() calls "
                + "returned, 'caught up' until every node's own image held every change.");
    }

    private static double mib(long bytes) {
        return bytes / (1024.0 * 1024.0);
    }
}
