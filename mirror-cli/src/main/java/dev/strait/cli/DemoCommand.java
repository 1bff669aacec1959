package dev.strait.cli;

import com.codahale.metrics.MetricRegistry;
import dev.strait.broker.server.EmbeddedCluster;
import dev.strait.canary.Canary;
import dev.strait.canary.CanaryConfig;
import dev.strait.canary.CanaryHttpServer;
import dev.strait.canary.CanaryState;
import dev.strait.lag.LagMonitor;
import dev.strait.lag.config.LagMonitorConfig;
import dev.strait.lag.http.StatusServer;
import dev.strait.lag.sample.PartitionLag;
import dev.strait.lag.status.Status;
import dev.strait.lag.status.StatusEvaluator.GroupStatus;
import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.config.SyncConfig;
import dev.strait.mirror.config.TopicSyncConfig;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.mirror.metrics.MetricsHttpServer;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.progress.Progress;
import dev.strait.settings.ConfigException;
import dev.strait.time.Time;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code strait demo}: the whole system on this machine. Two companion clusters ("source" and "target", three
 * nodes each by default), a steady keyed load, the mirror, the lag monitor and the canary, a live line every
 * second, the {@link DemoScenario} (by default one source broker killed partway, its partitions failing over,
 * and started again), then a {@link DemoVerdict} by sequence number. Unless {@code --no-failover-drill}, it ends
 * with the {@link DemoDrill}: an application's consumer group fails over to the target with the source stopped. The terminal
 * shows only the live lines, the failover view, the verdict and the drill; every log goes to a file named at the
 * start and the end. Exit 0 only if nothing was lost (and, with the drill, it read nothing again and skipped
 * nothing).
 */
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        sortOptions = false,
        usageHelpWidth = 110,
        description = {
            "Runs Strait end to end on built-in companion clusters and prints a verdict.",
            "Records produced, mirrored, lost (must be 0) and duplicated. Exit 0 only if nothing was lost.",
            "It ends with a disaster-recovery drill: the source is stopped, strait failover moves",
            "an application's consumer group to the target and it resumes there (read again and skipped must be 0)."
        })
public final class DemoCommand implements Callable<Integer> {
    private static final List<String> TOPICS = List.of("demo.orders", "demo.payments");
    private static final String GROUP = "strait-demo-mirror";
    /** The canary's topic (its default), mirrored with the demo's topics. */
    private static final String CANARY_TOPIC = "strait-canary";
    /** The mirror commits this often; the lag monitor's window (10 samples a second apart) spans it. */
    private static final long COMMIT_INTERVAL_MS = 2_000;
    /** How long after a fault is undone the live lines still name it. */
    private static final int FAULT_SETTLE_SECONDS = 10;

    private static final int WARM_UP_SECONDS = 60;

    @Option(
            names = "--duration",
            paramLabel = "SECONDS",
            defaultValue = "60",
            description = "How long the load runs (default: ${DEFAULT-VALUE}).")
    int durationSeconds;

    @Option(
            names = "--rate",
            paramLabel = "RECORDS_PER_SECOND",
            defaultValue = "2000",
            description = "Load on the source (default: ${DEFAULT-VALUE}).")
    int rate;

    @Option(
            names = "--nodes",
            paramLabel = "N",
            defaultValue = "3",
            description = "Nodes per cluster (default: ${DEFAULT-VALUE}); with 3 or more, topics are replicated three "
                    + "times with min.insync.replicas=2 and the killed broker's partitions fail over.")
    int nodes;

    @Option(names = "--no-broker-kill", description = "Do not kill a source broker partway through.")
    boolean noKill;

    @Option(
            names = "--failover-drill",
            negatable = true,
            defaultValue = "true",
            fallbackValue = "true",
            description =
                    "Run an application's consumer group on the source (its offsets synced by the mirror) and end "
                            + "with a failover drill: the whole source cluster stopped, the group moved by strait failover, and read on "
                            + "the target (records read again and skipped must be 0). On by default; --no-failover-drill leaves it out.")
    boolean drill;

    @Option(
            names = "--secure",
            description = "Secure both clusters: SASL_SSL listeners (SCRAM-SHA-512) with certificates of a CA made for "
                    + "this run, mutual TLS between controllers, ACLs on (allow.everyone.if.no.acl.found=false); the "
                    + "mirror, lag monitor, canary and strait failover each run as their own user with only the ACLs "
                    + "docs/operating.md lists. Passwords are made at random and never printed.")
    boolean secure;

