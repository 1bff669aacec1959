package dev.strait.mirror.linked;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.utils.Time;

/**
 * Failover for mirror topics: each matching mirror topic on the companion cluster is promoted (it stops copying and
 * takes producers), and each partition is watched until its leader has ended the transactions the copy left open
 * (its last stable offset reaches its end). Per partition it reports the end, where the stable offset stood before,
 * and, when the source answers, the records the copy had not taken: the loss the failover accepts. Consumer
 * offsets need nothing: they mean the same records on both clusters.
 */
public final class MirrorTopicPromotion {

    /** One partition: its end, its stable offset before and after, and the source's end (-1 if not known). */
    public record PartitionResult(
            TopicPartition partition, long endOffset, long stableBefore, long stableAfter, long sourceEnd) {

        /** Records on the source the copy did not hold at the promote; -1 when the source did not answer. */
        public long notCopied() {
            return sourceEnd < 0 ? -1 : Math.max(0, sourceEnd - endOffset);
        }

        /** Whether a transaction was open at the promote (and so was ended by an abort marker). */
        public boolean hadOpenTransaction() {
            return stableBefore < endOffset;
        }
    }

    /** What happened to one topic. */
    public enum Outcome {
        /** A mirror topic that would be promoted (dry run). */
        WOULD_PROMOTE,
        /** Promoted now, every partition stable. */
        PROMOTED,
        /** Was promoted before. */
        ALREADY_PROMOTED,
        /** Promoted, but some partition's open transactions were not ended within the wait. */
        PROMOTED_UNSTABLE
    }

    public record TopicResult(String topic, String source, Outcome outcome, List<PartitionResult> partitions) {}

    private final Admin target;
    private final Optional<Admin> source;
    private final Time time;
    private final Duration stableWait;

    /** @param source the source cluster when it may be reachable; its ends only fill the report */
    public MirrorTopicPromotion(Admin target, Optional<Admin> source, Time time, Duration stableWait) {
        this.target = target;
        this.source = source;
        this.time = time;
        this.stableWait = stableWait;
    }

    /**
     * The mirror topics matching {@code topics}, promoted when {@code execute}.
     *
     * @throws LinkException when the target cluster does not answer
     */
    public List<TopicResult> run(Pattern topics, boolean execute) {
        Map<String, Config> mirrors = MirrorTopicAdmin.mirrorTopics(target, topics, "target");
        List<TopicResult> results = new ArrayList<>();
        for (Map.Entry<String, Config> entry : mirrors.entrySet()) {
            String topic = entry.getKey();
            Config config = entry.getValue();
            boolean promoted =
                    MirrorTopicConfigs.STATE_PROMOTED.equals(MirrorTopicAdmin.value(config, MirrorTopicConfigs.STATE));
            String sourceName =
                    MirrorTopicAdmin.value(config, MirrorTopicConfigs.LINK).isEmpty()
                            ? MirrorTopicAdmin.value(config, MirrorTopicConfigs.SOURCE_BOOTSTRAP_SERVERS)
                            : "link " + MirrorTopicAdmin.value(config, MirrorTopicConfigs.LINK);
            String sourceTopic = MirrorTopicAdmin.value(config, MirrorTopicConfigs.SOURCE_TOPIC)
                            .isEmpty()
                    ? topic
                    : MirrorTopicAdmin.value(config, MirrorTopicConfigs.SOURCE_TOPIC);
            List<TopicPartition> partitions = MirrorTopicAdmin.partitionsOf(target, topic, "target");
            Map<TopicPartition, Long> ends = MirrorTopicAdmin.offsets(target, partitions, OffsetSpec.latest(), false);
            Map<TopicPartition, Long> stableBefore =
                    MirrorTopicAdmin.offsets(target, partitions, OffsetSpec.latest(), true);
            Map<TopicPartition, Long> sourceEnds = sourceEnds(sourceTopic, partitions);
            Outcome outcome;
            Map<TopicPartition, Long> stableAfter = stableBefore;
            if (promoted) {
                outcome = Outcome.ALREADY_PROMOTED;
            } else if (!execute) {
                outcome = Outcome.WOULD_PROMOTE;
            } else {
                promote(topic);
                stableAfter = awaitStable(partitions);
                ends = MirrorTopicAdmin.offsets(target, partitions, OffsetSpec.latest(), false);
                Map<TopicPartition, Long> endsAfter = ends;
                Map<TopicPartition, Long> stable = stableAfter;
                outcome = partitions.stream()
                                .allMatch(tp -> stable.getOrDefault(tp, -1L) >= 0
                                        && stable.get(tp).equals(endsAfter.getOrDefault(tp, -2L)))
                        ? Outcome.PROMOTED
                        : Outcome.PROMOTED_UNSTABLE;
            }
            List<PartitionResult> rows = new ArrayList<>();
            for (TopicPartition tp : partitions) {
                rows.add(new PartitionResult(
                        tp,
                        ends.getOrDefault(tp, -1L),
                        stableBefore.getOrDefault(tp, -1L),
                        stableAfter.getOrDefault(tp, -1L),
                        sourceEnds.getOrDefault(new TopicPartition(sourceTopic, tp.partition()), -1L)));
            }
            results.add(new TopicResult(topic, sourceName, outcome, rows));
        }
        return results;
    }

    private void promote(String topic) {
        MirrorTopicAdmin.alter(
                target, topic, Map.of(MirrorTopicConfigs.STATE, MirrorTopicConfigs.STATE_PROMOTED), "promote");
    }

    /** Waits, bounded, until each partition's stable offset reaches its end; returns the last stable offsets seen. */
    private Map<TopicPartition, Long> awaitStable(List<TopicPartition> partitions) {
        long deadline = time.milliseconds() + stableWait.toMillis();
        while (true) {
            Map<TopicPartition, Long> ends = MirrorTopicAdmin.offsets(target, partitions, OffsetSpec.latest(), false);
            Map<TopicPartition, Long> stable = MirrorTopicAdmin.offsets(target, partitions, OffsetSpec.latest(), true);
            boolean done = partitions.stream()
                    .allMatch(tp ->
                            stable.getOrDefault(tp, -1L) >= 0 && stable.get(tp).equals(ends.getOrDefault(tp, -2L)));
            if (done || time.milliseconds() >= deadline) {
                return stable;
            }
            time.sleep(200);
        }
    }

    private Map<TopicPartition, Long> sourceEnds(String sourceTopic, List<TopicPartition> partitions) {
        if (source.isEmpty()) {
            return Map.of();
        }
        List<TopicPartition> sourcePartitions = new ArrayList<>();
        partitions.forEach(tp -> sourcePartitions.add(new TopicPartition(sourceTopic, tp.partition())));
        try {
            return MirrorTopicAdmin.offsets(source.get(), sourcePartitions, OffsetSpec.latest(), false);
        } catch (LinkException e) {
            return Map.of(); // the source is down: the report says "unknown"
        }
    }
}
