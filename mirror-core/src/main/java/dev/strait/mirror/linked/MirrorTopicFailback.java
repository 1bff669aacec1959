package dev.strait.mirror.linked;

import static dev.strait.mirror.linked.MirrorTopicAdmin.offsetOf;

import dev.strait.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
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
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Failback for mirror topics: after a failover promoted mirror topics on the cluster that copied them (the new
 * source), the topics they copied on the old source become mirror topics of the new source, each continuing at the
 * same offsets. The old source must be a companion cluster (only it can hold a mirror topic).
 *
 * <p>Per topic, in this order, so that no record is lost at any step and a failed step leaves nothing cut:
 * <ol>
 *   <li>the old source's topic is paused: a mirror of the new source's topic (its id pinned) that refuses
 *       producers and copies nothing yet;</li>
 *   <li>per partition, the point where the two copies part is found from leader-epoch lineage
 *       ({@link LineageParting}; the record just below it checked on both sides), or by comparing records
 *       ({@link DivergencePoint}) where the new source kept no lineage;</li>
 *   <li>what the old source holds past it (written there after the failover, or never copied before it) is saved
 *       into a topic of its own, {@code <topic>.diverged-<time>}, with each record's old offset in a header;</li>
 *   <li>the brokers cut each partition there (and keep the cut batches in a file beside the log too), and
 *       copying starts.</li>
 * </ol>
 * Consumer offsets need no translation: they mean the same records on both sides up to the point of parting.
 */
public final class MirrorTopicFailback {
    private static final Logger LOGGER = LoggerFactory.getLogger(MirrorTopicFailback.class);

    /**
     * One partition.
     *
     * @param oldEnd       the old source's log end before the failback
     * @param partedAt     where the two copies part: the old source's records from here on were never on the new
     *                     source
     * @param saved        records saved into the side topic (-1 in a dry run)
     * @param newSourceEnd the new source's log end when the copy started
     * @param endAfter     the old source's log end at the end of the failback (-1 in a dry run)
     */
    public record PartitionResult(
            int partition, long oldEnd, long partedAt, long saved, long newSourceEnd, long endAfter) {

        /** Offsets the old source held past the point of parting (records and transaction markers). */
        public long divergentOffsets() {
            return Math.max(0, oldEnd - partedAt);
        }
    }

    /** What happened to one topic. */
    public enum Outcome {
        /** Would be failed back (dry run). */
        WOULD_FAIL_BACK,
        /** The old source's topic copies the new source's again and has caught up. */
        FAILED_BACK,
        /** Copying again, not caught up within the wait; it goes on by itself. */
        FAILED_BACK_CATCHING_UP,
        /** The old source's topic already copies this one. */
        ALREADY_MIRRORING,
        /** Not promoted on the new source: nothing to fail back (promote it with strait failover first). */
        NOT_PROMOTED,
        /** Refused; the detail says why. Nothing was changed for it. */
        REFUSED
    }

    /**
     * One topic: its name on the new source and on the old source, what happened, the topic the divergent records
     * were saved in (empty if none), a detail for people, and its partitions.
     */
    public record TopicResult(
            String topic,
            String oldSourceTopic,
            Outcome outcome,
            String sideTopic,
            String detail,
            List<PartitionResult> partitions) {}

    private final Admin oldSource;
    private final Properties oldSourceClient;
    private final Admin newSource;
    private final Properties newSourceClient;
    private final MirrorSource newSourceForBrokers;
    private final Time time;
    private final Duration catchUpWait;
    private final MirrorTopicCut cut;

