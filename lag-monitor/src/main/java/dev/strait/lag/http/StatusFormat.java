package dev.strait.lag.http;

import com.fasterxml.jackson.core.JsonGenerator;
import dev.strait.lag.audit.AuditReport;
import dev.strait.lag.audit.ContinuousAudit;
import dev.strait.lag.sample.PartitionLag;
import dev.strait.lag.status.StatusEvaluator.GroupStatus;
import dev.strait.lag.status.StatusEvaluator.PartitionStatus;
import dev.strait.mirror.http.Json;
import dev.strait.mirror.http.PrometheusLabel;
import java.io.IOException;
import java.util.Locale;
import org.jspecify.annotations.Nullable;

/** Renders a {@link GroupStatus} as the /status JSON, as Prometheus text, and as a table for the terminal. */
public final class StatusFormat {
    private StatusFormat() {}

    /** The /status JSON with the continuous audit's summary (null when the audit is off). */
    public static String json(String group, GroupStatus s, ContinuousAudit.@Nullable Summary audit) {
        return Json.write(g -> write(g, group, s, audit));
    }

    public static String json(String group, GroupStatus s) {
        return json(group, s, null);
    }

    /** Writes the /status document (with the audit's summary unless it is null) as one JSON object. */
    public static void write(JsonGenerator g, String group, GroupStatus s, ContinuousAudit.@Nullable Summary audit)
            throws IOException {
        g.writeStartObject();
        g.writeStringField("group", group);
        g.writeStringField("status", s.status().name());
        g.writeBooleanField("thresholdCrossed", s.thresholdCrossed());
        g.writeNumberField("sampledAtMs", s.snapshot().timestampMs());
        g.writeNumberField("cycleMs", s.snapshot().cycleMs());
        g.writeNumberField("sourceCalls", s.snapshot().sourceCalls());
        g.writeNumberField("targetCalls", s.snapshot().targetCalls());
        Json.strings(g, "errors", s.snapshot().errors());
        Json.strings(g, "warnings", s.snapshot().warnings());
        g.writeArrayFieldStart("partitions");
        for (PartitionStatus ps : s.partitions()) {
            PartitionLag p = ps.lag();
            g.writeStartObject();
            g.writeStringField("topic", p.topic());
            g.writeNumberField("partition", p.partition());
            Json.string(g, "targetTopic", p.targetTopic());
            g.writeStringField("status", ps.status().name());
            Json.string(g, "reason", ps.reason());
            g.writeNumberField("sourceStartOffset", p.sourceStart());
            g.writeNumberField("sourceEndOffset", p.sourceEnd());
            g.writeNumberField("targetEndOffset", p.targetEnd());
            g.writeNumberField("committedOffset", p.committed());
            g.writeNumberField("mirrorPosition", p.position());
            g.writeNumberField("lastMirroredSourceOffset", p.lastMirroredOffset());
            g.writeNumberField("exactLag", p.exactLag());
            g.writeNumberField("committedLag", p.committedLag());
            g.writeNumberField("consumerLag", p.consumerLag());
            g.writeNumberField("timeLagMs", p.timeLagMs());
            g.writeBooleanField("thresholdCrossed", ps.thresholdCrossed());
            g.writeEndObject();
        }
        g.writeEndArray();
        if (audit != null) {
            writeAudit(g, audit);
        }
        g.writeEndObject();
    }

    private static void writeAudit(JsonGenerator g, ContinuousAudit.Summary audit) throws IOException {
        g.writeObjectFieldStart("audit");
        g.writeNumberField("rounds", audit.rounds());
        g.writeNumberField("recordsAudited", audit.recordsAudited());
        g.writeNumberField("recordsBehind", audit.recordsBehind());
        g.writeNumberField("recordsNotCovered", audit.recordsNotCovered());
        g.writeNumberField("notCopiedByDesign", audit.notCopiedByDesign());
        g.writeNumberField("droppedByHandler", audit.droppedByHandler());
        g.writeNumberField("removedOnTarget", audit.removedOnTarget());
        g.writeObjectFieldStart("findings");
        for (var e : audit.findingsByKind().entrySet()) {
            g.writeNumberField(e.getKey().name(), e.getValue());
        }
        g.writeEndObject();
        g.writeArrayFieldStart("latest");
        for (AuditReport.Finding f : audit.latestFindings()) {
            g.writeStartObject();
            g.writeStringField("kind", f.kind().name());
            g.writeStringField("topic", f.topic());
            g.writeNumberField("partition", f.partition());
            g.writeNumberField("sourceOffset", f.sourceOffset());
            g.writeEndObject();
        }
        g.writeEndArray();
        g.writeEndObject();
    }

