package dev.strait.cli;

import com.codahale.metrics.MetricRegistry;
import dev.strait.canary.Canary;
import dev.strait.canary.CanaryConfig;
import dev.strait.canary.CanaryHttpServer;
import dev.strait.mirror.config.ClientConfigs;
import dev.strait.time.Time;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code strait canary} / {@code bin/canary}: probe events through the mirror and alarm when they do not arrive. */
@Command(
        name = "canary",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        sortOptions = false,
        usageHelpWidth = 110,
        description = {
            "Sends probe events through the mirror and alarms when they are late or lost.",
            "Each interval a probe goes to every partition of the canary topic on the source and is read back on the",
            "target: end-to-end latency, late, lost and duplicated probes, OK/LATE/LOST alarms.",
            "Serves /status (JSON), /metrics (Prometheus) and /healthz on http.port. Exit code 2 on bad input."
        })
public final class CanaryCommand implements Callable<Integer> {
    private static final Logger LOGGER = LoggerFactory.getLogger(CanaryCommand.class);

    @SuppressWarnings("NullAway.Init") // picocli sets this required option before call()
    @Option(
            names = "--config",
            required = true,
            paramLabel = "FILE",
            description =
                    "canary.properties: source./target. client settings, and the canary's own (topic, interval.ms,"
                            + " alarm.threshold.ms...; every one with its default and range in docs/reference.md, from"
                            + " the table CanarySettings)")
    Path config;

    @Override
    public Integer call() throws Exception {
        CanaryConfig cfg = CanaryConfig.from(ClientConfigs.load(config, "--config"));
        CountDownLatch stop = new CountDownLatch(1);
        try (Canary canary = new Canary(cfg, new MetricRegistry(), Time.SYSTEM);
                CanaryHttpServer http =
                        cfg.httpPort() < 0 ? null : new CanaryHttpServer(cfg.httpHost(), cfg.httpPort(), canary)) {
            Runtime.getRuntime().addShutdownHook(new Thread(stop::countDown, "strait-canary-shutdown"));
            canary.start();
            if (http != null) {
                LOGGER.info(
                        "Canary {}: http://{}:{}/status (also /metrics, /healthz)",
                        cfg.canaryId(),
                        cfg.httpHost(),
                        http.port());
            }
            stop.await();
        }
        return Cli.OK;
    }
}
