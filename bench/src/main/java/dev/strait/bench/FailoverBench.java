package dev.strait.bench;

import dev.strait.mirror.config.ClientConfigs;
import dev.strait.mirror.progress.Progress;
import dev.strait.testkit.KafkaCluster;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;

/**
 * Consumer group failover, Strait against MirrorMaker 2, in one run on the same two local Apache Kafka clusters
 * and the same workload: a topic of {@code --records} records over {@code --partitions} partitions and
 * {@code --groups} groups that consumed different shares of it (from none to all). Strait's mirror
 * ({@code bin/mirror-maker --groups}) and MirrorMaker 2 (dedicated mode, {@code emit.checkpoints.enabled},
 * {@code sync.group.offsets.enabled}, every interval 1 s) copy the topic side by side (to {@code s.<topic>} and
 * {@code source.<topic>}). After the copy the mirrors run {@code --settle-seconds} more; then:
 * <ul>
 *   <li><b>latency</b>: a probe group commits a new position on the source {@code --probes} times; the time until
 *       each mirror's target group shows its translation;</li>
 *   <li><b>failover</b>: both mirrors are stopped and every group reads its target topic from the offsets the
 *       mirror synced: records read again (below the group's source position) and skipped (at or after it, not
 *       read), per group. Each record's value names its source partition and offset.</li>
 * </ul>
 * Usage: {@code bin/bench failover [--records 20000] [--partitions 4] [--groups 6] [--settle-seconds 60]
 * [--probes 5]}.
 */
public final class FailoverBench {
    private static final String TOPIC = "fo";
    private static final String PROBE = "fo-g-probe";

    private final long records;
    private final int partitions;
    private final int groups;
    private final int settleSeconds;
    private final int probes;
    private final Path repo;
    private final Path work;

    private FailoverBench(long records, int partitions, int groups, int settleSeconds, int probes, Path repo)
            throws java.io.IOException {
        this.records = records;
        this.partitions = partitions;
        this.groups = groups;
        this.settleSeconds = settleSeconds;
        this.probes = probes;
        this.repo = repo;
        this.work = Files.createTempDirectory("strait-failover-bench-");
    }

    /** Command-line options; see {@link #usage()}. */
    record Options(long records, int partitions, int groups, int settleSeconds, int probes, Path repo) {}

    /** The flags of {@code bin/bench failover} (picocli), with their defaults. */
    @Command(
            name = "bin/bench failover",
            description = "Consumer group failover, Strait's mirror against MirrorMaker 2 on one workload: the time "
                    + "a source commit takes to reach the target, and the records each group reads again or skips "
                    + "when it moves to the target.")
    static final class Flags {
        @Option(names = "--records", paramLabel = "N", description = "Records of the topic.")
        long records = 20_000;

        @Option(names = "--partitions", paramLabel = "P", description = "Partitions of the topic.")
        int partitions = 4;

        @Option(names = "--groups", paramLabel = "G", description = "Groups, from none to all consumed.")
        int groups = 6;

        @Option(names = "--settle-seconds", paramLabel = "S", description = "Seconds the mirrors run after the copy.")
        int settleSeconds = 60;

        @Option(names = "--probes", paramLabel = "N", description = "Probe commits timed through each mirror.")
        int probes = 5;

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
        if (f.records < 1 || f.partitions < 1 || f.groups < 1 || f.probes < 0 || f.settleSeconds < 0) {
            throw new IllegalArgumentException(
                    "--records, --partitions and --groups must be at least 1, --probes and --settle-seconds at least 0");
        }
        return new Options(f.records, f.partitions, f.groups, f.settleSeconds, f.probes, f.checkout.path());
    }

    public static void main(String[] args) throws Exception {
        Options o = BenchFlags.parseOrExit("bench failover", args, FailoverBench::parse, FailoverBench::usage);
        if (o == null) {
            return;
        }
        new FailoverBench(o.records(), o.partitions(), o.groups(), o.settleSeconds(), o.probes(), o.repo()).run();
    }

