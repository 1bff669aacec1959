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
                "%-28s %9s %12s %12s %12s %12s  %s%n",
                "topic",
                "partition",
                "end",
                "stable@promote",
                "source end",
                "not copied",
                "outcome");
        int promoted = 0;
        int partitions = 0;
        int transactionsEnded = 0;
        for (MirrorTopicPromotion.TopicResult topic : results) {
            for (MirrorTopicPromotion.PartitionResult p : topic.partitions()) {
                partitions++;
                if (p.hadOpenTransaction()) {
                    transactionsEnded++;
                }
                out.printf(
                        Locale.ROOT,
                        "%-28s %9d %12d %12d %12s %12s  %s%n",
                        topic.topic(),
                        p.partition().partition(),
                        p.endOffset(),
                        p.stableBefore(),
                        p.sourceEnd() < 0 ? "unknown" : Long.toString(p.sourceEnd()),
                        p.notCopied() < 0 ? "unknown" : Long.toString(p.notCopied()),
                        outcome(topic.outcome()));
            }
            if (topic.outcome() == MirrorTopicPromotion.Outcome.PROMOTED
                    || topic.outcome() == MirrorTopicPromotion.Outcome.PROMOTED_UNSTABLE) {
                promoted++;
            }
        }
        out.printf(
                Locale.ROOT,
                "%s %d of %d mirror topics (%d partitions); %d partitions had a transaction open at the promote%s%n",
                execute ? "promoted" : "would promote",
                execute
                        ? promoted
                        : (int) results.stream()
                                .filter(r -> r.outcome() == MirrorTopicPromotion.Outcome.WOULD_PROMOTE)
                                .count(),
                results.size(),
                partitions,
                transactionsEnded,
                execute ? ", ended with an abort marker" : "; --execute promotes");
    }

    private static String outcome(MirrorTopicPromotion.Outcome outcome) {
        switch (outcome) {
            case WOULD_PROMOTE:
                return "would promote";
            case PROMOTED:
                return "promoted";
            case ALREADY_PROMOTED:
                return "already promoted";
            default:
                return "promoted, open transactions not ended yet: check again";
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
                g.writeArrayFieldStart("partitions");
                for (MirrorTopicPromotion.PartitionResult p : topic.partitions()) {
                    g.writeStartObject();
                    g.writeNumberField("partition", p.partition().partition());
                    g.writeNumberField("endOffset", p.endOffset());
                    g.writeNumberField("stableOffsetAtPromote", p.stableBefore());
                    g.writeNumberField("stableOffset", p.stableAfter());
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
