package dev.strait.bench;

import dev.strait.mirror.config.ClientConfigs;
import dev.strait.mirror.progress.Progress;
import dev.strait.testkit.KafkaCluster;
import dev.strait.time.Time;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Mirror throughput, measured in one run on the same two local Apache Kafka clusters:
 * <ol>
 *   <li>a backlog of N records of S bytes is preloaded into a P-partition topic on the source;</li>
 *   <li>the ceiling: a raw consumer reading the backlog and a raw producer writing N records, each with the
 *       mirror's own client settings;</li>
 *   <li>Strait's mirror (the real distribution, a child JVM) for each stream count;</li>
 *   <li>Apache Kafka's MirrorMaker 2 in dedicated mode (a child JVM, heap as its start script sets it).</li>
 * </ol>
 * A mirror's time runs from its process start to the last record readable on the target; memory is the
 * process's peak resident set. Prints a table and the ratios.
 */
public final class MirrorBench {
    private static final String TOPIC = "bench";

    private final long records;
    private final int recordBytes;
    private final int partitions;
    private final List<Integer> streamCounts;
    private final boolean runMm2;
    private final Path repo;
    private final Path work;
    private final List<Result> results = new ArrayList<>();

    /**
     * One measured run. {@code steadySeconds} is, for a mirror, the time from the first record on the target to
     * the last (JVM start, group join and topic creation excluded), comparable with the in-process ceiling runs.
     */
    record Result(String name, double seconds, double steadySeconds, long records, long bytes, long peakRssMiB) {
        double recordsPerSecond() {
            return records / seconds;
        }

        double steadyRecordsPerSecond() {
            return records / steadySeconds;
        }

        double mbPerSecond() {
            return bytes / seconds / 1_000_000.0;
        }
    }

    MirrorBench(long records, int recordBytes, int partitions, List<Integer> streamCounts, boolean runMm2, Path repo)
            throws IOException {
        this.records = records;
        this.recordBytes = recordBytes;
        this.partitions = partitions;
        this.streamCounts = streamCounts;
        this.runMm2 = runMm2;
        this.repo = repo;
        this.work = Files.createTempDirectory("strait-bench-");
    }

    /** Command-line options; see {@link #usage()}. */
    record Options(long records, int recordBytes, int partitions, List<Integer> streams, boolean mm2, Path repo) {}

    /** The flags of {@code bin/bench} with no mode (picocli), with their defaults. */
    @Command(
            name = "bin/bench",
            description = "Mirror throughput on two local Apache Kafka 4.1.1 clusters: the raw client ceiling, "
                    + "Strait's mirror per stream count and MirrorMaker 2, on one preloaded backlog.",
            footer = "Other modes, each with its own --help: bin/bench lag | sync | sync-scale | failover | "
                    + "metadata | broker | cluster | nemesis | mirror-topics.")
    static final class Flags {
        @Mixin
        Backlog backlog = new Backlog();

        @Option(names = "--partitions", paramLabel = "P", description = "Partitions of the topic.")
        int partitions = 6;

        @Option(
                names = "--streams",
                paramLabel = "N",
                split = ",",
                description = "Stream counts of Strait's mirror, one run each.")
        List<Integer> streams = new ArrayList<>(List.of(1, 2, 4));

        @Option(names = "--no-mm2", description = "Skip MirrorMaker 2.")
        boolean noMm2;

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
        if (!f.backlog.valid() || f.partitions < 1 || f.streams.stream().anyMatch(n -> n < 1)) {
            throw new IllegalArgumentException(
                    "--records, --record-size, --partitions and --streams must be at least 1");
        }
        return new Options(
                f.backlog.records,
                f.backlog.recordBytes,
                f.partitions,
                List.copyOf(f.streams),
                !f.noMm2,
                f.checkout.path());
    }

    public static void main(String[] args) throws Exception {
        String[] mirrorTopics = mirrorTopicsArgs(args);
        if (mirrorTopics != null) {
            MirrorTopicsBench.main(mirrorTopics); // bin/bench mirror-topics: bin/bench hands every other mode here
            return;
        }
        Options o = BenchFlags.parseOrExit("bench", args, MirrorBench::parse, MirrorBench::usage);
        if (o == null) {
            return;
        }
        new MirrorBench(o.records(), o.recordBytes(), o.partitions(), o.streams(), o.mm2(), o.repo()).run();
    }

    /**
     * The arguments of {@code bin/bench mirror-topics ...} without the mode, or null for another mode. bin/bench
     * passes {@code --repo DIR} before the user's arguments, so the mode is the first word after it.
     */
    static String @Nullable [] mirrorTopicsArgs(String[] args) {
        int mode = args.length >= 2 && args[0].equals("--repo") ? 2 : 0;
        if (args.length <= mode || !args[mode].equals("mirror-topics")) {
            return null;
        }
        List<String> rest = new ArrayList<>(List.of(args));
        rest.remove(mode);
        return rest.toArray(String[]::new);
    }

