package dev.strait.mirror.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import dev.strait.mirror.http.Json;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import org.apache.kafka.common.TopicPartition;

/** Renders the registry as Prometheus text (exposition format 0.0.4) and as JSON. Stateless. */
public final class MetricsFormat {
    private static final double[] QUANTILES = {0.5, 0.75, 0.95, 0.99, 0.999};

    private MetricsFormat() {}

    public static String prometheus(MetricRegistry registry, Map<TopicPartition, Long> lag) {
        return prometheus(registry, lag, Map.of());
    }

    public static String prometheus(
            MetricRegistry registry, Map<TopicPartition, Long> lag, Map<TopicPartition, Long> positions) {
        StringBuilder out = new StringBuilder(4096);
        for (Map.Entry<String, Gauge> e : registry.getGauges().entrySet()) {
            Object v = e.getValue().getValue();
            if (v instanceof Number) {
                String name = promName(e.getKey());
                out.append("# TYPE ").append(name).append(" gauge\n");
                out.append(name)
                        .append(' ')
                        .append(num(((Number) v).doubleValue()))
                        .append('\n');
            }
        }
        for (Map.Entry<String, Counter> e : registry.getCounters().entrySet()) {
            String name = promName(e.getKey()) + "_total";
            out.append("# TYPE ").append(name).append(" counter\n");
            out.append(name).append(' ').append(e.getValue().getCount()).append('\n');
        }
        for (Map.Entry<String, Meter> e : registry.getMeters().entrySet()) {
            String name = promName(e.getKey());
            out.append("# TYPE ").append(name).append("_total counter\n");
            out.append(name).append("_total ").append(e.getValue().getCount()).append('\n');
            out.append("# TYPE ").append(name).append("_rate1m gauge\n");
            out.append(name)
                    .append("_rate1m ")
                    .append(num(e.getValue().getOneMinuteRate()))
                    .append('\n');
        }
        for (Map.Entry<String, Histogram> e : registry.getHistograms().entrySet()) {
            summary(
                    out,
                    promName(e.getKey()),
                    e.getValue().getSnapshot(),
                    e.getValue().getCount(),
                    1.0);
        }
        for (Map.Entry<String, Timer> e : registry.getTimers().entrySet()) {
            summary(
                    out,
                    promName(e.getKey()) + "_seconds",
                    e.getValue().getSnapshot(),
                    e.getValue().getCount(),
                    1e-9);
        }
        partitionGauge(out, "strait_mirror_partition_consumer_lag_records", lag);
        partitionGauge(out, "strait_mirror_partition_position", positions);
        return out.toString();
    }

    private static void partitionGauge(StringBuilder out, String name, Map<TopicPartition, Long> values) {
        if (values.isEmpty()) {
            return;
        }
        out.append("# TYPE ").append(name).append(" gauge\n");
        values.forEach((tp, v) -> out.append(name)
                .append("{topic=\"")
                .append(Json.label(tp.topic()))
                .append("\",partition=\"")
                .append(tp.partition())
                .append("\"} ")
                .append(v)
                .append('\n'));
    }

    private static void summary(StringBuilder out, String name, Snapshot s, long count, double scale) {
        out.append("# TYPE ").append(name).append(" summary\n");
        for (double q : QUANTILES) {
            out.append(name)
                    .append("{quantile=\"")
                    .append(q)
                    .append("\"} ")
                    .append(num(s.getValue(q) * scale))
                    .append('\n');
        }
        out.append(name).append("_count ").append(count).append('\n');
    }

    public static String json(MetricRegistry registry, Map<TopicPartition, Long> lag) {
        StringBuilder out = new StringBuilder(4096).append('{');
        SortedMap<String, Gauge> gauges = registry.getGauges();
        out.append("\"gauges\":{");
        boolean first = true;
        for (Map.Entry<String, Gauge> e : gauges.entrySet()) {
            Object v = e.getValue().getValue();
            if (v instanceof Number) {
                first = sep(out, first);
                out.append(Json.quote(e.getKey())).append(':').append(num(((Number) v).doubleValue()));
            }
        }
        out.append("},\"counters\":{");
        first = true;
        for (Map.Entry<String, Counter> e : registry.getCounters().entrySet()) {
            first = sep(out, first);
            out.append(Json.quote(e.getKey())).append(':').append(e.getValue().getCount());
        }
        out.append("},\"meters\":{");
        first = true;
        for (Map.Entry<String, Meter> e : registry.getMeters().entrySet()) {
            first = sep(out, first);
            Meter m = e.getValue();
            out.append(Json.quote(e.getKey()))
                    .append(":{\"count\":")
                    .append(m.getCount())
                    .append(",\"rate1m\":")
                    .append(num(m.getOneMinuteRate()))
                    .append(",\"meanRate\":")
                    .append(num(m.getMeanRate()))
                    .append('}');
        }
        out.append("},\"histograms\":{");
        first = true;
        for (Map.Entry<String, Histogram> e : registry.getHistograms().entrySet()) {
            first = sep(out, first);
            snapshotJson(
                    out, e.getKey(), e.getValue().getSnapshot(), e.getValue().getCount(), 1.0);
        }
        out.append("},\"timers\":{");
        first = true;
        for (Map.Entry<String, Timer> e : registry.getTimers().entrySet()) {
            first = sep(out, first);
            snapshotJson(
                    out,
                    e.getKey() + ".ms",
                    e.getValue().getSnapshot(),
                    e.getValue().getCount(),
                    1e-6);
        }
        out.append("},\"consumerLag\":[");
        first = true;
        for (Map.Entry<TopicPartition, Long> e : lag.entrySet()) {
            first = sep(out, first);
            out.append("{\"topic\":")
                    .append(Json.quote(e.getKey().topic()))
                    .append(",\"partition\":")
                    .append(e.getKey().partition())
                    .append(",\"lag\":")
                    .append(e.getValue())
                    .append('}');
        }
        return out.append("]}").toString();
    }

    private static void snapshotJson(StringBuilder out, String key, Snapshot s, long count, double scale) {
        out.append(Json.quote(key))
                .append(":{\"count\":")
                .append(count)
                .append(",\"p50\":")
                .append(num(s.getMedian() * scale))
                .append(",\"p99\":")
                .append(num(s.get99thPercentile() * scale))
                .append(",\"max\":")
                .append(num(s.getMax() * scale))
                .append('}');
    }

    private static boolean sep(StringBuilder out, boolean first) {
        if (!first) {
            out.append(',');
        }
        return false;
    }

    static String promName(String name) {
        return name.replaceAll("[^a-zA-Z0-9_]", "_").toLowerCase(Locale.ROOT);
    }

    private static String num(double d) {
        if (!Double.isFinite(d)) {
            return "0";
        }
        return d == Math.rint(d) && Math.abs(d) < 1e15 ? String.valueOf((long) d) : String.valueOf(d);
    }
}
