package dev.strait.bench;

import dev.strait.bench.BrokerNode.Kind;
import dev.strait.bench.PerfOutput.ProducerSummary;
import dev.strait.mirror.progress.Progress;
import dev.strait.testkit.KafkaCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Three-node clusters: {@code bin/bench cluster} (also {@code bin/bench broker --nodes 3}). For Apache Kafka 4.1.1
 * (three combined broker+controller KRaft nodes, one cluster id formatted on each) and for Strait's companion broker
 * (three {@code BrokerMain} nodes with the same KRaft-style keys), one after the other and never together, each
 * node a child JVM with the same JVM options:
 * <ol>
 *   <li>start the three nodes; wait until Admin {@code describeCluster} lists all three;</li>
 *   <li>create a topic with P partitions, RF 3, {@code min.insync.replicas=2};</li>
 *   <li>Kafka's {@code ProducerPerformance} (child JVM), {@code acks=all}, N records of S bytes, unthrottled;</li>
 *   <li>failover: an in-process idempotent {@code acks=all} producer sends to partition 0 every few ms; the JVM of
 *       partition 0's leader (from Admin {@code describeTopics}) gets SIGKILL; failover time is from just before
 *       the kill to the first acknowledgement of a record sent after the kill (bounded by a timeout); the new
 *       leader is then read from {@code describeTopics}. The active controller (the metadata quorum's Raft
 *       leader) is named before and after the kill by Admin {@code describeMetadataQuorum}, for both systems, so
 *       the report says whether the killed node was also the controller (then the new controller has to notice
 *       the dead broker itself, which is the slow case). {@code --victim controller} measures that case on
 *       purpose: it writes to a partition the active controller leads and kills that node.</li>
 * </ol>
 * Both systems get the same {@code broker.session.timeout.ms} (one set of runs per value given). With
 * {@code --runs N} the whole sequence runs N times per system on fresh clusters (new directories, ports and
 * cluster ids; the systems alternate run by run so that load drifts hit both alike), and the report gives every
 * failover time, the median and the p99 (nearest rank, which is the maximum for N up to 100), and Strait / Kafka.
 * A shutdown hook kills the children and deletes the temporary directory.
 */
public final class ClusterBench {
    private static final int NODES = 3;
    private static final String TOPIC = "bench-cluster";
    private static final Duration START_TIMEOUT = Duration.ofMinutes(2);
    private static final long FAILOVER_SEND_INTERVAL_MS = 5;

    record Options(
            long records,
            int recordBytes,
            int partitions,
            List<Kind> brokers,
            List<Integer> sessionTimeouts,
            String heap,
            Duration failoverTimeout,
            Duration stepTimeout,
            @Nullable Path output,
            boolean keepLogs,
            int runs,
            Victim victim,
            boolean straitFlushOnAck) {}

    /** The results key of Strait run with strait.flush.on.ack=true (the other keys are Kind names). */
    static final String STRAIT_FLUSH_ON_ACK = "STRAIT_FLUSH_ON_ACK";

    private static final String STRAIT_FLUSH_ON_ACK_LABEL = "Strait broker, flush.on.ack";

    /** Whose SIGKILL the failover measures. */
    enum Victim {
        /** partition 0's leader, whichever node it is (the controller in about one run of three) */
        LEADER,
        /** the active controller, through a partition it leads: the new controller must first notice it is gone */
        CONTROLLER
    }

    /** The node a failover kills, chosen before the kill: the written partition's leader, and the controller then. */
    record Kill(int oldLeader, int controller) {
        boolean controllerKilled() {
            return controller == oldLeader;
        }
    }

    /** What a failover measured: first acknowledgement after the kill, new leader, failed sends, new controller. */
    record Failover(double seconds, int newLeader, long errors, int newController) {}

    /** One run of one system; a part is null where its step failed (the kill is known before the failover ends). */
    record ClusterRun(
            @Nullable Double startupMs,
            @Nullable ProducerSummary produce,
            @Nullable Kill kill,
            @Nullable Failover failover) {}

    /** One node of a 3-node cluster. */
    static final class ClusterNode {
        final Kind kind;
        final boolean flushOnAck;
        final int id;
        final int port = KafkaCluster.freePort();
        final int controllerPort = KafkaCluster.freePort();
        final Path dir;
        /** Null until the run starts the node. */
        @Nullable
        Process process;

        ClusterNode(Kind kind, boolean flushOnAck, int id, Path dir) {
            this.kind = kind;
            this.flushOnAck = flushOnAck;
            this.id = id;
            this.dir = dir;
        }