    public static String prometheus(String group, GroupStatus s, ContinuousAudit.Summary audit) {
        StringBuilder b = new StringBuilder(prometheus(group, s));
        if (audit != null) {
            b.append("# TYPE strait_lag_audit_records_total counter\n");
            b.append("strait_lag_audit_records_total{group=\"")
                    .append(PrometheusLabel.escape(group))
                    .append("\"} ")
                    .append(audit.recordsAudited())
                    .append('\n');
            b.append("# TYPE strait_lag_audit_findings_total counter\n");
            for (AuditReport.Kind kind : AuditReport.Kind.values()) {
                b.append("strait_lag_audit_findings_total{group=\"")
                        .append(PrometheusLabel.escape(group))
                        .append("\",kind=\"")
                        .append(kind.name().toLowerCase(Locale.ROOT))
                        .append("\"} ")
                        .append(audit.findingsByKind().getOrDefault(kind, 0L))
                        .append('\n');
            }
        }
        return b.toString();
    }

    public static String prometheus(String group, GroupStatus s) {
        StringBuilder b = new StringBuilder(4096);
        String g = "group=\"" + PrometheusLabel.escape(group) + "\"";
        b.append("# TYPE strait_lag_group_status gauge\n");
        b.append("strait_lag_group_status{")
                .append(g)
                .append("} ")
                .append(s.status().ordinal())
                .append('\n');
        b.append("# TYPE strait_lag_cycle_seconds gauge\n");
        b.append("strait_lag_cycle_seconds{")
                .append(g)
                .append("} ")
                .append(s.snapshot().cycleMs() / 1000.0)
                .append('\n');
        gauge(b, "strait_lag_exact_records", g, s, PartitionLag::exactLag);
        gauge(b, "strait_lag_committed_records", g, s, PartitionLag::committedLag);
        gauge(b, "strait_lag_consumer_records", g, s, PartitionLag::consumerLag);
        gauge(b, "strait_lag_time_seconds", g, s, p -> p.timeLagMs() < 0 ? -1 : p.timeLagMs() / 1000);
        b.append("# TYPE strait_lag_partition_status gauge\n");
        for (PartitionStatus ps : s.partitions()) {
            b.append("strait_lag_partition_status{")
                    .append(g)
                    .append(labels(ps.lag()))
                    .append("} ")
                    .append(ps.status().ordinal())
                    .append('\n');
        }
        return b.toString();
    }

    private interface Figure {
        long of(PartitionLag p);
    }

    private static void gauge(StringBuilder b, String name, String g, GroupStatus s, Figure f) {
        b.append("# TYPE ").append(name).append(" gauge\n");
        for (PartitionStatus ps : s.partitions()) {
            long v = f.of(ps.lag());
            if (v >= 0) {
                b.append(name)
                        .append('{')
                        .append(g)
                        .append(labels(ps.lag()))
                        .append("} ")
                        .append(v)
                        .append('\n');
            }
        }
    }

    private static String labels(PartitionLag p) {
        return ",topic=\"" + PrometheusLabel.escape(p.topic()) + "\",partition=\"" + p.partition() + "\"";
    }

    public static String table(String group, GroupStatus s) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(
                Locale.ROOT,
                "group %s: %s%s (cycle %d ms)%n",
                group,
                s.status(),
                s.thresholdCrossed() ? ", threshold crossed" : "",
                s.snapshot().cycleMs()));
        s.snapshot().errors().forEach(e -> b.append("error: ").append(e).append('\n'));
        s.snapshot().warnings().forEach(e -> b.append("warning: ").append(e).append('\n'));
        b.append(String.format(
                Locale.ROOT,
                "%-30s %5s %12s %12s %10s %10s %10s %10s  %s%n",
                "topic",
                "part",
                "source end",
                "target end",
                "exact",
                "committed",
                "consumer",
                "time s",
                "status"));
        for (PartitionStatus ps : s.partitions()) {
            PartitionLag p = ps.lag();
            b.append(String.format(
                    Locale.ROOT,
                    "%-30s %5d %12d %12d %10s %10s %10s %10s  %s%s%n",
                    p.topic(),
                    p.partition(),
                    p.sourceEnd(),
                    p.targetEnd(),
                    n(p.exactLag()),
                    n(p.committedLag()),
                    n(p.consumerLag()),
                    p.timeLagMs() < 0 ? "-" : String.valueOf(p.timeLagMs() / 1000),
                    ps.status(),
                    ps.reason().isEmpty() ? "" : " (" + ps.reason() + ")"));
        }
        return b.toString();
    }

    private static String n(long v) {
        return v < 0 ? "-" : String.valueOf(v);
    }
}
