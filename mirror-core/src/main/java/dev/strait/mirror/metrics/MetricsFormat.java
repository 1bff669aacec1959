package dev.strait.mirror.metrics;

import com.codahale.metrics.Counter;
import com.codahale.metrics.Gauge;
import com.codahale.metrics.Histogram;
import com.codahale.metrics.Meter;
import com.codahale.metrics.MetricRegistry;
import com.codahale.metrics.Snapshot;
import com.codahale.metrics.Timer;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.strait.mirror.http.Json;
import dev.strait.mirror.http.PrometheusLabel;
import java.io.IOException;
import java.util.Locale;
import java.util.Map;
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
                .append(PrometheusLabel.escape(tp.topic()))
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
        return Json.write(g -> {
            g.writeStartObject();
            g.writeObjectFieldStart("gauges");
            for (Map.Entry<String, Gauge> e : registry.getGauges().entrySet()) {
                Object v = e.getValue().getValue();
                if (v instanceof Number) {
                    g.writeFieldName(e.getKey());
                    g.writeNumber(num(((Number) v).doubleValue()));
                }
            }
            g.writeEndObject();
            g.writeObjectFieldStart("counters");
            for (Map.Entry<String, Counter> e : registry.getCounters().entrySet()) {
                g.writeNumberField(e.getKey(), e.getValue().getCount());
            }
            g.writeEndObject();
            g.writeObjectFieldStart("meters");
            for (Map.Entry<String, Meter> e : registry.getMeters().entrySet()) {
                Meter m = e.getValue();
                g.writeObjectFieldStart(e.getKey());
                g.writeNumberField("count", m.getCount());
                g.writeFieldName("rate1m");
                g.writeNumber(num(m.getOneMinuteRate()));
                g.writeFieldName("meanRate");
                g.writeNumber(num(m.getMeanRate()));
                g.writeEndObject();
            }
            g.writeEndObject();
            g.writeObjectFieldStart("histograms");
            for (Map.Entry<String, Histogram> e : registry.getHistograms().entrySet()) {
                snapshotJson(
                        g, e.getKey(), e.getValue().getSnapshot(), e.getValue().getCount(), 1.0);
            }
            g.writeEndObject();
            g.writeObjectFieldStart("timers");
            for (Map.Entry<String, Timer> e : registry.getTimers().entrySet()) {
                snapshotJson(
                        g,
                        e.getKey() + ".ms",
                        e.getValue().getSnapshot(),
                        e.getValue().getCount(),
                        1e-6);
            }
            g.writeEndObject();
            g.writeArrayFieldStart("consumerLag");
            for (Map.Entry<TopicPartition, Long> e : lag.entrySet()) {
                g.writeStartObject();
                g.writeStringField("topic", e.getKey().topic());
                g.writeNumberField("partition", e.getKey().partition());
                g.writeNumberField("lag", e.getValue());
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        });
    }

    private static void snapshotJson(JsonGenerator g, String key, Snapshot s, long count, double scale)
            throws IOException {
        g.writeObjectFieldStart(key);
        g.writeNumberField("count", count);
        // num() keeps whole values free of a trailing ".0", as the page always printed them
        g.writeFieldName("p50");
        g.writeNumber(num(s.getMedian() * scale));
        g.writeFieldName("p99");
        g.writeNumber(num(s.get99thPercentile() * scale));
        g.writeFieldName("max");
        g.writeNumber(num(s.getMax() * scale));
        g.writeEndObject();
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
