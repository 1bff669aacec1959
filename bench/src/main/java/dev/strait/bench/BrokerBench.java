package dev.strait.bench;

import dev.strait.bench.BrokerNode.Kind;
import dev.strait.mirror.progress.Progress;
import dev.strait.testkit.KafkaCluster;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * One Strait companion broker node against one Apache Kafka 4.1.1 KRaft node on this machine: {@code bin/bench
 * broker}. The two run one after the other (never together), each in its own child JVM with the same JVM options,
 * a fresh directory and a free port on 127.0.0.1. For each:
 * <ol>
 *   <li>start-up: from process spawn to the first Admin {@code describeCluster} + {@code listTopics} answered (for
 *       Kafka the log directory is formatted before, untimed);</li>
 *   <li>resident memory when idle after start-up;</li>
 *   <li>Kafka's own {@code ProducerPerformance} (a child JVM) with {@code acks=1}, then {@code acks=all}, N records
 *       of S bytes, unthrottled, each into its own P-partition topic; the client settings are the tool's
 *       defaults plus {@code acks}, identical for both brokers;</li>
 *   <li>a latency run: {@code acks=all} at a fixed rate well below saturation, where p99 reflects the broker
 *       rather than the producer's own queue;</li>
 *   <li>Kafka's {@code ConsumerPerformance} (a child JVM, a consumer group) reading the N {@code acks=all}
 *       records;</li>
 *   <li>resident memory after the workload, and the peak (VmHWM) over the broker's life.</li>
 * </ol>
 * Every child has a time limit; a step that fails is reported and the others still run. A shutdown hook kills
 * the children and deletes the temporary directory. Prints a table and Strait/Kafka ratios.
 */
public final class BrokerBench {
    private static final Duration START_TIMEOUT = Duration.ofMinutes(2);
    private static final Duration SETTLE = Duration.ofSeconds(3);
    private static final int CONSUMER_IDLE_TIMEOUT_MS = 30_000;

    private final Options options;
    private final Path work;
    private final ChildProcesses children = new ChildProcesses();
    private final Map<Kind, Measured> results = new EnumMap<>(Kind.class);
    private String header;

    /** Steps done of every broker's, and which broker runs now, for the progress line. */
    private Progress progress = Progress.off();

    private long stepsDone;
    private String brokerName = "";

    /** A line of the log on stdout, above the progress line. */
    private void say(String format, Object... args) {
        progress.printAbove(System.out, String.format(Locale.ROOT, format, args));
    }

    /** Command-line options; see {@link #usage()}. */
    record Options(
            long records,
            int recordBytes,
            int partitions,
            List<Kind> brokers,
            Path output,
            String heap,
            int latencyRate,
            long latencyRecords,
            Duration stepTimeout,
            boolean keepLogs,
            boolean jfr) {}

    /** What one broker measured: values by metric key, and the steps that failed. */
    static final class Measured {
        final Map<String, Double> values = new LinkedHashMap<>();
        final Map<String, String> failures = new LinkedHashMap<>();
    }

    /** A line of the report: which way is better decides how the ratio reads. */
    private record Row(String key, String label, Better better) {}

    private enum Better {
        HIGHER,
        LOWER,
        NEITHER
    }

