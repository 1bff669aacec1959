package dev.strait.cli;

import dev.strait.broker.server.BrokerConfig;
import dev.strait.broker.server.BrokerServer;
import dev.strait.mirror.config.ClientConfigs;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code strait broker} / {@code bin/broker}: run one node of the companion broker. */
@Command(
        name = "broker",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        usageHelpWidth = 110,
        description = {
            "Runs one companion broker node: alone, or one node of a replicated cluster.",
            "Kafka's config names: node.id, listeners (default PLAINTEXT://127.0.0.1:9092), log.dirs, num.network.threads,",
            "num.io.threads, queued.max.requests, socket.request.max.bytes, num.partitions and topic defaults. A cluster",
            "uses KRaft's names: process.roles=broker,controller, controller.quorum.voters=1@host:port,...,",
            "controller.listener.names=CONTROLLER with a CONTROLLER listener among listeners, advertised.listeners,",
            "default.replication.factor, min.insync.replicas, replica.lag.time.max.ms, broker.session.timeout.ms.",
            "Without controller.quorum.voters the node is a standalone one-node cluster.",
            "Every setting with its type, default and allowed values: config/broker.properties, docs/reference.md.",
            "Exit codes: 0 stopped, 1 failed to start or stopped on a fatal error (logged), 2 bad config."
        })
public final class BrokerCommand implements Callable<Integer> {
    private static final Logger LOGGER = LoggerFactory.getLogger(BrokerCommand.class);

    @SuppressWarnings("NullAway.Init") // picocli sets this required parameter before call()
    @Parameters(index = "0", paramLabel = "server.properties", description = "The node's configuration file.")
    Path config;

    @Override
    public Integer call() throws Exception {
        Properties props = ClientConfigs.load(config, "server.properties");
        BrokerConfig cfg = BrokerConfig.from(props);
        CountDownLatch stopped = new CountDownLatch(1);
        AtomicBoolean fatal = new AtomicBoolean();
        // A fatal error in a background loop (logged by the broker) stops the node: it must not keep serving.
        try (BrokerServer server = new BrokerServer(cfg, (what, cause) -> {
            fatal.set(true);
            stopped.countDown();
        })) {
            Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown, "strait-broker-shutdown"));
            server.start();
            LOGGER.info("Broker node {} serving on port {}", cfg.nodeId(), server.boundPort());
            stopped.await();
        }
        return fatal.get() ? Cli.FAILED : Cli.OK;
    }
}
