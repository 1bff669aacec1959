package dev.strait.bench;

import dev.strait.bench.BrokerNode.Kind;
import dev.strait.bench.ClusterBench.ClusterNode;
import dev.strait.mirror.progress.Progress;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * CPU per GB of four ways to copy one backlog, measured in one run: {@code bin/bench mirror-topics}. The backlog is N
 * records of S bytes (JSON-like values, compressed by the producer) in a P-partition topic whose every replica is on
 * node 1 of a 2-node Apache Kafka 4.1.1 source cluster. Then, one after the other:
 * <ol>
 *   <li><b>mirror topics</b>: a one-node companion broker (child JVM) gets a topic of the same name with
 *       {@code strait.mirror.source.bootstrap.servers}; from its creation until every partition's end offset equals
 *       the source's. The companion broker fetches and stores: it is counted alone.</li>
 *   <li><b>Kafka follower</b>: the source topic is reassigned to replicas [1, 2]; from the reassignment until no
 *       reassignment is pending and every ISR holds node 2. Node 2, the follower, fetches and stores: counted alone.
 *       This is the anchor: a follower copies batches without decompressing them, as a mirror topic does.</li>
 *   <li><b>Strait mirror</b> ({@code bin/mirror-maker}, a child JVM) into a one-node Apache Kafka target.</li>
 *   <li><b>MirrorMaker 2</b> (dedicated mode, a child JVM; its producer compresses with the backlog's codec so the
 *       target stores what the source does) into the same target.</li>
 * </ol>
 * CPU is utime + stime of a process from /proc. For the two mirrors both the mirror process (the copier) and the
 * target broker (the storage) are counted, and their copy window runs from the first record on the target to the
 * last, which leaves out JVM start-up, group join and topic creation (the whole run's copier CPU is also shown).
 * The source leader's CPU over each window is shown but counted in no total: every way reads the same bytes from it.
 * Every broker JVM runs with {@link BrokerNode#jvmOptions}; each copy starts after a settle pause, so start-up work of
 * a freshly started node is not in the window.
 */
public final class MirrorTopicsBench {
    private static final String TOPIC = "backlog";
    private static final Duration START_TIMEOUT = Duration.ofMinutes(2);
    private static final long POLL_MS = 100;
    static final double GB = 1e9;

    /** The four ways to copy the backlog, in the order they run. */
    enum Copier {
        MIRROR_TOPICS("mirror-topics", "mirror topics", "companion broker (copier = storage)"),
        FOLLOWER("follower", "Kafka follower", "follower broker (copier = storage)"),
        STRAIT("strait", "Strait mirror", "mirror process + target Kafka broker"),
        MM2("mm2", "MirrorMaker 2", "MM2 process + target Kafka broker");

        final String flag;
        final String label;
        final String counted;

        Copier(String flag, String label, String counted) {
            this.flag = flag;
            this.label = label;
            this.counted = counted;
        }

        /** {@code --only}: names from {@link #flag}, run in the order of this enum. */
        static List<Copier> parseList(List<String> names) {
            List<Copier> out = new ArrayList<>();
            for (Copier c : values()) {
                if (names.stream().map(String::trim).anyMatch(c.flag::equals)) {
                    out.add(c);
                }
            }
            for (String name : names) {
                if (out.stream().noneMatch(c -> c.flag.equals(name.trim()))) {
                    throw new IllegalArgumentException(
                            "--only takes mirror-topics, follower, strait, mm2 (comma-separated), not " + name);
                }
            }
            return List.copyOf(out);
        }
    }

    /** Command-line options; see {@link #usage()}. */
    record Options(
            long records,
            int recordBytes,
            int partitions,
            String compression,
            List<Copier> copiers,
            String heap,
            Duration settle,
            Duration stepTimeout,
            @Nullable Path output,
            boolean keepLogs,
            Path repo) {}

    /**
     * One way's copy of the backlog. {@code seconds}: the whole run (for a mirror process, from its start);
     * {@code copySeconds}: the window the CPU columns cover (for a mirror process from the first record on the target
     * to the last; otherwise the whole run). {@code storageCpu} is null where the copier stores the copy itself.
     * {@code copierCpuWhole} is the copier's CPU over the whole run; {@code jitCpu} the part of the counted CPU
     * that the counted processes' JIT compiler threads used in the window. {@code targetBytes}: the copy's size on disk, or
     * -1 where the target would not say.
     */
    record Measured(
            Copier copier,
            double seconds,
            double copySeconds,
            double copierCpu,
            @Nullable Double storageCpu,
            double copierCpuWhole,
            double jitCpu,
            double sourceCpu,
            long targetBytes) {
        double totalCpu() {
            return copierCpu + (storageCpu == null ? 0 : storageCpu);
        }
    }

    /** The flags of {@code bin/bench mirror-topics} (picocli), with their defaults. */
    @Command(
            name = "bin/bench mirror-topics",
            description = "CPU seconds per GB and throughput of mirror topics (the companion broker copies the source"
                    + " partition's batches itself), Kafka's own follower replication of the same backlog, Strait's"
                    + " mirror and MirrorMaker 2 into an Apache Kafka 4.1.1 target, on one preloaded backlog.",
            footer = "Counted: mirror topics = the companion broker; follower = the follower broker; Strait mirror and"
                    + " MM2 = the mirror process + the target broker (the mirror process alone is shown too).")
    static final class Flags {
        @Mixin
        Backlog backlog = new Backlog();

        @Option(names = "--partitions", paramLabel = "P", description = "Partitions of the backlog topic.")
        int partitions = 6;

        @Option(
                names = "--compression",
                paramLabel = "CODEC",
                description = "compression.type of the backlog's producer (and of MirrorMaker 2's producer).")
        String compression = "lz4";

        @Option(
                names = "--only",
                paramLabel = "NAME",
                split = ",",
                description = "Which ways to measure: mirror-topics, follower, strait, mm2 (run in that order).")
        List<String> only = new ArrayList<>(List.of("mirror-topics", "follower", "strait", "mm2"));

        @Option(names = "--heap", description = "-Xmx of each broker node (source, target, companion).")
        String heap = "1g";

        @Option(
                names = "--settle-s",
                paramLabel = "S",
                description = "Pause before each copy, after the nodes it uses have started.")
        long settleS = 5;

        @Option(names = "--step-timeout-s", paramLabel = "S", description = "Bound on the preload and on each copy.")
        long stepTimeoutS = 1200;

        @Mixin
        ReportFile output = new ReportFile();

        @Option(names = "--keep-logs", description = "Keep the nodes' and mirrors' logs (the path is printed).")
        boolean keepLogs;

        @Mixin
        StraitCheckout checkout = new StraitCheckout();
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
        if (!f.backlog.valid() || f.partitions < 1 || f.settleS < 0 || f.stepTimeoutS < 1) {
            throw new IllegalArgumentException(
                    "--records, --record-size, --partitions and --step-timeout-s must be at least 1, --settle-s 0");
        }
        if (!List.of("none", "gzip", "snappy", "lz4", "zstd").contains(f.compression)) {
            throw new IllegalArgumentException(
                    "--compression takes none, gzip, snappy, lz4 or zstd, not " + f.compression);
        }
        return new Options(
                f.backlog.records,
                f.backlog.recordBytes,
                f.partitions,
                f.compression,
                Copier.parseList(f.only),
                f.heap,
                Duration.ofSeconds(f.settleS),
                Duration.ofSeconds(f.stepTimeoutS),
                f.output.path,
                f.keepLogs,
                f.checkout.path());
    }

    private final Options options;
    private final Path work;
    private final ChildProcesses children = new ChildProcesses();
    private final List<Measured> results = new ArrayList<>();
    private final Map<String, String> failures = new LinkedHashMap<>();
    private Progress progress = Progress.off();
    /** CPU s/s of the counted brokers over the last settle pause (NaN when it was too short to tell). */
    private double idleRate = Double.NaN;

    MirrorTopicsBench(Options options) throws IOException {
        this.options = options;
        this.work = Files.createTempDirectory("strait-bench-mirror-topics-");
    }

    public static void main(String[] args) throws Exception {
        // Start-up probes connect before the nodes listen; one warning per attempt is noise.
        KafkaClientLogs.errorsOnly("NetworkClient");
        Options options =
                BenchFlags.parseOrExit("bench mirror-topics", args, MirrorTopicsBench::parse, MirrorTopicsBench::usage);
        if (options == null) {
            return;
        }
        MirrorTopicsBench bench = new MirrorTopicsBench(options);
        bench.children.killAllAndDeleteOnExit(bench.work, options.keepLogs());
        boolean ok = bench.run();
        System.exit(ok ? 0 : 1);
    }

    /** A line of the log on stdout, above the progress line. */
    private void say(String format, Object... args) {
        progress.printAbove(System.out, String.format(Locale.ROOT, format, args));
    }

    private String header(long backlogBytes) {
        return String.format(
                Locale.ROOT,
                "bench mirror-topics: %,d records of %d bytes (%s by the producer), %d partitions: %,.1f MB of"
                        + " payload, %,.1f MB stored on the source; broker JVM %s; %d cores, java %s, load average"
                        + " at start %s, %s",
                options.records(),
                options.recordBytes(),
                options.compression(),
                options.partitions(),
                options.records() * (double) options.recordBytes() / 1e6,
                backlogBytes / 1e6,
                String.join(" ", BrokerNode.jvmOptions(options.heap())),
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"),
                ProcessStats.loadAverage(),
                Instant.now());
    }

    boolean run() throws Exception {
        List<ClusterNode> source = new ArrayList<>();
        for (int id = 1; id <= 2; id++) {
            source.add(new ClusterNode(Kind.KAFKA, false, id, work.resolve("source-" + id)));
        }
        String voters = source.stream()
                .map(n -> n.id + "@127.0.0.1:" + n.controllerPort)
                .collect(Collectors.joining(","));
        String bootstrap = source.stream().map(n -> "127.0.0.1:" + n.port).collect(Collectors.joining(","));
        String clusterId = Uuid.randomUuid().toString();
        // Two nodes: internal topics on one replica; the backlog's replicas are placed explicitly.
        Map<String, String> twoNodes = Map.of(
                "default.replication.factor", "1",
                "min.insync.replicas", "1",
                "offsets.topic.replication.factor", "1",
                "transaction.state.log.replication.factor", "1",
                "transaction.state.log.min.isr", "1");
        BrokerNode target = null;
        Process targetProcess = null;
        String header = null;
        try (Admin sourceAdmin = admin(bootstrap)) {
            say("starting the 2-node Apache Kafka 4.1.1 source ...");
            for (ClusterNode n : source) {
                Files.createDirectories(n.dir);
                Files.writeString(n.config(), n.properties(voters, 9000, twoNodes), StandardCharsets.UTF_8);
                n.process = children.start(n.command(BrokerNode.jvmOptions(options.heap()), clusterId), n.log());
            }
            for (ClusterNode n : source) {
                awaitUp(sourceAdmin, n.started(), n.log(), 2);
            }
            Map<Integer, List<Integer>> onNode1 = new HashMap<>();
            for (int p = 0; p < options.partitions(); p++) {
                onNode1.put(p, List.of(1));
            }
            sourceAdmin
                    .createTopics(List.of(new NewTopic(TOPIC, onNode1)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
            dev.strait.testkit.KafkaCluster.awaitWritable(sourceAdmin, TOPIC, options.partitions());
            preload(bootstrap);
            Map<TopicPartition, Long> sourceEnds = endOffsets(sourceAdmin);
            long backlogBytes = storedBytes(sourceAdmin, 1, TOPIC);
            header = header(backlogBytes);
            System.out.println(header);
            Process leader = source.get(0).started();
            for (Copier copier : options.copiers()) {
                if (children.isClosed()) {
                    break;
                }
                say("== %s ==", copier.label);
                try {
                    Measured m;
                    switch (copier) {
                        case MIRROR_TOPICS -> m = mirrorTopics(bootstrap, leader, sourceEnds);
                        case FOLLOWER -> m = follower(sourceAdmin, source.get(1).started(), leader);
                        default -> {
                            if (target == null) {
                                target = new BrokerNode(
                                        Kind.KAFKA, work.resolve("target"), BrokerNode.jvmOptions(options.heap()));
                                target.prepare(children);
                                targetProcess = children.start(target.command(), target.log());
                                try (Admin admin = admin(target.bootstrapServers())) {
                                    awaitUp(admin, targetProcess, target.log(), 1);
                                }
                            }
                            Process storing = Objects.requireNonNull(targetProcess, "started with the target");
                            m = copier == Copier.STRAIT
                                    ? straitMirror(bootstrap, target, storing, leader)
                                    : mirrorMaker2(bootstrap, target, storing, leader);
                        }
                    }
                    results.add(m);
                    say(
                            "  %.1f s (copy %.1f s); CPU s: copier %.2f, target storage %s, source leader %.2f;"
                                    + " before the copy the counted brokers used %.3f CPU s/s idle",
                            m.seconds(),
                            m.copySeconds(),
                            m.copierCpu(),
                            m.storageCpu() == null ? "-" : String.format(Locale.ROOT, "%.2f", m.storageCpu()),
                            m.sourceCpu(),
                            idleRate);
                } catch (Exception e) {
                    failures.put(copier.label, ReportText.oneLine(e));
                    say("  %s FAILED: %s", copier.label, ReportText.oneLine(e));
                }
            }
            String report = header + "\n\n" + report(backlogBytes, results, failures);
            progress.finish();
            System.out.println();
            System.out.println(report);
            ReportFile.write(options.output(), report);
        } finally {
            if (targetProcess != null) {
                ChildProcesses.stop(targetProcess, Duration.ofSeconds(20));
            }
            for (ClusterNode n : source) {
                if (n.process != null) {
                    ChildProcesses.stop(n.process, Duration.ofSeconds(20));
                }
            }
        }
        return failures.isEmpty() && header != null;
    }

    private void preload(String bootstrap) throws Exception {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, options.compression());
        props.put(ProducerConfig.LINGER_MS_CONFIG, "20");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, String.valueOf(256 * 1024));
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        Payloads payloads = new Payloads(42, options.recordBytes());
        AtomicReference<Exception> failed = new AtomicReference<>();
        long start = System.nanoTime();
        long deadline = start + options.stepTimeout().toNanos();
        try (Progress p = BenchProgress.of("bench mirror-topics: preload", "records")
                        .start(options.records());
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            progress = p;
            for (long n = 0; n < options.records() && failed.get() == null; n++) {
                if ((n & 1023) == 0) {
                    p.update(n);
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("the preload did not finish in " + options.stepTimeout());
                    }
                }
                producer.send(
                        new ProducerRecord<>(
                                TOPIC,
                                (int) (n % options.partitions()),
                                null, // now: retention must not take the backlog during the run
                                payloads.key(n),
                                payloads.value(n)),
                        (md, e) -> {
                            if (e != null) {
                                failed.compareAndSet(null, e);
                            }
                        });
            }
            producer.flush();
            p.update(options.records());
        } finally {
            progress = Progress.off();
        }
        if (failed.get() != null) {
            throw new IllegalStateException("preload failed: " + failed.get(), failed.get());
        }
        say("preloaded in %.1f s", (System.nanoTime() - start) / 1e9);
    }

    /** A companion broker copies the backlog into a mirror topic of the same name. */
    private Measured mirrorTopics(String sourceBootstrap, Process leader, Map<TopicPartition, Long> sourceEnds)
            throws Exception {
        BrokerNode companion =
                new BrokerNode(Kind.STRAIT, work.resolve("companion"), BrokerNode.jvmOptions(options.heap()));
        companion.prepare(children);
        Process broker = children.start(companion.command(), companion.log());
        try (Admin admin = admin(companion.bootstrapServers())) {
            awaitUp(admin, broker, companion.log(), 1);
            settle(broker);
            Cpu before = new Cpu(broker, null, leader);
            long start = System.nanoTime();
            admin.createTopics(List.of(new NewTopic(TOPIC, options.partitions(), (short) 1)
                            .configs(Map.of("strait.mirror.source.bootstrap.servers", sourceBootstrap))))
                    .all()
                    .get(60, TimeUnit.SECONDS);
            long deadline = start + options.stepTimeout().toNanos();
            try (Progress p = BenchProgress.of("bench mirror-topics: mirror topics", "records")
                    .start(options.records())) {
                progress = p;
                while (true) {
                    Map<TopicPartition, Long> ends = endOffsetsOrEmpty(admin);
                    p.update(ends.values().stream().mapToLong(Long::longValue).sum());
                    if (ends.equals(sourceEnds)) {
                        break;
                    }
                    check(broker, companion.log(), deadline, "the mirror topic's copy");
                    Thread.sleep(POLL_MS);
                }
            } finally {
                progress = Progress.off();
            }
            return copiedByOneBroker(Copier.MIRROR_TOPICS, start, before, new Cpu(broker, null, leader), admin, 1);
        } finally {
            ChildProcesses.stop(broker, Duration.ofSeconds(20));
        }
    }

    /** Node 2 of the source becomes a follower of every partition and copies the backlog from node 1. */
    private Measured follower(Admin admin, Process follower, Process leader) throws Exception {
        settle(follower);
        Cpu before = new Cpu(follower, null, leader);
        long start = System.nanoTime();
        Map<TopicPartition, Optional<NewPartitionReassignment>> moves = new HashMap<>();
        for (int p = 0; p < options.partitions(); p++) {
            moves.put(new TopicPartition(TOPIC, p), Optional.of(new NewPartitionReassignment(List.of(1, 2))));
        }
        admin.alterPartitionReassignments(moves).all().get(60, TimeUnit.SECONDS);
        long deadline = start + options.stepTimeout().toNanos();
        try (Progress p = BenchProgress.of("bench mirror-topics: Kafka follower", "partitions")
                .start(options.partitions())) {
            progress = p;
            while (true) {
                boolean pending = !admin.listPartitionReassignments()
                        .reassignments()
                        .get(30, TimeUnit.SECONDS)
                        .isEmpty();
                TopicDescription d = Objects.requireNonNull(
                        admin.describeTopics(List.of(TOPIC))
                                .allTopicNames()
                                .get(30, TimeUnit.SECONDS)
                                .get(TOPIC),
                        "describeTopics answers for the topic it was asked");
                long inSync = d.partitions().stream()
                        .filter(i -> i.isr().stream().anyMatch(n -> n.id() == 2))
                        .count();
                p.update(inSync);
                if (!pending && inSync == options.partitions()) {
                    break;
                }
                check(follower, null, deadline, "the follower's catch-up");
                Thread.sleep(POLL_MS);
            }
        } finally {
            progress = Progress.off();
        }
        return copiedByOneBroker(Copier.FOLLOWER, start, before, new Cpu(follower, null, leader), admin, 2);
    }

    /** A way whose copier also stores the copy (one broker process, counted whole), timed from {@code startNanos}. */
    private static Measured copiedByOneBroker(
            Copier copier, long startNanos, Cpu before, Cpu after, Admin admin, int storingBroker) {
        double seconds = (System.nanoTime() - startNanos) / 1e9;
        return new Measured(
                copier,
                seconds,
                seconds,
                after.copier - before.copier,
                null,
                after.copier - before.copier,
                after.jit - before.jit,
                after.source - before.source,
                storedBytesOrUnknown(admin, storingBroker, TOPIC));
    }

    private Measured straitMirror(String sourceBootstrap, BrokerNode target, Process targetProcess, Process leader)
            throws Exception {
        Path consumer = MirrorCommands.straitConsumerConfig(
                work.resolve("strait-consumer.properties"), sourceBootstrap, "bench-strait");
        Path producer = MirrorCommands.straitProducerConfig(
                work.resolve("strait-producer.properties"), target.bootstrapServers());
        List<String> cmd =
                MirrorCommands.strait(options.repo(), consumer, producer, TOPIC, "--topic.prefix", "strait.");
        return mirrorProcess(Copier.STRAIT, cmd, target, targetProcess, leader, "strait." + TOPIC);
    }

    private Measured mirrorMaker2(String sourceBootstrap, BrokerNode target, Process targetProcess, Process leader)
            throws Exception {
        Path config = MirrorCommands.mm2Config(
                work.resolve("mm2.properties"),
                sourceBootstrap,
                target.bootstrapServers(),
                TOPIC,
                List.of(
                        "tasks.max=" + options.partitions(),
                        // The target stores the copy compressed as the source does, as the other ways' targets do.
                        "target.producer.compression.type=" + options.compression(),
                        "refresh.topics.interval.seconds=5",
                        "sync.topic.acls.enabled=false",
                        "emit.checkpoints.enabled=false"));
        List<String> cmd = MirrorCommands.mm2("2G", config);
        return mirrorProcess(Copier.MM2, cmd, target, targetProcess, leader, "source." + TOPIC);
    }

    /** Runs a mirror process until the target topic holds the backlog; CPU from its first record to the last. */
    private Measured mirrorProcess(
            Copier copier,
            List<String> cmd,
            BrokerNode target,
            Process targetProcess,
            Process leader,
            String targetTopic)
            throws Exception {
        settle(targetProcess);
        Path log = work.resolve(copier.flag + ".log");
        try (Admin admin = admin(target.bootstrapServers())) {
            long start = System.nanoTime();
            Process mirror = children.start(cmd, log);
            long deadline = start + options.stepTimeout().toNanos();
            Cpu first = null;
            long firstNanos = 0;
            try (Progress p = BenchProgress.of("bench mirror-topics: " + copier.label, "records")
                    .start(options.records())) {
                progress = p;
                boolean created = false;
                while (true) {
                    // Listing the offsets of a topic not there yet logs an error per partition and poll.
                    created = created
                            || admin.listTopics()
                                    .names()
                                    .get(30, TimeUnit.SECONDS)
                                    .contains(targetTopic);
                    long copied = created ? endOffsetSum(admin, targetTopic) : 0;
                    p.update(copied);
                    if (copied > 0 && first == null) {
                        first = new Cpu(mirror, targetProcess, leader);
                        firstNanos = System.nanoTime();
                    }
                    if (copied >= options.records()) {
                        break;
                    }
                    check(mirror, log, deadline, copier.label);
                    Thread.sleep(POLL_MS);
                }
                Cpu end = new Cpu(mirror, targetProcess, leader);
                long endNanos = System.nanoTime();
                // The loop ends once every record is on the target, so after the first one was.
                Cpu atFirst = Objects.requireNonNull(first, "the first record's CPU reading");
                return new Measured(
                        copier,
                        (endNanos - start) / 1e9,
                        (endNanos - firstNanos) / 1e9,
                        end.copier - atFirst.copier,
                        end.storage - atFirst.storage,
                        end.copier,
                        end.jit - atFirst.jit,
                        end.source - atFirst.source,
                        storedBytesOrUnknown(admin, 1, targetTopic));
            } finally {
                progress = Progress.off();
                ChildProcesses.stop(mirror, Duration.ofSeconds(30));
                try {
                    admin.deleteTopics(List.of(targetTopic)).all().get(60, TimeUnit.SECONDS);
                } catch (Exception e) {
                    say("  could not delete %s on the target: %s", targetTopic, ReportText.oneLine(e));
                }
            }
        }
    }

    /** CPU seconds so far of the copier, the target's storage and the source leader (0 for a process not given). */
    private static final class Cpu {
        final double copier;
        final double storage;
        final double source;
        /** The copier's and the storage's JIT compiler threads. */
        final double jit;

        Cpu(@Nullable Process copier, @Nullable Process storage, Process source) {
            this.copier = copier == null ? 0 : cpu(copier);
            this.storage = storage == null ? 0 : cpu(storage);
            this.source = cpu(source);
            this.jit = (copier == null ? 0 : jit(copier)) + (storage == null ? 0 : jit(storage));
        }

        private static double jit(Process p) {
            return Math.max(0, ProcessStats.compilerCpuSeconds(p.pid()));
        }

        static double cpu(Process p) {
            double s = ProcessStats.cpuSeconds(p.pid());
            if (s < 0) {
                throw new IllegalStateException("no CPU time of process " + p.pid() + " in /proc (not Linux, or gone)");
            }
            return s;
        }
    }

    /**
     * Waits {@code --settle-s} and keeps in {@link #idleRate} the CPU seconds per second the {@code counted} brokers
     * used meanwhile, the background that each copy window also holds.
     */
    private void settle(Process... counted) throws InterruptedException {
        double before = 0;
        for (Process p : counted) {
            before += Cpu.cpu(p);
        }
        long start = System.nanoTime();
        Thread.sleep(options.settle().toMillis());
        double after = 0;
        for (Process p : counted) {
            after += Cpu.cpu(p);
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        idleRate = seconds > 0.5 ? (after - before) / seconds : Double.NaN;
    }

    private static void check(Process p, @Nullable Path log, long deadline, String what) {
        if (!p.isAlive()) {
            throw new IllegalStateException(what + ": process " + p.pid() + " exited with " + p.exitValue()
                    + (log == null ? "" : "; log tail:\n" + ChildProcesses.tail(log, 20)));
        }
        if (System.nanoTime() > deadline) {
            throw new IllegalStateException(what + " did not finish in time (--step-timeout-s)"
                    + (log == null ? "" : "; log tail:\n" + ChildProcesses.tail(log, 20)));
        }
    }

    private static void awaitUp(Admin admin, Process p, Path log, int nodes) throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new IllegalStateException("a broker exited with " + p.exitValue() + " while starting; log tail:\n"
                        + ChildProcesses.tail(log, 30));
            }
            try {
                int seen = admin.describeCluster(new DescribeClusterOptions().timeoutMs(2000))
                        .nodes()
                        .get(3, TimeUnit.SECONDS)
                        .size();
                if (seen >= nodes) {
                    return;
                }
            } catch (Exception e) {
                // not up yet
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException(
                "a broker did not start in " + START_TIMEOUT + "; log tail:\n" + ChildProcesses.tail(log, 30));
    }

    private Map<TopicPartition, Long> endOffsets(Admin admin) throws Exception {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < options.partitions(); p++) {
            latest.put(new TopicPartition(TOPIC, p), OffsetSpec.latest());
        }
        Map<TopicPartition, Long> out = new HashMap<>();
        admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).forEach((tp, info) -> out.put(tp, info.offset()));
        return out;
    }

    /** The end offsets, or none while the topic or a leader is not there yet. */
    private Map<TopicPartition, Long> endOffsetsOrEmpty(Admin admin) {
        try {
            return endOffsets(admin);
        } catch (Exception e) {
            return Map.of();
        }
    }

    /** The sum of a topic's end offsets, or 0 while it is not there yet. */
    private long endOffsetSum(Admin admin, String topic) {
        Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
        for (int p = 0; p < options.partitions(); p++) {
            latest.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        try {
            return admin.listOffsets(latest).all().get(30, TimeUnit.SECONDS).values().stream()
                    .mapToLong(i -> i.offset())
                    .sum();
        } catch (Exception e) {
            return 0;
        }
    }

    /** Bytes of {@code topic}'s replicas on {@code broker}'s disks (Admin describeLogDirs). */
    private static long storedBytes(Admin admin, int broker, String topic) throws Exception {
        return Objects.requireNonNull(
                        admin.describeLogDirs(List.of(broker))
                                .allDescriptions()
                                .get(30, TimeUnit.SECONDS)
                                .get(broker),
                        "describeLogDirs answers for the broker asked")
                .values()
                .stream()
                .flatMap(d -> d.replicaInfos().entrySet().stream())
                .filter(e -> e.getKey().topic().equals(topic))
                .mapToLong(e -> e.getValue().size())
                .sum();
    }

    private static long storedBytesOrUnknown(Admin admin, int broker, String topic) {
        try {
            return storedBytes(admin, broker, topic);
        } catch (Exception e) {
            return -1;
        }
    }

    private static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        return Admin.create(p);
    }

    /** One column of the report: a value of a run, or null where it does not apply. */
    private record Column(String title, java.util.function.Function<Measured, Double> value, boolean ratio) {
        Column(String title, java.util.function.Function<Measured, Double> value) {
            this(title, value, false);
        }

        /** Ratios to 3 decimals: the goal of 1/20 is 0.050. */
        String cell(Measured m) {
            Double v = value.apply(m);
            return ratio && v != null ? String.format(Locale.ROOT, "%.3f", v) : ReportText.number(v);
        }
    }

    /**
     * The report: a table of every way measured, then the two goals against what was measured. CPU per GB
     * is per 10^9 bytes of the backlog as stored on the source ({@code backlogBytes}); a ratio below 1 means less
     * CPU than the reference.
     */
    static String report(long backlogBytes, List<Measured> runs, Map<String, String> failures) {
        double gb = backlogBytes / GB;
        Measured mm2 = find(runs, Copier.MM2);
        Measured follower = find(runs, Copier.FOLLOWER);
        List<Column> columns = List.of(
                new Column("seconds", Measured::seconds),
                new Column("copy window s", Measured::copySeconds),
                new Column(
                        "MB/s in the window", m -> m.copySeconds() > 0 ? backlogBytes / 1e6 / m.copySeconds() : null),
                new Column("CPU s copier", Measured::copierCpu),
                new Column("CPU s target storage", Measured::storageCpu),
                new Column("CPU s counted", Measured::totalCpu),
                new Column("of which JIT compiler s", Measured::jitCpu),
                new Column("CPU s/GB copier only", m -> m.copierCpu() / gb),
                new Column("CPU s/GB counted", m -> m.totalCpu() / gb),
                new Column("counted / MM2", m -> ratio(m, mm2, Measured::totalCpu), true),
                new Column("copier only / MM2", m -> ratio(m, mm2, Measured::copierCpu), true),
                new Column("counted / follower", m -> ratio(m, follower, Measured::totalCpu), true),
                new Column("copier CPU s, whole run", Measured::copierCpuWhole),
                new Column("CPU s source leader", Measured::sourceCpu),
                new Column("MB stored on the target", m -> m.targetBytes() < 0 ? null : m.targetBytes() / 1e6));
        StringBuilder out = new StringBuilder();
        out.append("| way | counted processes |");
        columns.forEach(c -> out.append(' ').append(c.title()).append(" |"));
        out.append("\n|---|---|");
        columns.forEach(c -> out.append("---:|"));
        out.append('\n');
        for (Measured m : runs) {
            out.append("| ")
                    .append(m.copier().label)
                    .append(" | ")
                    .append(m.copier().counted)
                    .append(" |");
            for (Column c : columns) {
                out.append(' ').append(c.cell(m)).append(" |");
            }
            out.append('\n');
        }
        out.append(String.format(
                Locale.ROOT,
                "%nCPU s/GB: CPU seconds per 10^9 bytes of the backlog as stored on the source (%,d bytes). The"
                        + " window of a mirror process runs from the first record on the target to the last (its"
                        + " start-up is in \"whole run\" only); the other ways' window is the whole copy. JIT compiler:"
                        + " the counted processes' C1/C2 threads in the window (a lower bound). The source"
                        + " leader serves every way alike and is counted in none.%n",
                backlogBytes));
        Measured topics = find(runs, Copier.MIRROR_TOPICS);
        if (topics != null) {
            out.append(goal("mirror topics at most 1/20 of MirrorMaker 2's CPU per GB", topics, mm2, true, 1.0 / 20));
            out.append(goal(
                    "mirror topics within 1.5 x Kafka follower replication's CPU per GB",
                    topics,
                    follower,
                    false,
                    1.5));
        }
        failures.forEach((way, why) ->
                out.append("FAILED ").append(way).append(": ").append(why).append('\n'));
        return out.toString().stripTrailing();
    }

    /**
     * One goal against its reference: the counted ratio decides; the copier-only ratio (where asked) and the ratio
     * without the counted processes' JIT compiler threads (the cold start of a small copy) are shown beside it.
     */
    private static String goal(
            String goal, Measured topics, @Nullable Measured reference, boolean copierOnly, double limit) {
        Double counted = ratio(topics, reference, Measured::totalCpu);
        if (counted == null) {
            return "goal: " + goal + ": not measured (its reference did not run)\n";
        }
        StringBuilder line = new StringBuilder(String.format(
                Locale.ROOT,
                "goal: %s (ratio <= %.3f): counted %.3f, %s",
                goal,
                limit,
                counted,
                verdict(counted, limit)));
        if (copierOnly) {
            Double copier = ratio(topics, reference, Measured::copierCpu);
            if (copier != null) {
                line.append(String.format(Locale.ROOT, "; copier only %.3f (%s)", copier, verdict(copier, limit)));
            }
        }
        Double warm = ratio(topics, reference, m -> m.totalCpu() - m.jitCpu());
        if (warm != null) {
            line.append(String.format(
                    Locale.ROOT, "; counted without JIT compiler threads %.3f (%s)", warm, verdict(warm, limit)));
        }
        return line.append('\n').toString();
    }

    private static String verdict(double ratio, double limit) {
        return ratio <= limit ? "met" : "not met";
    }

    private static @Nullable Double ratio(Measured m, @Nullable Measured reference, ToDoubleFunction<Measured> cpu) {
        if (reference == null || cpu.applyAsDouble(reference) <= 0) {
            return null;
        }
        return cpu.applyAsDouble(m) / cpu.applyAsDouble(reference);
    }

    private static @Nullable Measured find(List<Measured> runs, Copier copier) {
        return runs.stream().filter(m -> m.copier() == copier).findFirst().orElse(null);
    }
}
