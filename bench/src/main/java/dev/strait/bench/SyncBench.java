package dev.strait.bench;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.config.SyncConfig;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.mirror.config.TopicSyncConfig;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.progress.Progress;
import dev.strait.mirror.sync.GroupOffsetSync;
import dev.strait.mirror.sync.OffsetMap;
import dev.strait.mirror.sync.TargetHistory;
import dev.strait.mirror.sync.Translation;
import dev.strait.mirror.sync.TranslationRound;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.TestProducer;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The cost of group offset translation. Two parts:
 * <ol>
 *   <li><b>translate</b> (in-process): an offset map of {@code --partitions} target partitions, each with
 *       {@code --segments} segments (one per hole in the source offsets: transaction markers, dropped records)
 *       and {@code --runs} re-copied ranges (mirror restarts); {@code --groups} groups with a committed offset on
 *       every partition at random positions; then {@code --rounds} rounds, each indexing the map and translating
 *       every group. Prints the time per round.</li>
 *   <li><b>live</b> ({@code --live}): the same number of groups and partitions on two one-node Apache Kafka
 *       clusters, the mirror running with {@code --groups}: the time of a whole sync round (read the groups'
 *       offsets on the source, translate, check the target groups, write the offsets), once when every group
 *       moved and once when none did.</li>
 * </ol>
 * Usage: {@code bin/bench sync [--groups 1000] [--partitions 100] [--segments 1000] [--runs 3] [--rounds 10] [--live]}.
 */
public final class SyncBench {
    private SyncBench() {}

    /** Command-line options; see {@link #usage()}. */
    record Options(int groups, int partitions, int segments, int runs, int rounds, boolean live) {}

    /** The flags of {@code bin/bench sync} (picocli), with their defaults. */
    @Command(
            name = "bin/bench sync",
            description = "The cost of group offset translation: in-process rounds over an offset map, and with "
                    + "--live whole sync rounds of the mirror on two one-node Apache Kafka clusters.")
    static final class Flags {
        @Option(names = "--groups", paramLabel = "N", description = "Groups, each committed on every partition.")
        int groups = 1000;

        @Option(names = "--partitions", paramLabel = "P", description = "Target partitions of the offset map.")
        int partitions = 100;

        @Option(
                names = "--segments",
                paramLabel = "S",
                description = "Segments per partition (one per hole in the source offsets).")
        int segments = 1000;

        @Option(names = "--runs", paramLabel = "R", description = "Re-copied ranges per partition (mirror restarts).")
        int runs = 3;

        @Option(names = "--rounds", paramLabel = "N", description = "Translate rounds measured.")
        int rounds = 10;

        @Option(names = "--live", description = "Also whole sync rounds on two Kafka nodes.")
        boolean live;
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
        if (f.groups < 1 || f.partitions < 1 || f.segments < 1 || f.rounds < 1 || f.runs < 0) {
            throw new IllegalArgumentException(
                    "--groups, --partitions, --segments and --rounds must be at least 1, --runs at least 0");
        }
        return new Options(f.groups, f.partitions, f.segments, f.runs, f.rounds, f.live);
    }

