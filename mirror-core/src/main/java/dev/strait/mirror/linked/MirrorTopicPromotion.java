package dev.strait.mirror.linked;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
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
        Map<String, Config> mirrors = mirrorTopics(topics);
        List<TopicResult> results = new ArrayList<>();
        for (Map.Entry<String, Config> entry : mirrors.entrySet()) {
            String topic = entry.getKey();
            Config config = entry.getValue();
            boolean promoted = MirrorTopicConfigs.STATE_PROMOTED.equals(value(config, MirrorTopicConfigs.STATE));
            String sourceName = value(config, MirrorTopicConfigs.LINK).isEmpty()
                    ? value(config, MirrorTopicConfigs.SOURCE_BOOTSTRAP_SERVERS)
                    : "link " + value(config, MirrorTopicConfigs.LINK);
            String sourceTopic = value(config, MirrorTopicConfigs.SOURCE_TOPIC).isEmpty()
                    ? topic
                    : value(config, MirrorTopicConfigs.SOURCE_TOPIC);
            List<TopicPartition> partitions = partitionsOf(topic);
            Map<TopicPartition, Long> ends = offsets(target, partitions, OffsetSpec.latest(), false);
            Map<TopicPartition, Long> stableBefore = offsets(target, partitions, OffsetSpec.latest(), true);
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
                ends = offsets(target, partitions, OffsetSpec.latest(), false);
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

    /** Every topic matching the pattern whose configs name a source, with its configs. */
    private Map<String, Config> mirrorTopics(Pattern topics) {
        try {
            List<ConfigResource> resources = new ArrayList<>();
            for (String name : target.listTopics().names().get(30, TimeUnit.SECONDS)) {
                if (topics.matcher(name).matches()) {
                    resources.add(new ConfigResource(ConfigResource.Type.TOPIC, name));
                }
            }
            Map<String, Config> mirrors = new TreeMap<>();
            if (resources.isEmpty()) {
                return mirrors;
            }
            for (Map.Entry<ConfigResource, Config> e : target.describeConfigs(resources)
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .entrySet()) {
                Config config = e.getValue();
                if (!value(config, MirrorTopicConfigs.SOURCE_BOOTSTRAP_SERVERS).isEmpty()
                        || !value(config, MirrorTopicConfigs.LINK).isEmpty()) {
                    mirrors.put(e.getKey().name(), config);
                }
            }
            return mirrors;
        } catch (ExecutionException | TimeoutException e) {
            throw new LinkException("the target cluster did not list its mirror topics: " + rootMessage(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LinkException("interrupted while listing mirror topics");
        }
    }

    private List<TopicPartition> partitionsOf(String topic) {
        try {
            TopicDescription description = target.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(topic);
            List<TopicPartition> partitions = new ArrayList<>();
            description.partitions().forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
            return partitions;
        } catch (ExecutionException | TimeoutException e) {
            throw new LinkException("cannot describe mirror topic " + topic + ": " + rootMessage(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LinkException("interrupted while describing " + topic);
        }
    }

    private void promote(String topic) {
        try {
            target.incrementalAlterConfigs(Map.of(
                            new ConfigResource(ConfigResource.Type.TOPIC, topic),
                            List.of(new AlterConfigOp(
                                    new ConfigEntry(MirrorTopicConfigs.STATE, MirrorTopicConfigs.STATE_PROMOTED),
                                    AlterConfigOp.OpType.SET))))
                    .all()
                    .get(30, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new LinkException("cannot promote " + topic + ": " + rootMessage(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LinkException("interrupted while promoting " + topic);
        }
    }

    /** Waits, bounded, until each partition's stable offset reaches its end; returns the last stable offsets seen. */
    private Map<TopicPartition, Long> awaitStable(List<TopicPartition> partitions) {
        long deadline = time.milliseconds() + stableWait.toMillis();
        while (true) {
            Map<TopicPartition, Long> ends = offsets(target, partitions, OffsetSpec.latest(), false);
            Map<TopicPartition, Long> stable = offsets(target, partitions, OffsetSpec.latest(), true);
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
            return offsets(source.get(), sourcePartitions, OffsetSpec.latest(), false);
        } catch (LinkException e) {
            return Map.of(); // the source is down: the report says "unknown"
        }
    }

    /** Each partition's offset per the spec; -1 for a partition that answered an error. */
    private static Map<TopicPartition, Long> offsets(
            Admin admin, Collection<TopicPartition> partitions, OffsetSpec spec, boolean readCommitted) {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        partitions.forEach(tp -> request.put(tp, spec));
        ListOffsetsOptions options =
                new ListOffsetsOptions(readCommitted ? IsolationLevel.READ_COMMITTED : IsolationLevel.READ_UNCOMMITTED);
        Map<TopicPartition, Long> result = new HashMap<>();
        var answer = admin.listOffsets(request, options);
        for (TopicPartition tp : partitions) {
            try {
                result.put(
                        tp, answer.partitionResult(tp).get(30, TimeUnit.SECONDS).offset());
            } catch (ExecutionException e) {
                result.put(tp, -1L);
            } catch (TimeoutException e) {
                throw new LinkException("no offsets for " + tp + " within 30 s");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LinkException("interrupted while reading offsets");
            }
        }
        return result;
    }

    private static String value(Config config, String name) {
        ConfigEntry entry = config.get(name);
        return entry == null || entry.value() == null ? "" : entry.value().trim();
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }
}