        /** The node's process, once the run has started it. */
        Process started() {
            return Objects.requireNonNull(process, () -> "node " + id + " has not been started");
        }

        Path log() {
            return dir.resolve("node.log");
        }

        Path config() {
            return dir.resolve("server.properties");
        }

        String properties(String voters, int sessionTimeoutMs) {
            return properties(voters, sessionTimeoutMs, Map.of());
        }

        /** The node's settings with {@code overrides} last (other cluster sizes, e.g. replication factors). */
        String properties(String voters, int sessionTimeoutMs, Map<String, String> overrides) {
            Map<String, String> p = new LinkedHashMap<>();
            p.put("process.roles", "broker,controller");
            p.put("node.id", Integer.toString(id));
            p.put("listeners", "PLAINTEXT://127.0.0.1:" + port + ",CONTROLLER://127.0.0.1:" + controllerPort);
            p.put("advertised.listeners", "PLAINTEXT://127.0.0.1:" + port);
            p.put("controller.listener.names", "CONTROLLER");
            p.put("controller.quorum.voters", voters);
            p.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
            p.put("log.dirs", dir.resolve("data").toString());
            p.put("default.replication.factor", "3");
            p.put("min.insync.replicas", "2");
            p.put("broker.session.timeout.ms", Integer.toString(sessionTimeoutMs));
            p.put("auto.create.topics.enable", "false");
            p.put("num.partitions", "1");
            p.put("offsets.topic.num.partitions", "5");
            p.put("group.initial.rebalance.delay.ms", "0");
            if (flushOnAck) {
                p.put("strait.flush.on.ack", "true");
            }
            if (kind == Kind.KAFKA) {
                p.put("inter.broker.listener.name", "PLAINTEXT");
                p.put("offsets.topic.replication.factor", "3");
                p.put("transaction.state.log.replication.factor", "3");
                p.put("transaction.state.log.min.isr", "2");
            }
            p.putAll(overrides);
            return p.entrySet().stream()
                    .map(e -> e.getKey() + "=" + e.getValue())
                    .collect(Collectors.joining("\n", "", "\n"));
        }

        List<String> command(List<String> jvm, String clusterId) {
            List<String> cmd = new ArrayList<>();
            cmd.add(BrokerNode.java());
            cmd.addAll(jvm);
            cmd.add("-cp");
            if (kind == Kind.KAFKA) {
                // KafkaNodeMain formats the log directory with this cluster id on first start, then runs kafka.Kafka.
                cmd.addAll(List.of(
                        KafkaCluster.kafkaClassPath(),
                        "dev.strait.testkit.KafkaNodeMain",
                        config().toString(),
                        clusterId,
                        dir.resolve("data").toString()));
            } else {
                cmd.addAll(List.of(
                        System.getProperty("java.class.path"),
                        "dev.strait.broker.server.BrokerMain",
                        config().toString()));
            }
            return cmd;
        }
    }

    private final Options options;
    private final Path work;
    private final ChildProcesses children = new ChildProcesses();
    /** Results by "kind/session timeout", one per run. */
    private final Map<String, List<ClusterRun>> results = new LinkedHashMap<>();

    private final Map<String, String> failures = new LinkedHashMap<>();

    /** Clusters measured so far, of every system, timeout and run; what is measured now, for the progress line. */
    private Progress progress = Progress.off();

    private long measured;
    private String measuring = "";

    /** What the measurement does now, on the progress line. */
    private void phase(String what) {
        progress.update(measured, measuring + ": " + what);
    }

    /** A line of the log on stdout, above the progress line. */
    private void say(String format, Object... args) {
        progress.printAbove(System.out, String.format(Locale.ROOT, format, args));
    }

    ClusterBench(Options options) throws IOException {
        this.options = options;
        this.work = Files.createTempDirectory("strait-bench-cluster-");
    }

    public static void main(String[] args) throws Exception {
        // Start-up probes connect before the nodes listen, and the failover producer retries while the leader is
        // dead: one warning per attempt or retried batch is noise.
        KafkaClientLogs.errorsOnly("NetworkClient", "producer.internals");
        Options options = BenchFlags.parseOrExit("bench cluster", args, ClusterBench::parse, ClusterBench::usage);
        if (options == null) {
            return;
        }
        ClusterBench bench = new ClusterBench(options);
        bench.children.killAllAndDeleteOnExit(bench.work, options.keepLogs());
        boolean ok = bench.run();
        System.exit(ok ? 0 : 1);
    }

