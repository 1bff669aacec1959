package dev.strait.bench;

import dev.strait.bench.BrokerNode.Kind;
import dev.strait.bench.PerfOutput.ConsumerSummary;
import dev.strait.bench.PerfOutput.ProducerSummary;
import dev.strait.mirror.progress.Progress;
import dev.strait.testkit.KafkaCluster;
import java.io.IOException;
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
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;
import org.apache.kafka.clients.admin.ListTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
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
            @Nullable Path output,
            String heap,
            int latencyRate,
            long latencyRecords,
            Duration stepTimeout,
            boolean keepLogs,
            boolean jfr) {}

    /**
     * What one broker measured; a part is null where its step failed or did not run. {@code failures}: the
     * steps that failed and why, in order.
     */
    record Measured(
            @Nullable Double startupMs,
            @Nullable Long rssIdleMiB,
            @Nullable ProducerSummary acks1,
            @Nullable ProducerSummary acksAll,
            @Nullable ProducerSummary fixedRate,
            @Nullable ConsumerSummary consume,
            @Nullable Long rssAfterMiB,
            @Nullable Long rssPeakMiB,
            Map<String, String> failures) {}

    /** A line of the report: which way is better decides how the ratio reads. */
    private record Row(String label, Better better, Function<Measured, Double> value) {
        /** A value of a producer run, if it ran. */
        static Row produce(
                String label,
                Better better,
                Function<Measured, ProducerSummary> run,
                Function<ProducerSummary, Number> value) {
            return new Row(
                    label,
                    better,
                    m -> run.apply(m) == null ? null : value.apply(run.apply(m)).doubleValue());
        }

        /** A value of the consumer run, if it ran. */
        static Row consume(String label, Better better, Function<ConsumerSummary, Number> value) {
            return new Row(
                    label,
                    better,
                    m -> m.consume() == null ? null : value.apply(m.consume()).doubleValue());
        }

        /** A resident set size, if it was read. */
        static Row rss(String label, Function<Measured, Long> value) {
            return new Row(
                    label,
                    Better.LOWER,
                    m -> value.apply(m) == null ? null : value.apply(m).doubleValue());
        }
    }

    private enum Better {
        HIGHER,
        LOWER,
        NEITHER
    }

    private static final List<Row> ROWS = List.of(
            new Row("start-up: spawn to Admin answered (ms)", Better.LOWER, Measured::startupMs),
            Row.produce(
                    "produce acks=1 (records/s)", Better.HIGHER, Measured::acks1, ProducerSummary::recordsPerSecond),
            Row.produce("produce acks=1 (MB/s)", Better.HIGHER, Measured::acks1, ProducerSummary::mbPerSecond),
            Row.produce("produce acks=1 p50 latency (ms)", Better.LOWER, Measured::acks1, ProducerSummary::p50Ms),
            Row.produce("produce acks=1 p99 latency (ms)", Better.LOWER, Measured::acks1, ProducerSummary::p99Ms),
            Row.produce("produce acks=1 p99.9 latency (ms)", Better.LOWER, Measured::acks1, ProducerSummary::p999Ms),
            Row.produce(
                    "produce acks=all (records/s)",
                    Better.HIGHER,
                    Measured::acksAll,
                    ProducerSummary::recordsPerSecond),
            Row.produce("produce acks=all (MB/s)", Better.HIGHER, Measured::acksAll, ProducerSummary::mbPerSecond),
            Row.produce("produce acks=all p50 latency (ms)", Better.LOWER, Measured::acksAll, ProducerSummary::p50Ms),
            Row.produce("produce acks=all p99 latency (ms)", Better.LOWER, Measured::acksAll, ProducerSummary::p99Ms),
            Row.produce(
                    "produce acks=all p99.9 latency (ms)", Better.LOWER, Measured::acksAll, ProducerSummary::p999Ms),
            Row.produce(
                    "fixed-rate acks=all: achieved (records/s)",
                    Better.NEITHER,
                    Measured::fixedRate,
                    ProducerSummary::recordsPerSecond),
            Row.produce(
                    "fixed-rate acks=all avg latency (ms)",
                    Better.LOWER,
                    Measured::fixedRate,
                    ProducerSummary::avgLatencyMs),
            Row.produce(
                    "fixed-rate acks=all p50 latency (ms)", Better.LOWER, Measured::fixedRate, ProducerSummary::p50Ms),
            Row.produce(
                    "fixed-rate acks=all p99 latency (ms)", Better.LOWER, Measured::fixedRate, ProducerSummary::p99Ms),
            Row.produce(
                    "fixed-rate acks=all p99.9 latency (ms)",
                    Better.LOWER,
                    Measured::fixedRate,
                    ProducerSummary::p999Ms),
            Row.consume(
                    "consume, whole run incl. group join (records/s)",
                    Better.HIGHER,
                    ConsumerSummary::recordsPerSecond),
            Row.consume("consume, whole run (MB/s)", Better.HIGHER, ConsumerSummary::mbPerSecond),
            Row.consume("consume, fetch only (records/s)", Better.HIGHER, ConsumerSummary::fetchRecordsPerSecond),
            Row.consume("consume: group join (ms)", Better.LOWER, ConsumerSummary::rebalanceMs),
            Row.rss("RSS idle after start-up (MiB)", Measured::rssIdleMiB),
            Row.rss("RSS after the workload (MiB)", Measured::rssAfterMiB),
            Row.rss("RSS peak, VmHWM (MiB)", Measured::rssPeakMiB));

    BrokerBench(Options options) throws IOException {
        this.options = options;
        this.work = Files.createTempDirectory("strait-bench-broker-");
    }

    public static void main(String[] args) throws Exception {
        // The start-up probe connects before the broker listens; one warning per attempt is noise.
        KafkaClientLogs.errorsOnly("NetworkClient");
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
        bench.children.killAllAndDeleteOnExit(bench.work, options.keepLogs());
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
        @Mixin
        ProducerWorkload workload = new ProducerWorkload();

        @Option(names = "--nodes", paramLabel = "1|3", description = "1: this bench; 3: bin/bench cluster.")
        String nodes = "1";

        @Option(
                names = "--only",
                paramLabel = "strait|kafka|kafka,strait|strait,kafka",
                description = "Which brokers, in this order.")
        String only = "kafka,strait";

        @Mixin
        ReportFile output = new ReportFile();

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
    static @Nullable Options parse(String[] args) {
        Flags f = new Flags();
        if (!BenchFlags.parse(f, args)) {
            return null;
        }
        if (!f.workload.valid()) {
            throw new IllegalArgumentException("--records, --record-size and --partitions must be at least 1");
        }
        return new Options(
                f.workload.records,
                f.workload.recordBytes,
                f.workload.partitions,
                Kind.parseList(f.only),
                f.output.path,
                f.heap,
                f.latencyRate,
                f.latencyRecords,
                Duration.ofSeconds(f.stepTimeoutS),
                f.keepLogs || f.jfr,
                f.jfr);
    }

    /** Runs every broker in turn and prints the report; false if any step failed. */
    boolean run() throws IOException {
        String header = header();
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
        if (ReportFile.write(options.output(), report)) {
            System.out.println("written to " + options.output());
        }
        return results.values().stream().allMatch(m -> m.failures().isEmpty());
    }

    private String header() {
        String load = ProcessStats.loadAverage();
        return String.format(
                        Locale.ROOT,
                        "bench broker: %,d records of %d bytes, %d partitions, RF 1; broker JVM %s;"
                                + " %d cores, java %s, load average at start %s, %s",
                        options.records(),
                        options.recordBytes(),
                        options.partitions(),
                        String.join(" ", BrokerNode.jvmOptions(options.heap())),
                        Runtime.getRuntime().availableProcessors(),
                        System.getProperty("java.version"),
                        load,
                        Instant.now())
                + (options.jfr() ? "; JFR recording on" : "");
    }

    private Measured measure(Kind kind) {
        Map<String, String> failures = new LinkedHashMap<>();
        Path dir = work.resolve(kind.name().toLowerCase(Locale.ROOT));
        List<String> jvm = new ArrayList<>(BrokerNode.jvmOptions(options.heap()));
        if (options.jfr()) {
            // Same recording settings for both brokers, so the overhead is the same for both.
            jvm.add("-XX:StartFlightRecording=filename=" + dir.resolve("broker.jfr")
                    + ",settings=profile,dumponexit=true");
        }
        BrokerNode node = new BrokerNode(kind, dir, jvm);
        Process broker = null;
        Double startupMs = null;
        Long rssIdle = null;
        Long rssAfter = null;
        Long rssPeak = null;
        ProducerSummary acks1 = null;
        ProducerSummary acksAll = null;
        ProducerSummary fixedRate = null;
        ConsumerSummary consumed = null;
        try {
            node.prepare(children);
            progress.update(stepsDone, brokerName + ": start-up");
            Started started = startAndTime(node);
            broker = started.process();
            startupMs = started.ms();
            stepsDone++;
            long pid = broker.pid();
            sleep(SETTLE);
            rssIdle = ProcessStats.rssMiB(pid);
            createTopics(node);
            Process b = broker;
            acks1 = step(
                    failures,
                    b,
                    "produce acks=1",
                    () -> produce(node, "p1", "bench-acks-1", "1", options.records(), -1));
            acksAll = step(
                    failures,
                    b,
                    "produce acks=all",
                    () -> produce(node, "pall", "bench-acks-all", "all", options.records(), -1));
            if (options.latencyRate() > 0) {
                fixedRate = step(
                        failures,
                        b,
                        "fixed-rate acks=all",
                        () -> produce(
                                node, "lat", "bench-latency", "all", options.latencyRecords(), options.latencyRate()));
            }
            consumed = step(failures, b, "consume", () -> consume(node, "bench-acks-all"));
            sleep(SETTLE);
            rssAfter = ProcessStats.rssMiB(pid);
            rssPeak = ProcessStats.peakRssMiB(pid);
        } catch (Exception e) {
            failures.put("set-up", ReportText.oneLine(e));
            say("  FAILED: %s", ReportText.oneLine(e));
        } finally {
            if (broker != null) {
                if (!broker.isAlive()) {
                    failures.put(
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
        return new Measured(startupMs, rssIdle, acks1, acksAll, fixedRate, consumed, rssAfter, rssPeak, failures);
    }

    /** A broker that answers, and how long it took from the spawn. */
    private record Started(Process process, double ms) {}

    private Started startAndTime(BrokerNode node) throws InterruptedException {
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
                        say("  started in %.0f ms (pid %d)", ms, broker.pid());
                        return new Started(broker, ms);
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

    private ProducerSummary produce(
            BrokerNode node, String logPrefix, String topic, String acks, long records, int throughput)
            throws InterruptedException {
        PerfTools.Produced run = PerfTools.produce(
                children,
                node.bootstrapServers(),
                topic,
                acks,
                records,
                options.recordBytes(),
                throughput,
                node.dir.resolve(logPrefix + "-producer.log"),
                options.stepTimeout(),
                progress::tick);
        say("  %s acks=%s: %s", topic, acks, run.describe());
        return run.summary();
    }

    private ConsumerSummary consume(BrokerNode node, String topic) throws InterruptedException {
        PerfTools.Consumed run = PerfTools.consume(
                children,
                node.bootstrapServers(),
                topic,
                options.records(),
                "bench-consumer",
                CONSUMER_IDLE_TIMEOUT_MS,
                node.dir.resolve("consumer.log"),
                options.stepTimeout(),
                progress::tick);
        ConsumerSummary s = run.summary();
        say(
                "  consume: %.0f records/s (%.2f MB/s) whole run, %.0f records/s fetching,"
                        + " group join %d ms (%.1f s)",
                s.recordsPerSecond(), s.mbPerSecond(), s.fetchRecordsPerSecond(), s.rebalanceMs(), run.seconds());
        return s;
    }

    /** Runs one measured step: its result, or null when it failed (recorded) and the bench goes on. */
    private <T> @Nullable T step(Map<String, String> failures, Process broker, String name, Callable<T> step) {
        if (!broker.isAlive()) {
            failures.put(name, "skipped: broker process has exited");
            stepsDone++;
            return null;
        }
        progress.update(stepsDone, brokerName + ": " + name);
        T result = null;
        try {
            result = step.call();
        } catch (Exception e) {
            failures.put(name, ReportText.oneLine(e));
            say("  %s FAILED: %s", name, ReportText.oneLine(e));
        }
        stepsDone++;
        return result;
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
            if (results.values().stream().noneMatch(m -> row.value().apply(m) != null)) {
                continue;
            }
            out.append("| ").append(row.label()).append(" |");
            for (Kind k : kinds) {
                out.append(' ')
                        .append(ReportText.number(row.value().apply(results.get(k))))
                        .append(" |");
            }
            if (both) {
                Double kafka = row.value().apply(results.get(Kind.KAFKA));
                Double strait = row.value().apply(results.get(Kind.STRAIT));
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
        for (Map.Entry<Kind, Measured> result : results.entrySet()) {
            Kind k = result.getKey();
            result.getValue()
                    .failures()
                    .forEach((step, why) -> out.append("\n**")
                            .append(k.label)
                            .append(" failed at ")
                            .append(step)
                            .append(":** ")
                            .append(why));
        }
        out.append("\n\nLoad average at the end: ")
                .append(ProcessStats.loadAverage())
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

    private static void sleep(Duration d) throws InterruptedException {
        Thread.sleep(d.toMillis());
    }
}