    /**
     * @param oldSourceClient     client settings for the old source (the companion cluster that will copy again)
     * @param newSourceClient     client settings for the new source (where the mirror topics were promoted)
     * @param newSourceForBrokers how the old source's brokers reach the new source
     * @param catchUpWait         how long to wait for the copies to catch up before reporting
     */
    public MirrorTopicFailback(
            Admin oldSource,
            Properties oldSourceClient,
            Admin newSource,
            Properties newSourceClient,
            MirrorSource newSourceForBrokers,
            Time time,
            Duration catchUpWait) {
        this.oldSource = oldSource;
        this.oldSourceClient = oldSourceClient;
        this.newSource = newSource;
        this.newSourceClient = newSourceClient;
        this.newSourceForBrokers = newSourceForBrokers;
        this.time = time;
        this.catchUpWait = catchUpWait;
        this.cut = new MirrorTopicCut(oldSource, oldSourceClient, "old source", time);
    }

    /**
     * The promoted mirror topics matching {@code topics} on the new source, failed back when {@code execute}.
     *
     * @throws LinkException when a cluster does not answer
     */
    public List<TopicResult> run(Pattern topics, boolean execute) {
        String stamp = MirrorTopicCut.stamp(time);
        List<TopicResult> results = new ArrayList<>();
        for (Map.Entry<String, Config> entry :
                MirrorTopicAdmin.mirrorTopics(newSource, topics, "new source").entrySet()) {
            results.add(failBack(entry.getKey(), entry.getValue(), execute, stamp));
        }
        return results;
    }

    /** One topic being failed back: its name on each side, the old side's description and partitions. */
    private record Pair(
            String topic,
            String oldSourceTopic,
            TopicDescription old,
            List<TopicPartition> oldPartitions,
            Config newSourceConfig) {
        TopicPartition onNewSource(TopicPartition oldPartition) {
            return new TopicPartition(topic, oldPartition.partition());
        }
    }

    /** Where a pair's partitions stand: ends, and where each parts from the other side. */
    private record Positions(
            Map<TopicPartition, Long> oldEnds, Map<TopicPartition, Long> newEnds, Map<Integer, Long> partedAt) {}

    private TopicResult failBack(String topic, Config config, boolean execute, String stamp) {
        String oldTopic = MirrorTopicAdmin.value(config, MirrorTopicConfigs.SOURCE_TOPIC);
        String oldSourceTopic = oldTopic.isEmpty() ? topic : oldTopic;
        if (!MirrorTopicConfigs.STATE_PROMOTED.equals(MirrorTopicAdmin.value(config, MirrorTopicConfigs.STATE))) {
            return refused(
                    topic,
                    oldSourceTopic,
                    Outcome.NOT_PROMOTED,
                    "still a mirror on the new source; promote it (strait failover --mirror-topics) first");
        }
        TopicDescription ours = MirrorTopicAdmin.describe(newSource, topic, "new source")
                .orElseThrow(() -> new LinkException("topic " + topic + " vanished from the new source"));
        TopicDescription theirs = MirrorTopicAdmin.describe(oldSource, oldSourceTopic, "old source")
                .orElse(null);
        String newTopicId = ours.topicId().toString();
        TopicResult refusal = refusal(topic, oldSourceTopic, ours, theirs, newTopicId);
        if (refusal != null || theirs == null) {
            return Objects.requireNonNull(refusal, "refusal() refuses a topic the old source lacks");
        }
        List<TopicPartition> oldPartitions = new ArrayList<>();
        theirs.partitions().forEach(p -> oldPartitions.add(new TopicPartition(oldSourceTopic, p.partition())));
        Pair pair = new Pair(topic, oldSourceTopic, theirs, oldPartitions, config);
        if (execute) {
            pause(pair, newTopicId);
        }
        Positions at = positions(pair);
        if (!execute) {
            List<PartitionResult> rows =
                    rows(topic, oldPartitions, at.oldEnds(), at.partedAt(), Map.of(), at.newEnds(), Map.of());
            return new TopicResult(topic, oldSourceTopic, Outcome.WOULD_FAIL_BACK, "", "", rows);
        }
        String sideTopic = MirrorTopicCut.sideTopic(oldSourceTopic, stamp);
        Map<Integer, Long> saved = saveDivergent(pair, at, sideTopic);
        Map<String, String> resume = new HashMap<>();
        resume.put(MirrorTopicConfigs.STATE, MirrorTopicConfigs.STATE_MIRRORING);
        if (!saved.isEmpty()) {
            Map<Integer, Long> cutAt = new LinkedHashMap<>();
            saved.keySet().forEach(p -> cutAt.put(p, at.partedAt().get(p)));
            resume.putAll(MirrorTopicCut.cutConfigs("failback-" + stamp, cutAt));
        }
        MirrorTopicAdmin.alter(oldSource, oldSourceTopic, resume, "resume copying into");
        Map<TopicPartition, Long> endsAfter = awaitCaughtUp(oldPartitions, at.newEnds(), topic);
        boolean caughtUp = oldPartitions.stream()
                .allMatch(tp -> offsetOf(endsAfter, tp) >= offsetOf(at.newEnds(), pair.onNewSource(tp)));
        List<PartitionResult> rows =
                rows(topic, oldPartitions, at.oldEnds(), at.partedAt(), saved, at.newEnds(), endsAfter);
        return new TopicResult(
                topic,
                oldSourceTopic,
                caughtUp ? Outcome.FAILED_BACK : Outcome.FAILED_BACK_CATCHING_UP,
                saved.isEmpty() ? "" : sideTopic,
                "",
                rows);
    }