    @Option(
            names = "--work-dir",
            paramLabel = "DIR",
            description = "With --secure: where the CA, the certificates and each user's client settings go, kept "
                    + "after the run (default: a new temporary directory, deleted at the end).")
    @Nullable
    Path workDir;

    @Option(
            names = "--log-file",
            paramLabel = "FILE",
            description = "Where the logs of the brokers, clients, mirror, lag monitor and canary go (default: a new "
                    + "file strait-demo-*.log in the temporary directory).")
    @Nullable
    Path logFile;

    private final Time time = Time.SYSTEM;
    /** The start-up's steps on stderr (a terminal only), wiped before each line of the demo's own output. */
    private Progress startUp = Progress.off();

    private DemoSecurity security = DemoSecurity.plain();

    private EmbeddedCluster cluster() {
        EmbeddedCluster.Builder builder =
                EmbeddedCluster.builder().nodes(nodes).brokerConfig("group.initial.rebalance.delay.ms", "0");
        security.configure(builder);
        if (nodes >= 3) {
            builder.brokerConfig("min.insync.replicas", "2")
                    .brokerConfig("broker.session.timeout.ms", "3000")
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
        if (workDir != null && !secure) {
            throw new ConfigException(
                    "--work-dir holds what --secure makes: give --secure too, or leave --work-dir out");
        }
        PrintStream out = System.out;
        Path log = DemoLogs.toFile(logFile != null ? logFile : Files.createTempFile("strait-demo-", ".log"));
        out.printf("strait demo: logs go to %s%n", log);
        startUp = Progress.onStderr("strait demo: start-up", null, false, time).start(secure ? 5 : 4);
        int step = 0;
        if (secure) {
            out.println("strait demo: making a CA and the brokers' certificate for this run ...");
            startUp.update(step++, "making a CA");
        }
        try (DemoSecurity secured = secure ? DemoSecurity.secured(workDir, time) : DemoSecurity.plain()) {
            security = secured;
            startUp.clear();
            out.printf(
                    "strait demo: starting two %scompanion clusters of %d node%s each ...%n",
                    secure ? "secured " : "", nodes, nodes == 1 ? "" : "s");
            startUp.update(step++, "starting the clusters");
            try (EmbeddedCluster source = cluster();
                    EmbeddedCluster target = cluster()) {
                startUp.update(step++, "ACLs and topics");
                List<DemoSecurity.Grant> grants =
                        DemoSecurity.grants(TOPICS, GROUP, CANARY_TOPIC, DemoDrill.GROUP, drill);
                security.grant(source, target, grants, time);
                createTopics(source, (short) Math.min(3, nodes));
                startUp.clear();
                out.printf("source %s, target %s%n", source.bootstrapServers(), target.bootstrapServers());
                security.describe(out, grants, nodes);
                startUp.update(step, "starting the mirror, lag monitor and canary");
                int code = run(out, source, target);
                out.printf("logs: %s%n", log);
                return code;
            }
        }
    }

    private int run(PrintStream out, EmbeddedCluster source, EmbeddedCluster target) throws Exception {
        MirrorMetrics mirrorMetrics = new MirrorMetrics(new MetricRegistry());
        MirrorConfig.Builder settings = MirrorConfig.builder()
                .consumerConfig(with(
                        security.client(DemoSecurity.Principal.MIRROR, source.bootstrapServers()),
                        "group.id",
                        GROUP,
                        "metadata.max.age.ms",
                        "5000"))
                .producerConfig(security.client(DemoSecurity.Principal.MIRROR, target.bootstrapServers()))
                .include("demo\\..*|" + CANARY_TOPIC)
                .numStreams(2)
                .offsetCommitIntervalMs(COMMIT_INTERVAL_MS);
        if (drill) {
            // The drill's application group, synced every second (the offset map feeds the exact translation).
            settings.sync(new SyncConfig(
                    GroupFilter.of(DemoDrill.GROUP, null, "--groups", "--groups.exclude"),
                    1000,
                    true,
                    SyncConfig.DEFAULT_SYNC_TOPIC,
                    TopicSyncConfig.defaults()));
        }
        MirrorEngine mirror = new MirrorEngine(settings.build(), mirrorMetrics, time);
        mirror.start();
        try (MetricsHttpServer mirrorHttp = new MetricsHttpServer(
                        "127.0.0.1",
                        0,
                        mirrorMetrics,
                        () -> new MetricsHttpServer.Health(mirror.healthy(), mirror.healthDetail()));
                LagMonitor lag = new LagMonitor(
                        LagMonitorConfig.from(with(
                                security.sourceAndTarget(
                                        DemoSecurity.Principal.LAG_MONITOR,
                                        source.bootstrapServers(),
                                        target.bootstrapServers()),
                                "mirror.group.id",
                                GROUP,
                                "topics",
                                "demo\\..*",
                                "mirror.metrics.url",
                                "http://127.0.0.1:" + mirrorHttp.port() + "/metrics",
                                "window.size",
                                "10",
                                "sample.interval.ms",
                                "1000",
                                "stop.after.ms",
                                "30000",
                                "mirror.commit.interval.ms",
                                Long.toString(COMMIT_INTERVAL_MS),
                                "audit.interval.ms",
                                "0")),
                        time);
                StatusServer lagHttp =
                        new StatusServer("127.0.0.1", 0, GROUP, lag::latest, lag::healthy, lag::auditSummary);
                Canary canary = new Canary(
                        CanaryConfig.from(with(
                                security.sourceAndTarget(
                                        DemoSecurity.Principal.CANARY,
                                        source.bootstrapServers(),
                                        target.bootstrapServers()),
                                "interval.ms",
                                "1000",
                                "alarm.threshold.ms",
                                "3000",
                                "lost.after.ms",
                                "30000",
                                "partitions",
                                "3",
                                "canary.id",
                                "demo")),
                        new MetricRegistry(),
                        time);
                CanaryHttpServer canaryHttp = new CanaryHttpServer("127.0.0.1", 0, canary);
                DemoLoad load = new DemoLoad(
                        security.client(DemoSecurity.Principal.LOAD, source.bootstrapServers()), TOPICS, rate, time);
                // The drill's application: reads the orders at a quarter of the load (half of it goes there).
                DemoDrill.App app = drill
                        ? new DemoDrill.App(
                                security.client(DemoSecurity.Principal.APP, source.bootstrapServers()),
                                TOPICS.get(0),
                                rate / 4,
                                time)
                        : null) {
            Thread lagLoop = new Thread(lag, "strait-demo-lag");
            lagLoop.setDaemon(true);
            lagLoop.start();
            canary.start();
            load.start();
            if (app != null) {
                app.start();
            }
            startUp.clear();
            out.printf(
                    "mirror metrics http://127.0.0.1:%d/metrics | lag monitor http://127.0.0.1:%d/status | "
                            + "canary http://127.0.0.1:%d/status%n",
                    mirrorHttp.port(), lagHttp.port(), canaryHttp.port());

            warmUp(out, lag, canary);
            startUp.finish();
            LiveLine live = new LiveLine(load, mirrorMetrics, canary);
            DemoScenario scenario = scenario(source);
            for (int t = 1; t <= durationSeconds; t++) {
                time.sleep(1000);
                scenario.runDue(t, live);
                out.println(live.line(t, lag.latest()));
            }
            out.println("load stopped; waiting for the mirror to catch up ...");
            load.stop();
            canary.stopProbing();
            long deadline = time.milliseconds() + TimeUnit.SECONDS.toMillis(120);
            while (time.milliseconds() < deadline
                    && !(caughtUp(lag.latest(), load.acked()) && canary.counts().outstanding() == 0)) {
                time.sleep(1000);
                out.println(live.line(durationSeconds, lag.latest()));
            }
            long consumed = app == null ? 0 : app.stop();
            if (app != null) {
                // Two sync rounds after the application's last commit: the target holds its final position.
                var sync = Objects.requireNonNull(mirror.groupSync(), "the demo's mirror runs the group offset sync");
                long rounds = sync.groupMetrics().rounds();
                long syncDeadline = time.milliseconds() + TimeUnit.SECONDS.toMillis(60);
                while (sync.groupMetrics().rounds() < rounds + 2 && time.milliseconds() < syncDeadline) {
                    time.sleep(200);
                }
            }
            mirror.requestStop();
            mirror.awaitTermination(Duration.ofSeconds(60));

            DemoVerdict.Result result = DemoVerdict.check(
                    security.client(DemoSecurity.Principal.ADMIN, target.bootstrapServers()),
                    TOPICS,
                    load.ackedSeqs(),
                    time);
            out.println();
            out.println("==== verdict ====");
            DemoVerdict.print(out, result, load.failed());
            out.printf(
                    Locale.ROOT,
                    "canary: %s, %d probes sent, %d arrived, %d lost; latency p50 %.0f ms, p99 %.0f ms%n",
                    canary.state(),
                    canary.counts().sent(),
                    canary.counts().arrived(),
                    canary.counts().lost(),
                    canary.latency().getSnapshot().getMedian(),
                    canary.latency().getSnapshot().get99thPercentile());
            out.printf(
                    "endpoints (now closed): mirror :%d/metrics, lag monitor :%d/status, canary :%d/status%n",
                    mirrorHttp.port(), lagHttp.port(), canaryHttp.port());
            DemoDrill.Result drilled = null;
            Throwable appError = null;
            if (app != null) {
                drilled = DemoDrill.run(out, security, source, target, TOPICS.get(0), consumed, time);
                appError = app.error();
                if (appError != null) {
                    out.println("the drill's application failed: " + appError);
                }
                out.println();
            }
            out.println(result.nothingLost() ? "VERDICT: nothing lost" : "VERDICT: RECORDS LOST");
            if (drilled != null) {
                out.printf(
                        Locale.ROOT,
                        "DRILL: %s failed over to the target: read again %d, skipped %d%s%n",
                        DemoDrill.GROUP,
                        drilled.readAgain(),
                        drilled.skipped(),
                        drilled.failoverExit() == 0 ? "" : " (strait failover exited " + drilled.failoverExit() + ")");
            }
            boolean ok = result.nothingLost() && (drilled == null || drilled.exact() && appError == null);
            return ok ? Cli.OK : Cli.FAILED;
        } finally {
            mirror.close();
        }
    }

    /**
     * Waits, bounded, until a canary probe has crossed the mirror and the lag monitor reads OK, so that the live lines
     * (t=1 on) show the steady state and the fault: before the mirror's consumers are assigned and the canary's
     * reader has its partitions, the first probes wait longer than the canary's alarm threshold on a slow machine,
     * which is start-up, not a stuck mirror.
     */
    private void warmUp(PrintStream out, LagMonitor lag, Canary canary) {
        out.println("warming up: waiting for the first canary probe to cross the mirror ...");
        long started = time.milliseconds();
        long deadline = started + TimeUnit.SECONDS.toMillis(WARM_UP_SECONDS);
        int step = secure ? 4 : 3;
        while (time.milliseconds() < deadline) {
            startUp.update(step, "warming up");
            GroupStatus s = lag.latest();
            if (canary.counts().arrived() > 0
                    && canary.state() == CanaryState.OK
                    && s != null
                    && s.status() == Status.OK) {
                startUp.update(step + 1, "warm");
                startUp.clear();
                out.printf(
                        Locale.ROOT, "warm: first probe across in %.1f s%n", (time.milliseconds() - started) / 1000.0);
                return;
            }
            time.sleep(200);
        }
        startUp.clear();
        out.printf(
                "warm-up: no canary probe crossed with the lag monitor OK within %d s; going on, the live lines "
                        + "show what is wrong%n",
                WARM_UP_SECONDS);
    }

    /** The default scenario: the leader of the first topic's partition 0 is killed halfway, then comes back. */
    private DemoScenario scenario(EmbeddedCluster source) {
        DemoScenario scenario = new DemoScenario();
        if (noKill) {
            return scenario;
        }
        int killAt = durationSeconds / 2;
        int[] victim = {-1};
        scenario.then(killAt, "kill a source broker", ctx -> {
            victim[0] = nodes == 1 ? 0 : leaderOf(source, TOPICS.get(0));
            ctx.say(String.format(
                    ">>> killing source broker node %d (leader of %s-0) without a controlled shutdown; %s",
                    victim[0],
                    TOPICS.get(0),
                    nodes == 1 ? "the only node, so the cluster is down for 5 s" : "its partitions fail over"));
            ctx.say("    before: " + leaders(source));
            source.kill(victim[0]);
            ctx.faultStarted("source broker " + victim[0] + " killed");
        });
        if (nodes > 1) {
            scenario.then(killAt + 3, "show the failover", ctx -> ctx.say("    after:  " + leaders(source)));
        }
        scenario.then(killAt + 5, "bring the broker back", ctx -> {
            source.resume(victim[0]);
            ctx.say(String.format(">>> source broker node %d is back", victim[0]));
        });
        scenario.then(killAt + 5 + FAULT_SETTLE_SECONDS, "settle", DemoScenario.Context::faultCleared);
        return scenario;
    }

    private void createTopics(EmbeddedCluster source, short replicationFactor) throws Exception {
        try (Admin admin = Admin.create(security.admin(source.bootstrapServers()))) {
            admin.createTopics(List.of(
                            new NewTopic(TOPICS.get(0), 6, replicationFactor),
                            new NewTopic(TOPICS.get(1), 3, replicationFactor)))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        }
    }

    private int leaderOf(EmbeddedCluster cluster, String topic) throws Exception {
        try (Admin admin = Admin.create(security.admin(cluster.bootstrapServers()))) {
            return described(admin, topic, 30).partitions().get(0).leader().id();
        }
    }

    /** The source's partitions as kafka-topics --describe would show them: leader and in-sync replicas. */
    private String leaders(EmbeddedCluster cluster) {
        Map<String, Object> config = security.admin(cluster.bootstrapServers());
        config.put("default.api.timeout.ms", "5000");
        config.put("request.timeout.ms", "3000");
        try (Admin admin = Admin.create(config)) {
            StringBuilder sb = new StringBuilder();
            described(admin, TOPICS.get(0), 5)
                    .partitions()
                    .forEach(p -> sb.append(TOPICS.get(0))
                            .append('-')
                            .append(p.partition())
                            .append(" leader ")
                            .append(
                                    p.leader() == null
                                            ? "none"
                                            : Integer.toString(p.leader().id()))
                            .append(" isr ")
                            .append(p.isr().stream()
                                    .map(n -> Integer.toString(n.id()))
                                    .toList())
                            .append("  "));
            return sb.toString().trim();
        } catch (Exception e) {
            return "(cluster view unavailable: " + e.getMessage() + ")";
        }
    }

    /** {@code topic} as the cluster describes it; describeTopics fails rather than leave a named topic out. */
    private static TopicDescription described(Admin admin, String topic, int timeoutSeconds) throws Exception {
        return Objects.requireNonNull(
                admin.describeTopics(List.of(topic))
                        .allTopicNames()
                        .get(timeoutSeconds, TimeUnit.SECONDS)
                        .get(topic),
                () -> "describeTopics left out " + topic);
    }

    private static boolean caughtUp(@Nullable GroupStatus s, long acked) {
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

    /** The live line, and the scenario's voice: prints its lines and names the fault the live lines are in. */
    private static final class LiveLine implements DemoScenario.Context {
        private final DemoLoad load;
        private final MirrorMetrics metrics;
        private final Canary canary;
        private final PrintStream out = System.out;
        private long lastMirrored;
        private @Nullable String fault;

        LiveLine(DemoLoad load, MirrorMetrics metrics, Canary canary) {
            this.load = load;
            this.metrics = metrics;
            this.canary = canary;
        }

        @Override
        public void say(String line) {
            out.println(line);
        }

        @Override
        public void faultStarted(String description) {
            fault = description;
        }

        @Override
        public void faultCleared() {
            fault = null;
        }

        String line(int t, @Nullable GroupStatus lag) {
            long mirrored = metrics.recordsProduced();
            long rate = mirrored - lastMirrored;
            lastMirrored = mirrored;
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
            String status = lag == null ? "-" : lag.status().name();
            String canaryState = canary.state().name();
            boolean allOk = (lag == null || lag.status() == Status.OK) && canary.state() == CanaryState.OK;
            long latency = canary.lastLatencyMs();
            return String.format(
                    Locale.ROOT,
                    "t=%3ds produced %,9d  mirrored %,9d  %,7d rec/s | lag exact %,6d committed "
                            + "%,6d consumer %,6d  %-6s | canary %5s ms %-4s%s",
                    t,
                    load.acked(),
                    mirrored,
                    rate,
                    exact,
                    committed,
                    consumer,
                    status,
                    latency < 0 ? "-" : Long.toString(latency),
                    canaryState,
                    fault == null || allOk ? "" : "   (" + fault + ")");
        }
    }

    /** {@code base} (a client's connection and security settings) with more settings. */
    private static Properties with(Properties base, String... kv) {
        Properties p = new Properties();
        p.putAll(base);
        for (int i = 0; i < kv.length; i += 2) {
            p.put(kv[i], kv[i + 1]);
        }
        return p;
    }
}
