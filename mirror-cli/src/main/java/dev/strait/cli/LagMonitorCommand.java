package dev.strait.cli;

import dev.strait.lag.LagMonitor;
import dev.strait.lag.config.LagMonitorConfig;
import dev.strait.lag.http.StatusFormat;
import dev.strait.lag.http.StatusServer;
import dev.strait.lag.status.Status;
import dev.strait.lag.status.StatusEvaluator.GroupStatus;
import dev.strait.mirror.config.ClientConfigs;
import dev.strait.settings.ConfigException;
import dev.strait.time.Time;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.Callable;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code strait lag-monitor} / {@code bin/lag-monitor}: watch a mirror's lag and status, or check it once. */
@Command(
        name = "lag-monitor",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        sortOptions = false,
        usageHelpWidth = 110,
        subcommands = {LagMonitorCommand.Check.class, LagMonitorCommand.Audit.class},
        description = {
            "Measures a mirror's lag and status, audits the target, and alerts.",
            "Lag three ways (exact from the provenance header, committed, consumer-read) plus time lag; a Burrow-style",
            "status (OK, WARN, REWIND, STALL, STOP, ERR); alerts on changes.",
            "Serves a status page (/), /status (JSON), /metrics (Prometheus) and /healthz on http.port."
        })
public final class LagMonitorCommand implements Callable<Integer> {
    private static final Logger LOGGER = LoggerFactory.getLogger(LagMonitorCommand.class);

    @Option(
            names = "--config",
            paramLabel = "FILE",
            description = "Required. lag-monitor.properties: source./target. client settings, and the lag monitor's own"
                    + " (mirror.group.id, topics, window.size...; every one with its default and range in"
                    + " docs/reference.md, from the table LagMonitorSettings)")
    @Nullable
    Path config;

    static LagMonitorConfig load(@Nullable Path file) {
        if (file == null) {
            throw new ConfigException("--config is required: the lag-monitor.properties file");
        }
        Properties props = ClientConfigs.load(file, "--config");
        return LagMonitorConfig.from(props);
    }

    @Override
    public Integer call() throws Exception {
        LagMonitorConfig cfg = load(config);
        LagMonitor monitor = new LagMonitor(cfg, Time.SYSTEM);
        Thread loop = new Thread(monitor, "strait-lag-monitor");
        Runtime.getRuntime()
                .addShutdownHook(new Thread(
                        () -> {
                            monitor.requestStop();
                            try {
                                loop.join(30_000);
                            } catch (InterruptedException e) {
                                Thread.currentThread().interrupt();
                            }
                        },
                        "strait-lag-shutdown"));
        try (StatusServer http = cfg.httpPort() < 0
                ? null
                : new StatusServer(
                        cfg.httpHost(),
                        cfg.httpPort(),
                        cfg.mirrorGroupId(),
                        Math.min(5_000, cfg.sampleIntervalMs()),
                        new StatusServer.Sources(
                                monitor::latest,
                                monitor::healthy,
                                monitor::auditSummary,
                                monitor::history,
                                monitor::peers))) {
            if (http != null) {
                LOGGER.info(
                        "Lag monitor for group {}: status page http://{}:{}/ (also /status, /metrics, /healthz)",
                        cfg.mirrorGroupId(),
                        cfg.httpHost(),
                        http.port());
            }
            loop.start();
            loop.join();
        } finally {
            monitor.close();
        }
        return Cli.OK;
    }

    /** {@code lag-monitor check}: one verdict for cron or a Nagios-style check; exit 0 OK, 1 WARN, 2 critical. */
    @Command(
            name = "check",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            usageHelpWidth = 110,
            description = {
                "Samples a few times, prints the table (or the /status JSON) and exits with the verdict:",
                "0 OK, 1 WARN or REWIND, 2 ERR, STOP, STALL or a threshold crossed, 3 bad input (Nagios UNKNOWN)."
            })
    static final class Check implements Callable<Integer> {
        @Option(names = "--config", required = true, paramLabel = "FILE", description = "lag-monitor.properties")
        @Nullable
        Path config;

        @Option(
                names = "--max-lag-records",
                paramLabel = "N",
                defaultValue = "-1",
                description = "Critical when any partition's lag is above N records (default: off).")
        long maxLagRecords;

        @Option(
                names = "--max-lag-seconds",
                paramLabel = "S",
                defaultValue = "-1",
                description =
                        "Critical when any partition's oldest unmirrored record is older than S seconds (default: off).")
        long maxLagSeconds;

        @Option(names = "--json", description = "Print the /status JSON instead of the table.")
        boolean json;

        @Option(
                names = "--samples",
                paramLabel = "N",
                defaultValue = "0",
                description =
                        "Samples to take, sample.interval.ms apart; when the config gives mirror.commit.interval.ms "
                                + "their span must exceed it, so a healthy mirror is seen committing (default: the fewest that do; "
                                + "3 when the commit interval is not given).")
        int samples;