    /** Why this topic cannot be failed back, or null if it can. */
    private @Nullable TopicResult refusal(
            String topic,
            String oldSourceTopic,
            TopicDescription ours,
            @Nullable TopicDescription theirs,
            String newTopicId) {
        if (theirs == null) {
            return refused(topic, oldSourceTopic, Outcome.REFUSED, "the old source has no topic " + oldSourceTopic);
        }
        if (theirs.partitions().size() > ours.partitions().size()) {
            return refused(
                    topic,
                    oldSourceTopic,
                    Outcome.REFUSED,
                    "the old source's topic has " + theirs.partitions().size() + " partitions and this one "
                            + ours.partitions().size() + "; add partitions here first");
        }
        Map<String, String> oldMirror =
                mirrorConfigs(MirrorTopicAdmin.configs(oldSource, oldSourceTopic, "old source"));
        boolean mirroring = MirrorSource.namedIn(oldMirror)
                && MirrorTopicConfigs.STATE_MIRRORING.equals(oldMirror.getOrDefault(MirrorTopicConfigs.STATE, ""));
        if (!mirroring) {
            return null;
        }
        boolean copiesUs = newSourceForBrokers.isNamedIn(oldMirror)
                && newTopicId.equals(oldMirror.get(MirrorTopicConfigs.SOURCE_TOPIC_ID));
        return copiesUs
                ? refused(topic, oldSourceTopic, Outcome.ALREADY_MIRRORING, "copies " + topic + " already")
                : refused(
                        topic,
                        oldSourceTopic,
                        Outcome.REFUSED,
                        "it is a mirror of another source on the old source; promote or reconfigure it first");
    }

    /** Step 1: the old topic becomes a paused mirror of the new one (read-only, not copied), and settles. */
    private void pause(Pair pair, String newTopicId) {
        Map<String, String> pause = new HashMap<>(newSourceForBrokers.configs(newTopicId));
        pause.put(MirrorTopicConfigs.STATE, MirrorTopicConfigs.STATE_PAUSED);
        pause.put(
                newSourceForBrokers.link().isEmpty()
                        ? MirrorTopicConfigs.LINK
                        : MirrorTopicConfigs.SOURCE_BOOTSTRAP_SERVERS,
                null);
        pause.put(MirrorTopicConfigs.SOURCE_TOPIC, pair.oldSourceTopic().equals(pair.topic()) ? null : pair.topic());
        // What this side copied before (an earlier cycle) and where it was promoted are no longer its story: its
        // brokers start a new lineage where this link begins, at the cut.
        pause.put(MirrorTopicConfigs.SOURCE_LINEAGE, null);
        pause.put(MirrorTopicConfigs.PROMOTED_OFFSETS, null);
        MirrorTopicAdmin.alter(oldSource, pair.oldSourceTopic(), pause, "pause");
        cut.awaitSettled(pair.oldPartitions());
    }

