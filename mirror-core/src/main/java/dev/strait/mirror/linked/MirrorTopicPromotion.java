package dev.strait.mirror.linked;

import static dev.strait.mirror.linked.MirrorTopicAdmin.offsetOf;

import dev.strait.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;

/**
 * Failover for mirror topics: each matching mirror topic on the companion cluster is promoted (it stops copying and
 * takes producers) with every partition ending at its last stable offset, so that no half transaction survives the
 * promote and no abort marker is written for the source's transactions. Per topic, in this order, so that no record
 * is lost and a failed step leaves the topic not cut:
 * <ol>
 *   <li>it is paused ({@code strait.mirror.state=paused}: not copied, producers refused) and its partition ends
 *       settle;</li>
 *   <li>each partition's end and last stable offset are read;</li>
 *   <li>where a transaction the copy left open holds the stable offset below the end, the records from the stable
 *       offset to the end (the half transactions and whatever followed them) are saved into
 *       {@code <topic>.diverged-<time>}, each with its old offset in a header, and the brokers cut the partition at
 *       the stable offset (keeping the cut batches beside the log too; producer and transaction state are rebuilt,
 *       so idempotent producers carry on); the command waits until the ends are the stable offsets;</li>
 *   <li>it is promoted ({@code strait.mirror.state=promoted}).</li>
 * </ol>
 * If a step before the cut fails, the topic is set back to the state it had (mirroring: it copies on) and reported
 * not promoted; nothing was cut and the command can run again. If the cut was asked but not seen applied in time,
 * the topic stays paused (the brokers apply the cut as they get it) and is reported not promoted; running the
 * command again promotes it, waiting for that same cut instead of saving the records a second time. Per partition it reports the end and the stable offset before the promote, the records
 * moved aside and, when the source answers, the records the copy had not taken: the loss the failover accepts.
 * Consumer offsets need nothing: they mean the same records on both clusters. (A promote set by hand, with no cut,
 * still ends open transactions: the brokers write abort markers then.) Not thread-safe: one command's thread runs
 * it.
 */
public final class MirrorTopicPromotion {

    /**
     * One partition.
     *
     * @param endOffset    its end before the promote (at the pause)
     * @param stableOffset its last stable offset then: the end after the promote
     * @param movedAside   records saved into the side topic before the cut (-1 in a dry run or when not known)
     * @param endAfter     its end after the promote (-1 in a dry run or when not promoted now)
     * @param sourceEnd    the source's end (-1 if not known)
     */
    public record PartitionResult(
            TopicPartition partition,
            long endOffset,
            long stableOffset,
            long movedAside,
            long endAfter,
            long sourceEnd) {

        /** Records on the source the copy did not hold at the promote; -1 when the source did not answer. */
        public long notCopied() {
            return sourceEnd < 0 || endOffset < 0 ? -1 : Math.max(0, sourceEnd - endOffset);
        }

        /** Offsets past the stable offset (open transactions, what followed them): cut, or to be cut, at the promote. */
        public long offsetsPastStable() {
            return stableOffset < 0 ? 0 : Math.max(0, endOffset - stableOffset);
        }
    }

    /** What happened to one topic. */
    public enum Outcome {
        /** A mirror topic that would be promoted (dry run). */
        WOULD_PROMOTE,
        /** Promoted now, every partition ending at its stable offset. */
        PROMOTED,
        /** Was promoted before. */
        ALREADY_PROMOTED,
        /** Promoted, but some partition's stable offset was below its end afterwards. */
        PROMOTED_UNSTABLE,
        /** Not promoted: a step failed; the detail says which and the state the topic was left in. */
        NOT_PROMOTED
    }

    /**
     * One topic: its source, what happened, the topic its cut records were moved aside into (empty if none), a
     * detail for people (empty unless not promoted), and its partitions.
     */
    public record TopicResult(
            String topic,
            String source,
            Outcome outcome,
            String movedAsideTo,
            String detail,
            List<PartitionResult> partitions) {}

    private final Admin target;
    private final Optional<Admin> source;
    private final Time time;
    private final Duration stableWait;
    private final MirrorTopicCut cut;

