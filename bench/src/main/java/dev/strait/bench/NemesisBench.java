package dev.strait.bench;

import dev.strait.mirror.progress.Progress;
import dev.strait.testkit.nemesis.Anomaly;
import dev.strait.testkit.nemesis.FaultKind;
import dev.strait.testkit.nemesis.NemesisCluster;
import dev.strait.testkit.nemesis.NemesisRun;
import dev.strait.testkit.nemesis.RunOptions;
import dev.strait.testkit.nemesis.RunReport;
import dev.strait.testkit.nemesis.ScheduleSpec;
import dev.strait.testkit.nemesis.SystemKind;
import dev.strait.testkit.nemesis.TxnChecker;
import dev.strait.testkit.nemesis.WorkloadSpec;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code bin/bench nemesis}: the long nemesis campaign. Run i (0-based) uses seed S+i, so any run is replayed with
 * {@code --runs 1 --seed <its seed>} and the same flags; each run is a fresh 3-node cluster of each system asked
 * for, the same schedule for both. Per run: seed, faults by kind, acknowledged records, anomalies (on stdout; the
 * live fault log goes to stderr); at the end a summary per system. Exit code 0 when every run was clean, 1 when a
 * run found anomalies or could not finish, 2 for bad input. Needs root (network namespaces, tc).
 */
public final class NemesisBench {

    record Options(
            int runs,
            long seed,
            List<SystemKind> systems,
            long faultPhaseS,
            Set<FaultKind> faults,
            int partitions,
            int createPartitions,
            int rate,
            long sessionTimeoutMs,
            Path workDir,
            boolean keepLogs,
            long writeBackAgeS,
            boolean flushOnAck,
            NemesisCluster.KafkaElr kafkaElr,
            WorkloadSpec.Kind workload) {}

    private NemesisBench() {}

    public static void main(String[] args) {
        Options options = BenchFlags.parseOrExit("bench nemesis", args, NemesisBench::parse, NemesisBench::usage);
        if (options == null) {
            return;
        }
        System.exit(run(options));
    }

    /** The flags of {@code bin/bench nemesis} (picocli), with their defaults. */
    @Command(
            name = "bin/bench nemesis",
            description = "The long nemesis campaign: Jepsen-style faults on 3-node clusters while idempotent "
                    + "acks=all producers and a consumer group run; every acknowledged record is checked. Needs "
                    + "root (ip netns, tc).",
            footer = "Run i uses seed S+i (default S: from the clock, printed); replay one with --runs 1 --seed "
                    + "<seed>. Workload: 2 idempotent acks=all producers (request.timeout.ms 3000) at --rate "
                    + "records/s in all, a group of 2 consumers.")
    static final class Flags {
        @Option(names = "--runs", paramLabel = "N", description = "Runs (each a fresh cluster per system).")
        int runs = 1;

        @Option(names = "--seed", paramLabel = "S", description = "Seed of run 1 (default: from the clock).")
        @Nullable
        Long seed;

        @Option(names = "--system", paramLabel = "strait|kafka|both", description = "Which systems.")
        String system = "strait";

        @Option(names = "--fault-phase-s", paramLabel = "S", description = "Seconds of faults per run.")
        long faultPhaseS = 120;

        @Option(
                names = "--faults",
                paramLabel = "all|pause,partition,kill,power|NAME,...",
                description = "Fault kinds: all, families or names. power cuts a node's power: its data directory"
                        + " is a lazy disk (FUSE; needs /dev/fuse and python3-fusepy) that loses unsynced writes.")
        String faults = "all";

        @Option(names = "--partitions", paramLabel = "P", description = "Partitions of the workload topic.")
        int partitions = 4;

        @Option(
                names = "--create-partitions",
                paramLabel = "N",
                description = "Partitions of the CreateTopics a controller kill interrupts.")
        int createPartitions = 500;

        @Option(
                names = "--rate",
                paramLabel = "RECORDS_PER_S",
                description = "Workload rate (default 400, with --workload txn 150).")
        @Nullable
        Integer rate;

        @Option(
                names = "--workload",
                paramLabel = "idempotent|txn",
                description = "idempotent: idempotent producers and a consumer group. txn: 3 transactional producers"
                        + " (each transaction 2 records to each of 3 partitions, 20% aborted) and 2 read_committed"
                        + " readers; checked for aborted records seen, committed records missing, transactions"
                        + " partly visible, duplicates and reordering.")
        String workload = "idempotent";

        @Option(names = "--session-timeout-ms", paramLabel = "MS", description = "broker.session.timeout.ms.")
        long sessionTimeoutMs = NemesisCluster.Config.defaults().sessionTimeoutMs();

        @Option(names = "--work-dir", paramLabel = "DIR", description = "Where the runs' clusters live.")
        Path workDir = Path.of(System.getProperty("java.io.tmpdir"), "strait-nemesis");

        @Option(names = "--keep-logs", description = "Keep the nodes' logs.")
        boolean keepLogs;

        @Option(
                names = "--write-back-age-s",
                paramLabel = "S",
                description = "With power faults: unsynced writes older than this are written back (survive a power"
                        + " cut); the kernel's dirty expiry is 30 s.")
        long writeBackAgeS = 30;