    public static void main(String[] args) throws Exception {
        Options o = BenchFlags.parseOrExit("bench sync", args, SyncBench::parse, SyncBench::usage);
        if (o == null) {
            return;
        }
        System.out.printf(
                Locale.ROOT,
                "bench sync: %d groups x %d partitions; machine: %d cores, java %s%n",
                o.groups(),
                o.partitions(),
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"));
        translate(o.groups(), o.partitions(), o.segments(), o.runs(), o.rounds());
        if (o.live()) {
            live(o.groups(), o.partitions());
        }
    }

    /** In-process: index and translate every group, per round. */
    static void translate(int groups, int partitions, int segments, int runs, int rounds) {
        Random random = new Random(42);
        OffsetMap map = new OffsetMap("bench-source", OffsetMap.DEFAULT_MAX_SEGMENTS);
        long perSegment = 250;
        long sourceEnd = 0;
        Progress building = BenchProgress.of("bench sync: building the offset map", "partitions")
                .start(partitions);
        for (int p = 0; p < partitions; p++) {
            TopicPartition source = new TopicPartition("orders", p);
            TopicPartition target = new TopicPartition("orders", p);
            TargetHistory h = map.history(target);
            List<long[]> facts = new ArrayList<>();
            long t = 0;
            long s = 0;
            for (int seg = 0; seg < segments; seg++) {
                facts.add(new long[] {s, t, perSegment});
                t += perSegment;
                // a commit marker (or a dropped record) leaves a hole of one source offset
                s += perSegment + 1;
            }
            sourceEnd = s;
            // re-copied ranges: the mirror restarted from a commit a little behind what it had copied
            for (int r = 0; r < runs; r++) {
                long from = s - perSegment * (runs - r) * 3;
                facts.add(new long[] {from, t, perSegment});
                t += perSegment;
            }
            for (long[] f : facts) {
                for (long i = 0; i < f[2]; i++) {
                    h.acknowledged(source, f[0] + i, f[1] + i);
                }
            }
            building.update(p + 1);
        }
        building.finish();
        Map<TopicPartition, Long> ends = new HashMap<>();
        map.histories().forEach(h -> ends.put(h.target(), h.knownEnd()));
        List<Map<TopicPartition, Long>> committed = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            Map<TopicPartition, Long> c = new HashMap<>();
            for (int p = 0; p < partitions; p++) {
                c.put(new TopicPartition("orders", p), (long)
                        random.nextInt((int) Math.min(Integer.MAX_VALUE, sourceEnd + 1)));
            }
            committed.add(c);
        }
        long segmentsTotal =
                map.histories().stream().mapToLong(TargetHistory::segments).sum();
        System.out.printf(
                Locale.ROOT,
                "translate: offset map of %d partitions, %,d segments in all (%d holes and %d "
                        + "re-copied ranges per partition)%n",
                partitions,
                segmentsTotal,
                segments,
                runs);
        List<Double> times = new ArrayList<>();
        List<Double> cpuTimes = new ArrayList<>();
        long checksum = 0;
        // Reported between rounds, outside the measured time.
        Progress translating =
                BenchProgress.of("bench sync: translate", null).evenSteps().start(rounds);
        translating.update(0, "round 1 of " + rounds);
        for (int round = 0; round < rounds; round++) {
            // Each round sees a changed map (as with a running mirror): the index is rebuilt.
            for (TargetHistory h : map.histories()) {
                h.merge(List.of(), h.knownEnd(), h.knownEnd() + 1);
            }
            java.lang.management.ThreadMXBean cpu = java.lang.management.ManagementFactory.getThreadMXBean();
            long cpuStart = cpu.getCurrentThreadCpuTime();
            long start = System.nanoTime();
            TranslationRound tr = new TranslationRound(map, TopicRenamer.identity(), Map.of(), ends, Map.of());
            long n = 0;
            for (Map<TopicPartition, Long> c : committed) {
                for (Translation t : tr.translate(c).values()) {
                    checksum += t.offset();
                    n++;
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            double cpuSeconds = (cpu.getCurrentThreadCpuTime() - cpuStart) / 1e9;
            times.add(seconds);
            cpuTimes.add(cpuSeconds);
            translating.update(round + 1, round + 1 < rounds ? "round " + (round + 2) + " of " + rounds : "done");
            translating.printAbove(
                    System.out,
                    String.format(
                            Locale.ROOT,
                            "  round %2d: %,d partition offsets translated in %.3f s (%.3f s of CPU)",
                            round + 1,
                            n,
                            seconds,
                            cpuSeconds));
        }
        translating.finish();
        times.sort(Double::compare);
        cpuTimes.sort(Double::compare);
        System.out.printf(
                Locale.ROOT,
                "translate: median %.3f s, max %.3f s per round of %d groups x %d partitions; CPU "
                        + "median %.3f s, max %.3f s (checksum %d)%n",
                times.get(times.size() / 2),
                times.get(times.size() - 1),
                groups,
                partitions,
                cpuTimes.get(cpuTimes.size() / 2),
                cpuTimes.get(cpuTimes.size() - 1),
                checksum);
    }

    /** On real clusters: whole sync rounds with the mirror running. */
    static void live(int groups, int partitions) throws Exception {
        Map<String, String> broker = Map.of("num.io.threads", "4", "offsets.topic.num.partitions", "10");
        try (KafkaCluster source = KafkaCluster.start("syncbench-source", 1, broker);
                KafkaCluster target = KafkaCluster.start("syncbench-target", 1, broker)) {
            String topic = "orders";
            source.createTopic(topic, partitions);
            try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
                producer.produce(topic, partitions, 200);
            }
            commitAll(source, groups, partitions, topic, 0);
            Properties consumer = new Properties();
            consumer.put("bootstrap.servers", source.bootstrapServers());
            consumer.put("group.id", "syncbench-mirror");
            Properties producer = new Properties();
            producer.put("bootstrap.servers", target.bootstrapServers());
            MirrorConfig settings = MirrorConfig.builder()
                    .consumerConfig(consumer)
                    .producerConfig(producer)
                    .include(topic)
                    .sync(new SyncConfig(
                            GroupFilter.of("bench-g.*", null, "--groups", "--groups.exclude"),
                            1000,
                            true,
                            SyncConfig.DEFAULT_SYNC_TOPIC,
                            TopicSyncConfig.defaults()))
                    .build();
            MirrorEngine engine = new MirrorEngine(settings, new MirrorMetrics(new MetricRegistry()), Time.SYSTEM);
            engine.start();
            // 1 (the mirror's first rounds) + 3 (every group moved) + 1 (nothing moved)
            Progress progress = BenchProgress.of("bench sync: live", null).start(5);
            try {
                GroupOffsetSync sync =
                        Objects.requireNonNull(engine.groupSync(), "the bench's mirror runs the group offset sync");
                progress.update(0, "first sync rounds");
                awaitRounds(sync, 3, Duration.ofMinutes(10), progress, 0);
                progress.printAbove(
                        System.out,
                        String.format(Locale.ROOT, "live: first rounds done; last round %s", sync.lastRound()));
                for (int move = 1; move <= 3; move++) {
                    progress.update(move, "every group moved (" + move + " of 3)");
                    commitAll(source, groups, partitions, topic, move);
                    long before = sync.groupMetrics().rounds();
                    awaitRounds(sync, before + 2, Duration.ofMinutes(10), progress, move);
                    progress.printAbove(
                            System.out,
                            String.format(Locale.ROOT, "live: every group moved: round %s", sync.lastRound()));
                }
                progress.update(4, "nothing moved");
                long before = sync.groupMetrics().rounds();
                awaitRounds(sync, before + 3, Duration.ofMinutes(10), progress, 4);
                progress.update(5, "done");
                progress.finish();
                System.out.printf(Locale.ROOT, "live: nothing moved: round %s%n", sync.lastRound());
            } finally {
                progress.finish();
                engine.requestStop();
                engine.awaitTermination(Duration.ofMinutes(2));
            }
        }
    }

    /** Waits for the sync loop's rounds; the progress line's clock goes on meanwhile. */
    private static void awaitRounds(GroupOffsetSync sync, long rounds, Duration timeout, Progress progress, int step)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (sync.groupMetrics().rounds() < rounds) {
            progress.update(step);
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("sync rounds did not happen in " + timeout);
            }
            Thread.sleep(100);
        }
    }

    private static void commitAll(KafkaCluster cluster, int groups, int partitions, String topic, int shift)
            throws Exception {
        try (Admin admin = cluster.admin()) {
            List<org.apache.kafka.common.KafkaFuture<Void>> futures = new ArrayList<>();
            for (int g = 0; g < groups; g++) {
                Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
                for (int p = 0; p < partitions; p++) {
                    offsets.put(new TopicPartition(topic, p), new OffsetAndMetadata((g * 7L + p + shift * 13L) % 200));
                }
                futures.add(admin.alterConsumerGroupOffsets(String.format(Locale.ROOT, "bench-g%04d", g), offsets)
                        .all());
                if (futures.size() == 50 || g == groups - 1) {
                    for (var f : futures) {
                        f.get(5, TimeUnit.MINUTES);
                    }
                    futures.clear();
                }
            }
        }
    }
}
