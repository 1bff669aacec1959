package dev.strait.mirror.metrics;

import com.codahale.metrics.Gauge;
import com.codahale.metrics.MetricRegistry;
import java.util.Map;
import java.util.Set;
import org.apache.kafka.common.Metric;
import org.apache.kafka.common.MetricName;

/**
 * Bridges the embedded Kafka clients' own tuning metrics into the mirror's registry, so one endpoint shows
 * both. Each gauge reads the client's metric when it is sampled; nothing is copied on the hot path.
 */
public final class ClientMetricsBridge {
    private static final Set<String> CONSUMER_METRICS = Set.of(
            "fetch-size-avg",
            "fetch-size-max",
            "fetch-rate",
            "fetch-throttle-time-avg",
            "fetch-throttle-time-max",
            "records-per-request-avg",
            "fetch-latency-avg",
            "io-ratio",
            "io-wait-ratio",
            "records-lag-max");
    private static final Set<String> PRODUCER_METRICS = Set.of(
            "batch-size-avg",
            "batch-size-max",
            "requests-in-flight",
            "record-retry-rate",
            "record-error-rate",
            "record-send-rate",
            "compression-rate-avg",
            "request-latency-avg",
            "buffer-available-bytes",
            "bufferpool-wait-ratio",
            "produce-throttle-time-avg",
            "io-ratio",
            "io-wait-ratio",
            "records-per-request-avg");
    /** Per-client metric groups only: topic- and node-level copies of the same names would be ambiguous. */
    private static final Set<String> CLIENT_GROUPS =
            Set.of("consumer-metrics", "consumer-fetch-manager-metrics", "producer-metrics");

    private ClientMetricsBridge() {}

    public static void registerConsumer(
            MetricRegistry registry, String name, Map<MetricName, ? extends Metric> metrics) {
        register(registry, MirrorMetrics.PREFIX + "client.consumer." + name + ".", CONSUMER_METRICS, metrics);
    }

    public static void registerProducer(MetricRegistry registry, Map<MetricName, ? extends Metric> metrics) {
        register(registry, MirrorMetrics.PREFIX + "client.producer.", PRODUCER_METRICS, metrics);
    }

    private static void register(
            MetricRegistry registry, String prefix, Set<String> wanted, Map<MetricName, ? extends Metric> metrics) {
        for (Map.Entry<MetricName, ? extends Metric> e : metrics.entrySet()) {
            MetricName mn = e.getKey();
            if (!wanted.contains(mn.name())
                    || !CLIENT_GROUPS.contains(mn.group())
                    || mn.tags().size() > 1) {
                continue;
            }
            String key = prefix + mn.name();
            Metric metric = e.getValue();
            if (!registry.getNames().contains(key)) {
                registry.register(key, (Gauge<Double>) () -> toDouble(metric.metricValue()));
            }
        }
    }

    private static double toDouble(Object value) {
        if (value instanceof Number) {
            double d = ((Number) value).doubleValue();
            return Double.isFinite(d) ? d : 0.0;
        }
        return 0.0;
    }
}
