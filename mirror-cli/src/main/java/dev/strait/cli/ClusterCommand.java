package dev.strait.cli;

import dev.strait.broker.server.EmbeddedCluster;
import dev.strait.settings.ConfigException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import org.jspecify.annotations.Nullable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code strait cluster}: a whole companion cluster in this one process, for development and trials. */
@Command(
        name = "cluster",
        mixinStandardHelpOptions = true,
        versionProvider = Version.class,
        usageHelpWidth = 110,
        description = {
            "Runs a companion cluster of N nodes in this process on 127.0.0.1 until Ctrl-C.",
            "With 2 or more nodes every node is broker and controller of one quorum and topics are replicated",
            "min(3, N) times. For a cluster of separate processes, run bin/broker once per node instead.",
            "Exit codes: 0 stopped, 1 failed to start, 2 bad input."
        })
public final class ClusterCommand implements Callable<Integer> {

    @Option(names = "--nodes", paramLabel = "N", defaultValue = "3", description = "Nodes (default: ${DEFAULT-VALUE}).")
    int nodes;

    @Option(
            names = "--data-dir",
            paramLabel = "DIR",
            description =
                    "Keep the data here, node i under DIR/node-i (default: a temporary directory, deleted on exit).")
    @Nullable
    Path dataDir;

    @Option(
            names = "--config",
            paramLabel = "NAME=VALUE",
            description = "A broker setting by its Kafka name for every node, e.g. --config min.insync.replicas=2 "
                    + "(repeatable).")
    Map<String, String> configs = new LinkedHashMap<>();

    @Override
    public Integer call() throws Exception {
        if (nodes < 1 || nodes > 9) {
            throw new ConfigException("--nodes must be between 1 and 9, not " + nodes);
        }
        EmbeddedCluster.Builder builder = EmbeddedCluster.builder().nodes(nodes);
        if (dataDir != null) {
            builder.dataDir(dataDir);
        }
        configs.forEach(builder::brokerConfig);
        CountDownLatch stopped = new CountDownLatch(1);
        try (EmbeddedCluster cluster = builder.start()) {
            Runtime.getRuntime().addShutdownHook(new Thread(stopped::countDown, "strait-cluster-shutdown"));
            System.out.printf(
                    "companion cluster of %d node%s running; bootstrap.servers=%s%n",
                    nodes, nodes == 1 ? "" : "s", cluster.bootstrapServers());
            System.out.println("Ctrl-C stops it.");
            stopped.await();
        }
        return Cli.OK;
    }
}