    /**
     * @param targetClient client settings for the target: the records cut are read and saved with them
     * @param source       the source cluster when it may be reachable; its ends only fill the report
     * @param stableWait   how long to wait for the brokers to apply a cut
     */
    public MirrorTopicPromotion(
            Admin target, Properties targetClient, Optional<Admin> source, Time time, Duration stableWait) {
        this.target = target;
        this.source = source;
        this.time = time;
        this.stableWait = stableWait;
        this.cut = new MirrorTopicCut(target, targetClient, "target", time);
    }

    /** A mirror topic as found: its name, its state, its source, the source topic's name and its partitions. */
    private record Mirror(
            String topic,
            String state,
            String sourceName,
            String sourceTopic,
            List<TopicPartition> partitions,
            Optional<MirrorTopicCut.AskedCut> askedCut) {}

    /** Where a topic's partitions stand: ends and last stable offsets. */
    private record Positions(Map<TopicPartition, Long> ends, Map<TopicPartition, Long> stable) {}

    /**
     * The mirror topics matching {@code topics}, promoted when {@code execute}.
     *
     * @throws LinkException when the target cluster does not answer
     */
    public List<TopicResult> run(Pattern topics, boolean execute) {
        String stamp = MirrorTopicCut.stamp(time);
        List<TopicResult> results = new ArrayList<>();
        for (Map.Entry<String, Config> entry :
                MirrorTopicAdmin.mirrorTopics(target, topics, "target").entrySet()) {
            Mirror mirror = mirror(entry.getKey(), entry.getValue());
            Map<TopicPartition, Long> sourceEnds = sourceEnds(mirror);
            if (MirrorTopicConfigs.STATE_PROMOTED.equals(mirror.state())) {
                Positions now = positions(mirror.partitions());
                results.add(result(mirror, Outcome.ALREADY_PROMOTED, "", "", now, Map.of(), Map.of(), sourceEnds));
            } else if (!execute) {
                Positions now = positions(mirror.partitions());
                results.add(result(mirror, Outcome.WOULD_PROMOTE, "", "", now, Map.of(), Map.of(), sourceEnds));
            } else {
                results.add(promote(mirror, stamp, sourceEnds));
            }
        }
        return results;
    }

    private Mirror mirror(String topic, Config config) {
        String link = MirrorTopicAdmin.value(config, MirrorTopicConfigs.LINK);
        String sourceName = link.isEmpty()
                ? MirrorTopicAdmin.value(config, MirrorTopicConfigs.SOURCE_BOOTSTRAP_SERVERS)
                : "link " + link;
        String sourceTopic = MirrorTopicAdmin.value(config, MirrorTopicConfigs.SOURCE_TOPIC);
        return new Mirror(
                topic,
                MirrorTopicAdmin.value(config, MirrorTopicConfigs.STATE),
                sourceName,
                sourceTopic.isEmpty() ? topic : sourceTopic,
                MirrorTopicAdmin.partitionsOf(target, topic, "target"),
                MirrorTopicCut.AskedCut.of(
                        "promote",
                        MirrorTopicAdmin.value(config, MirrorTopicConfigs.TRUNCATE_ID),
                        MirrorTopicAdmin.value(config, MirrorTopicConfigs.TRUNCATE_OFFSETS)));
    }