    private static final List<Row> ROWS = List.of(
            new Row("startup.ms", "start-up: spawn to Admin answered (ms)", Better.LOWER),
            new Row("p1.rps", "produce acks=1 (records/s)", Better.HIGHER),
            new Row("p1.mbps", "produce acks=1 (MB/s)", Better.HIGHER),
            new Row("p1.p50", "produce acks=1 p50 latency (ms)", Better.LOWER),
            new Row("p1.p99", "produce acks=1 p99 latency (ms)", Better.LOWER),
            new Row("p1.p999", "produce acks=1 p99.9 latency (ms)", Better.LOWER),
            new Row("pall.rps", "produce acks=all (records/s)", Better.HIGHER),
            new Row("pall.mbps", "produce acks=all (MB/s)", Better.HIGHER),
            new Row("pall.p50", "produce acks=all p50 latency (ms)", Better.LOWER),
            new Row("pall.p99", "produce acks=all p99 latency (ms)", Better.LOWER),
            new Row("pall.p999", "produce acks=all p99.9 latency (ms)", Better.LOWER),
            new Row("lat.rps", "fixed-rate acks=all: achieved (records/s)", Better.NEITHER),
            new Row("lat.avg", "fixed-rate acks=all avg latency (ms)", Better.LOWER),
            new Row("lat.p50", "fixed-rate acks=all p50 latency (ms)", Better.LOWER),
            new Row("lat.p99", "fixed-rate acks=all p99 latency (ms)", Better.LOWER),
            new Row("lat.p999", "fixed-rate acks=all p99.9 latency (ms)", Better.LOWER),
            new Row("c.rps", "consume, whole run incl. group join (records/s)", Better.HIGHER),
            new Row("c.mbps", "consume, whole run (MB/s)", Better.HIGHER),
            new Row("c.fetch.rps", "consume, fetch only (records/s)", Better.HIGHER),
            new Row("c.rebalance.ms", "consume: group join (ms)", Better.LOWER),
            new Row("rss.idle", "RSS idle after start-up (MiB)", Better.LOWER),
            new Row("rss.after", "RSS after the workload (MiB)", Better.LOWER),
            new Row("rss.peak", "RSS peak, VmHWM (MiB)", Better.LOWER));

    BrokerBench(Options options) throws IOException {
        this.options = options;
        this.work = Files.createTempDirectory("strait-bench-broker-");
    }

    public static void main(String[] args) throws Exception {
        // The start-up probe connects before the broker listens; one warning per attempt is noise.
        if (System.getProperty("org.slf4j.simpleLogger.log.org.apache.kafka.clients.NetworkClient") == null) {
            System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka.clients.NetworkClient", "error");
        }
        for (int i = 0; i + 1 < args.length; i++) {
            if (args[i].equals("--nodes") && !args[i + 1].equals("1")) {
                ClusterBench.main(args); // 3-node clusters: see ClusterBench
                return;
            }
        }
        Options options = BenchFlags.parseOrExit("bench broker", args, BrokerBench::parse, BrokerBench::usage);
        if (options == null) {
            return;
        }
        BrokerBench bench = new BrokerBench(options);
        Runtime.getRuntime().addShutdownHook(new Thread(bench::cleanUp, "bench-cleanup"));
        boolean complete = bench.run();
        System.exit(complete ? 0 : 1);
    }

    /** The flags of {@code bin/bench broker} (picocli), with their defaults. */
    @Command(
            name = "bin/bench broker",
            description = "One node of Strait's broker against one node of Apache Kafka 4.1.1, run in turn, with "
                    + "Kafka's ProducerPerformance and ConsumerPerformance. --nodes 3 runs bin/bench cluster "
                    + "instead.")
    static final class Flags {
        @Option(names = "--records", paramLabel = "N", description = "Records per throughput run.")
        long records = 1_000_000;

        @Option(names = "--nodes", paramLabel = "1|3", description = "1: this bench; 3: bin/bench cluster.")
        String nodes = "1";

        @Option(names = "--record-size", paramLabel = "BYTES", description = "Bytes per record.")
        int recordBytes = 1024;

        @Option(names = "--partitions", paramLabel = "P", description = "Partitions of the topic.")
        int partitions = 6;

        @Option(
                names = "--only",
                paramLabel = "strait|kafka|kafka,strait|strait,kafka",
                description = "Which brokers, in this order.")
        String only = "kafka,strait";

        @Option(names = "--output", paramLabel = "FILE.md", description = "Also write the report here.")
        Path output;

        @Option(names = "--heap", description = "-Xmx of each broker.")
        String heap = "1g";

        @Option(names = "--latency-rate", paramLabel = "RECORDS_PER_S", description = "Fixed-rate run (0: skip).")
        int latencyRate = 10_000;

        @Option(names = "--latency-records", paramLabel = "N", description = "Records of the fixed-rate run.")
        long latencyRecords = 300_000;

        @Option(names = "--step-timeout-s", paramLabel = "S", description = "Bound on each step.")
        long stepTimeoutS = 900;

        @Option(names = "--keep-logs", description = "Keep the brokers' logs.")
        boolean keepLogs;

        @Option(names = "--jfr", description = "A flight recording of each broker, kept with the logs.")
        boolean jfr;
    }

