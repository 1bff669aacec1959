package dev.strait.cli;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import com.codahale.metrics.MetricRegistry;
import dev.strait.broker.server.EmbeddedCluster;
import dev.strait.canary.Canary;
import dev.strait.canary.CanaryConfig;
import dev.strait.canary.CanaryHttpServer;
import dev.strait.lag.LagMonitor;
import dev.strait.lag.audit.AuditPlan;
import dev.strait.lag.audit.AuditReport;
import dev.strait.lag.audit.Auditor;
import dev.strait.lag.config.LagMonitorConfig;
import dev.strait.lag.http.StatusServer;
import dev.strait.lag.sample.PartitionLag;
import dev.strait.lag.status.StatusEvaluator.GroupStatus;
import dev.strait.mirror.config.ConfigException;
import dev.strait.mirror.config.MirrorSettings;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.mirror.metrics.MetricsHttpServer;
import dev.strait.mirror.metrics.MirrorMetrics;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.common.utils.Time;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code strait demo}: the whole system on this machine. Two companion clusters ("source" and "target", three
 * nodes each by default), a steady keyed load, the mirror, the lag monitor and the canary, a live line every
 * second, one source broker killed partway (its partitions fail over) and started again, then a final audit and
 * a verdict. Exit 0 only if nothing was lost.
 */
@Command(name = "demo", mixinStandardHelpOptions = true, versionProvider = Version.class, sortOptions = false,
    usageHelpWidth = 110,
    description = {"Runs Strait end to end on built-in companion clusters and prints a verdict.",
        "Records produced, mirrored, lost (must be 0) and duplicated. Exit 0 only if nothing was lost."})
public final class DemoCommand implements Callable<Integer> {
    private static final List<String> TOPICS = List.of("demo.orders", "demo.payments");

    @Option(names = "--duration", paramLabel = "SECONDS", defaultValue = "60",
        description = "How long the load runs (default: ${DEFAULT-VALUE}).")
    int durationSeconds;

