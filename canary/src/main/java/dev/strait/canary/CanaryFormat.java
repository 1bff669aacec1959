package dev.strait.canary;

import com.codahale.metrics.Histogram;
import com.codahale.metrics.Snapshot;
import dev.strait.mirror.http.Json;

/** The canary's /status JSON and /metrics Prometheus text. */
public final class CanaryFormat {
    private CanaryFormat() {}

    public static String json(Canary c) {
        ProbeTracker.Counts n = c.counts();
        long now = c.nowMs();
        return "{\"canaryId\":" + Json.quote(c.config().canaryId()) + ",\"state\":"
                + Json.quote(c.state().name())
                + ",\"topic\":" + Json.quote(c.config().topic()) + ",\"targetTopic\":"
                + Json.quote(c.config().targetTopic())
                + ",\"sourceAvailable\":" + c.sourceAvailable() + ",\"lastProduceError\":"
                + Json.quote(c.lastProduceError())
                + ",\"targetTopicPresent\":" + c.targetTopicPresent()
                + ",\"sent\":" + n.sent() + ",\"arrived\":" + n.arrived() + ",\"late\":" + n.late() + ",\"lost\":"
                + n.lost()
                + ",\"arrivedAfterLost\":" + n.lateAfterLost() + ",\"duplicated\":" + n.duplicated()
                + ",\"outstanding\":" + n.outstanding() + ",\"earlierRunArrivals\":" + c.earlierRunArrivals()
                + ",\"produceErrors\":" + c.produceErrors()
                + ",\"lastArrivalAgeMs\":" + (n.lastArrivalMs() < 0 ? -1 : now - n.lastArrivalMs())
                + ",\"latencyMs\":" + hist(c.latency()) + ",\"produceLatencyMs\":" + hist(c.produceLatency()) + "}";
    }

    private static String hist(Histogram h) {
        Snapshot s = h.getSnapshot();
        return "{\"count\":" + h.getCount() + ",\"p50\":" + s.getMedian() + ",\"p99\":" + s.get99thPercentile()
                + ",\"max\":" + s.getMax() + "}";
    }

    public static String prometheus(Canary c) {
        ProbeTracker.Counts n = c.counts();
        String id = "canary=\"" + Json.label(c.config().canaryId()) + "\"";
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
