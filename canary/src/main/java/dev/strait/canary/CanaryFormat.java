package dev.strait.canary;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.Snapshot;
import com.fasterxml.jackson.core.JsonGenerator;
import dev.strait.mirror.http.Json;
import dev.strait.mirror.http.PrometheusLabel;
import java.io.IOException;

/** The canary's /status JSON and /metrics Prometheus text. */
public final class CanaryFormat {
    private CanaryFormat() {}

    public static String json(Canary c) {
        return Json.write(g -> write(g, c));
    }

    /** Writes the /status document as one JSON object. */
    static void write(JsonGenerator g, Canary c) throws IOException {
        ProbeTracker.Counts n = c.counts();
        long now = c.nowMs();
        g.writeStartObject();
        g.writeStringField("canaryId", c.config().canaryId());
        g.writeStringField("state", c.state().name());
        g.writeStringField("topic", c.config().topic());
        g.writeStringField("targetTopic", c.config().targetTopic());
        g.writeBooleanField("sourceAvailable", c.sourceAvailable());
        Json.string(g, "lastProduceError", c.lastProduceError());
        g.writeBooleanField("targetTopicPresent", c.targetTopicPresent());
        g.writeNumberField("sent", n.sent());
        g.writeNumberField("arrived", n.arrived());
        g.writeNumberField("late", n.late());
        g.writeNumberField("lost", n.lost());
        g.writeNumberField("arrivedAfterLost", n.lateAfterLost());
        g.writeNumberField("duplicated", n.duplicated());
        g.writeNumberField("outstanding", n.outstanding());
        g.writeNumberField("earlierRunArrivals", c.earlierRunArrivals());
        g.writeNumberField("produceErrors", c.produceErrors());
        g.writeNumberField("lastArrivalAgeMs", n.lastArrivalMs() < 0 ? -1 : now - n.lastArrivalMs());
        hist(g, "latencyMs", c.latency());
        hist(g, "produceLatencyMs", c.produceLatency());
        g.writeEndObject();
    }

    /** The alert webhook's body: the change, and the /status document (written by {@code detail}) inside. */
    static String webhook(String canaryId, CanaryState previous, CanaryState next, Json.Document detail) {
        return Json.write(g -> {
            g.writeStartObject();
            g.writeStringField("canaryId", canaryId);
            g.writeStringField("previous", String.valueOf(previous));
            g.writeStringField("state", String.valueOf(next));
            g.writeFieldName("detail");
            detail.write(g);
            g.writeEndObject();
        });
    }

    private static void hist(JsonGenerator g, String name, Histogram h) throws IOException {
        Snapshot s = h.getSnapshot();
        g.writeObjectFieldStart(name);
        g.writeNumberField("count", h.getCount());
        g.writeNumberField("p50", s.getMedian());
        g.writeNumberField("p99", s.get99thPercentile());
        g.writeNumberField("max", s.getMax());
        g.writeEndObject();
    }

    public static String prometheus(Canary c) {
        ProbeTracker.Counts n = c.counts();
        String id = "canary=\"" + PrometheusLabel.escape(c.config().canaryId()) + "\"";
        StringBuilder b = new StringBuilder(1024);
        gauge(b, "strait_canary_state", id, c.state().ordinal());
        gauge(b, "strait_canary_source_available", id, c.sourceAvailable() ? 1 : 0);
        counter(b, "strait_canary_probes_sent_total", id, n.sent());
        counter(b, "strait_canary_probes_arrived_total", id, n.arrived());
        counter(b, "strait_canary_probes_late_total", id, n.late());
        counter(b, "strait_canary_probes_lost_total", id, n.lost());
        counter(b, "strait_canary_probes_duplicated_total", id, n.duplicated());
        counter(b, "strait_canary_produce_errors_total", id, c.produceErrors());
        counter(b, "strait_canary_earlier_run_arrivals_total", id, c.earlierRunArrivals());
        gauge(
                b,
                "strait_canary_last_arrival_age_seconds",
                id,
                n.lastArrivalMs() < 0 ? -1 : (c.nowMs() - n.lastArrivalMs()) / 1000.0);
        summary(b, "strait_canary_latency_seconds", id, c.latency());
        summary(b, "strait_canary_produce_latency_seconds", id, c.produceLatency());
        return b.toString();
    }

    private static void gauge(StringBuilder b, String name, String labels, double v) {
        b.append("# TYPE ")
                .append(name)
                .append(" gauge\n")
                .append(name)
                .append('{')
                .append(labels)
                .append("} ")
                .append(v)
                .append('\n');
    }

    private static void counter(StringBuilder b, String name, String labels, long v) {
        b.append("# TYPE ")
                .append(name)
                .append(" counter\n")
                .append(name)
                .append('{')
                .append(labels)
                .append("} ")
                .append(v)
                .append('\n');
    }

    private static void summary(StringBuilder b, String name, String labels, Histogram h) {
        Snapshot s = h.getSnapshot();
        b.append("# TYPE ").append(name).append(" summary\n");
        for (double q : new double[] {0.5, 0.99, 1.0}) {
            b.append(name)
                    .append('{')
                    .append(labels)
                    .append(",quantile=\"")
                    .append(q)
                    .append("\"} ")
                    .append(s.getValue(q) / 1000.0)
                    .append('\n');
        }
        b.append(name)
                .append("_count{")
                .append(labels)
                .append("} ")
                .append(h.getCount())
                .append('\n');
    }
}
