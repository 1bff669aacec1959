package dev.strait.bench;

import dev.strait.mirror.config.TopicRenamer;
import dev.strait.mirror.progress.Progress;
import dev.strait.mirror.sync.BelowResolver;
import dev.strait.mirror.sync.Fact;
import dev.strait.mirror.sync.OffsetMap;
import dev.strait.mirror.sync.SyncRecords;
import dev.strait.mirror.sync.TargetHistory;
import dev.strait.mirror.sync.TargetReader;
import dev.strait.mirror.sync.TargetRecords;
import dev.strait.mirror.sync.Translation;
import dev.strait.mirror.sync.TranslationRound;
import dev.strait.time.Time;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * How the offset map scales with the number of target partitions (issue 21, "Scale"). Per partition count, a child
 * JVM with the mirror's default heap ({@code bin/strait}: -Xms128m -Xmx384m -XX:+UseParallelGC) builds an offset map
 * through the mirror's acknowledgement path ({@link OffsetMap#acknowledged}) for partitions of three shapes: half
 * transactional (10 records, then a commit marker: a hole every 11 source offsets), a quarter compacted (a random gap
 * after about one record in four) and a quarter plain. Then it runs sync rounds as the mirror's sync loop does: more
 * records acknowledged on every partition, every group translated ({@link TranslationRound} and
 * {@link BelowResolver}, as {@code GroupOffsetSync} uses them) and the snapshot of every changed history encoded
 * ({@link SyncRecords#encode}: the bytes written to the sync topic). Reads of the target go to a generated target
 * that knows every copy's position; every translation is checked against it (the exact answer).
 *
 * <p>Usage: {@code bin/bench sync-scale [--partitions 1000,5000,10000] [--groups 1000] [--records 5000]
 * [--rounds 5] [--heap 384m]}.
 */
@Command(name = "bin/bench sync-scale", description = "Offset map memory and round cost per partition count.")
public final class SyncScaleBench {
    @Option(
            names = "--partitions",
            paramLabel = "P",
            split = ",",
            description = "Target partition counts, one child JVM each.")
    List<Integer> partitions = List.of(1000, 5000, 10000);

    @Option(names = "--groups", paramLabel = "N", description = "Consumer groups.")
    int groups = 1000;

    @Option(
            names = "--topics-per-group",
            paramLabel = "N",
            description = "Topics (of 100 partitions) each group commits on.")
    int topicsPerGroup = 2;

    @Option(
            names = "--records",
            paramLabel = "N",
            description = "Records acknowledged per partition before the rounds.")
    int records = 5000;

    @Option(
            names = "--records-per-round",
            paramLabel = "N",
            description = "Records acknowledged per partition before each round.")
    int recordsPerRound = 100;

    @Option(names = "--rounds", paramLabel = "N", description = "Sync rounds measured.")
    int rounds = 5;

    @Option(names = "--heap", paramLabel = "SIZE", description = "The child JVM's -Xmx, the mirror's default.")
    String heap = "384m";

    @Option(
            names = "--reads-per-round",
            paramLabel = "N",
            description = "Stretches of folded runs read from the target per round, as the mirror's sync loop "
                    + "(it also stops reading after 1 s).")
    long readsPerRound = 20_000;

    @Option(names = "--child", hidden = true)
    boolean child;

    private static final int PARTITIONS_PER_TOPIC = 100;

    /** The flags, or null if help was asked for. */
    static @Nullable SyncScaleBench parse(String[] args) {
        SyncScaleBench bench = new SyncScaleBench();
        return BenchFlags.parse(bench, args) ? bench : null;
    }

    public static void main(String[] args) throws Exception {
        SyncScaleBench bench = BenchFlags.parseOrExit(
                "bench sync-scale", args, SyncScaleBench::parse, () -> BenchFlags.usage(new SyncScaleBench()));
        if (bench == null) {
            return;
        }
        if (bench.child) {
            System.exit(bench.runChild());
        }
        bench.runParent();
    }

    private void runParent() throws Exception {
        System.out.printf(
                Locale.ROOT,
                "bench sync-scale: %d groups, each committed on %d topics of %d partitions (%d partitions); %,d records "
                        + "per partition, then %d rounds of %d more; shapes: 1/2 transactional (commit every 10 records), "
                        + "1/4 compacted (random gaps), 1/4 plain; child JVM -Xms128m -Xmx%s -XX:+UseParallelGC; "
                        + "machine: %d cores, java %s%n",
                groups,
                topicsPerGroup,
                PARTITIONS_PER_TOPIC,
                topicsPerGroup * PARTITIONS_PER_TOPIC,
                records,
                rounds,
                recordsPerRound,
                heap,
                Runtime.getRuntime().availableProcessors(),
                System.getProperty("java.version"));
        String java = ProcessHandle.current().info().command().orElse("java");
        String cp = System.getProperty("java.class.path");
        ChildProcesses children = new ChildProcesses();
        Runtime.getRuntime().addShutdownHook(new Thread(children::killAll));
        List<String> table = new ArrayList<>();
        table.add("| partitions | peak RSS | heap after GC (max) | segments + checkpoints held | round median / max "
                + "| translate median | bytes written per round | stretches read per round | behind per round "
                + "| wrong |");
        table.add("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        // The children's own output goes to their logs (no terminal): the parent shows which one runs.
        Progress progress =
                BenchProgress.of("bench sync-scale: partition counts", null).start(partitions.size());
        int measured = 0;
        for (int p : partitions) {
            progress.update(measured, String.format(Locale.ROOT, "%,d partitions (child JVM)", p));
            Path log = Files.createTempFile("sync-scale-" + p + "-", ".log");
            List<String> cmd = List.of(
                    java,
                    "-Xms128m",
                    "-Xmx" + heap,
                    "-XX:+UseParallelGC",
                    "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                    "-cp",
                    cp,
                    SyncScaleBench.class.getName(),
                    "--child",
                    "--partitions",
                    String.valueOf(p),
                    "--groups",
                    String.valueOf(groups),
                    "--topics-per-group",
                    String.valueOf(topicsPerGroup),
                    "--records",
                    String.valueOf(records),
                    "--records-per-round",
                    String.valueOf(recordsPerRound),
                    "--rounds",
                    String.valueOf(rounds),
                    "--reads-per-round",
                    String.valueOf(readsPerRound));
            ChildProcesses.Completed done = children.run(cmd, log, Duration.ofMinutes(30), progress::tick);
            String result = null;
            for (String line : done.lines()) {
                progress.printAbove(System.out, "  [" + p + "] " + line);
                if (line.startsWith("RESULT ")) {
                    result = line.substring("RESULT ".length());
                }
            }
            if (result == null) {
                table.add(String.format(
                        Locale.ROOT,
                        "| %,d | failed (exit %d%s) | | | | | | | | |",
                        p,
                        done.exitCode(),
                        done.lines().stream().anyMatch(l -> l.contains("OutOfMemoryError"))
                                ? ", OutOfMemoryError"
                                : ""));
            } else {
                table.add(String.format(Locale.ROOT, "| %,d | %s |", p, result));
            }
            measured++;
        }
        progress.update(measured, "done");
        progress.finish();
        System.out.println();
        table.forEach(System.out::println);
    }

    /** One partition count in this JVM; prints progress and a RESULT line for the parent. */
    private int runChild() {
        int p = partitions.get(0);
        Generated target = GENERATED;
        long phaseStart = System.nanoTime();
        String phase = "building the offset map";
        try {
            OffsetMap map = newMap();
            long[] acked = new long[p];
            target.ends = acked;
            List<Pair> tps = new ArrayList<>(p);
            for (int i = 0; i < p; i++) {
                tps.add(new Pair(i));
            }
            // Acknowledgements arrive for many partitions at once (a batch per partition), as from the producer.
            int batch = 500;
            for (long done = 0; done < records; done += batch) {
                long upTo = Math.min(records, done + batch);
                for (int i = 0; i < p; i++) {
                    ack(map, tps.get(i), acked, i, upTo);
                }
            }
            long segments =
                    map.histories().stream().mapToLong(TargetHistory::segments).sum();
            System.out.printf(
                    Locale.ROOT,
                    "map built: %,d partitions x %,d records in %.1f s, %,d segments; heap after GC %d MiB%n",
                    p,
                    records,
                    (System.nanoTime() - phaseStart) / 1e9,
                    segments,
                    heapAfterGcMiB());

            phase = "preparing groups";
            Random random = new Random(42);
            int topics = Math.max(1, p / PARTITIONS_PER_TOPIC);
            List<int[]> groupPartitions = new ArrayList<>();
            List<long[]> groupTargetPositions = new ArrayList<>();
            for (int g = 0; g < groups; g++) {
                List<Integer> mine = new ArrayList<>();
                int first = random.nextInt(topics);
                for (int k = 0; k < Math.min(topicsPerGroup, topics); k++) {
                    int topic = (first + k) % topics;
                    for (int q = 0; q < PARTITIONS_PER_TOPIC && topic * PARTITIONS_PER_TOPIC + q < p; q++) {
                        mine.add(topic * PARTITIONS_PER_TOPIC + q);
                    }
                }
                int[] parts = mine.stream().mapToInt(Integer::intValue).toArray();
                long[] positions = new long[parts.length];
                for (int k = 0; k < parts.length; k++) {
                    // spread from the first record to the end of what is copied
                    positions[k] = (long) (random.nextDouble() * acked[parts[k]]);
                }
                groupPartitions.add(parts);
                groupTargetPositions.add(positions);
            }
            Map<org.apache.kafka.common.TopicPartition, Long> starts = new HashMap<>();
            // As the sync loop: at most so many stretches, and 1 s of reading, a round.
            BelowResolver below = new BelowResolver(target, readsPerRound, Time.SYSTEM, 1_000);
            Map<org.apache.kafka.common.TopicPartition, Long> persisted = new HashMap<>();
            List<Double> roundTimes = new ArrayList<>();
            List<Double> translateTimes = new ArrayList<>();
            List<Long> bytesPerRound = new ArrayList<>();
            List<Long> readCounts = new ArrayList<>();
            List<Long> fetchCounts = new ArrayList<>();
            List<Long> readRecordsPerRound = new ArrayList<>();
            long maxHeap = 0;
            long wrong = 0;
            long behind = 0;
            long behindBefore = 0;
            List<Long> behindPerRound = new ArrayList<>();
            long translated = 0;
            for (int round = 0; round <= rounds; round++) {
                phase = "round " + round;
                long upTo = acked[0] + recordsPerRound;
                if (round > 0) {
                    for (int i = 0; i < p; i++) {
                        ack(map, tps.get(i), acked, i, upTo);
                    }
                    for (int g = 0; g < groups; g++) {
                        long[] positions = groupTargetPositions.get(g);
                        int[] parts = groupPartitions.get(g);
                        for (int k = 0; k < positions.length; k++) {
                            positions[k] = Math.min(acked[parts[k]], positions[k] + random.nextInt(recordsPerRound));
                        }
                    }
                }
                Map<org.apache.kafka.common.TopicPartition, Long> ends = new HashMap<>();
                Map<org.apache.kafka.common.TopicPartition, Long> sourceEnds = new HashMap<>();
                for (int i = 0; i < p; i++) {
                    ends.put(tps.get(i).target, acked[i]);
                    sourceEnds.put(tps.get(i).source, target.sourceOf(i, acked[i] - 1) + 1);
                }
                target.reads = 0;
                target.fetches = 0;
                target.recordsRead = 0;
                long start = System.nanoTime();
                // As GroupOffsetSync.upkeep: persist the snapshot of every history that changed.
                long bytes = 0;
                for (TargetHistory h : map.histories()) {
                    long v = h.version();
                    if (persisted.getOrDefault(h.target(), -1L) == v) {
                        continue;
                    }
                    bytes += SyncRecords.mapKey(map.sourceCluster(), h.target()).length
                            + SyncRecords.encode(h.snapshot(), "bench-writer").length;
                    persisted.put(h.target(), v);
                }
                long translateStart = System.nanoTime();
                // As GroupOffsetSync.syncGroups: a round over the map, every group translated and resolved.
                TranslationRound tr = new TranslationRound(map, TopicRenamer.identity(), starts, ends, sourceEnds);
                below.from(map);
                List<Map<org.apache.kafka.common.TopicPartition, Long>> allCommitted = new ArrayList<>();
                List<Map<org.apache.kafka.common.TopicPartition, Translation>> raw = new ArrayList<>();
                for (int g = 0; g < groups; g++) {
                    int[] parts = groupPartitions.get(g);
                    long[] positions = groupTargetPositions.get(g);
                    Map<org.apache.kafka.common.TopicPartition, Long> committed = new HashMap<>();
                    for (int k = 0; k < parts.length; k++) {
                        // the group consumed up to target position x: it committed the source offset of record x
                        committed.put(tps.get(parts[k]).source, target.sourceOf(parts[k], positions[k]));
                    }
                    allCommitted.add(committed);
                    raw.add(tr.translate(committed));
                }
                below.prefetch(tr, raw, allCommitted);
                for (int g = 0; g < groups; g++) {
                    int[] parts = groupPartitions.get(g);
                    long[] positions = groupTargetPositions.get(g);
                    Map<org.apache.kafka.common.TopicPartition, Long> committed = allCommitted.get(g);
                    Map<org.apache.kafka.common.TopicPartition, Translation> out =
                            below.resolve(tr, raw.get(g), committed, starts);
                    for (int k = 0; k < parts.length; k++) {
                        Translation t = out.get(tps.get(parts[k]).target);
                        translated++;
                        if (t != null && t.offset() <= positions[k] && t.readAgain() == -1 && !t.belowKnown()) {
                            // past the round's reads: behind the exact offset (nothing skipped), exact later
                            behind++;
                        } else if (t == null || t.offset() != positions[k] || !t.exact()) {
                            if (wrong++ < 5) {
                                System.out.printf(
                                        Locale.ROOT,
                                        "WRONG: partition %d, committed %d: expected %d, got %s%n",
                                        parts[k],
                                        committed.get(tps.get(parts[k]).source),
                                        positions[k],
                                        t);
                            }
                        }
                    }
                }
                long end = System.nanoTime();
                long heapMiB = heapAfterGcMiB();
                maxHeap = Math.max(maxHeap, heapMiB);
                long behindNow = behind - behindBefore;
                behindBefore = behind;
                if (round == 0) {
                    System.out.printf(
                            Locale.ROOT,
                            "round 0 (first, not counted): %.3f s, %,d bytes persisted, %,d stretches read in %,d "
                                    + "fetches (%,d records), %,d translations behind (reads left for later rounds); heap "
                                    + "after GC %d MiB%n",
                            (end - start) / 1e9,
                            bytes,
                            target.reads,
                            target.fetches,
                            target.recordsRead,
                            behindNow,
                            heapMiB);
                    continue;
                }
                behindPerRound.add(behindNow);
                roundTimes.add((end - start) / 1e9);
                translateTimes.add((end - translateStart) / 1e9);
                bytesPerRound.add(bytes);
                readCounts.add(target.reads);
                fetchCounts.add(target.fetches);
                readRecordsPerRound.add(target.recordsRead);
                System.out.printf(
                        Locale.ROOT,
                        "round %d: %.3f s (translate %.3f s, persist %.3f s), %,d bytes persisted, %,d stretches "
                                + "read in %,d fetches (%,d records), %,d translations behind; heap after GC %d MiB%n",
                        round,
                        (end - start) / 1e9,
                        (end - translateStart) / 1e9,
                        (translateStart - start) / 1e9,
                        bytes,
                        target.reads,
                        target.fetches,
                        target.recordsRead,
                        behindNow,
                        heapMiB);
            }
            segments = map.histories().stream()
                    .mapToLong(h -> h.segments() + h.checkpoints())
                    .sum();
            behindPerRound.sort(Long::compare);
            roundTimes.sort(Double::compare);
            translateTimes.sort(Double::compare);
            bytesPerRound.sort(Long::compare);
            readCounts.sort(Long::compare);
            fetchCounts.sort(Long::compare);
            readRecordsPerRound.sort(Long::compare);
            System.out.printf(
                    Locale.ROOT,
                    "%,d partition offsets translated, %,d wrong (checked against every copy's position), %,d behind "
                            + "the exact offset (nothing skipped: past the round's reads of the target)%n",
                    translated,
                    wrong,
                    behind);
            System.out.printf(
                    Locale.ROOT,
                    "RESULT %d MiB | %d MiB | %,d | %.2f s / %.2f s | %.2f s | %,d | %,d in %,d fetches (%,d records) | %,d "
                            + "| %,d%n",
                    ProcessStats.selfPeakRssMiB(),
                    maxHeap,
                    segments,
                    median(roundTimes),
                    roundTimes.get(roundTimes.size() - 1),
                    median(translateTimes),
                    bytesPerRound.get(bytesPerRound.size() / 2),
                    readCounts.get(readCounts.size() / 2),
                    fetchCounts.get(fetchCounts.size() / 2),
                    readRecordsPerRound.get(readRecordsPerRound.size() / 2),
                    behindPerRound.get(behindPerRound.size() / 2),
                    wrong);
            return 0;
        } catch (OutOfMemoryError e) {
            System.out.printf(
                    Locale.ROOT,
                    "OutOfMemoryError while %s, after %.1f s; peak RSS %d MiB%n",
                    phase,
                    (System.nanoTime() - phaseStart) / 1e9,
                    ProcessStats.selfPeakRssMiB());
            return 3;
        }
    }

    /** The offset map as the mirror builds it (GroupOffsetSync folds it). */
    private static OffsetMap newMap() {
        OffsetMap map = new OffsetMap("bench-source", OffsetMap.DEFAULT_MAX_SEGMENTS);
        map.fold(OffsetMap.FOLD_WINDOW, OffsetMap.FOLD_CHECKPOINTS);
        return map;
    }

    private static double median(List<Double> sorted) {
        return sorted.get(sorted.size() / 2);
    }

    private static void ack(OffsetMap map, Pair tp, long[] acked, int i, long upTo) {
        for (long t = acked[i]; t < upTo; t++) {
            map.acknowledged(tp.source, GENERATED.sourceOf(i, t), tp.target, t);
        }
        acked[i] = Math.max(acked[i], upTo);
    }

    /** The shapes are a pure function of partition and offset: one generator serves the map and the reads. */
    private static final Generated GENERATED = new Generated();

    private static long heapAfterGcMiB() {
        System.gc();
        return ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getUsed() >> 20;
    }

    /** Source partition i (topic "src-NNN", 100 partitions a topic) and its target partition (preserve mode). */
    private static final class Pair {
        final org.apache.kafka.common.TopicPartition source;
        final org.apache.kafka.common.TopicPartition target;

        Pair(int i) {
            String topic = String.format(Locale.ROOT, "t%03d", i / PARTITIONS_PER_TOPIC);
            source = new org.apache.kafka.common.TopicPartition(topic, i % PARTITIONS_PER_TOPIC);
            target = new org.apache.kafka.common.TopicPartition(topic, i % PARTITIONS_PER_TOPIC);
        }
    }

    /**
     * The target cluster, generated: target offset t of partition i holds the copy of source offset
     * {@link #sourceOf}(i, t); no other records. Counts what is read.
     */
    static final class Generated implements TargetRecords {
        private static final int PERIOD = 4096;
        /** Compacted partitions: gaps before each record of a period, as prefix sums (twice, for rotations). */
        private final long[] gapPrefix = new long[2 * PERIOD + 1];

        /** Per partition, how far the target holds copies (reads stop there). */
        long[] ends = new long[0];

        long reads;
        long fetches;
        long recordsRead;

        Generated() {
            Random random = new Random(7);
            int[] gap = new int[PERIOD];
            for (int k = 0; k < PERIOD; k++) {
                gap[k] = random.nextInt(4) == 0 ? 1 + random.nextInt(20) : 0;
            }
            for (int k = 0; k < 2 * PERIOD; k++) {
                gapPrefix[k + 1] = gapPrefix[k] + gap[k % PERIOD];
            }
        }

        /** 0, 1: transactional; 2: compacted; 3: plain. */
        static int shape(int i) {
            int k = i % 4;
            return k < 2 ? 0 : k - 1;
        }

        /** The source offset copied at target offset t of partition i. */
        long sourceOf(int i, long t) {
            switch (shape(i)) {
                case 0:
                    return t + t / 10; // 10 records, then a commit marker
                case 1: {
                    // a gap before records 1..t, from a random pattern rotated per partition
                    int rot = (i * 977) % PERIOD;
                    long periods = t / PERIOD;
                    int rem = (int) (t % PERIOD);
                    return t + periods * gapPrefix[PERIOD] + gapPrefix[rot + rem + 1] - gapPrefix[rot + 1];
                }
                default:
                    return t;
            }
        }

        @Override
        public Map<String, String> topicIds(Collection<String> topics) {
            return Map.of();
        }

        /** Several partitions' ranges in one fetch, as the real reader does. */
        @Override
        public Map<org.apache.kafka.common.TopicPartition, TargetReader.Range> readEach(
                Map<org.apache.kafka.common.TopicPartition, long[]> ranges) {
            Map<org.apache.kafka.common.TopicPartition, TargetReader.Range> out = new HashMap<>();
            ranges.forEach((tp, r) -> out.put(tp, readRange(tp, r[0], r[1])));
            fetches++;
            return out;
        }

        @Override
        public TargetReader.Range read(org.apache.kafka.common.TopicPartition tp, long from, long to) {
            fetches++;
            return readRange(tp, from, to);
        }

        private TargetReader.Range readRange(org.apache.kafka.common.TopicPartition tp, long from, long to) {
            int i = Integer.parseInt(tp.topic().substring(1)) * PARTITIONS_PER_TOPIC + tp.partition();
            long reached = Math.max(from, Math.min(to, i < ends.length ? ends[i] : 0));
            List<Fact> facts = new ArrayList<>();
            for (long t = from; t < reached; t++) {
                facts.add(new Fact(t, tp, sourceOf(i, t)));
            }
            reads++;
            recordsRead += reached - from;
            return new TargetReader.Range(from, reached, facts);
        }
    }
}