    static String usage() {
        return BenchFlags.usage(new Flags());
    }

    /** The options, or null if help was asked for. */
    static Options parse(String[] args) {
        Flags f = new Flags();
        if (!BenchFlags.parse(f, args)) {
            return null;
        }
        if (f.records < 1 || f.recordBytes < 1 || f.partitions < 1) {
            throw new IllegalArgumentException("--records, --record-size and --partitions must be at least 1");
        }
        return new Options(
                f.records,
                f.recordBytes,
                f.partitions,
                parseBrokers(f.only),
                f.output,
                f.heap,
                f.latencyRate,
                f.latencyRecords,
                Duration.ofSeconds(f.stepTimeoutS),
                f.keepLogs || f.jfr,
                f.jfr);
    }

    /** {@code strait}, {@code kafka}, or both in the order to run them ({@code strait,kafka}). */
    private static List<Kind> parseBrokers(String value) {
        List<Kind> kinds = new ArrayList<>();
        for (String name : value.split(",")) {
            Kind kind = switch (name.trim()) {
                case "strait" -> Kind.STRAIT;
                case "kafka" -> Kind.KAFKA;
                default ->
                    throw new IllegalArgumentException("--only takes strait, kafka or both in order, not " + value);
            };
            if (!kinds.contains(kind)) {
                kinds.add(kind);
            }
        }
        return List.copyOf(kinds);
    }

