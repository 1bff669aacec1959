package dev.strait.cli.failover;

import dev.strait.mirror.http.Json;
import dev.strait.mirror.linked.MirrorTopicPromotion;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/** The report of {@code strait failover --mirror-topics}: per topic and partition, for people or as JSON. */
final class PromotionText {
    private PromotionText() {}

    static void text(PrintWriter out, List<MirrorTopicPromotion.TopicResult> results, boolean execute) {
        if (results.isEmpty()) {
            out.println("no mirror topic matches --mirror-topics");
            return;
        }
        out.printf(
                Locale.ROOT,
                "%-28s %9s %12s %12s %11s %11s %12s %12s  %s%n",
                "topic",
                "partition",
                "end",
                "stable",
                "past stable",
                "moved aside",
                "source end",
                "not copied",
                "outcome");
        int partitions = 0;
        int cutPartitions = 0;
        long pastStable = 0;
        long moved = 0;
        for (MirrorTopicPromotion.TopicResult topic : results) {
            boolean counted = !execute
                    || topic.outcome() == MirrorTopicPromotion.Outcome.PROMOTED
                    || topic.outcome() == MirrorTopicPromotion.Outcome.PROMOTED_UNSTABLE;
            for (MirrorTopicPromotion.PartitionResult p : topic.partitions()) {
                partitions++;
                if (counted && p.offsetsPastStable() > 0) {
                    cutPartitions++;
                    pastStable += p.offsetsPastStable();
                }
                moved += Math.max(0, p.movedAside());
                out.printf(
                        Locale.ROOT,
                        "%-28s %9d %12s %12s %11d %11s %12s %12s  %s%n",
                        topic.topic(),
                        p.partition().partition(),
                        known(p.endOffset()),
                        known(p.stableOffset()),
                        p.offsetsPastStable(),
                        p.movedAside() < 0 ? "-" : Long.toString(p.movedAside()),
                        known(p.sourceEnd()),
                        known(p.notCopied()),
                        outcome(topic.outcome()));
            }
        }
        if (execute) {
            out.printf(
                    Locale.ROOT,
                    "promoted %d of %d mirror topics (%d partitions); %d partitions cut to their stable offset,"
                            + " %d records moved aside%n",
                    count(results, MirrorTopicPromotion.Outcome.PROMOTED)
                            + count(results, MirrorTopicPromotion.Outcome.PROMOTED_UNSTABLE),
                    results.size(),
                    partitions,
                    cutPartitions,
                    moved);
        } else {
            out.printf(
                    Locale.ROOT,
                    "would promote %d of %d mirror topics (%d partitions); %d partitions would be cut to their stable"
                            + " offset (%d offsets moved aside); --execute promotes%n",
                    count(results, MirrorTopicPromotion.Outcome.WOULD_PROMOTE),
                    results.size(),
                    partitions,
                    cutPartitions,
                    pastStable);
        }
        for (MirrorTopicPromotion.TopicResult topic : results) {
            if (!topic.movedAsideTo().isEmpty()) {
                out.printf(
                        Locale.ROOT,
                        "%s: the records past the stable offsets are in %s (header strait.diverged.offset: the"
                                + " offset each had)%n",
                        topic.topic(),
                        topic.movedAsideTo());
            }
            if (!topic.detail().isEmpty()) {
                out.printf(Locale.ROOT, "%s: not promoted: %s%n", topic.topic(), topic.detail());
            }
        }
    }

    private static String known(long value) {
        return value < 0 ? "unknown" : Long.toString(value);
    }

    private static long count(List<MirrorTopicPromotion.TopicResult> results, MirrorTopicPromotion.Outcome outcome) {
        return results.stream().filter(r -> r.outcome() == outcome).count();
    }

    private static String outcome(MirrorTopicPromotion.Outcome outcome) {
        switch (outcome) {
            case WOULD_PROMOTE:
                return "would promote";
            case PROMOTED:
                return "promoted";
            case ALREADY_PROMOTED:
                return "already promoted";
            case NOT_PROMOTED:
                return "NOT promoted";
            default:
                return "promoted, stable offset below the end: check again";
        }
    }

    static String json(List<MirrorTopicPromotion.TopicResult> results, boolean execute) {
        return Json.write(g -> {
            g.writeStartObject();
            g.writeStringField("mode", execute ? "execute" : "dry-run");
            g.writeArrayFieldStart("mirrorTopics");
            for (MirrorTopicPromotion.TopicResult topic : results) {
                g.writeStartObject();
                g.writeStringField("topic", topic.topic());
                g.writeStringField("source", topic.source());
                g.writeStringField("outcome", topic.outcome().name().toLowerCase(Locale.ROOT));
                g.writeStringField("movedAsideTo", topic.movedAsideTo());
                g.writeStringField("detail", topic.detail());
                g.writeArrayFieldStart("partitions");
                for (MirrorTopicPromotion.PartitionResult p : topic.partitions()) {
                    g.writeStartObject();
                    g.writeNumberField("partition", p.partition().partition());
                    g.writeNumberField("endOffset", p.endOffset());
                    g.writeNumberField("stableOffset", p.stableOffset());
                    g.writeNumberField("offsetsPastStable", p.offsetsPastStable());
                    g.writeNumberField("movedAside", p.movedAside());
                    g.writeNumberField("endOffsetAfter", p.endAfter());
                    g.writeNumberField("sourceEndOffset", p.sourceEnd());
                    g.writeNumberField("notCopied", p.notCopied());
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
