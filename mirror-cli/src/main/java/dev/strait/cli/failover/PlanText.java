package dev.strait.cli.failover;

import dev.strait.mirror.failover.FailoverPlan;
import dev.strait.mirror.failover.FailoverPlanner;
import dev.strait.mirror.http.Json;
import java.io.PrintWriter;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.jspecify.annotations.Nullable;

/** Renders a failover plan (and what executing it did) as a table or as one JSON document. Stateless. */
final class PlanText {
    private PlanText() {}

    static void text(
            PrintWriter out,
            FailoverPlan plan,
            boolean execute,
            @Nullable Map<String, FailoverPlanner.GroupResult> results,
            String sourceAddress,
            String targetAddress) {
        out.println("strait failover: "
                + (execute ? "EXECUTE" : "DRY RUN (nothing is written; --execute moves the groups)"));
        out.println("source: cluster " + plan.sourceCluster() + " at " + sourceAddress
                + (plan.sourceReachable()
                        ? " (reachable)"
                        : " (UNREACHABLE: positions and source ends are the mirror's last checkpoint of each group)"));
        out.println("target: cluster " + plan.targetCluster() + " at " + targetAddress);
        for (String w : plan.warnings()) {
            out.println("warning: " + w);
        }
        long partitions = 0;
        long exact = 0;
        long again = 0;
        long missing = 0;
        boolean missingAtLeast = false;
        double oldest = -1;
        for (FailoverPlan.GroupPlan g : plan.groups()) {
            out.println();
            String when = g.positionsTimeMs() == plan.timeMs()
                    ? "now"
                    : Instant.ofEpochMilli(g.positionsTimeMs()) + " ("
                            + seconds((plan.timeMs() - g.positionsTimeMs()) / 1000.0) + " ago)";
            out.println("group " + g.group() + ": " + g.activeMembers()
                    + " members active on the target; source positions " + "as of " + when);
            if (g.problem() != null) {
                out.println("  " + g.problem());
            }
            if (!g.partitions().isEmpty()) {
                out.printf(
                        Locale.ROOT,
                        "  %-28s %12s  %-28s %12s %12s %10s  %s%n",
                        "source partition",
                        "committed",
                        "target partition",
                        "new offset",
                        "now",
                        "read again",
                        "not on target (oldest)");
            }
            for (FailoverPlan.PartitionPlan p : g.partitions()) {
                partitions++;
                exact += p.exact() ? 1 : 0;
                again += Math.max(0, p.readAgain());
                boolean first = true;
                for (FailoverPlan.SourceState s : p.sources()) {
                    if (s.notOnTarget() > 0) {
                        missing += s.notOnTarget();
                    }
                    missingAtLeast |= s.notOnTargetAtLeast();
                    oldest = Math.max(oldest, s.notOnTargetAgeSeconds());
                    out.printf(
                            Locale.ROOT,
                            "  %-28s %12s  %-28s %12s %12s %10s  %s%n",
                            s.source(),
                            s.committed() < 0 ? "none" : String.valueOf(s.committed()),
                            first ? p.target().toString() : "",
                            first ? String.valueOf(p.offset()) : "",
                            first ? (p.currentOffset() < 0 ? "none" : String.valueOf(p.currentOffset())) : "",
                            first ? (p.readAgain() < 0 ? "unknown" : String.valueOf(p.readAgain())) : "",
                            missing(s));
                    first = false;
                }
            }
            FailoverPlanner.GroupResult r = results == null ? null : results.get(g.group());
            if (r != null) {
                out.println(
                        "  => " + r.outcome().name().toLowerCase(Locale.ROOT).replace('_', ' ') + ": " + r.message());
            }
        }
        out.println();
        out.printf(
                Locale.ROOT,
                "summary: %d groups, %d partitions (%d exact), read again %d, not on target %s%d records%s%n",
                plan.groups().size(),
                partitions,
                exact,
                again,
                missingAtLeast ? ">= " : "",
                missing,
                oldest >= 0 ? ", oldest " + seconds(oldest) : "");
        if (results != null) {
            long moved = results.values().stream()
                    .filter(r -> r.outcome() == FailoverPlanner.Outcome.MOVED)
                    .count();
            List<String> notMoved = results.values().stream()
                    .filter(r -> r.outcome() == FailoverPlanner.Outcome.REFUSED_ACTIVE
                            || r.outcome() == FailoverPlanner.Outcome.FAILED)
                    .map(FailoverPlanner.GroupResult::group)
                    .sorted()
                    .toList();
            out.println("moved " + moved + " of " + results.size() + " groups"
                    + (notMoved.isEmpty() ? "" : "; NOT moved: " + String.join(", ", notMoved)));
        }
        out.flush();
    }