    void run() throws Exception {
        System.out.printf(
                "bench: %,d records of %d bytes, %d partitions; machine: %d cores, java %s%n",
                records,
                recordBytes,
                partitions,
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"));
        try (KafkaCluster source = KafkaCluster.start("bench-source", 1, brokerTuning());
                KafkaCluster target = KafkaCluster.start("bench-target", 1, brokerTuning())) {
            source.createTopic(TOPIC, partitions);
            Result preload = produce(source, TOPIC, "preload (source producer)");
            System.out.printf("preloaded in %.1f s%n", preload.seconds());
            results.add(consumeCeiling(source));
            target.createTopic("ceiling", partitions);
            results.add(produce(target, "ceiling", "ceiling: raw producer"));
            deleteTopic(target, "ceiling");
            for (int streams : streamCounts) {
                results.add(strait(source, target, streams));
            }
            if (runMm2) {
                results.add(mirrorMaker2(source, target));
            }
        } finally {
            report();
        }
    }

    private static java.util.Map<String, String> brokerTuning() {
        return java.util.Map.of("num.io.threads", "4", "num.network.threads", "3", "log.segment.bytes", "268435456");
    }

    private Properties mirrorProducerProps(KafkaCluster cluster) {
        Properties user = new Properties();
        user.put("bootstrap.servers", cluster.bootstrapServers());
        return ClientConfigs.producer(user);
    }

    /** The producer loop reports every 1024th record: a call per record would cost the measured loop. */
    private static final long PROGRESS_EVERY = 1023;

    /** A phase's records on stderr while it runs (a terminal only: a redirected run's output stays the results). */
    private static Progress progress(String phase) {
        return Progress.onStderr("bench: " + phase, "records", false, Time.SYSTEM);
    }

    private Result produce(KafkaCluster cluster, String topic, String name) throws Exception {
        Payloads payloads = new Payloads(42, recordBytes);
        AtomicReference<Exception> failed = new AtomicReference<>();
        long start = System.nanoTime();
        try (Progress progress = progress(name).start(records);
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(mirrorProducerProps(cluster))) {
            for (long n = 0; n < records && failed.get() == null; n++) {
                if ((n & PROGRESS_EVERY) == 0) {
                    progress.update(n);
                }
                producer.send(
                        new ProducerRecord<>(
                                topic,
                                (int) (n % partitions),
                                1_700_000_000_000L + n,
                                payloads.key(n),
                                payloads.value(n)),
                        (md, e) -> {
                            if (e != null) {
                                failed.compareAndSet(null, e);
                            }
                        });
            }
            producer.flush();
            progress.update(records);
        }
        if (failed.get() != null) {
            throw new IllegalStateException(name + " failed: " + failed.get(), failed.get());
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return new Result(name, seconds, seconds, records, records * recordBytes, -1);
    }

    private Result consumeCeiling(KafkaCluster source) {
        Properties user = new Properties();
        user.put("bootstrap.servers", source.bootstrapServers());
        user.put("group.id", "bench-ceiling");
        Properties props = ClientConfigs.consumer(user, 0);
        props.remove("group.id");
        long start = System.nanoTime();
        long count = 0;
        long bytes = 0;
        try (Progress progress = progress("ceiling: raw consumer").start(records);
                KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> tps = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                tps.add(new TopicPartition(TOPIC, p));
            }
            consumer.assign(tps);
            consumer.seekToBeginning(tps);
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
            while (count < records && System.nanoTime() < deadline) {
                ConsumerRecords<byte[], byte[]> batch = consumer.poll(Duration.ofMillis(200));
                count += batch.count();
                progress.update(count);
                for (var r : batch) {
                    bytes += r.serializedValueSize() + Math.max(0, r.serializedKeySize());
                }
            }
        }
        double seconds = (System.nanoTime() - start) / 1e9;
        return new Result("ceiling: raw consumer", seconds, seconds, count, records * recordBytes, -1);
    }

    private Result strait(KafkaCluster source, KafkaCluster target, int streams) throws Exception {
        String prefix = "s" + streams + ".";
        Path consumer = MirrorCommands.straitConsumerConfig(
                work.resolve("strait-" + streams + "-consumer.properties"),
                source.bootstrapServers(),
                "bench-strait-" + streams);
        Path producer = MirrorCommands.straitProducerConfig(
                work.resolve("strait-producer.properties"), target.bootstrapServers());
        List<String> cmd = MirrorCommands.strait(
                repo, consumer, producer, TOPIC, "--num.streams", String.valueOf(streams), "--topic.prefix", prefix);
        return timeMirror(
                "strait mirror, " + streams + (streams == 1 ? " stream" : " streams"), cmd, target, prefix + TOPIC);
    }

    private Result mirrorMaker2(KafkaCluster source, KafkaCluster target) throws Exception {
        Path config = MirrorCommands.mm2Config(
                work.resolve("mm2.properties"),
                source.bootstrapServers(),
                target.bootstrapServers(),
                TOPIC,
                List.of(
                        "tasks.max=" + partitions,
                        "refresh.topics.interval.seconds=5",
                        "sync.topic.acls.enabled=false",
                        "emit.checkpoints.enabled=false"));
        List<String> cmd = MirrorCommands.mm2("2G", config);
        return timeMirror("MirrorMaker 2 (dedicated, tasks.max=" + partitions + ")", cmd, target, "source." + TOPIC);
    }

    private Result timeMirror(String name, List<String> cmd, KafkaCluster target, String targetTopic) throws Exception {
        Path log = work.resolve(name.replaceAll("[^a-zA-Z0-9]+", "-") + ".log");
        System.out.printf("running %s ...%n", name);
        long start = System.nanoTime();
        Process p = new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        long peak = -1;
        long firstRecordNanos = -1;
        try (Progress progress = progress(name).start(records)) {
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(20);
            long onTarget;
            while ((onTarget = target.endOffsetSum(targetTopic)) < records) {
                progress.update(onTarget);
                if (onTarget > 0 && firstRecordNanos < 0) {
                    firstRecordNanos = System.nanoTime();
                }
                if (!p.isAlive()) {
                    throw new IllegalStateException(name + " exited early with " + p.exitValue() + "; see " + log);
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(name + " did not finish in 20 minutes; see " + log);
                }
                peak = Math.max(peak, ProcessStats.peakRssMiB(p.pid()));
                Thread.sleep(100);
            }
            long end = System.nanoTime();
            progress.update(onTarget);
            double seconds = (end - start) / 1e9;
            double steady = (end - (firstRecordNanos < 0 ? start : firstRecordNanos)) / 1e9;
            peak = Math.max(peak, ProcessStats.peakRssMiB(p.pid()));
            return new Result(name, seconds, steady, records, records * recordBytes, peak);
        } finally {
            p.destroy();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
            }
            deleteTopic(target, targetTopic);
        }
    }