    /** The flags of {@code bin/bench cluster} (picocli), with their defaults. */
    @Command(
            name = "bin/bench cluster",
            description = "3-node clusters of Apache Kafka 4.1.1 and of Strait's broker, one after the other: "
                    + "start-up, acks=all throughput, and the failover after a SIGKILL of partition 0's leader "
                    + "(same as bin/bench broker --nodes 3 ...). RF 3, min.insync.replicas=2.",
            footer = "--runs N: N runs per system on fresh clusters, alternating systems; the report lists each "
                    + "failover time with its median and p99 (nearest rank: the maximum for N <= 100) and the "
                    + "ratio Strait / Kafka.")
    static final class Flags {
        @Mixin
        ProducerWorkload workload = new ProducerWorkload();

        @Option(names = "--nodes", paramLabel = "3", description = "Only 3 (bin/bench broker runs 1).")
        int nodes = 3;

        @Option(names = "--only", paramLabel = "kafka|strait|kafka,strait", description = "Which systems, in order.")
        String only = "kafka,strait";

        @Option(
                names = "--session-timeout-ms",
                paramLabel = "MS",
                split = ",",
                description = "broker.session.timeout.ms of both systems; one set of runs per value.")
        List<Integer> sessionTimeouts = new ArrayList<>(List.of(9000));

        @Option(names = "--heap", description = "-Xmx of each node.")
        String heap = "512m";

        @Option(names = "--failover-timeout-s", paramLabel = "S", description = "Bound on one failover.")
        long failoverTimeoutS = 60;

        @Option(names = "--step-timeout-s", paramLabel = "S", description = "Bound on the produce step.")
        long stepTimeoutS = 900;

        @Mixin
        ReportFile output = new ReportFile();

        @Option(names = "--keep-logs", description = "Keep the nodes' logs (the path is printed at the end).")
        boolean keepLogs;

        @Option(names = "--runs", paramLabel = "N", description = "Runs per system, each on fresh clusters.")
        int runs = 1;

        @Option(
                names = "--strait-flush-on-ack",
                description = "Also run Strait with strait.flush.on.ack=true (acks=all waits for every in-sync"
                        + " replica's fsync), right after each default Strait run; a third column.")
        boolean straitFlushOnAck;

        @Option(
                names = "--victim",
                paramLabel = "leader|controller",
                description =
                        "Kill partition 0's leader, or the active controller (producing to a partition it leads).")
        String victim = "leader";
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
        if (f.nodes != 3) {
            throw new IllegalArgumentException("--nodes: only 1 (bin/bench broker) or 3");
        }
        List<Kind> brokers = Kind.parseList(f.only);
        Victim victim = switch (f.victim.trim()) {
            case "leader" -> Victim.LEADER;
            case "controller" -> Victim.CONTROLLER;
            default -> throw new IllegalArgumentException("--victim takes leader or controller, not " + f.victim);
        };
        if (!f.workload.valid() || f.runs < 1) {
            throw new IllegalArgumentException("--records, --record-size, --partitions and --runs must be at least 1");
        }
        return new Options(
                f.workload.records,
                f.workload.recordBytes,
                f.workload.partitions,
                brokers,
                List.copyOf(f.sessionTimeouts),
                f.heap,
                Duration.ofSeconds(f.failoverTimeoutS),
                Duration.ofSeconds(f.stepTimeoutS),
                f.output.path,
                f.keepLogs,
                f.runs,
                victim,
                f.straitFlushOnAck);
    }

    private List<String> jvmOptions() {
        return BrokerNode.jvmOptions(options.heap());
    }

    private String header() {
        return String.format(
                Locale.ROOT,
                "bench cluster: 3 nodes each (process.roles=broker,controller), topic of %d"
                        + " partitions, RF 3, min.insync.replicas=2; ProducerPerformance acks=all %,d records of %d bytes;"
                        + " node JVM %s; %d cores, java %s, load average at start %s, %s",
                options.partitions(),
                options.records(),
                options.recordBytes(),
                String.join(" ", jvmOptions()),
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"),
                ProcessStats.loadAverage(),
                Instant.now());
    }