        @Override
        public Integer call() throws Exception {
            LagMonitorConfig cfg;
            try {
                LagMonitorConfig base = load(config);
                boolean known = base.mirrorCommitIntervalMs() != LagMonitorConfig.UNKNOWN;
                int n = samples > 0
                        ? samples
                        : known
                                ? LagMonitorConfig.samplesSpanning(
                                        base.sampleIntervalMs(), base.mirrorCommitIntervalMs())
                                : 3;
                if (n < 2) {
                    throw new ConfigException("--samples must be at least 2, not " + n);
                }
                if (known) {
                    LagMonitorConfig.requireWindowSpansACommit(
                            n, base.sampleIntervalMs(), base.mirrorCommitIntervalMs(), "--samples");
                }
                cfg = new LagMonitorConfig(
                        base.sourceClient(),
                        base.targetClient(),
                        base.mirrorGroupId(),
                        base.topics(),
                        base.renamer(),
                        base.mirrorMetricsUrl(),
                        -1,
                        base.httpHost(),
                        n,
                        base.sampleIntervalMs(),
                        base.stopAfterMs(),
                        maxLagRecords >= 0 ? maxLagRecords : base.maxLagRecords(),
                        maxLagSeconds >= 0 ? maxLagSeconds : base.maxLagSeconds(),
                        null,
                        base.alertSuppressMs(),
                        0,
                        base.auditMaxRecords(),
                        base.mirrorCommitIntervalMs(),
                        base.messageHandler(),
                        base.canaryMetricsUrl(),
                        base.pageMirrorMetricsUrl(),
                        base.pagePollTimeoutMs());
            } catch (ConfigException e) {
                System.err.println("lag-monitor check: error: " + e.getMessage());
                return 3;
            }
            int samples = cfg.windowSize();
            GroupStatus status;
            try (LagMonitor monitor = new LagMonitor(cfg, Time.SYSTEM)) {
                status = monitor.cycle();
                for (int i = 1; i < samples; i++) {
                    Time.SYSTEM.sleep(cfg.sampleIntervalMs());
                    status = monitor.cycle();
                }
            }
            System.out.print(
                    json
                            ? StatusFormat.json(cfg.mirrorGroupId(), status) + "\n"
                            : StatusFormat.table(cfg.mirrorGroupId(), status));
            return exitCode(status);
        }

        static int exitCode(GroupStatus status) {
            Status s = status.status();
            if (status.thresholdCrossed() || s == Status.ERR || s == Status.STOP || s == Status.STALL) {
                return 2;
            }
            return s == Status.OK ? 0 : 1;
        }
    }

    /** {@code lag-monitor audit}: compare source ranges with the target record by record; exit 0 only when clean. */
    @Command(
            name = "audit",
            mixinStandardHelpOptions = true,
            sortOptions = false,
            usageHelpWidth = 110,
            description = {
                "Audits source offset ranges against the target (counts, fingerprints, order) and prints a",
                "report naming missing, duplicated, reordered and altered records by source offset.",
                "Exit 0 when clean, 1 when anything was found, 2 bad input."
            })
    static final class Audit implements Callable<Integer> {
        @Option(names = "--config", required = true, paramLabel = "FILE", description = "lag-monitor.properties")
        @Nullable
        Path config;

        @Option(
                names = "--topics",
                paramLabel = "REGEX",
                description = "Topics to audit (default: the config's topics).")
        @Nullable
        String topics;

        @Option(
                names = "--from-offset",
                paramLabel = "N",
                defaultValue = "-1",
                description =
                        "First source offset of every partition's range (default: --last records back from the end).")
        long fromOffset;

        @Option(
                names = "--to-offset",
                paramLabel = "N",
                defaultValue = "-1",
                description = "End (exclusive) of every range (default: the mirror group's committed offset).")
        long toOffset;

        @Option(
                names = "--last",
                paramLabel = "N",
                defaultValue = "10000",
                description =
                        "Records per partition to audit when --from-offset is not given (default: ${DEFAULT-VALUE}).")
        long last;

        @Override
        public Integer call() throws Exception {
            LagMonitorConfig cfg = load(config);
            java.util.regex.Pattern pattern;
            try {
                pattern = topics == null ? cfg.topics() : java.util.regex.Pattern.compile(topics);
            } catch (java.util.regex.PatternSyntaxException e) {
                throw new ConfigException("--topics is not a valid regex: " + e.getDescription());
            }
            if (last < 1) {
                throw new ConfigException("--last must be at least 1, not " + last);
            }
            var plan = dev.strait.lag.audit.AuditPlan.plan(
                    cfg.sourceClient(), cfg.mirrorGroupId(), pattern, fromOffset, toOffset, last);
            if (plan.isEmpty()) {
                throw new ConfigException("no source topic matches " + pattern.pattern());
            }
            boolean clean = true;
            try (dev.strait.lag.audit.Auditor auditor = new dev.strait.lag.audit.Auditor(
                    cfg.sourceClient(), cfg.targetClient(), cfg.renamer(), cfg.messageHandler(), Time.SYSTEM)) {
                for (var e : plan.entrySet()) {
                    dev.strait.lag.audit.AuditReport report = auditor.audit(e.getKey(), e.getValue());
                    System.out.print(report.table(50));
                    clean &= report.clean();
                }
            }
            return clean ? Cli.OK : Cli.FAILED;
        }
    }
}