    /** Runs every broker in turn and prints the report; false if any step failed. */
    boolean run() throws IOException {
        header = header();
        System.out.println(header);
        // Per broker: start-up, produce acks=1, produce acks=all, the fixed-rate run if any, consume.
        int steps = options.latencyRate() > 0 ? 5 : 4;
        progress = BenchProgress.of("bench broker", null)
                .start((long) steps * options.brokers().size());
        for (Kind kind : options.brokers()) {
            if (children.isClosed()) {
                break;
            }
            say("== %s ==", kind.label);
            brokerName = kind.name().toLowerCase(Locale.ROOT);
            results.put(kind, measure(kind));
            stepsDone = (long) steps * results.size();
        }
        progress.update(stepsDone, "done");
        progress.finish();
        String report = report(options, header, results);
        System.out.println();
        System.out.println(report);
        if (options.output() != null) {
            Files.writeString(options.output(), report + "\n", StandardCharsets.UTF_8);
            System.out.println("written to " + options.output());
        }
        return results.values().stream().allMatch(m -> m.failures.isEmpty());
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "n/a";
        }
    }

    private String header() {
        String load = loadAverage();
        return String.format(
                        Locale.ROOT,
                        "bench broker: %,d records of %d bytes, %d partitions, RF 1; broker JVM %s;"
                                + " %d cores, java %s, load average at start %s, %s",
                        options.records(),
                        options.recordBytes(),
                        options.partitions(),
                        String.join(" ", brokerJvmOptions()),
                        Runtime.getRuntime().availableProcessors(),
                        System.getProperty("java.version"),
                        load,
                        Instant.now())
                + (options.jfr() ? "; JFR recording on" : "");
    }

    /** The same for both brokers: Kafka's start script's performance options, with the heap limit given. */
    private List<String> brokerJvmOptions() {
        return List.of(
                "-Xmx" + options.heap(),
                "-XX:+UseG1GC",
                "-XX:MaxGCPauseMillis=20",
                "-XX:InitiatingHeapOccupancyPercent=35",
                "-XX:+ExplicitGCInvokesConcurrent",
                "-Djava.awt.headless=true",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    }

    /** The same for every client tool run, whichever broker it talks to. */
    private static List<String> clientJvmOptions() {
        return List.of(
                "-Xmx512m", "-Duser.language=en", "-Duser.country=US", "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn");
    }

    private Measured measure(Kind kind) {
        Measured m = new Measured();
        Path dir = work.resolve(kind.name().toLowerCase(Locale.ROOT));
        List<String> jvm = new ArrayList<>(brokerJvmOptions());
        if (options.jfr()) {
            // Same recording settings for both brokers, so the overhead is the same for both.
            jvm.add("-XX:StartFlightRecording=filename=" + dir.resolve("broker.jfr")
                    + ",settings=profile,dumponexit=true");
        }
        BrokerNode node = new BrokerNode(kind, dir, jvm);
        Process broker = null;
        try {
            node.prepare(children);
            progress.update(stepsDone, brokerName + ": start-up");
            broker = startAndTime(node, m);
            stepsDone++;
            long pid = broker.pid();
            sleep(SETTLE);
            m.values.put("rss.idle", (double) ProcessStats.rssMiB(pid));
            createTopics(node);
            Process b = broker;
            step(m, b, "produce acks=1", () -> produce(node, m, "p1", "bench-acks-1", "1", options.records(), -1));
            step(
                    m,
                    b,
                    "produce acks=all",
                    () -> produce(node, m, "pall", "bench-acks-all", "all", options.records(), -1));
            if (options.latencyRate() > 0) {
                step(
                        m,
                        b,
                        "fixed-rate acks=all",
                        () -> produce(
                                node,
                                m,
                                "lat",
                                "bench-latency",
                                "all",
                                options.latencyRecords(),
                                options.latencyRate()));
            }
            step(m, b, "consume", () -> consume(node, m, "bench-acks-all"));
            sleep(SETTLE);
            m.values.put("rss.after", (double) ProcessStats.rssMiB(pid));
            m.values.put("rss.peak", (double) ProcessStats.peakRssMiB(pid));
        } catch (Exception e) {
            m.failures.put("set-up", oneLine(e));
            say("  FAILED: %s", oneLine(e));
        } finally {
            if (broker != null) {
                if (!broker.isAlive()) {
                    m.failures.put(
                            "broker",
                            "exited with " + broker.exitValue() + "; log tail:\n"
                                    + ChildProcesses.tail(node.log(), 20));
                }
                ChildProcesses.stop(broker, Duration.ofSeconds(30));
            }
            if (options.keepLogs()) {
                KafkaCluster.deleteRecursively(node.dir.resolve("data"));
            } else {
                KafkaCluster.deleteRecursively(node.dir);
            }
        }
        return m;
    }

    private Process startAndTime(BrokerNode node, Measured m) throws InterruptedException {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, node.bootstrapServers());
        props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "1000");
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "1000");
        props.put(AdminClientConfig.RECONNECT_BACKOFF_MS_CONFIG, "5");
        props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "20");
        props.put(AdminClientConfig.RETRY_BACKOFF_MS_CONFIG, "10");
        props.put(AdminClientConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "20");
        // The Admin client exists before the broker is spawned, so its own start-up is not counted.
        try (Admin admin = Admin.create(props)) {
            long startNanos = System.nanoTime();
            Process broker = children.start(node.command(), node.log());
            long deadline = startNanos + START_TIMEOUT.toNanos();
            Exception last = null;
            while (System.nanoTime() < deadline) {
                if (!broker.isAlive()) {
                    throw new IllegalStateException(node.kind.label + " exited with " + broker.exitValue()
                            + " while starting; log tail:\n" + ChildProcesses.tail(node.log(), 30));
                }
                try {
                    if (!admin.describeCluster(new DescribeClusterOptions().timeoutMs(1000))
                            .nodes()
                            .get(2, TimeUnit.SECONDS)
                            .isEmpty()) {
                        admin.listTopics(new ListTopicsOptions().timeoutMs(1000))
                                .names()
                                .get(2, TimeUnit.SECONDS);
                        double ms = (System.nanoTime() - startNanos) / 1e6;
                        m.values.put("startup.ms", ms);
                        say("  started in %.0f ms (pid %d)", ms, broker.pid());
                        return broker;
                    }
                } catch (Exception e) {
                    last = e;
                }
                Thread.sleep(5);
            }
            ChildProcesses.stop(broker, Duration.ZERO);
            throw new IllegalStateException(
                    node.kind.label + " did not answer in " + START_TIMEOUT.toSeconds() + " s: " + last);
        }
    }

    private void createTopics(BrokerNode node) throws Exception {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, node.bootstrapServers());
        try (Admin admin = Admin.create(props)) {
            List<NewTopic> topics = new ArrayList<>();
            for (String t : List.of("bench-acks-1", "bench-acks-all", "bench-latency")) {
                topics.add(new NewTopic(t, options.partitions(), (short) 1));
            }
            admin.createTopics(topics).all().get(60, TimeUnit.SECONDS);
            for (NewTopic t : topics) {
                KafkaCluster.awaitWritable(admin, t.name(), options.partitions());
            }
        }
    }

    private void produce(
            BrokerNode node, Measured m, String prefix, String topic, String acks, long records, int throughput)
            throws InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(BrokerNode.java());
        cmd.addAll(clientJvmOptions());
        cmd.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                "org.apache.kafka.tools.ProducerPerformance",
                "--topic",
                topic,
                "--num-records",
                String.valueOf(records),
                "--record-size",
                String.valueOf(options.recordBytes()),
                "--throughput",
                String.valueOf(throughput),
                "--producer-props",
                "bootstrap.servers=" + node.bootstrapServers(),
                "acks=" + acks));
        ChildProcesses.Completed done =
                children.run(cmd, node.dir.resolve(prefix + "-producer.log"), options.stepTimeout(), progress::tick);
        PerfOutput.ProducerSummary s = PerfOutput.parseProducer(done.lines())
                .orElseThrow(() -> new IllegalStateException("no summary line (exit " + done.exitCode() + "); tail:\n"
                        + ChildProcesses.tail(done.log(), 10)));
        if (done.exitCode() != 0 || s.records() != records) {
            throw new IllegalStateException("exit " + done.exitCode() + ", " + s.records() + " of " + records
                    + " records sent; tail:\n" + ChildProcesses.tail(done.log(), 10));
        }
        m.values.put(prefix + ".rps", s.recordsPerSecond());
        m.values.put(prefix + ".mbps", s.mbPerSecond());
        m.values.put(prefix + ".avg", s.avgLatencyMs());
        m.values.put(prefix + ".p50", (double) s.p50Ms());
        m.values.put(prefix + ".p99", (double) s.p99Ms());
        m.values.put(prefix + ".p999", (double) s.p999Ms());
        m.values.put(prefix + ".max", s.maxLatencyMs());
        say(
                "  %s acks=%s: %.0f records/s, %.2f MB/s, p50 %d ms, p99 %d ms, p99.9 %d ms," + " max %.0f ms (%.1f s)",
                topic,
                acks,
                s.recordsPerSecond(),
                s.mbPerSecond(),
                s.p50Ms(),
                s.p99Ms(),
                s.p999Ms(),
                s.maxLatencyMs(),
                done.seconds());
    }

    private void consume(BrokerNode node, Measured m, String topic) throws InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add(BrokerNode.java());
        cmd.addAll(clientJvmOptions());
        cmd.addAll(List.of(
                "-cp",
                System.getProperty("java.class.path"),
                "org.apache.kafka.tools.ConsumerPerformance",
                "--bootstrap-server",
                node.bootstrapServers(),
                "--topic",
                topic,
                "--messages",
                String.valueOf(options.records()),
                "--group",
                "bench-consumer",
                "--timeout",
                String.valueOf(CONSUMER_IDLE_TIMEOUT_MS)));
        ChildProcesses.Completed done =
                children.run(cmd, node.dir.resolve("consumer.log"), options.stepTimeout(), progress::tick);
        PerfOutput.ConsumerSummary s = PerfOutput.parseConsumer(done.lines())
                .orElseThrow(() -> new IllegalStateException(
                        "no CSV line (exit " + done.exitCode() + "); tail:\n" + ChildProcesses.tail(done.log(), 10)));
        if (done.exitCode() != 0 || s.records() < options.records()) {
            throw new IllegalStateException("exit " + done.exitCode() + ", " + s.records() + " of " + options.records()
                    + " records read; tail:\n" + ChildProcesses.tail(done.log(), 10));
        }
        m.values.put("c.rps", s.recordsPerSecond());
        m.values.put("c.mbps", s.mbPerSecond());
        m.values.put("c.fetch.rps", s.fetchRecordsPerSecond());
        m.values.put("c.rebalance.ms", (double) s.rebalanceMs());
        say(
                "  consume: %.0f records/s (%.2f MB/s) whole run, %.0f records/s fetching,"
                        + " group join %d ms (%.1f s)",
                s.recordsPerSecond(), s.mbPerSecond(), s.fetchRecordsPerSecond(), s.rebalanceMs(), done.seconds());
    }

    @FunctionalInterface
    private interface Step {
        void run() throws Exception;
    }

    /** Runs one measured step; a failure is recorded and the bench goes on with the next step. */
    private void step(Measured m, Process broker, String name, Step step) {
        if (!broker.isAlive()) {
            m.failures.put(name, "skipped: broker process has exited");
            stepsDone++;
            return;
        }
        progress.update(stepsDone, brokerName + ": " + name);
        try {
            step.run();
        } catch (Exception e) {
            m.failures.put(name, oneLine(e));
            say("  %s FAILED: %s", name, oneLine(e));
        }
        stepsDone++;
    }

    /** The table, the failures and the notes, after {@code header}; results in run order. */
    static String report(Options options, String header, Map<Kind, Measured> results) {
        StringBuilder out = new StringBuilder();
        out.append(header)
                .append("; run order: ")
                .append(options.brokers().stream().map(k -> k.label).collect(Collectors.joining(", ")))
                .append("\n\n");
        List<Kind> kinds = new ArrayList<>(results.keySet());
        out.append("| metric |");
        kinds.forEach(k -> out.append(' ').append(k.label).append(" |"));
        boolean both = kinds.size() == 2;
        if (both) {
            out.append(" Strait / Kafka | better |");
        }
        out.append('\n').append("|---|");
        kinds.forEach(k -> out.append("---:|"));
        if (both) {
            out.append("---:|---|");
        }
        out.append('\n');
        for (Row row : ROWS) {
            if (results.values().stream().noneMatch(m -> m.values.containsKey(row.key()))) {
                continue;
            }
            out.append("| ").append(row.label()).append(" |");
            for (Kind k : kinds) {
                out.append(' ')
                        .append(format(results.get(k).values.get(row.key())))
                        .append(" |");
            }
            if (both) {
                Double kafka = results.get(Kind.KAFKA).values.get(row.key());
                Double strait = results.get(Kind.STRAIT).values.get(row.key());
                String ratio = kafka == null || strait == null || kafka == 0
                        ? "-"
                        : String.format(Locale.ROOT, "%.2f", strait / kafka);
                out.append(' ')
                        .append(ratio)
                        .append(" | ")
                        .append(
                                switch (row.better()) {
                                    case HIGHER -> "higher";
                                    case LOWER -> "lower";
                                    case NEITHER -> "";
                                })
                        .append(" |");
            }
            out.append('\n');
        }
        for (Kind k : kinds) {
            results.get(k)
                    .failures
                    .forEach((step, why) -> out.append("\n**")
                            .append(k.label)
                            .append(" failed at ")
                            .append(step)
                            .append(":** ")
                            .append(why));
        }
        out.append("\n\nLoad average at the end: ")
                .append(loadAverage())
                .append(", ")
                .append(Instant.now())
                .append(". Latencies are ProducerPerformance's send-to-acknowledgement times; unthrottled runs measure")
                .append(" mostly the producer's own queue");
        if (options.latencyRate() > 0) {
            out.append(", the fixed-rate run (")
                    .append(options.latencyRate())
                    .append(" records/s, ")
                    .append(options.latencyRecords())
                    .append(" records) the broker");
        }
        out.append(". Consumer: ConsumerPerformance --messages ")
                .append(options.records())
                .append(" in a new group.");
        return out.toString();
    }

    private static String format(Double v) {
        if (v == null) {
            return "-";
        }
        boolean whole = v == Math.rint(v);
        return whole || Math.abs(v) >= 100
                ? String.format(Locale.ROOT, "%,.0f", v)
                : String.format(Locale.ROOT, "%.2f", v);
    }

    private static String oneLine(Exception e) {
        String msg = e.getMessage() == null ? e.toString() : e.getMessage();
        return e.getClass().getSimpleName() + ": " + msg;
    }

    private void cleanUp() {
        children.killAll();
        if (!options.keepLogs()) {
            KafkaCluster.deleteRecursively(work);
        } else {
            System.err.println("logs kept in " + work);
        }
    }

    private static void sleep(Duration d) throws InterruptedException {
        Thread.sleep(d.toMillis());
    }
}