    /** Step 2: the ends of both sides, and per partition where the two copies part. */
    private Positions positions(Pair pair) {
        List<TopicPartition> oldPartitions = pair.oldPartitions();
        Map<TopicPartition, Long> oldEnds =
                MirrorTopicAdmin.offsets(oldSource, oldPartitions, OffsetSpec.latest(), false);
        Map<TopicPartition, Long> oldStarts =
                MirrorTopicAdmin.offsets(oldSource, oldPartitions, OffsetSpec.earliest(), false);
        List<TopicPartition> newPartitions = new ArrayList<>();
        oldPartitions.forEach(tp -> newPartitions.add(pair.onNewSource(tp)));
        Map<TopicPartition, Long> newEnds =
                MirrorTopicAdmin.offsets(newSource, newPartitions, OffsetSpec.latest(), false);
        Map<TopicPartition, Long> newStarts =
                MirrorTopicAdmin.offsets(newSource, newPartitions, OffsetSpec.earliest(), false);
        Map<Integer, Long> partedAt = new LinkedHashMap<>();
        for (TopicPartition tp : oldPartitions) {
            TopicPartition other = pair.onNewSource(tp);
            long from = Math.max(offsetOf(oldStarts, tp), offsetOf(newStarts, other));
            long to = Math.min(offsetOf(oldEnds, tp), offsetOf(newEnds, other));
            long point;
            try (DivergencePoint divergence = new DivergencePoint(oldSourceClient, tp, newSourceClient, other, time)) {
                Optional<Long> fromLineage = fromLineage(pair, tp, offsetOf(oldEnds, tp));
                if (fromLineage.isPresent()) {
                    point = fromLineage.get();
                    checkBelow(divergence, tp, point, from);
                    LOGGER.info("{}: the copies part at {} (from leader-epoch lineage)", tp, point);
                } else if (from >= to) {
                    point = Math.min(from, offsetOf(oldEnds, tp)); // nothing in common to compare
                } else {
                    point = divergence.find(from, to);
                    LOGGER.info("{}: the copies part at {} (records compared by bisection)", tp, point);
                }
            }
            partedAt.put(tp.partition(), point);
        }
        return new Positions(oldEnds, newEnds, partedAt);
    }

    /**
     * Where the partition parts, from leader-epoch lineage ({@link LineageParting}): the new source's record of the
     * old source's epochs it copied ({@code strait.mirror.source.lineage}, written by its brokers while they copied)
     * and its end at the promote ({@code strait.mirror.promoted.offsets}), against the old source's own epochs.
     * Empty when the new source has no lineage of this very topic (a copy made by an older version, or of another
     * topic id) or no promote offset (promoted by hand): the caller then compares records by bisection.
     */
    private Optional<Long> fromLineage(Pair pair, TopicPartition tp, long oldEnd) {
        String oldTopicId = pair.old().topicId().toString();
        Optional<SourceLineage> lineage = SourceLineage.ofPartition(
                        MirrorTopicAdmin.value(pair.newSourceConfig(), MirrorTopicConfigs.SOURCE_LINEAGE),
                        tp.partition())
                .filter(l -> l.sourceTopicId().equals(oldTopicId));
        Optional<Long> promotedAt = MirrorTopicCut.parseOffsets(
                        MirrorTopicAdmin.value(pair.newSourceConfig(), MirrorTopicConfigs.PROMOTED_OFFSETS))
                .map(offsets -> offsets.get(tp.partition()));
        if (lineage.isEmpty() || promotedAt.isEmpty()) {
            LOGGER.info(
                    "{}: the new source kept no leader-epoch lineage of this topic{}; comparing records instead",
                    tp,
                    lineage.isEmpty() ? "" : " (no promote offset: promoted by hand?)");
            return Optional.empty();
        }
        try (OldSourceEpochs epochs = new OldSourceEpochs(oldSourceClient, tp, time)) {
            return Optional.of(LineageParting.partingPoint(lineage.get(), promotedAt.get(), epochs, oldEnd));
        } catch (LinkException e) {
            LOGGER.warn("{}: {}; comparing records instead", tp, e.getMessage());
            return Optional.empty();
        }
    }