    private static void deleteTopic(KafkaCluster cluster, String topic) {
        try (Admin admin = cluster.admin()) {
            admin.deleteTopics(List.of(topic)).all().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            System.err.println("bench: could not delete " + topic + ": " + e);
        }
    }

    private void report() throws IOException {
        if (results.isEmpty()) {
            return;
        }
        double ceiling = results.stream()
                .filter(r -> r.name().startsWith("ceiling"))
                .mapToDouble(Result::recordsPerSecond)
                .min()
                .orElse(Double.NaN);
        double mm2 = results.stream()
                .filter(r -> r.name().startsWith("MirrorMaker 2"))
                .mapToDouble(Result::recordsPerSecond)
                .findFirst()
                .orElse(Double.NaN);
        long mm2Rss = results.stream()
                .filter(r -> r.name().startsWith("MirrorMaker 2"))
                .mapToLong(Result::peakRssMiB)
                .findFirst()
                .orElse(-1);
        StringBuilder out = new StringBuilder();
        out.append(String.format(
                Locale.ROOT,
                "%n%-40s %7s %10s %7s %11s %8s %10s %7s %8s%n",
                "run",
                "seconds",
                "records/s",
                "MB/s",
                "steady r/s",
                "RSS MiB",
                "x ceiling",
                "x MM2",
                "RSS/MM2"));
        for (Result r : results) {
            boolean mirror = r.peakRssMiB() >= 0;
            out.append(String.format(
                    Locale.ROOT,
                    "%-40s %7.1f %10.0f %7.1f %11.0f %8s %10s %7s %8s%n",
                    r.name(),
                    r.seconds(),
                    r.recordsPerSecond(),
                    r.mbPerSecond(),
                    r.steadyRecordsPerSecond(),
                    mirror ? String.valueOf(r.peakRssMiB()) : "-",
                    mirror ? String.format(Locale.ROOT, "%.2f", r.steadyRecordsPerSecond() / ceiling) : "-",
                    mirror && !Double.isNaN(mm2) ? String.format(Locale.ROOT, "%.2f", r.recordsPerSecond() / mm2) : "-",
                    mirror && mm2Rss > 0 ? String.format(Locale.ROOT, "%.2f", (double) r.peakRssMiB() / mm2Rss) : "-"));
        }
        out.append(String.format(
                Locale.ROOT,
                "ceiling = the slower of the raw consumer and raw producer: %.0f records/s; "
                        + "x ceiling compares steady rates (first to last record on the target); x MM2 compares whole runs "
                        + "(process start to last record)%n",
                ceiling));
        System.out.print(out);
        Path file = repo.resolve("bench-results.txt");
        Files.writeString(file, out.toString(), StandardCharsets.UTF_8);
        System.out.println("written to " + file + "; logs in " + work);
    }
}
