package dev.strait.cli.alerts;

import com.codahale.metrics.MetricRegistry;
import dev.strait.broker.server.BrokerConfig;
import dev.strait.broker.server.BrokerServer;
import dev.strait.canary.Canary;
import dev.strait.canary.CanaryConfig;
import dev.strait.canary.CanaryFormat;
import dev.strait.lag.audit.AuditReport;
import dev.strait.lag.audit.ContinuousAudit;
import dev.strait.lag.http.StatusServer;
import dev.strait.lag.sample.LagSnapshot;
import dev.strait.lag.sample.PartitionLag;
import dev.strait.lag.status.Status;
import dev.strait.lag.status.StatusEvaluator.GroupStatus;
import dev.strait.lag.status.StatusEvaluator.PartitionStatus;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.mirror.config.TopicSyncConfig;
import dev.strait.mirror.engine.TargetTopics;
import dev.strait.mirror.metrics.MetricsHttpServer;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.sync.GroupOffsetSync;
import dev.strait.mirror.sync.OffsetMap;
import dev.strait.testkit.CompanionCluster;
import dev.strait.time.Time;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringSerializer;

/**
 * The /metrics text each Strait process serves, rendered by the processes' own code with every metric of the
 * kind an alert queries present: the mirror's registry as its engine fills it ({@link MirrorMetrics}, the topic
 * syncs of {@link TargetTopics}, the group offset sync and offset map of {@link GroupOffsetSync}) served by its
 * {@link MetricsHttpServer}; the lag monitor's {@link StatusServer} with a partition and an audit summary; the
 * canary's {@link CanaryFormat} for a canary on a one-node companion broker (its constructor creates the probe
 * topic); a standalone companion broker's own endpoint after a produce. Nothing is mirrored or sampled: only the names and their formatting matter here.
 */
final class ExportedMetrics {
    private static final String HOST = "127.0.0.1";
    private static final Pattern SAMPLE_NAME = Pattern.compile("^([a-zA-Z_:][a-zA-Z0-9_:]*)");

    private ExportedMetrics() {}

    static String mirror() throws Exception {
        MetricRegistry registry = new MetricRegistry();
        MirrorMetrics metrics = new MirrorMetrics(registry);
        new TargetTopics(
                null,
                null,
                (short) -1,
                16_384,
                TopicSyncConfig.defaults(),
                TopicRenamer.identity(),
                Time.SYSTEM,
                registry);
        new GroupOffsetSync(
                new GroupOffsetSync.Config(null, 5_000, "mirror", Pattern.compile(".*"), TopicRenamer.identity()),
                null,
                null,
                new OffsetMap("source-cluster", OffsetMap.DEFAULT_MAX_SEGMENTS),
                null,
                null,
                Time.SYSTEM,
                "alert-rules-test",
                registry);
        TopicPartition tp = new TopicPartition("orders", 0);
        metrics.consumerLag(0, Map.of(tp, 5L));
        metrics.positions(0, Map.of(tp, 10L));
        try (MetricsHttpServer http =
                new MetricsHttpServer(HOST, 0, metrics, () -> new MetricsHttpServer.Health(true, "running"))) {
            return get(http.port());
        }
    }

    static String lagMonitor() throws Exception {
        PartitionLag lag = new PartitionLag("orders", 0, "orders", 0, 100, 90, 80, 95, 89, 10, 20, 5, 3_000);
        GroupStatus status = new GroupStatus(
                Status.STALL,
                List.of(new PartitionStatus(lag, Status.STALL, "commits did not move", true)),
                true,
                new LagSnapshot(1_000, 20, List.of(lag), List.of(), List.of(), 2, 2));
        ContinuousAudit.Summary audit =
                new ContinuousAudit.Summary(1, 100, Map.of(AuditReport.Kind.MISSING, 1L), List.of(), 0, 0, 0, 0, 0);
        try (StatusServer http = new StatusServer(HOST, 0, "mirror", () -> status, () -> true, () -> audit)) {
            return get(http.port());
        }
    }

    static String canary() throws Exception {
        try (CompanionCluster cluster = CompanionCluster.start("alert-rules", 1)) {
            Properties p = new Properties();
            p.put("source.bootstrap.servers", cluster.bootstrapServers());
            p.put("target.bootstrap.servers", cluster.bootstrapServers());
            p.put("topic", "alert-rules-canary");
            p.put("partitions", "1");
            p.put("canary.id", "alert-rules");
            try (Canary canary = new Canary(CanaryConfig.from(p), new MetricRegistry(), Time.SYSTEM)) {
                return CanaryFormat.prometheus(canary);
            }
        }
    }

    /**
     * A standalone companion broker's /metrics, served by its own endpoint ({@code strait.metrics.port}), after
     * one topic and one request of each kind the dashboards select on, so the per-API series exist.
     */
    static String broker() throws Exception {
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("strait-exported-broker-");
        Map<String, String> props = Map.of(
                "node.id",
                "1",
                "listeners",
                "PLAINTEXT://" + HOST + ":0",
                "log.dirs",
                dir.toString(),
                "strait.metrics.port",
                "0",
                "strait.metrics.host",
                HOST);
        try (BrokerServer broker = new BrokerServer(BrokerConfig.from(props)).start()) {
            Properties p = new Properties();
            p.put("bootstrap.servers", broker.bootstrapServers());
            p.put("acks", "all");
            try (KafkaProducer<String, String> producer =
                    new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
                producer.send(new ProducerRecord<>("alert-rules-broker", "k", "v"))
                        .get(30, java.util.concurrent.TimeUnit.SECONDS);
            }
            return get(broker.metricsPort());
        } finally {
            try (var files = java.nio.file.Files.walk(dir)) {
                files.sorted(java.util.Comparator.reverseOrder())
                        .forEach(f -> f.toFile().delete());
            }
        }
    }

    /** The names of a Prometheus text exposition: every sample's name, and every "# TYPE" family. */
    static Set<String> names(String exposition) {
        Set<String> names = new TreeSet<>();
        for (String line : exposition.split("\n")) {
            if (line.startsWith("# TYPE ")) {
                names.add(line.split(" ")[2]);
            } else if (!line.startsWith("#")) {
                var m = SAMPLE_NAME.matcher(line);
                if (m.find()) {
                    names.add(m.group(1));
                }
            }
        }
        return names;
    }

    private static String get(int port) throws IOException, InterruptedException {
        HttpResponse<String> response = HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://" + HOST + ":" + port + "/metrics"))
                                .timeout(Duration.ofSeconds(30))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
        if (response.statusCode() != 200) {
            throw new AssertionError("/metrics answered " + response.statusCode() + ": " + response.body());
        }
        return response.body();
    }
}