        @Option(
                names = "--flush-on-ack",
                description = "The fsync mode: acks=all waits until the in-sync replicas synced the records (Strait"
                        + " strait.flush.on.ack=true, Kafka log.flush.interval.messages=1). Needed by"
                        + " power-loss-all.")
        boolean flushOnAck;

        @Option(
                names = "--kafka-elr",
                paramLabel = "on|off|default",
                description = "Kafka's eligible leader replicas (KIP-966), set when the nodes are formatted"
                        + " (eligible.leader.replicas.version 1 or 0); default: Kafka 4.1.1's own.")
        String kafkaElr = "default";
    }

    static String usage() {
        return BenchFlags.usage(new Flags()) + "\nFault names: "
                + String.join(
                        ", ",
                        EnumSet.allOf(FaultKind.class).stream()
                                .map(FaultKind::flag)
                                .toList());
    }

    /** The options, or null if help was asked for. */
    static @Nullable Options parse(String[] args) {
        Flags f = new Flags();
        if (!BenchFlags.parse(f, args)) {
            return null;
        }
        List<SystemKind> systems = f.system.equals("both")
                ? List.of(SystemKind.STRAIT, SystemKind.KAFKA)
                : List.of(SystemKind.parse(f.system));
        Set<FaultKind> faults = FaultKind.parseList(f.faults);
        NemesisCluster.KafkaElr kafkaElr = NemesisCluster.KafkaElr.parse(f.kafkaElr);
        WorkloadSpec.Kind workload = WorkloadSpec.Kind.parse(f.workload);
        int rate = rate(f.rate, workload);
        if (faults.contains(FaultKind.POWER_LOSS_ALL) && !f.flushOnAck) {
            throw new IllegalArgumentException(FaultKind.POWER_LOSS_ALL.flag()
                    + " needs --flush-on-ack: without fsync before the ack, a power cut of every node loses"
                    + " acknowledged records by design");
        }
        if (f.runs < 1
                || f.faultPhaseS < 10
                || f.partitions < 1
                || f.createPartitions < 1
                || rate < 1
                || f.sessionTimeoutMs < 1000
                || f.writeBackAgeS < 0) {
            throw new IllegalArgumentException(
                    "--runs, --partitions, --create-partitions, --rate must be at least 1,"
                            + " --fault-phase-s at least 10, --session-timeout-ms at least 1000, --write-back-age-s at least 0");
        }
        return new Options(
                f.runs,
                f.seed != null ? f.seed : System.currentTimeMillis() % 1_000_000,
                systems,
                f.faultPhaseS,
                faults,
                f.partitions,
                f.createPartitions,
                rate,
                f.sessionTimeoutMs,
                f.workDir,
                f.keepLogs,
                f.writeBackAgeS,
                f.flushOnAck,
                kafkaElr,
                workload);
    }

    /** The --rate given, or the workload's default rate. */
    private static int rate(@Nullable Integer given, WorkloadSpec.Kind workload) {
        if (given != null) {
            return given;
        }
        return (workload == WorkloadSpec.Kind.TXN ? WorkloadSpec.txnDefaults() : WorkloadSpec.defaults())
                .recordsPerSecond();
    }

    /** Per system: runs, minutes, faults, acknowledged records, anomalies, and the seeds that found any. */
    private static final class Totals {
        int runs;
        long elapsedMs;
        final Map<FaultKind, Integer> faults = new EnumMap<>(FaultKind.class);
        long acknowledged;
        long anomalies;
        long staleReads;
        final List<Long> anomalousSeeds = new ArrayList<>();
        final List<Long> errorSeeds = new ArrayList<>();
        final Map<String, Long> anomaliesByType = new java.util.TreeMap<>();
        TxnChecker.@Nullable Stats transactions;

        void add(RunReport r) {
            TxnChecker.Stats txns = r.transactions();
            if (txns != null) {
                TxnChecker.Stats sum = transactions;
                transactions = sum == null ? txns : sum.plus(txns);
            }
            r.anomalies().stream()
                    .filter(Anomaly::counted)
                    .forEach(a -> anomaliesByType.merge(a.flag(), a.count(), Long::sum));
            runs++;
            elapsedMs += r.elapsedMs();
            r.faultsInjected().forEach((k, v) -> faults.merge(k, v, Integer::sum));
            acknowledged += r.acknowledged();
            anomalies += r.anomalyCount();
            staleReads += r.observationCount();
            if (r.anomalyCount() > 0) {
                anomalousSeeds.add(r.seed());
            }
            if (r.error() != null) {
                errorSeeds.add(r.seed());
            }
        }