    /**
     * The cheap check of a parting point found from lineage: the record just below it must be the same on both
     * sides. If not, lineage and contents disagree and nothing is cut.
     */
    private static void checkBelow(DivergencePoint divergence, TopicPartition tp, long point, long from) {
        if (point - 1 >= from && !divergence.sameAt(point - 1, point)) {
            throw new LinkException(tp + ": leader-epoch lineage says the copies part at " + point + " but the records"
                    + " at " + (point - 1) + " differ; nothing was cut (compare the two topics by hand)");
        }
    }

    /**
     * Step 3: the old side's records past the parting point, saved into {@code sideTopic} (created on first use).
     *
     * @return records saved per partition that had any past the point (in partition order)
     */
    private Map<Integer, Long> saveDivergent(Pair pair, Positions at, String sideTopic) {
        Map<TopicPartition, Long> starts = new LinkedHashMap<>();
        pair.oldPartitions().forEach(tp -> starts.put(tp, at.partedAt().get(tp.partition())));
        try {
            return cut.saveSuffixes(starts, at.oldEnds(), sideTopic, pair.old());
        } catch (LinkException e) {
            throw new LinkException(e.getMessage() + "; nothing was cut, run the failback again", e);
        }
    }

    /** The report's rows; a dry run passes no {@code saved} and no {@code endsAfter} (shown as -1). */
    private static List<PartitionResult> rows(
            String topic,
            List<TopicPartition> oldPartitions,
            Map<TopicPartition, Long> oldEnds,
            Map<Integer, Long> partedAt,
            Map<Integer, Long> saved,
            Map<TopicPartition, Long> newEnds,
            Map<TopicPartition, Long> endsAfter) {
        boolean dryRun = endsAfter.isEmpty();
        List<PartitionResult> rows = new ArrayList<>();
        for (TopicPartition tp : oldPartitions) {
            rows.add(new PartitionResult(
                    tp.partition(),
                    offsetOf(oldEnds, tp),
                    offsetOf(partedAt, tp.partition()),
                    dryRun ? -1 : saved.getOrDefault(tp.partition(), 0L),
                    offsetOf(newEnds, new TopicPartition(topic, tp.partition())),
                    dryRun ? -1 : offsetOf(endsAfter, tp)));
        }
        return rows;
    }

    private static TopicResult refused(String topic, String oldSourceTopic, Outcome outcome, String detail) {
        return new TopicResult(topic, oldSourceTopic, outcome, "", detail, List.of());
    }

    private static Map<String, String> mirrorConfigs(Config config) {
        Map<String, String> out = new HashMap<>();
        config.entries().forEach(e -> {
            if (MirrorTopicConfigs.isMirrorConfig(e.name()) && e.value() != null) {
                out.put(e.name(), e.value().trim());
            }
        });
        return out;
    }

    /** Waits, bounded, until each old-source partition has copied up to the new source's end read before. */
    private Map<TopicPartition, Long> awaitCaughtUp(
            List<TopicPartition> partitions, Map<TopicPartition, Long> newEnds, String topic) {
        long deadline = time.milliseconds() + catchUpWait.toMillis();
        while (true) {
            Map<TopicPartition, Long> ends =
                    MirrorTopicAdmin.offsets(oldSource, partitions, OffsetSpec.latest(), false);
            boolean done = partitions.stream()
                    .allMatch(tp -> offsetOf(ends, tp) >= offsetOf(newEnds, new TopicPartition(topic, tp.partition())));
            if (done || time.milliseconds() >= deadline) {
                return ends;
            }
            time.sleep(200);
        }
    }
}