    /** The share of its partitions group {@code g} had consumed: 0 for the first, all for the last. */
    private Map<Integer, Long> consumed(int g) {
        long perPartition = records / partitions;
        double share = groups == 1 ? 0.5 : (double) g / (groups - 1);
        Map<Integer, Long> out = new LinkedHashMap<>();
        for (int p = 0; p < partitions; p++) {
            // a little different per partition, so that no position lines up with a round number
            long c = Math.round(perPartition * share) - (g == groups - 1 || g == 0 ? 0 : 37L * p + 11);
            out.put(p, Math.max(0, Math.min(perPartition, c)));
        }
        return out;
    }

    private static String group(int g) {
        return String.format(Locale.ROOT, "fo-g%02d", g);
    }

    void run() throws Exception {
        System.out.printf(
                Locale.ROOT,
                "bench failover: %,d records over %d partitions, %d groups; machine: %d cores, " + "java %s%n",
                records,
                partitions,
                groups,
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"));
        try (KafkaCluster source = KafkaCluster.start("fobench-source", 1);
                KafkaCluster target = KafkaCluster.start("fobench-target", 1)) {
            source.createTopic(TOPIC, partitions);
            produce(source);
            for (int g = 0; g < groups; g++) {
                commit(source, group(g), consumed(g));
            }
            commit(source, PROBE, zeros());
            Process strait = startStrait(source, target);
            Process mm2 = startMm2(source, target);
            try {
                long copyStart = System.nanoTime();
                awaitCopy(target, "s." + TOPIC, strait, "Strait");
                awaitCopy(target, "source." + TOPIC, mm2, "MirrorMaker 2");
                System.out.printf(
                        Locale.ROOT,
                        "both copies complete after %.1f s; letting the mirrors run %d s more%n",
                        (System.nanoTime() - copyStart) / 1e9,
                        settleSeconds);
                try (Progress settling = BenchProgress.of("bench failover: letting the mirrors run", "seconds")
                        .start(settleSeconds)) {
                    for (int second = 1; second <= settleSeconds; second++) {
                        Thread.sleep(TimeUnit.SECONDS.toMillis(1));
                        settling.update(second);
                    }
                }
                latency(source, target);
            } finally {
                stop(strait);
                stop(mm2);
            }
            failover(target);
        }
        System.out.println("logs in " + work);
    }

    private Map<Integer, Long> zeros() {
        Map<Integer, Long> m = new LinkedHashMap<>();
        for (int p = 0; p < partitions; p++) {
            m.put(p, 0L);
        }
        return m;
    }

    private void produce(KafkaCluster source) throws Exception {
        Properties user = new Properties();
        user.put("bootstrap.servers", source.bootstrapServers());
        Properties props = ClientConfigs.producer(user);
        props.put("max.in.flight.requests.per.connection", "1");
        try (Progress progress =
                        BenchProgress.of("bench failover: producing", "records").start(records);
                KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(props)) {
            long perPartition = records / partitions;
            for (long n = 0; n < perPartition; n++) {
                progress.update(n * partitions);
                for (int p = 0; p < partitions; p++) {
                    // the value names the record's source position (one producer per partition order: offset n)
                    byte[] value = (p + "/" + n).getBytes(StandardCharsets.UTF_8);
                    producer.send(new ProducerRecord<>(TOPIC, p, ("k" + n).getBytes(StandardCharsets.UTF_8), value));
                }
            }
            producer.flush();
            progress.update(perPartition * partitions);
        }
    }

    private static void commit(KafkaCluster cluster, String group, Map<Integer, Long> offsets) throws Exception {
        Map<TopicPartition, OffsetAndMetadata> m = new HashMap<>();
        offsets.forEach((p, o) -> m.put(new TopicPartition(TOPIC, p), new OffsetAndMetadata(o)));
        try (Admin admin = cluster.admin()) {
            admin.alterConsumerGroupOffsets(group, m).all().get(60, TimeUnit.SECONDS);
        }
    }

    private Process startStrait(KafkaCluster source, KafkaCluster target) throws Exception {
        Path consumer = MirrorCommands.straitConsumerConfig(
                work.resolve("strait-consumer.properties"), source.bootstrapServers(), "fo-strait-mirror");
        Path producer = MirrorCommands.straitProducerConfig(
                work.resolve("strait-producer.properties"), target.bootstrapServers());
        List<String> cmd = MirrorCommands.strait(
                repo,
                consumer,
                producer,
                TOPIC,
                "--topic.prefix",
                "s.",
                "--groups",
                "fo-g.*",
                "--sync.group.offsets.interval.ms",
                "1000");
        return new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(work.resolve("strait.log").toFile())
                .start();
    }

    private Process startMm2(KafkaCluster source, KafkaCluster target) throws Exception {
        Path config = MirrorCommands.mm2Config(
                work.resolve("mm2.properties"),
                source.bootstrapServers(),
                target.bootstrapServers(),
                TOPIC,
                List.of(
                        "source->target.groups=fo-g.*",
                        "tasks.max=" + partitions,
                        "emit.checkpoints.enabled=true",
                        "emit.checkpoints.interval.seconds=1",
                        "sync.group.offsets.enabled=true",
                        "sync.group.offsets.interval.seconds=1",
                        "refresh.groups.interval.seconds=1",
                        "refresh.topics.interval.seconds=1",
                        "emit.heartbeats.interval.seconds=1",
                        "sync.topic.acls.enabled=false"));
        List<String> cmd = MirrorCommands.mm2("1G", config);
        return new ProcessBuilder(cmd)
                .redirectErrorStream(true)
                .redirectOutput(work.resolve("mm2.log").toFile())
                .start();
    }

    private void awaitCopy(KafkaCluster target, String topic, Process p, String name) throws Exception {
        long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
        try (Progress progress = BenchProgress.of("bench failover: " + name + " copying", "records")
                .start(records)) {
            long copied;
            while ((copied = target.endOffsetSum(topic)) < records) {
                progress.update(copied);
                if (!p.isAlive()) {
                    throw new IllegalStateException(name + " exited with " + p.exitValue() + "; see " + work);
                }
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(
                            name + " did not copy " + records + " records in 10 minutes; see " + work);
                }
                Thread.sleep(200);
            }
            progress.update(copied);
        }
    }