    /** Pause, settle, save and cut past the stable offsets, promote; a failed step is reported, not thrown. */
    private TopicResult promote(Mirror mirror, String stamp, Map<TopicPartition, Long> sourceEnds) {
        String topic = mirror.topic();
        String stateBefore = mirror.state().isEmpty() ? MirrorTopicConfigs.STATE_MIRRORING : mirror.state();
        Positions before = null;
        String sideTopic = "";
        boolean cutAsked = false;
        try {
            MirrorTopicAdmin.alter(
                    target, topic, Map.of(MirrorTopicConfigs.STATE, MirrorTopicConfigs.STATE_PAUSED), "pause");
            cut.awaitSettled(mirror.partitions());
            before = positions(mirror.partitions());
            Map<TopicPartition, Long> cutAt = cutPoints(mirror.partitions(), before);
            Map<Integer, Long> moved = Map.of();
            if (!cutAt.isEmpty()) {
                Map<Integer, Long> offsets = new LinkedHashMap<>();
                cutAt.forEach((tp, offset) -> offsets.put(tp.partition(), offset));
                Optional<MirrorTopicCut.AskedCut> pending = pendingCut(mirror, offsets);
                if (pending.isPresent()) {
                    // An earlier run saved these records and asked this very cut, which the brokers have not applied
                    // yet: saving again would copy them into a second side topic, and a new cut id would ask twice.
                    sideTopic = MirrorTopicCut.sideTopic(topic, pending.get().stamp());
                    moved = cut.savedIn(sideTopic, offsets.keySet());
                    cutAsked = true;
                } else {
                    sideTopic = MirrorTopicCut.sideTopic(topic, stamp);
                    moved = cut.saveSuffixes(
                            cutAt,
                            before.ends(),
                            sideTopic,
                            MirrorTopicAdmin.describe(target, topic, "target")
                                    .orElseThrow(() -> new LinkException("topic " + topic + " vanished")));
                    cutAsked = true;
                    MirrorTopicAdmin.alter(
                            target, topic, MirrorTopicCut.cutConfigs("promote-" + stamp, offsets), "cut");
                }
                awaitCut(topic, cutAt);
            }
            // Where each partition stands now is where the copy stops: a failback bounds the parting point by it.
            Map<Integer, Long> promotedAt = new LinkedHashMap<>();
            for (TopicPartition tp : mirror.partitions()) {
                promotedAt.put(tp.partition(), cutAt.getOrDefault(tp, offsetOf(before.ends(), tp)));
            }
            Map<String, String> promote = new LinkedHashMap<>();
            promote.put(MirrorTopicConfigs.STATE, MirrorTopicConfigs.STATE_PROMOTED);
            promote.put(MirrorTopicConfigs.PROMOTED_OFFSETS, MirrorTopicCut.offsetsValue(promotedAt));
            MirrorTopicAdmin.alter(target, topic, promote, "promote");
            Positions after = positions(mirror.partitions());
            boolean stable = mirror.partitions().stream()
                    .allMatch(tp -> offsetOf(after.stable(), tp) >= 0
                            && Objects.equals(
                                    after.stable().get(tp), after.ends().get(tp)));
            return result(
                    mirror,
                    stable ? Outcome.PROMOTED : Outcome.PROMOTED_UNSTABLE,
                    moved.isEmpty() ? "" : sideTopic,
                    "",
                    before,
                    moved,
                    after.ends(),
                    sourceEnds);
        } catch (LinkException e) {
            String detail = cutAsked
                    ? e.getMessage() + "; the cut was asked, so " + topic + " stays paused (read-only, not copied),"
                            + " its records past the stable offsets saved in " + sideTopic
                            + "; run the command again to promote it"
                    : e.getMessage() + "; nothing was cut, " + restore(topic, stateBefore) + "; run the command again"
                            + (sideTopic.isEmpty()
                                    ? ""
                                    : " (" + sideTopic + ", if it was created, holds copies only: delete it)");
            Positions shown = before == null ? new Positions(Map.of(), Map.of()) : before;
            return result(mirror, Outcome.NOT_PROMOTED, "", detail, shown, Map.of(), Map.of(), sourceEnds);
        }
    }

    /**
     * The cut an earlier run of this command asked and that is still to be applied: the topic was left paused, its
     * configs name a promote cut at exactly the offsets this run would cut at, and that run's side topic exists.
     */
    private Optional<MirrorTopicCut.AskedCut> pendingCut(Mirror mirror, Map<Integer, Long> offsets) {
        return mirror.askedCut()
                .filter(asked -> MirrorTopicConfigs.STATE_PAUSED.equals(mirror.state()))
                .filter(asked -> asked.offsets().equals(offsets))
                .filter(asked -> cut.exists(MirrorTopicCut.sideTopic(mirror.topic(), asked.stamp())));
    }

