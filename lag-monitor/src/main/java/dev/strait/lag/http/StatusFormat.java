package dev.strait.lag.http;

import dev.strait.lag.audit.AuditReport;
import dev.strait.lag.audit.ContinuousAudit;
import dev.strait.lag.sample.PartitionLag;
import dev.strait.lag.status.StatusEvaluator.GroupStatus;
import dev.strait.lag.status.StatusEvaluator.PartitionStatus;
import dev.strait.mirror.http.Json;
import java.util.Locale;

/** Renders a {@link GroupStatus} as the /status JSON, as Prometheus text, and as a table for the terminal. */
public final class StatusFormat {
    private StatusFormat() {}

    /** The /status JSON with the continuous audit's summary (null when the audit is off). */
    public static String json(String group, GroupStatus s, ContinuousAudit.Summary audit) {
        String base = json(group, s);
        if (audit == null) {
            return base;
        }
        StringBuilder b = new StringBuilder(base.substring(0, base.length() - 1));
        b.append(",\"audit\":{\"rounds\":")
                .append(audit.rounds())
                .append(",\"recordsAudited\":")
                .append(audit.recordsAudited())
                .append(",\"recordsBehind\":")
                .append(audit.recordsBehind())
                .append(",\"recordsNotCovered\":")
                .append(audit.recordsNotCovered())
                .append(",\"notCopiedByDesign\":")
                .append(audit.notCopiedByDesign())
                .append(",\"droppedByHandler\":")
                .append(audit.droppedByHandler())
                .append(",\"removedOnTarget\":")
                .append(audit.removedOnTarget())
                .append(",\"findings\":{");
        boolean first = true;
        for (var e : audit.findingsByKind().entrySet()) {
            b.append(first ? "" : ",")
                    .append(Json.quote(e.getKey().name()))
                    .append(':')
                    .append(e.getValue());
            first = false;
        }
        b.append("},\"latest\":[");
        first = true;
        for (AuditReport.Finding f : audit.latestFindings()) {
            b.append(first ? "" : ",")
                    .append("{\"kind\":")
                    .append(Json.quote(f.kind().name()))
                    .append(",\"topic\":")
                    .append(Json.quote(f.topic()))
                    .append(",\"partition\":")
                    .append(f.partition())
                    .append(",\"sourceOffset\":")
                    .append(f.sourceOffset())
                    .append('}');
            first = false;
        }
        return b.append("]}}").toString();
    }

    public static String json(String group, GroupStatus s) {
        StringBuilder b = new StringBuilder(256 + 256 * s.partitions().size());
        b.append("{\"group\":")
                .append(Json.quote(group))
                .append(",\"status\":")
                .append(Json.quote(s.status().name()))
                .append(",\"thresholdCrossed\":")
                .append(s.thresholdCrossed())
                .append(",\"sampledAtMs\":")
                .append(s.snapshot().timestampMs())
                .append(",\"cycleMs\":")
                .append(s.snapshot().cycleMs())
                .append(",\"sourceCalls\":")
                .append(s.snapshot().sourceCalls())
                .append(",\"targetCalls\":")
                .append(s.snapshot().targetCalls())
                .append(",\"errors\":")
                .append(list(s.snapshot().errors()))
                .append(",\"warnings\":")
                .append(list(s.snapshot().warnings()))
                .append(",\"partitions\":[");
        boolean first = true;
        for (PartitionStatus ps : s.partitions()) {
            if (!first) {
                b.append(',');
            }
            first = false;
            PartitionLag p = ps.lag();
            b.append("{\"topic\":")
                    .append(Json.quote(p.topic()))
                    .append(",\"partition\":")
                    .append(p.partition())
                    .append(",\"targetTopic\":")
                    .append(Json.quote(p.targetTopic()))
                    .append(",\"status\":")
                    .append(Json.quote(ps.status().name()))
                    .append(",\"reason\":")
                    .append(Json.quote(ps.reason()))
                    .append(",\"sourceStartOffset\":")
                    .append(p.sourceStart())
                    .append(",\"sourceEndOffset\":")
                    .append(p.sourceEnd())
                    .append(",\"targetEndOffset\":")
                    .append(p.targetEnd())
                    .append(",\"committedOffset\":")
                    .append(p.committed())
                    .append(",\"mirrorPosition\":")
                    .append(p.position())
                    .append(",\"lastMirroredSourceOffset\":")
                    .append(p.lastMirroredOffset())
                    .append(",\"exactLag\":")
                    .append(p.exactLag())
                    .append(",\"committedLag\":")
                    .append(p.committedLag())
                    .append(",\"consumerLag\":")
                    .append(p.consumerLag())
                    .append(",\"timeLagMs\":")
                    .append(p.timeLagMs())
                    .append(",\"thresholdCrossed\":")
                    .append(ps.thresholdCrossed())
                    .append('}');
        }
        return b.append("]}").toString();
    }

    public static String prometheus(String group, GroupStatus s, ContinuousAudit.Summary audit) {
        StringBuilder b = new StringBuilder(prometheus(group, s));
        if (audit != null) {
            b.append("# TYPE strait_lag_audit_records_total counter\n");
            b.append("strait_lag_audit_records_total{group=\"")
                    .append(Json.label(group))
                    .append("\"} ")
                    .append(audit.recordsAudited())
                    .append('\n');
            b.append("# TYPE strait_lag_audit_findings_total counter\n");
            for (AuditReport.Kind kind : AuditReport.Kind.values()) {
                b.append("strait_lag_audit_findings_total{group=\"")
                        .append(Json.label(group))
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
        String g = "group=\"" + Json.label(group) + "\"";
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
        return ",topic=\"" + Json.label(p.topic()) + "\",partition=\"" + p.partition() + "\"";
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

    private static String list(java.util.List<String> items) {
        StringBuilder b = new StringBuilder("[");
        for (int i = 0; i < items.size(); i++) {
            b.append(i == 0 ? "" : ",").append(Json.quote(items.get(i)));
        }
        return b.append(']').toString();
    }
}