    boolean run() throws IOException {
        String header = header();
        System.out.println(header);
        long perRun = options.brokers().size()
                + (options.brokers().contains(Kind.STRAIT) && options.straitFlushOnAck() ? 1 : 0);
        progress = BenchProgress.of("bench cluster", null)
                .evenSteps()
                .start((long) options.sessionTimeouts().size() * options.runs() * perRun);
        for (int session : options.sessionTimeouts()) {
            for (int run = 1; run <= options.runs(); run++) {
                for (Kind kind : options.brokers()) {
                    boolean withFsyncMode = kind == Kind.STRAIT && options.straitFlushOnAck();
                    for (boolean flushOnAck : withFsyncMode ? List.of(false, true) : List.of(false)) {
                        if (children.isClosed()) {
                            break;
                        }
                        String key = (flushOnAck ? STRAIT_FLUSH_ON_ACK : kind.name()) + "/" + session;
                        String label = options.runs() == 1 ? key : key + " run " + run;
                        measuring = (flushOnAck ? "strait fsync" : kind.name().toLowerCase(Locale.ROOT))
                                + (options.runs() == 1 ? "" : " run " + run + "/" + options.runs());
                        say(
                                "== %s, 3 nodes, broker.session.timeout.ms=%d%s ==",
                                flushOnAck ? STRAIT_FLUSH_ON_ACK_LABEL : kind.label,
                                session,
                                options.runs() == 1 ? "" : ", run " + run + " of " + options.runs());
                        ClusterRun measuredRun = measure(kind, flushOnAck, session, label, run);
                        results.computeIfAbsent(key, k -> new ArrayList<>()).add(measuredRun);
                        measured++;
                    }
                }
            }
        }
        progress.update(measured, "done");
        progress.finish();
        String report = header + "\n\n" + report(options, results, failures);
        System.out.println();
        System.out.println(report);
        ReportFile.write(options.output(), report);
        return failures.isEmpty();
    }

    private ClusterRun measure(Kind kind, boolean flushOnAck, int session, String key, int run) {
        Path dir = work.resolve(
                kind.name().toLowerCase(Locale.ROOT) + (flushOnAck ? "-fsync" : "") + "-" + session + "-" + run);
        killed.clear(); // node ids repeat in every run
        List<ClusterNode> nodes = new ArrayList<>();
        for (int id = 1; id <= NODES; id++) {
            nodes.add(new ClusterNode(kind, flushOnAck, id, dir.resolve("node-" + id)));
        }
        String voters =
                nodes.stream().map(n -> n.id + "@127.0.0.1:" + n.controllerPort).collect(Collectors.joining(","));
        String bootstrap = nodes.stream().map(n -> "127.0.0.1:" + n.port).collect(Collectors.joining(","));
        String clusterId = Uuid.randomUuid().toString();
        Double startupMs = null;
        ProducerSummary produced = null;
        AtomicReference<Kill> kill = new AtomicReference<>();
        Failover failover = null;
        try (Admin admin = admin(bootstrap)) {
            phase("starting 3 nodes");
            long t0 = System.nanoTime();
            for (ClusterNode n : nodes) {
                Files.createDirectories(n.dir);
                Files.writeString(n.config(), n.properties(voters, session), StandardCharsets.UTF_8);
                n.process = children.start(n.command(jvmOptions(), clusterId), n.log());
            }
            awaitNodes(admin, nodes);
            startupMs = (System.nanoTime() - t0) / 1e6;
            say(
                    "  3 nodes up in %.0f ms (pids %s)",
                    startupMs,
                    nodes.stream().map(n -> String.valueOf(n.started().pid())).collect(Collectors.joining(",")));
            NewTopic topic =
                    new NewTopic(TOPIC, options.partitions(), (short) 3).configs(Map.of("min.insync.replicas", "2"));
            admin.createTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
            KafkaCluster.awaitWritable(admin, TOPIC, options.partitions());
            try {
                phase("produce acks=all");
                produced = produce(bootstrap, dir);
            } catch (Exception e) {
                fail(key, "produce acks=all", e, nodes);
            }
            try {
                phase("failover");
                failover = failover(admin, bootstrap, nodes, kill::set);
            } catch (Exception e) {
                fail(key, "failover", e, nodes);
            }
        } catch (Exception e) {
            fail(key, "set-up", e, nodes);
        } finally {
            for (ClusterNode n : nodes) {
                if (n.process != null) {
                    ChildProcesses.stop(n.process, Duration.ofSeconds(20));
                }
            }
            if (!options.keepLogs()) {
                KafkaCluster.deleteRecursively(dir);
            } else {
                nodes.forEach(n -> KafkaCluster.deleteRecursively(n.dir.resolve("data")));
            }
        }
        return new ClusterRun(startupMs, produced, kill.get(), failover);
    }