    @Option(names = "--rate", paramLabel = "RECORDS_PER_SECOND", defaultValue = "2000",
        description = "Load on the source (default: ${DEFAULT-VALUE}).")
    int rate;

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "3",
        description = "Nodes per cluster (default: ${DEFAULT-VALUE}); with 3 or more, topics are replicated three "
            + "times with min.insync.replicas=2 and the killed broker's partitions fail over.")
    int nodes;

    @Option(names = "--no-broker-kill", description = "Do not kill a source broker partway through.")
    boolean noKill;

    private EmbeddedCluster cluster() {
        EmbeddedCluster.Builder builder = EmbeddedCluster.builder().nodes(nodes)
            .brokerConfig("group.initial.rebalance.delay.ms", "0");
        if (nodes >= 3) {
            builder.brokerConfig("min.insync.replicas", "2").brokerConfig("broker.session.timeout.ms", "3000")
                .brokerConfig("broker.heartbeat.interval.ms", "500");
        }
        return builder.start();
    }

    @Override
    public Integer call() throws Exception {
        if (durationSeconds < 10 || durationSeconds > 3600) {
            throw new ConfigException("--duration must be between 10 and 3600 seconds, not " + durationSeconds);
        }
        if (rate < 1 || rate > 100_000) {
            throw new ConfigException("--rate must be between 1 and 100000, not " + rate);
        }
        if (nodes < 1 || nodes > 5) {
            throw new ConfigException("--nodes must be between 1 and 5, not " + nodes);
        }
        PrintStream out = System.out;
        out.printf("strait demo: starting two companion clusters of %d node%s each ...%n", nodes, nodes == 1 ? "" : "s");
        try (EmbeddedCluster source = cluster(); EmbeddedCluster target = cluster()) {
            createTopics(source, (short) Math.min(3, nodes));
            out.printf("source %s, target %s%n", source.bootstrapServers(), target.bootstrapServers());

            MirrorMetrics mirrorMetrics = new MirrorMetrics(new MetricRegistry());
            MirrorEngine mirror = new MirrorEngine(MirrorSettings.builder()
                .consumerConfig(props("bootstrap.servers", source.bootstrapServers(), "group.id", "strait-demo-mirror",
                    "metadata.max.age.ms", "5000"))
                .producerConfig(props("bootstrap.servers", target.bootstrapServers()))
                .include("demo\\..*|strait-canary").numStreams(2).offsetCommitIntervalMs(5_000).build(),
                mirrorMetrics, Time.SYSTEM);
            mirror.start();
            try (MetricsHttpServer mirrorHttp = new MetricsHttpServer("127.0.0.1", 0, mirrorMetrics,
                     () -> new MetricsHttpServer.Health(mirror.state() == MirrorEngine.State.RUNNING, mirror.state().name()));
                 LagMonitor lag = new LagMonitor(LagMonitorConfig.from(props(
                     "source.bootstrap.servers", source.bootstrapServers(),
                     "target.bootstrap.servers", target.bootstrapServers(),
                     "mirror.group.id", "strait-demo-mirror", "topics", "demo\\..*",
                     "mirror.metrics.url", "http://127.0.0.1:" + mirrorHttp.port() + "/metrics",
                     "window.size", "5", "sample.interval.ms", "1000", "stop.after.ms", "30000",
                     "audit.interval.ms", "0")), Time.SYSTEM);
                 StatusServer lagHttp = new StatusServer("127.0.0.1", 0, "strait-demo-mirror", lag::latest, lag::healthy,
                     lag::auditSummary);
                 Canary canary = new Canary(CanaryConfig.from(props(
                     "source.bootstrap.servers", source.bootstrapServers(),
                     "target.bootstrap.servers", target.bootstrapServers(),
                     "interval.ms", "1000", "alarm.threshold.ms", "3000", "lost.after.ms", "30000", "partitions", "3",
                     "canary.id", "demo")), new MetricRegistry(), Time.SYSTEM);
                 CanaryHttpServer canaryHttp = new CanaryHttpServer("127.0.0.1", 0, canary);
                 DemoLoad load = new DemoLoad(source.bootstrapServers(), TOPICS, rate)) {
                Thread lagLoop = new Thread(lag, "strait-demo-lag");
                lagLoop.setDaemon(true);
                lagLoop.start();
                canary.start();
                load.start();
                out.printf("mirror metrics http://127.0.0.1:%d/metrics | lag monitor http://127.0.0.1:%d/status | "
                    + "canary http://127.0.0.1:%d/status%n", mirrorHttp.port(), lagHttp.port(), canaryHttp.port());

                long killAt = durationSeconds / 2;
                long[] lastMirrored = {0};
                int victim = -1;
                for (int t = 1; t <= durationSeconds; t++) {
                    Thread.sleep(1000);
                    if (!noKill && t == killAt) {
                        victim = nodes == 1 ? 0 : leaderOf(source, TOPICS.get(0));
                        out.printf(">>> killing source broker node %d (leader of %s-0) without a controlled shutdown;"
                            + " %s%n", victim, TOPICS.get(0), nodes == 1
                            ? "the only node, so the cluster is down for 5 s" : "its partitions fail over");
                        out.println("    before: " + leaders(source));
                        source.kill(victim);
                    }
                    if (!noKill && t == killAt + 3 && nodes > 1) {
                        out.println("    after:  " + leaders(source));
                    }
                    if (!noKill && t == killAt + 5) {
                        source.resume(victim);
                        out.printf(">>> source broker node %d is back%n", victim);
                    }
                    out.println(line(t, load, mirrorMetrics, lag.latest(), canary, lastMirrored));
                }
                if (!noKill && nodes > 1) {
                    out.println("    at the end: " + leaders(source));
                }
                out.println("load stopped; waiting for the mirror to catch up ...");
                load.stop();
                long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
                while (System.nanoTime() < deadline && !caughtUp(lag.latest(), load.acked())) {
                    Thread.sleep(1000);
                    out.println(line(durationSeconds, load, mirrorMetrics, lag.latest(), canary, lastMirrored));
                }
                mirror.requestStop();
                mirror.awaitTermination(Duration.ofSeconds(60));
                return verdict(out, source, target, load, lag.latest(), canary, mirrorHttp.port(), lagHttp.port(),
                    canaryHttp.port());
            } finally {
                mirror.close();
            }
        }
    }

    private static void createTopics(EmbeddedCluster source, short replicationFactor) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", source.bootstrapServers()))) {
            admin.createTopics(List.of(new NewTopic(TOPICS.get(0), 6, replicationFactor),
                new NewTopic(TOPICS.get(1), 3, replicationFactor))).all().get(30, TimeUnit.SECONDS);
        }
    }

    private static int leaderOf(EmbeddedCluster cluster, String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()))) {
            return admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
                .partitions().get(0).leader().id();
        }
    }

    /** The source's partitions as kafka-topics --describe would show them: leader and in-sync replicas. */
    private static String leaders(EmbeddedCluster cluster) {
        try (Admin admin = Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers(),
            "default.api.timeout.ms", "5000", "request.timeout.ms", "3000"))) {
            StringBuilder sb = new StringBuilder();
            admin.describeTopics(List.of(TOPICS.get(0))).allTopicNames().get(5, TimeUnit.SECONDS).get(TOPICS.get(0))
                .partitions().forEach(p -> sb.append(TOPICS.get(0)).append('-').append(p.partition()).append(" leader ")
                    .append(p.leader() == null ? "none" : Integer.toString(p.leader().id())).append(" isr ")
                    .append(p.isr().stream().map(n -> Integer.toString(n.id())).toList()).append("  "));
            return sb.toString().trim();
        } catch (Exception e) {
            return "(cluster view unavailable: " + e.getMessage() + ")";
        }
    }

    private static boolean caughtUp(GroupStatus s, long acked) {
        if (s == null || s.snapshot().failed()) {
            return false;
        }
        long end = 0;
        for (PartitionLag p : s.snapshot().partitions()) {
            if (p.exactLag() != 0) {
                return false;
            }
            end += p.sourceEnd();
        }
        return end >= acked;
    }

    /** One live line; {@code lastMirrored} carries the previous line's mirrored count for the rate. */
    private static String line(int t, DemoLoad load, MirrorMetrics metrics, GroupStatus lag, Canary canary,
                               long[] lastMirrored) {
        long mirrored = metrics.recordsProduced();
        long rate = mirrored - lastMirrored[0];
        lastMirrored[0] = mirrored;
        long exact = 0;
        long committed = 0;
        long consumer = 0;
        if (lag != null) {
            for (PartitionLag p : lag.snapshot().partitions()) {
                exact += Math.max(0, p.exactLag());
                committed += Math.max(0, p.committedLag());
                consumer += Math.max(0, p.consumerLag());
            }
        }
        return String.format(Locale.ROOT, "t=%3ds produced %,9d  mirrored %,9d  %,7.0f rec/s | lag exact %,6d committed "
                + "%,6d consumer %,6d  %-6s | canary p99 %5.0f ms %s", t, load.acked(), mirrored, (double) rate, exact,
            committed, consumer,
            lag == null ? "-" : lag.status(), canary.latency().getSnapshot().get99thPercentile(), canary.state());
    }

    private static int verdict(PrintStream out, EmbeddedCluster source, EmbeddedCluster target, DemoLoad load,
                               GroupStatus lag, Canary canary, int mirrorPort, int lagPort, int canaryPort)
        throws Exception {
        Properties src = props("bootstrap.servers", source.bootstrapServers());
        long missing = 0;
        long duplicated = 0;
        long reordered = 0;
        long audited = 0;
        // Every record on the source, not just what the mirror committed: the target must hold them all.
        var plan = AuditPlan.plan(src, "strait-demo-mirror", Pattern.compile("demo\\..*"), 0, Long.MAX_VALUE,
            Long.MAX_VALUE / 4);
        try (Auditor auditor = new Auditor(src, props("bootstrap.servers", target.bootstrapServers()),
            dev.strait.mirror.config.TopicRenamer.identity())) {
            for (var e : plan.entrySet()) {
                AuditReport report = auditor.audit(e.getKey(), e.getValue());
                for (AuditReport.PartitionAudit pa : report.partitions()) {
                    audited += pa.sourceRecords();
                    missing += pa.count(AuditReport.Kind.MISSING);
                    duplicated += pa.count(AuditReport.Kind.DUPLICATED);
                    reordered += pa.count(AuditReport.Kind.REORDERED);
                }
            }
        }
        long onSource = 0;
        if (lag != null) {
            for (PartitionLag p : lag.snapshot().partitions()) {
                onSource += p.sourceEnd();
            }
        }
        // Records the source acknowledged but no longer has would be the source's loss, not the mirror's.
        long lostOnSource = Math.max(0, load.acked() - audited);
        long lost = missing + lostOnSource;
        out.println();
        out.println("==== verdict ====");
        out.printf(Locale.ROOT, "produced (acknowledged by the source): %,d (send failures: %,d)%n", load.acked(), load.failed());
        out.printf(Locale.ROOT, "on the source: %,d; audited against the target: %,d%n", onSource, audited);
        out.printf(Locale.ROOT, "lost: %,d (missing on the target %,d, acknowledged but gone from the source %,d)   "
            + "duplicated: %,d   reordered: %,d%n", lost, missing, lostOnSource, duplicated, reordered);
        out.printf(Locale.ROOT, "canary: %s, %d probes sent, %d arrived, %d lost, p99 latency %.0f ms%n", canary.state(),
            canary.counts().sent(), canary.counts().arrived(), canary.counts().lost(),
            canary.latency().getSnapshot().get99thPercentile());
        out.printf("endpoints (now closed): mirror :%d/metrics, lag monitor :%d/status, canary :%d/status%n", mirrorPort,
            lagPort, canaryPort);
        out.println(lost == 0 ? "VERDICT: nothing lost" : "VERDICT: RECORDS LOST");
        return lost == 0 ? Cli.OK : Cli.FAILED;
    }

    private static Properties props(String... kv) {
        Properties p = new Properties();
        for (int i = 0; i < kv.length; i += 2) {
            p.put(kv[i], kv[i + 1]);
        }
        return p;
    }
}