        String describe(SystemKind system) {
            int total = faults.values().stream().mapToInt(Integer::intValue).sum();
            return String.format(
                            Locale.ROOT,
                            "%s: %d runs, %.1f min; %d faults (%s: %s); %,d acknowledged;"
                                    + " anomalies %d%s; reported, not counted %d; harness errors %d%s",
                            system.label(),
                            runs,
                            elapsedMs / 60_000.0,
                            total,
                            RunReport.byFamily(faults),
                            RunReport.byKind(faults),
                            acknowledged,
                            anomalies,
                            anomalousSeeds.isEmpty()
                                    ? ""
                                    : " in " + anomalousSeeds.size() + " runs (seeds " + anomalousSeeds + ")",
                            staleReads,
                            errorSeeds.size(),
                            errorSeeds.isEmpty() ? "" : " (seeds " + errorSeeds + ")")
                    + (anomaliesByType.isEmpty() ? "" : "\n  anomalies by type: " + anomaliesByType)
                    + (transactions == null ? "" : "\n  " + transactions.describe());
        }
    }

    static int run(Options o) {
        // The clients retry through every fault by design; their per-retry warnings would drown the fault log.
        System.setProperty("org.slf4j.simpleLogger.log.org.apache.kafka", "error");
        WorkloadSpec workload = (o.workload() == WorkloadSpec.Kind.TXN
                        ? WorkloadSpec.txnDefaults()
                        : WorkloadSpec.defaults())
                .withPartitions(o.partitions())
                .withRate(o.rate());
        NemesisCluster.Config base = NemesisCluster.Config.defaults();
        NemesisCluster.Config settings = new NemesisCluster.Config(
                        o.sessionTimeoutMs(),
                        Math.max(500, Math.min(base.heartbeatIntervalMs(), o.sessionTimeoutMs() / 3)),
                        base.replicaLagTimeMaxMs(),
                        base.heap(),
                        base.extraConfig())
                .withFlushOnAck(o.flushOnAck())
                .withKafkaElr(o.kafkaElr());
        ScheduleSpec spec = new ScheduleSpec(
                o.faultPhaseS() * 1000, o.sessionTimeoutMs(), 3, o.partitions(), o.createPartitions(), o.faults());
        System.out.printf(
                "bench nemesis: %d run(s) of %s from seed %d; %s --workload %s --rate %d%s%s; code %s; %d cores,"
                        + " load average %s%n",
                o.runs(),
                o.systems().stream().map(SystemKind::flag).toList(),
                o.seed(),
                spec.flags(),
                o.workload().flag(),
                o.rate(),
                o.flushOnAck() ? " --flush-on-ack" : "",
                o.kafkaElr() == NemesisCluster.KafkaElr.DEFAULT
                        ? ""
                        : " --kafka-elr " + o.kafkaElr().name().toLowerCase(Locale.ROOT),
                gitCommit(),
                Runtime.getRuntime().availableProcessors(),
                loadAverage());
        Map<SystemKind, Totals> totals = new LinkedHashMap<>();
        boolean clean = true;
        // Whole lines, one as each run starts: the live fault log shares stderr line by line.
        Progress progress = BenchProgress.of("bench nemesis: runs done", null)
                .evenSteps()
                .lines()
                .start((long) o.runs() * o.systems().size());
        int done = 0;
        for (int i = 0; i < o.runs(); i++) {
            long seed = o.seed() + i;
            for (SystemKind system : o.systems()) {
                progress.update(
                        done,
                        String.format(
                                Locale.ROOT, "next: run %d/%d, %s, seed %d", i + 1, o.runs(), system.flag(), seed));
                RunOptions options = new RunOptions(
                                system, spec, workload, settings, o.workDir(), o.keepLogs(), System.err)
                        .withWriteBackAge(java.time.Duration.ofSeconds(o.writeBackAgeS()));
                NemesisRun run = new NemesisRun(options, seed);
                System.out.printf(
                        "%n== run %d/%d, %s, seed %d, load average %s ==%n%s",
                        i + 1,
                        o.runs(),
                        system.flag(),
                        seed,
                        loadAverage(),
                        run.schedule().describe());
                System.out.flush();
                RunReport report = run.run();
                System.out.println(report.describe());
                System.out.flush();
                totals.computeIfAbsent(system, s -> new Totals()).add(report);
                clean &= report.clean();
                done++;
            }
        }
        progress.update(done, "all runs done");
        progress.finish();
        System.out.println();
        System.out.println("== summary (load average " + loadAverage() + ") ==");
        totals.forEach((system, t) -> System.out.println(t.describe(system)));
        return clean ? 0 : 1;
    }

    private static String loadAverage() {
        try {
            return Files.readString(Path.of("/proc/loadavg")).trim();
        } catch (IOException e) {
            return "n/a";
        }
    }

    /** The commit the bench runs on (and whether the tree has changes), for the record. */
    private static String gitCommit() {
        try {
            Process p = new ProcessBuilder("git", "log", "-1", "--format=%h %s")
                    .redirectErrorStream(true)
                    .start();
            String head = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            p.waitFor(10, TimeUnit.SECONDS);
            Process s = new ProcessBuilder("git", "status", "--porcelain", "--untracked-files=no")
                    .redirectErrorStream(true)
                    .start();
            String status = new String(s.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            s.waitFor(10, TimeUnit.SECONDS);
            return head + (status.isEmpty() ? "" : " (with uncommitted changes)");
        } catch (IOException e) {
            return "unknown";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "unknown";
        }
    }
}