    /** The partitions whose stable offset is below their end, each with its stable offset: where to cut. */
    private static Map<TopicPartition, Long> cutPoints(List<TopicPartition> partitions, Positions at) {
        Map<TopicPartition, Long> cutAt = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            long stable = offsetOf(at.stable(), tp);
            long end = offsetOf(at.ends(), tp);
            if (stable < 0 || end < 0) {
                throw new LinkException(tp + " did not answer its end and stable offsets");
            }
            if (stable < end) {
                cutAt.put(tp, stable);
            }
        }
        return cutAt;
    }

    /** Sets a topic that failed before its cut back to the state it had; says what it is now. */
    private String restore(String topic, String state) {
        try {
            MirrorTopicAdmin.alter(target, topic, Map.of(MirrorTopicConfigs.STATE, state), "set back");
            return topic + " is " + state + " again";
        } catch (LinkException e) {
            return topic + " could not be set back to " + state + " (" + e.getMessage()
                    + ") and may stay paused (read-only, not copied)";
        }
    }

    /** Waits, bounded, until each cut partition ends at its cut offset (the brokers applied the cut). */
    private void awaitCut(String topic, Map<TopicPartition, Long> cutAt) {
        long deadline = time.milliseconds() + stableWait.toMillis();
        while (true) {
            Map<TopicPartition, Long> ends =
                    MirrorTopicAdmin.offsets(target, cutAt.keySet(), OffsetSpec.latest(), false);
            if (cutAt.entrySet().stream().allMatch(e -> e.getValue().equals(ends.get(e.getKey())))) {
                return;
            }
            if (time.milliseconds() >= deadline) {
                throw new LinkException("the brokers did not cut " + topic + " to its stable offsets " + cutAt
                        + " within " + stableWait.toSeconds() + " s (ends now " + ends + ")");
            }
            time.sleep(200);
        }
    }

    private Positions positions(List<TopicPartition> partitions) {
        return new Positions(
                MirrorTopicAdmin.offsets(target, partitions, OffsetSpec.latest(), false),
                MirrorTopicAdmin.offsets(target, partitions, OffsetSpec.latest(), true));
    }

    /** The report of a topic; rows without {@code moved} or {@code endsAfter} show -1 there. */
    private static TopicResult result(
            Mirror mirror,
            Outcome outcome,
            String sideTopic,
            String detail,
            Positions before,
            Map<Integer, Long> moved,
            Map<TopicPartition, Long> endsAfter,
            Map<TopicPartition, Long> sourceEnds) {
        boolean promotedNow = outcome == Outcome.PROMOTED || outcome == Outcome.PROMOTED_UNSTABLE;
        List<PartitionResult> rows = new ArrayList<>();
        for (TopicPartition tp : mirror.partitions()) {
            rows.add(new PartitionResult(
                    tp,
                    before.ends().getOrDefault(tp, -1L),
                    before.stable().getOrDefault(tp, -1L),
                    promotedNow ? moved.getOrDefault(tp.partition(), 0L) : -1,
                    endsAfter.getOrDefault(tp, -1L),
                    sourceEnds.getOrDefault(tp, -1L)));
        }
        return new TopicResult(mirror.topic(), mirror.sourceName(), outcome, sideTopic, detail, rows);
    }

    /** The source's ends, keyed by the mirror topic's partitions; empty when the source does not answer. */
    private Map<TopicPartition, Long> sourceEnds(Mirror mirror) {
        if (source.isEmpty()) {
            return Map.of();
        }
        Map<TopicPartition, TopicPartition> onSource = new LinkedHashMap<>();
        mirror.partitions().forEach(tp -> onSource.put(new TopicPartition(mirror.sourceTopic(), tp.partition()), tp));
        try {
            Map<TopicPartition, Long> ends =
                    MirrorTopicAdmin.offsets(source.get(), onSource.keySet(), OffsetSpec.latest(), false);
            Map<TopicPartition, Long> out = new LinkedHashMap<>();
            onSource.forEach((s, tp) -> out.put(tp, ends.getOrDefault(s, -1L)));
            return out;
        } catch (LinkException e) {
            return Map.of(); // the source is down: the report says "unknown"
        }
    }
}
