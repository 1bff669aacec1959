package dev.strait.cli.failover;

import dev.strait.mirror.http.Json;
import dev.strait.mirror.linked.MirrorTopicFailback;
import dev.strait.mirror.linked.MirrorTopicFailback.Outcome;
import java.io.PrintWriter;
import java.util.List;
import java.util.Locale;

/** The report of {@code strait failback --mirror-topics}: per topic and partition, for people or as JSON. */
final class MirrorFailbackText {
    private MirrorFailbackText() {}

    static void text(PrintWriter out, List<MirrorTopicFailback.TopicResult> results, boolean execute) {
        if (results.isEmpty()) {
            out.println("no mirror topic on the new source (target.) matches --mirror-topics");
            return;
        }
        out.printf(
                Locale.ROOT,
                "%-24s %-24s %9s %12s %12s %10s %12s %12s  %s%n",
                "topic",
                "old source topic",
                "partition",
                "old end",
                "parted at",
                "saved",
                "new end",
                "end now",
                "outcome");
        int done = 0;
        long savedTotal = 0;
        for (MirrorTopicFailback.TopicResult topic : results) {
            if (topic.partitions().isEmpty()) {
                out.printf(
                        Locale.ROOT,
                        "%-24s %-24s %9s %12s %12s %10s %12s %12s  %s: %s%n",
                        topic.topic(),
                        topic.oldSourceTopic(),
                        "-",
                        "-",
                        "-",
                        "-",
                        "-",
                        "-",
                        outcome(topic.outcome()),
                        topic.detail());
            }
            for (MirrorTopicFailback.PartitionResult p : topic.partitions()) {
                savedTotal += Math.max(0, p.saved());
                out.printf(
                        Locale.ROOT,
                        "%-24s %-24s %9d %12d %12d %10s %12d %12s  %s%n",
                        topic.topic(),
                        topic.oldSourceTopic(),
                        p.partition(),
                        p.oldEnd(),
                        p.partedAt(),
                        p.saved() < 0 ? "(" + p.divergentOffsets() + ")" : Long.toString(p.saved()),
                        p.newSourceEnd(),
                        p.endAfter() < 0 ? "-" : Long.toString(p.endAfter()),
                        outcome(topic.outcome()));
            }
            if (!topic.sideTopic().isEmpty()) {
                out.printf(
                        Locale.ROOT,
                        "  %s: the old source's records past the parting point are saved in %s (header"
                                + " strait.diverged.offset holds each one's old offset)%n",
                        topic.oldSourceTopic(),
                        topic.sideTopic());
            }
            if (topic.outcome() == Outcome.FAILED_BACK || topic.outcome() == Outcome.FAILED_BACK_CATCHING_UP) {
                done++;
            }
        }
        if (execute) {
            out.printf(
                    Locale.ROOT,
                    "failed back %d of %d mirror topics; %d divergent records saved, none deleted%n",
                    done,
                    results.size(),
                    savedTotal);
        } else {
            out.printf(
                    Locale.ROOT,
                    "would fail back %d of %d mirror topics; (n) under saved: offsets past the parting point on the"
                            + " old source, saved into a topic of their own before the cut; --execute does it%n",
                    results.stream()
                            .filter(r -> r.outcome() == Outcome.WOULD_FAIL_BACK)
                            .count(),
                    results.size());
        }
    }

    private static String outcome(Outcome outcome) {
        switch (outcome) {
            case WOULD_FAIL_BACK:
                return "would fail back";
            case FAILED_BACK:
                return "failed back, caught up";
            case FAILED_BACK_CATCHING_UP:
                return "failed back, still catching up";
            case ALREADY_MIRRORING:
                return "already copying";
            case NOT_PROMOTED:
                return "not promoted";
            default:
                return "refused";
        }
    }

    static String json(List<MirrorTopicFailback.TopicResult> results, boolean execute) {
        return Json.write(g -> {
            g.writeStartObject();
            g.writeStringField("mode", execute ? "execute" : "dry-run");
            g.writeArrayFieldStart("mirrorTopics");
            for (MirrorTopicFailback.TopicResult topic : results) {
                g.writeStartObject();
                g.writeStringField("topic", topic.topic());
                g.writeStringField("oldSourceTopic", topic.oldSourceTopic());
                g.writeStringField("outcome", topic.outcome().name().toLowerCase(Locale.ROOT));
                g.writeStringField("divergedTopic", topic.sideTopic());
                g.writeStringField("detail", topic.detail());
                g.writeArrayFieldStart("partitions");
                for (MirrorTopicFailback.PartitionResult p : topic.partitions()) {
                    g.writeStartObject();
                    g.writeNumberField("partition", p.partition());
                    g.writeNumberField("oldEndOffset", p.oldEnd());
                    g.writeNumberField("partedAt", p.partedAt());
                    g.writeNumberField("divergentOffsets", p.divergentOffsets());
                    g.writeNumberField("saved", p.saved());
                    g.writeNumberField("newSourceEndOffset", p.newSourceEnd());
                    g.writeNumberField("endOffset", p.endAfter());
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