    private void fail(String key, String step, Exception e, List<ClusterNode> nodes) {
        StringBuilder why = new StringBuilder(ReportText.oneLine(e));
        for (ClusterNode n : nodes) {
            if (n.process != null && !n.process.isAlive() && !Boolean.TRUE.equals(killed.get(n.id))) {
                why.append("\n  node ")
                        .append(n.id)
                        .append(" exited with ")
                        .append(n.process.exitValue())
                        .append("; log tail:\n")
                        .append(ChildProcesses.tail(n.log(), 20));
            }
        }
        if (step.equals("set-up")) {
            for (ClusterNode n : nodes) {
                why.append("\n  node ")
                        .append(n.id)
                        .append(" log tail (")
                        .append(n.log())
                        .append("):\n")
                        .append(ChildProcesses.tail(n.log(), 15));
            }
        }
        failures.put(key + " " + step, why.toString());
        say("  %s FAILED: %s", step, why);
    }

    private final Map<Integer, Boolean> killed = new LinkedHashMap<>();

    private static Admin admin(String bootstrap) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, "20");
        p.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "200");
        return Admin.create(p);
    }

    private void awaitNodes(Admin admin, List<ClusterNode> nodes) throws InterruptedException {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        Exception last = null;
        while (System.nanoTime() < deadline) {
            for (ClusterNode n : nodes) {
                Process process = n.started();
                if (!process.isAlive()) {
                    throw new IllegalStateException("node " + n.id + " exited with " + process.exitValue()
                            + " while starting; log tail:\n" + ChildProcesses.tail(n.log(), 30));
                }
            }
            try {
                int seen = admin.describeCluster(new DescribeClusterOptions().timeoutMs(2000))
                        .nodes()
                        .get(3, TimeUnit.SECONDS)
                        .size();
                if (seen == NODES) {
                    return;
                }
                last = new IllegalStateException(seen + " of " + NODES + " nodes registered");
            } catch (Exception e) {
                last = e;
            }
            Thread.sleep(50);
        }
        throw new IllegalStateException(
                "the cluster did not list " + NODES + " nodes in " + START_TIMEOUT.toSeconds() + " s: " + last);
    }

    private ProducerSummary produce(String bootstrap, Path dir) throws InterruptedException {
        PerfTools.Produced run = PerfTools.produce(
                children,
                bootstrap,
                TOPIC,
                "all",
                options.records(),
                options.recordBytes(),
                -1,
                dir.resolve("producer.log"),
                options.stepTimeout(),
                progress::tick);
        say("  produce acks=all: %s", run.describe());
        return run.summary();
    }

    private static int leaderOf(Admin admin, int partition) throws Exception {
        TopicDescription d = Objects.requireNonNull(
                admin.describeTopics(List.of(TOPIC))
                        .allTopicNames()
                        .get(10, TimeUnit.SECONDS)
                        .get(TOPIC),
                "describeTopics answers for the topic it was asked");
        TopicPartitionInfo p = d.partitions().get(partition);
        Node leader = p.leader();
        return leader == null || leader.isEmpty() ? -1 : leader.id();
    }

    /** The first partition of the topic that {@code node} leads (--victim controller). */
    private static int partitionLedBy(Admin admin, int node) throws Exception {
        if (node < 0) {
            throw new IllegalStateException("--victim controller: describeMetadataQuorum named no active controller");
        }
        TopicDescription d = Objects.requireNonNull(
                admin.describeTopics(List.of(TOPIC))
                        .allTopicNames()
                        .get(10, TimeUnit.SECONDS)
                        .get(TOPIC),
                "describeTopics answers for the topic it was asked");
        for (TopicPartitionInfo p : d.partitions()) {
            if (p.leader() != null && !p.leader().isEmpty() && p.leader().id() == node) {
                return p.partition();
            }
        }
        throw new IllegalStateException("--victim controller: the active controller, node " + node + ", leads none of "
                + "the " + d.partitions().size() + " partitions; use more --partitions");
    }

    /** The active controller (metadata quorum leader) from Admin describeMetadataQuorum; -1 if not answered. */
    private int activeController(Admin admin) {
        try {
            return admin.describeMetadataQuorum()
                    .quorumInfo()
                    .get(10, TimeUnit.SECONDS)
                    .leaderId();
        } catch (Exception e) {
            say("  describeMetadataQuorum: %s", ReportText.oneLine(e));
            return -1;
        }
    }

    /**
     * The controller after the kill: polls describeMetadataQuorum (bounded) until it names a live leader, i.e.
     * another node than the killed one if the killed node was the controller. -1 if none within 30 s.
     */
    private int controllerAfter(Admin admin, int killed) throws InterruptedException {
        long until = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        Exception last = null;
        while (System.nanoTime() < until) {
            try {
                int leader = admin.describeMetadataQuorum()
                        .quorumInfo()
                        .get(10, TimeUnit.SECONDS)
                        .leaderId();
                if (leader >= 0 && leader != killed) {
                    return leader;
                }
            } catch (Exception e) {
                last = e;
            }
            Thread.sleep(100);
        }
        say(
                "  describeMetadataQuorum after the kill named no live controller in 30 s%s",
                last == null ? "" : ": " + ReportText.oneLine(last));
        return -1;
    }

    /** Kills the victim ({@code chosen} learns which before the kill) and measures until a send is acknowledged. */
    private Failover failover(Admin admin, String bootstrap, List<ClusterNode> nodes, Consumer<Kill> chosen)
            throws Exception {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "5000");
        long timeoutNanos = options.failoverTimeout().toNanos();
        AtomicLong killNanos = new AtomicLong(Long.MAX_VALUE);
        AtomicLong firstAckNanos = new AtomicLong(0);
        AtomicLong acked = new AtomicLong();
        AtomicLong errors = new AtomicLong();
        byte[] value = new byte[100];
        try (KafkaProducer<byte[], byte[]> producer =
                new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer())) {
            int controller = activeController(admin);
            int partition = options.victim() == Victim.CONTROLLER ? partitionLedBy(admin, controller) : 0;
            // Warm up: the producer knows the leader and has acknowledged sends before the kill.
            producer.send(new ProducerRecord<>(TOPIC, partition, null, value)).get(30, TimeUnit.SECONDS);
            int leader = leaderOf(admin, partition);
            ClusterNode victim = nodes.stream()
                    .filter(n -> n.id == leader)
                    .findFirst()
                    .orElseThrow(() ->
                            new IllegalStateException("partition " + partition + " has no leader (" + leader + ")"));
            chosen.accept(new Kill(leader, controller));
            long end = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            long killAt = System.nanoTime() + Duration.ofSeconds(1).toNanos();
            long deadline = Long.MAX_VALUE;
            while (System.nanoTime() < end) {
                long now = System.nanoTime();
                if (killNanos.get() == Long.MAX_VALUE && now >= killAt) {
                    killed.put(victim.id, true);
                    killNanos.set(System.nanoTime());
                    victim.started().destroyForcibly(); // SIGKILL
                    deadline = killNanos.get() + timeoutNanos;
                    end = deadline;
                    say(
                            "  SIGKILL node %d (pid %d), the leader of %s-%d (active controller: node %d, %s)",
                            victim.id,
                            victim.started().pid(),
                            TOPIC,
                            partition,
                            controller,
                            controller == victim.id ? "the killed node" : "not the killed node");
                }
                if (firstAckNanos.get() != 0) {
                    break;
                }
                long sentNanos = System.nanoTime();
                try {
                    producer.send(new ProducerRecord<>(TOPIC, partition, null, value), (md, e) -> {
                        if (e != null) {
                            errors.incrementAndGet();
                            return;
                        }
                        acked.incrementAndGet();
                        long k = killNanos.get();
                        if (sentNanos > k) {
                            firstAckNanos.compareAndSet(0, System.nanoTime());
                        }
                    });
                } catch (Exception e) {
                    errors.incrementAndGet(); // e.g. buffer full / max.block.ms: keep trying
                }
                Thread.sleep(FAILOVER_SEND_INTERVAL_MS);
            }
            if (firstAckNanos.get() == 0) {
                throw new IllegalStateException("no acknowledged send within "
                        + options.failoverTimeout().toSeconds() + " s after the kill (" + errors.get() + " errors)");
            }
            double seconds = (firstAckNanos.get() - killNanos.get()) / 1e9;
            int newLeader = -1;
            long until = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            while (System.nanoTime() < until) {
                newLeader = leaderOf(admin, partition);
                if (newLeader != -1 && newLeader != leader) {
                    break;
                }
                Thread.sleep(100);
            }
            int newController = controllerAfter(admin, leader);
            say(
                    "  failover: first acknowledged send after the kill %.3f s later; new leader"
                            + " node %d; controller now node %d; %d send errors",
                    seconds, newLeader, newController, errors.get());
            return new Failover(seconds, newLeader, errors.get(), newController);
        }
    }

    /** A line of the report; {@code perRun}: node ids, listed run by run rather than as a median. */
    private record Row(String label, Function<ClusterRun, Double> value, boolean perRun) {
        static Row produce(String label, Function<ProducerSummary, Number> value) {
            return new Row(
                    label,
                    r -> r.produce() == null ? null : value.apply(r.produce()).doubleValue(),
                    false);
        }

        static Row kill(String label, ToDoubleFunction<Kill> value) {
            return new Row(label, r -> r.kill() == null ? null : value.applyAsDouble(r.kill()), true);
        }

        static Row failover(String label, ToDoubleFunction<Failover> value, boolean perRun) {
            return new Row(label, r -> r.failover() == null ? null : value.applyAsDouble(r.failover()), perRun);
        }
    }

    private static final List<Row> ROWS = List.of(
            new Row("start-up: 3 nodes registered (ms)", ClusterRun::startupMs, false),
            Row.produce("produce acks=all (records/s)", ProducerSummary::recordsPerSecond),
            Row.produce("produce acks=all (MB/s)", ProducerSummary::mbPerSecond),
            Row.produce("produce acks=all p50 latency (ms)", ProducerSummary::p50Ms),
            Row.produce("produce acks=all p99 latency (ms)", ProducerSummary::p99Ms),
            Row.produce("produce acks=all p99.9 latency (ms)", ProducerSummary::p999Ms),
            Row.failover("failover: SIGKILL of leader to first ack (s)", Failover::seconds, false),
            Row.kill("killed partition's leader (node id)", Kill::oldLeader),
            Row.kill("active controller before the kill (node id)", Kill::controller),
            Row.kill("killed node was the active controller (1 yes, 0 no)", k -> k.controllerKilled() ? 1 : 0),
            Row.failover("that partition's new leader (node id)", Failover::newLeader, true),
            Row.failover("active controller after the kill (node id)", Failover::newController, true),
            Row.failover("failover: failed sends", Failover::errors, false));

    /** Per session timeout the table of medians (and each run's failover), then the failures. */
    static String report(Options options, Map<String, List<ClusterRun>> results, Map<String, String> failures) {
        StringBuilder out = new StringBuilder();
        int runs = options.runs();
        for (int session : options.sessionTimeouts()) {
            List<ClusterRun> kafka = results.getOrDefault(Kind.KAFKA.name() + "/" + session, List.of());
            List<ClusterRun> strait = results.getOrDefault(Kind.STRAIT.name() + "/" + session, List.of());
            List<ClusterRun> fsync = results.getOrDefault(STRAIT_FLUSH_ON_ACK + "/" + session, List.of());
            boolean fsyncColumn = !fsync.isEmpty();
            if (kafka.isEmpty() && strait.isEmpty()) {
                continue;
            }
            out.append("broker.session.timeout.ms=")
                    .append(session)
                    .append(" (both)")
                    .append(runs == 1 ? "" : ", " + runs + " runs each on fresh clusters: medians, node ids per run")
                    .append("\n\n");
            out.append("| metric | ")
                    .append(Kind.KAFKA.label)
                    .append(" | ")
                    .append(Kind.STRAIT.label)
                    .append(" | Strait / Kafka |")
                    .append(fsyncColumn ? " " + STRAIT_FLUSH_ON_ACK_LABEL + " | flush.on.ack / Kafka |" : "")
                    .append("\n|---|---:|---:|---:|")
                    .append(fsyncColumn ? "---:|---:|" : "")
                    .append('\n');
            for (Row row : ROWS) {
                List<Double> k = values(kafka, row.value());
                List<Double> s = values(strait, row.value());
                if (k.isEmpty() && s.isEmpty()) {
                    continue;
                }
                boolean perRun = row.perRun();
                String ratio = perRun || k.isEmpty() || s.isEmpty() || median(k) == 0
                        ? "-"
                        : String.format(Locale.ROOT, "%.2f", median(s) / median(k));
                out.append("| ")
                        .append(row.label())
                        .append(" | ")
                        .append(cell(k, perRun))
                        .append(" | ")
                        .append(cell(s, perRun))
                        .append(" | ")
                        .append(ratio)
                        .append(" |");
                if (fsyncColumn) {
                    List<Double> f = values(fsync, row.value());
                    String fsyncRatio = perRun || k.isEmpty() || f.isEmpty() || median(k) == 0
                            ? "-"
                            : String.format(Locale.ROOT, "%.2f", median(f) / median(k));
                    out.append(' ')
                            .append(cell(f, perRun))
                            .append(" | ")
                            .append(fsyncRatio)
                            .append(" |");
                }
                out.append('\n');
            }
            out.append('\n');
            if (runs > 1) {
                out.append(failoverRuns(options, kafka, strait));
            }
        }
        failures.forEach((step, why) ->
                out.append("**failed: ").append(step).append(":** ").append(why).append("\n"));
        out.append("Load average at the end: ")
                .append(ProcessStats.loadAverage())
                .append(", ")
                .append(Instant.now())
                .append('.');
        return out.toString();
    }

    /** Every run's failover time, whether the killed leader was also the controller, median and p99 per system. */
    private static String failoverRuns(Options options, List<ClusterRun> kafka, List<ClusterRun> strait) {
        StringBuilder out = new StringBuilder();
        out.append(
                        options.victim() == Victim.CONTROLLER
                                ? "failover, SIGKILL of the active controller (the leader of the partition written) to the first acknowledged "
                                        + "send (s); C = the killed node was the active controller\n\n| run | "
                                : "failover, SIGKILL of partition 0's leader to the first acknowledged send (s); C = the killed node "
                                        + "was also the active controller\n\n| run | ")
                .append(Kind.KAFKA.label)
                .append(" | ")
                .append(Kind.STRAIT.label)
                .append(" |\n|---|---:|---:|\n");
        for (int run = 0; run < Math.max(kafka.size(), strait.size()); run++) {
            out.append("| ")
                    .append(run + 1)
                    .append(" | ")
                    .append(failoverCell(kafka, run))
                    .append(" | ")
                    .append(failoverCell(strait, run))
                    .append(" |\n");
        }
        Function<ClusterRun, Double> failoverSeconds =
                r -> r.failover() == null ? null : r.failover().seconds();
        List<Double> k = values(kafka, failoverSeconds);
        List<Double> s = values(strait, failoverSeconds);
        out.append("| median | ")
                .append(k.isEmpty() ? "-" : seconds(median(k)))
                .append(" | ")
                .append(s.isEmpty() ? "-" : seconds(median(s)))
                .append(" |\n");
        out.append("| p99 (nearest rank; = max for N <= 100) | ")
                .append(k.isEmpty() ? "-" : seconds(p99(k)))
                .append(" | ")
                .append(s.isEmpty() ? "-" : seconds(p99(s)))
                .append(" |\n");
        if (!k.isEmpty() && !s.isEmpty()) {
            out.append(String.format(
                    Locale.ROOT,
                    "%nStrait / Kafka: median %.2f, p99 %.2f (%d and %d successful " + "runs).%n%n",
                    median(s) / median(k),
                    p99(s) / p99(k),
                    s.size(),
                    k.size()));
        } else {
            out.append('\n');
        }
        return out.toString();
    }

    private static String failoverCell(List<ClusterRun> runs, int run) {
        Failover failover = run < runs.size() ? runs.get(run).failover() : null;
        if (failover == null) {
            return "failed";
        }
        // A failover is measured only after its kill was chosen, so the kill is there too.
        Kill kill = runs.get(run).kill();
        return seconds(failover.seconds()) + (kill != null && kill.controllerKilled() ? " C" : "");
    }

    private static String seconds(double v) {
        return String.format(Locale.ROOT, "%.3f", v);
    }

    /** The runs' values that were measured, in run order. */
    private static List<Double> values(List<ClusterRun> runs, Function<ClusterRun, Double> value) {
        return runs.stream().map(value).filter(Objects::nonNull).toList();
    }

    /** A system's values of one row: each run's (node ids), or their median; {@code -} if none was measured. */
    private static String cell(List<Double> values, boolean perRun) {
        return values.isEmpty() ? "-" : perRun ? list(values) : ReportText.number(median(values));
    }

    private static String list(List<Double> values) {
        return values.isEmpty()
                ? "-"
                : values.stream()
                        .map(v -> String.format(Locale.ROOT, "%.0f", v))
                        .collect(Collectors.joining(","));
    }

    static double median(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int n = sorted.size();
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    /** Nearest-rank 99th percentile: the value at rank ceil(0.99 N); the maximum whenever N <= 100. */
    static double p99(List<Double> values) {
        List<Double> sorted = values.stream().sorted().toList();
        int rank = (int) Math.ceil(0.99 * sorted.size());
        return sorted.get(Math.max(0, rank - 1));
    }
}