    /** Time from a source commit of the probe group to its offset on each mirror's target topic. */
    private void latency(KafkaCluster source, KafkaCluster target) throws Exception {
        List<Double> straitTimes = new ArrayList<>();
        List<Double> mm2Times = new ArrayList<>();
        List<Long> mm2Errors = new ArrayList<>();
        long perPartition = records / partitions;
        Progress progress = BenchProgress.of("bench failover: probes", null).start(probes);
        for (int k = 1; k <= probes; k++) {
            progress.update(k - 1, "probe " + k + " of " + probes);
            long c = Math.min(perPartition, perPartition * k / (probes + 1) + 3);
            Map<Integer, Long> before = target.committedOffsets(PROBE, "source." + TOPIC);
            Map<Integer, Long> offsets = zeros();
            offsets.replaceAll((p, o) -> c);
            long start = System.nanoTime();
            commit(source, PROBE, offsets);
            double strait = -1;
            double mm2 = -1;
            long mm2Value = -1;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while ((strait < 0 || mm2 < 0) && System.nanoTime() < deadline) {
                if (strait < 0 && target.committedOffsets(PROBE, "s." + TOPIC).equals(offsets)) {
                    strait = (System.nanoTime() - start) / 1e9;
                }
                Map<Integer, Long> now = target.committedOffsets(PROBE, "source." + TOPIC);
                if (mm2 < 0 && now.size() == partitions && !now.equals(before)) {
                    mm2 = (System.nanoTime() - start) / 1e9;
                    mm2Value = Objects.requireNonNull(now.get(0), "every partition committed, so partition 0 too");
                }
                Thread.sleep(50);
            }
            if (mm2Value < 0) {
                Map<Integer, Long> now = target.committedOffsets(PROBE, "source." + TOPIC);
                mm2Value = now.getOrDefault(0, -1L);
            }
            straitTimes.add(strait);
            mm2Times.add(mm2);
            mm2Errors.add(mm2Value < 0 ? -1 : c - mm2Value);
            progress.printAbove(
                    System.out,
                    String.format(
                            Locale.ROOT,
                            "probe %d: source commit %d -> Strait exact on the target after %s; MM2 %s",
                            k,
                            c,
                            strait < 0 ? "(not within 60 s)" : String.format(Locale.ROOT, "%.2f s", strait),
                            mm2 < 0
                                    ? "left its target offset at " + mm2Value + " (no change within 60 s)"
                                    : String.format(Locale.ROOT, "translated to %d after %.2f s", mm2Value, mm2)));
        }
        progress.update(probes, "done");
        progress.finish();
        System.out.printf(
                Locale.ROOT,
                "latency source commit -> target offset: Strait %s; MM2 %s (MM2's offsets below the "
                        + "source commit by %s records)%n",
                straitTimes,
                mm2Times,
                mm2Errors);
    }