    private static String missing(FailoverPlan.SourceState s) {
        if (s.notOnTarget() < 0) {
            return "unknown";
        }
        String n = (s.notOnTargetAtLeast() ? ">= " : "") + s.notOnTarget();
        return s.notOnTargetAgeSeconds() >= 0 ? n + " (" + seconds(s.notOnTargetAgeSeconds()) + ")" : n;
    }

    private static String seconds(double s) {
        return String.format(Locale.ROOT, "%.1f s", s);
    }

    static String json(FailoverPlan plan, boolean execute, @Nullable Map<String, FailoverPlanner.GroupResult> results) {
        return Json.write(g -> {
            g.writeStartObject();
            g.writeStringField("mode", execute ? "execute" : "dry-run");
            g.writeBooleanField("sourceReachable", plan.sourceReachable());
            Json.string(g, "sourceCluster", plan.sourceCluster());
            Json.string(g, "targetCluster", plan.targetCluster());
            g.writeNumberField("timeMs", plan.timeMs());
            Json.strings(g, "warnings", plan.warnings());
            g.writeArrayFieldStart("groups");
            for (FailoverPlan.GroupPlan gp : plan.groups()) {
                g.writeStartObject();
                g.writeStringField("group", gp.group());
                g.writeNumberField("activeMembers", gp.activeMembers());
                g.writeNumberField("positionsTimeMs", gp.positionsTimeMs());
                Json.string(g, "problem", gp.problem());
                g.writeNumberField("readAgain", gp.readAgain());
                FailoverPlanner.GroupResult r = results == null ? null : results.get(gp.group());
                if (r != null) {
                    g.writeStringField("outcome", r.outcome().name().toLowerCase(Locale.ROOT));
                    Json.string(g, "message", r.message());
                }
                g.writeArrayFieldStart("partitions");
                for (FailoverPlan.PartitionPlan p : gp.partitions()) {
                    g.writeStartObject();
                    g.writeStringField("topic", p.target().topic());
                    g.writeNumberField("partition", p.target().partition());
                    g.writeNumberField("offset", p.offset());
                    g.writeNumberField("currentOffset", p.currentOffset());
                    g.writeNumberField("readAgain", p.readAgain());
                    g.writeBooleanField("exact", p.exact());
                    g.writeArrayFieldStart("sources");
                    for (FailoverPlan.SourceState s : p.sources()) {
                        g.writeStartObject();
                        g.writeStringField("topic", s.source().topic());
                        g.writeNumberField("partition", s.source().partition());
                        g.writeNumberField("committed", s.committed());
                        g.writeNumberField("sourceEnd", s.sourceEnd());
                        g.writeNumberField("notOnTarget", s.notOnTarget());
                        g.writeBooleanField("notOnTargetAtLeast", s.notOnTargetAtLeast());
                        // three decimals, as the document always had them
                        g.writeFieldName("notOnTargetAgeSeconds");
                        g.writeNumber(String.format(Locale.ROOT, "%.3f", s.notOnTargetAgeSeconds()));
                        g.writeEndObject();
                    }
                    g.writeEndArray();
                    g.writeEndObject();
                }
                g.writeEndArray();
                g.writeEndObject();
            }
            g.writeEndArray();
            g.writeEndObject();
        });
    }
}