    private record Outcome(long read, long again, long skipped, boolean synced) {}

    private void failover(KafkaCluster target) throws Exception {
        System.out.printf(
                Locale.ROOT, "%nfailover: every group reads its target topic from the offsets its mirror synced%n");
        System.out.printf(
                Locale.ROOT,
                "%-10s %10s | %-30s | %-30s%n",
                "group",
                "consumed",
                "Strait: read / again / skipped",
                "MM2: read / again / skipped");
        long straitAgain = 0;
        long straitSkipped = 0;
        long mm2Again = 0;
        long mm2Skipped = 0;
        Progress progress =
                BenchProgress.of("bench failover: reading as each group", null).start(groups);
        for (int g = 0; g < groups; g++) {
            progress.update(g, group(g));
            Map<Integer, Long> c = consumed(g);
            Outcome s = readAs(target, group(g), "s." + TOPIC, c);
            Outcome m = readAs(target, group(g), "source." + TOPIC, c);
            straitAgain += s.again();
            straitSkipped += s.skipped();
            mm2Again += m.again();
            mm2Skipped += m.skipped();
            progress.printAbove(
                    System.out,
                    String.format(
                            Locale.ROOT,
                            "%-10s %10d | %-30s | %-30s",
                            group(g),
                            c.values().stream().mapToLong(Long::longValue).sum(),
                            cell(s),
                            cell(m)));
        }
        progress.update(groups, "done");
        progress.finish();
        System.out.printf(
                Locale.ROOT,
                "total: Strait read again %d, skipped %d; MirrorMaker 2 read again %d, skipped %d%n",
                straitAgain,
                straitSkipped,
                mm2Again,
                mm2Skipped);
    }

    private static String cell(Outcome o) {
        return o.read() + " / " + o.again() + " / " + o.skipped() + (o.synced() ? "" : " (no offsets: from the start)");
    }

    /** Reads {@code topic} from the group's committed offsets (the start where it has none) and classifies. */
    private Outcome readAs(KafkaCluster cluster, String group, String topic, Map<Integer, Long> consumed) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        Map<Integer, Long> committed = cluster.committedOffsets(group, topic);
        Set<String> seen = new HashSet<>();
        long read = 0;
        long again = 0;
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<TopicPartition> parts = new ArrayList<>();
            for (int p = 0; p < partitions; p++) {
                parts.add(new TopicPartition(topic, p));
            }
            consumer.assign(parts);
            Map<TopicPartition, Long> end = consumer.endOffsets(parts, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(5);
            while (parts.stream()
                            .anyMatch(tp -> consumer.position(tp, Duration.ofSeconds(30))
                                    < Objects.requireNonNull(
                                            end.get(tp), "endOffsets answers for every partition asked"))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    String[] pos = new String(r.value(), StandardCharsets.UTF_8).split("/");
                    int p = Integer.parseInt(pos[0]);
                    long n = Long.parseLong(pos[1]);
                    read++;
                    if (n < Objects.requireNonNull(consumed.get(p), "consumed(g) holds every partition")) {
                        again++;
                    } else {
                        seen.add(p + "/" + n);
                    }
                }
            }
        }
        long perPartition = records / partitions;
        long skipped = 0;
        for (Map.Entry<Integer, Long> e : consumed.entrySet()) {
            for (long n = e.getValue(); n < perPartition; n++) {
                if (!seen.contains(e.getKey() + "/" + n)) {
                    skipped++;
                }
            }
        }
        return new Outcome(read, again, skipped, committed.size() == partitions);
    }

    private static void stop(Process p) throws InterruptedException {
        p.destroy();
        if (!p.waitFor(60, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            p.waitFor(30, TimeUnit.SECONDS);
        }
    }
}
