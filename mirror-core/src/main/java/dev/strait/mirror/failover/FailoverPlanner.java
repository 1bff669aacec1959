package dev.strait.mirror.failover;

import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.progress.Progress;
import dev.strait.mirror.sync.BelowResolver;
import dev.strait.mirror.sync.Clusters;
import dev.strait.mirror.sync.FailoverMarker;
import dev.strait.mirror.sync.GroupCheckpoint;
import dev.strait.mirror.sync.MapUpkeep;
import dev.strait.mirror.sync.OffsetMap;
import dev.strait.mirror.sync.PartitionIndex;
import dev.strait.mirror.sync.SyncContents;
import dev.strait.mirror.sync.SyncRecords;
import dev.strait.mirror.sync.SyncTopic;
import dev.strait.mirror.sync.TargetReader;
import dev.strait.mirror.sync.Translation;
import dev.strait.mirror.sync.TranslationRound;
import dev.strait.time.Time;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Plans and executes {@code strait failover}: where each matching group resumes on the target, from what the
 * target holds (the provenance of every copy and the offset map the mirror persisted in the sync topic) and the
 * groups' positions on the source, read from the source when it answers and otherwise from the mirror's last
 * checkpoints in the sync topic.
 *
 * <p>Not thread-safe: one command uses it.
 */
public final class FailoverPlanner implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(FailoverPlanner.class);
    /** Records read back from the target for what the persisted map does not cover (the mirror's last seconds). */
    private static final long READ_BUDGET = 20_000_000;

    private static final long TAIL_COUNT_LIMIT = 1_000_000;

    private final FailoverConfig config;
    private final Time time;
    private final Connections connections = new Connections();
    private final Admin targetAdmin;
    private final Admin sourceAdmin;
    private final String targetCluster;
    private final String sourceCluster;
    private final boolean sourceReachable;
    private final SyncTopic syncTopic;
    private final SyncContents contents;
    private final List<String> warnings = new ArrayList<>();

    /** Connects (the target must answer; the source may not) and reads the sync topic. */
    public FailoverPlanner(FailoverConfig config, Time time) {
        this.config = config;
        this.time = time;
        try {
            targetAdmin = connections.admin(config.target(), "strait-failover-target");
            targetCluster = Connections.requireTarget(targetAdmin, config.target());
            sourceAdmin = connections.admin(config.source(), "strait-failover-source");
            String reached = Connections.clusterId(sourceAdmin);
            sourceReachable = reached != null;
            syncTopic = new SyncTopic(config.syncTopic(), config.target(), time);
            contents = SyncContents.read(syncTopic);
            sourceCluster = pickSource(reached, contents);
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    private String pickSource(@Nullable String reached, SyncContents contents) {
        String given = config.sourceClusterId();
        if (reached != null) {
            if (given != null && !given.equals(reached)) {
                throw new FailoverException("source.cluster.id is " + given + " but the source at "
                        + config.source().getProperty("bootstrap.servers") + " is cluster " + reached);
            }
            return reached;
        }
        if (given != null) {
            return given;
        }
        Set<String> known = contents.sourceClusters();
        if (known.size() == 1) {
            return known.iterator().next();
        }
        if (known.isEmpty()) {
            throw new FailoverException(
                    "the source is unreachable and the sync topic " + config.syncTopic() + " on the "
                            + "target holds nothing: without the mirror's offset map and group checkpoints (bin/mirror-maker --groups) "
                            + "there is nothing to translate from. Bring the source back, or check sync.topic");
        }
        throw new FailoverException("the source is unreachable and the sync topic holds several source clusters "
                + known + ": set source.cluster.id in --config");
    }

    public boolean sourceReachable() {
        return sourceReachable;
    }

    public FailoverPlan plan(GroupFilter filter) {
        warnings.clear();
        long now = time.milliseconds();
        Map<String, Map<TopicPartition, Long>> positions = new TreeMap<>();
        Map<String, Long> positionTimes = new HashMap<>();
        Map<TopicPartition, Long> sourceEnds = new HashMap<>();
        if (sourceReachable) {
            List<String> groups = Clusters.consumerGroups(sourceAdmin, filter::matches, Connections.TIMEOUT_MS);
            Map<String, Map<TopicPartition, OffsetAndMetadata>> committed =
                    Clusters.committed(sourceAdmin, groups, Connections.TIMEOUT_MS);
            committed.forEach((g, offsets) -> {
                Map<TopicPartition, Long> m = new HashMap<>();
                offsets.forEach((tp, om) -> m.put(tp, om.offset()));
                positions.put(g, m);
                positionTimes.put(g, now);
            });
        } else {
            warnings.add(
                    "the source is unreachable: each group's positions are the mirror's last checkpoint of it; records "
                            + "the source took after that are not counted in 'not on target'");
            for (GroupCheckpoint c : contents.checkpoints(sourceCluster).values()) {
                if (filter.matches(c.group())) {
                    positions.put(c.group(), new HashMap<>(c.committed()));
                    positionTimes.put(c.group(), c.timeMs());
                    c.sourceEnds().forEach((tp, end) -> sourceEnds.merge(tp, end, Math::max));
                }
            }
        }
        // Only topics that have a target topic are mirrored.
        Set<String> sourceTopics = new HashSet<>();
        positions.values().forEach(m -> m.keySet().forEach(tp -> sourceTopics.add(tp.topic())));
        Map<String, String> targetOf = new HashMap<>();
        sourceTopics.forEach(t -> targetOf.put(t, config.renamer().targetTopic(t)));
        Map<String, Integer> targetCounts =
                Clusters.partitionCounts(targetAdmin, new HashSet<>(targetOf.values()), Connections.TIMEOUT_MS);
        for (String t : sourceTopics) {
            if (!targetCounts.containsKey(targetOf.get(t))) {
                warnings.add("topic " + t + " has no target topic " + targetOf.get(t) + ": not mirrored, left out");
            }
        }
        positions.values().forEach(m -> m.keySet().removeIf(tp -> !targetCounts.containsKey(targetOf.get(tp.topic()))));
        Set<TopicPartition> targetTps = new HashSet<>();
        targetCounts.forEach((topic, n) -> {
            for (int p = 0; p < n; p++) {
                targetTps.add(new TopicPartition(topic, p));
            }
        });

        OffsetMap map = contents.offsetMap(sourceCluster, Integer.MAX_VALUE / 4);
        targetTps.forEach(map::history);
        Map<TopicPartition, Long> knownEnds = MapUpkeep.knownEnds(map);
        Map<TopicPartition, Long> starts = Clusters.startOffsets(targetAdmin, targetTps, Connections.TIMEOUT_MS);
        Map<TopicPartition, Long> ends = Clusters.endOffsets(targetAdmin, targetTps, Connections.TIMEOUT_MS);
        TranslationRound round;
        try (TargetReader reader = new TargetReader(config.target(), sourceCluster, time, Connections.TIMEOUT_MS)) {
            MapUpkeep.Result upkeep = MapUpkeep.run(map, reader, knownEnds, starts, ends, READ_BUDGET, ends);
            if (upkeep.recordsRead() > 0) {
                LOGGER.info(
                        "Read {} records back from the target that the persisted offset map did not cover",
                        upkeep.recordsRead());
            }
            if (!upkeep.complete()) {
                warnings.add("the target holds more than " + READ_BUDGET + " records the offset map does not cover: "
                        + "positions below them were found by binary search over the records' provenance");
            }
            // No source ends: those of checkpoints are lower bounds, so no group counts as consumed to the end.
            round = new TranslationRound(map, config.renamer(), starts, ends, Map.of());
            BelowResolver below = new BelowResolver(reader).from(map);
            Map<String, Map<TopicPartition, Translation>> translated = new TreeMap<>();
            for (Map.Entry<String, Map<TopicPartition, Long>> e : positions.entrySet()) {
                translated.put(e.getKey(), below.resolve(round, round.translate(e.getValue()), e.getValue(), starts));
            }
            return assemble(now, positions, positionTimes, translated, round, sourceEnds);
        }
    }

    private FailoverPlan assemble(
            long now,
            Map<String, Map<TopicPartition, Long>> positions,
            Map<String, Long> positionTimes,
            Map<String, Map<TopicPartition, Translation>> translated,
            TranslationRound round,
            Map<TopicPartition, Long> savedSourceEnds) {
        List<String> groups = new ArrayList<>(positions.keySet());
        Map<String, Integer> members = Clusters.members(targetAdmin, groups, Connections.TIMEOUT_MS);
        Map<String, Map<TopicPartition, OffsetAndMetadata>> current =
                Clusters.committed(targetAdmin, groups, Connections.TIMEOUT_MS);
        Set<TopicPartition> sources = new HashSet<>();
        positions.values().forEach(m -> sources.addAll(m.keySet()));
        Map<TopicPartition, FailoverPlan.SourceState> loss = lossBySource(sources, round, savedSourceEnds);
        List<FailoverPlan.GroupPlan> out = new ArrayList<>();
        for (String g : groups) {
            // Both maps hold every group of the positions read.
            Map<TopicPartition, Long> pos = Objects.requireNonNull(positions.get(g), "positions of a listed group");
            List<FailoverPlan.PartitionPlan> parts = new ArrayList<>();
            for (Translation t : Objects.requireNonNull(translated.get(g), "translation of a listed group")
                    .values()) {
                List<FailoverPlan.SourceState> feeding = new ArrayList<>();
                PartitionIndex index = round.index(t.target());
                Set<TopicPartition> feeders = index == null || index.sources().isEmpty()
                        ? Set.of(new TopicPartition(
                                sourceTopicOf(pos, t.target()), t.target().partition()))
                        : new java.util.TreeSet<>(java.util.Comparator.comparing(TopicPartition::topic)
                                .thenComparingInt(TopicPartition::partition));
                if (index != null && !index.sources().isEmpty()) {
                    feeders.addAll(index.sources());
                }
                for (TopicPartition f : feeders) {
                    FailoverPlan.SourceState base = loss.get(f);
                    long c = pos.getOrDefault(f, -1L);
                    feeding.add(
                            base == null
                                    ? new FailoverPlan.SourceState(f, c, -1, -1, false, -1)
                                    : new FailoverPlan.SourceState(
                                            f,
                                            c,
                                            base.sourceEnd(),
                                            base.notOnTarget(),
                                            base.notOnTargetAtLeast(),
                                            base.notOnTargetAgeSeconds()));
                }
                OffsetAndMetadata now2 = current.getOrDefault(g, Map.of()).get(t.target());
                parts.add(new FailoverPlan.PartitionPlan(
                        t.target(), t.offset(), now2 == null ? -1 : now2.offset(), t.readAgain(), t.exact(), feeding));
            }
            String problem = pos.isEmpty() ? "no committed offsets on mirrored topics" : null;
            out.add(new FailoverPlan.GroupPlan(
                    g, members.getOrDefault(g, 0), positionTimes.getOrDefault(g, now), parts, problem));
        }
        return new FailoverPlan(sourceReachable, sourceCluster, targetCluster, now, out, List.copyOf(warnings));
    }

    private static String sourceTopicOf(Map<TopicPartition, Long> positions, TopicPartition target) {
        for (TopicPartition tp : positions.keySet()) {
            if (tp.partition() == target.partition()) {
                return tp.topic();
            }
        }
        return target.topic();
    }

    /** Per source partition: its end and how many of its records the target lacks. */
    private Map<TopicPartition, FailoverPlan.SourceState> lossBySource(
            Set<TopicPartition> sources, TranslationRound round, Map<TopicPartition, Long> savedEnds) {
        Map<TopicPartition, FailoverPlan.SourceState> out = new HashMap<>();
        Map<TopicPartition, Long> frontier = new HashMap<>();
        for (TopicPartition s : sources) {
            long f = -1;
            for (PartitionIndex index : round.targetsOf(s)) {
                f = Math.max(f, index.frontier(s));
            }
            frontier.put(s, f);
        }
        if (!sourceReachable) {
            for (TopicPartition s : sources) {
                Long end = savedEnds.get(s);
                long f = Math.max(0, frontier.getOrDefault(s, -1L));
                out.put(
                        s,
                        new FailoverPlan.SourceState(
                                s, -1, end == null ? -1 : end, end == null ? -1 : Math.max(0, end - f), true, -1));
            }
            return out;
        }
        Map<TopicPartition, Long> ends = Clusters.endOffsets(sourceAdmin, sources, Connections.TIMEOUT_MS);
        Map<TopicPartition, Long> starts = Clusters.startOffsets(sourceAdmin, sources, Connections.TIMEOUT_MS);
        try (SourceTail tail = new SourceTail(config.source(), targetCluster, time, TAIL_COUNT_LIMIT)) {
            for (TopicPartition s : sources) {
                long end = ends.getOrDefault(s, -1L);
                long from = Math.max(starts.getOrDefault(s, 0L), Math.max(0, frontier.getOrDefault(s, -1L)));
                SourceTail.Missing m = end < 0 ? new SourceTail.Missing(-1, false, -1) : tail.missing(s, from, end);
                out.put(s, new FailoverPlan.SourceState(s, -1, end, m.records(), m.atLeast(), m.oldestAgeSeconds()));
            }
        }
        return out;
    }

    /** What {@link #execute} did with one group. */
    public enum Outcome {
        MOVED,
        REFUSED_ACTIVE,
        NOTHING_TO_MOVE,
        FAILED
    }

    public record GroupResult(
            String group, Outcome outcome, @Nullable String message) {}

    /**
     * Writes the plan's offsets to the target groups (never to a group with members on the target unless
     * {@code force}) and records a failover marker for every target topic involved (what failback copies back
     * starts there). Returns one result per group.
     */
    public List<GroupResult> execute(FailoverPlan plan, boolean force) {
        return execute(plan, force, Progress.off());
    }

    /** {@link #execute(FailoverPlan, boolean)}, reporting the groups done to {@code progress}. */
    public List<GroupResult> execute(FailoverPlan plan, boolean force, Progress progress) {
        progress.start(plan.groups().size());
        try {
            return moveGroups(plan, force, progress);
        } finally {
            progress.finish();
        }
    }

    private List<GroupResult> moveGroups(FailoverPlan plan, boolean force, Progress progress) {
        List<GroupResult> results = new ArrayList<>();
        Set<String> topics = new HashSet<>();
        for (FailoverPlan.GroupPlan g : plan.groups()) {
            // Before each group: one admin round trip each, so thousands of groups take minutes.
            progress.update(results.size());
            if (g.problem() != null || g.partitions().isEmpty()) {
                results.add(new GroupResult(
                        g.group(),
                        Outcome.NOTHING_TO_MOVE,
                        g.problem() == null ? "no positions on mirrored topics" : g.problem()));
                continue;
            }
            if (g.activeMembers() > 0 && !force) {
                results.add(
                        new GroupResult(
                                g.group(),
                                Outcome.REFUSED_ACTIVE,
                                g.activeMembers()
                                        + " members are active on the target; stop them, or use --force to remove them from the group first"));
                continue;
            }
            if (g.activeMembers() > 0) {
                // Kafka refuses offsets for a group with members: --force removes them (they rejoin and read the
                // new offsets).
                try {
                    targetAdmin
                            .removeMembersFromConsumerGroup(
                                    g.group(),
                                    new org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions())
                            .all()
                            .get(Connections.TIMEOUT_MS, TimeUnit.MILLISECONDS);
                } catch (Exception e) {
                    results.add(new GroupResult(
                            g.group(),
                            Outcome.FAILED,
                            "could not remove its " + g.activeMembers() + " members on the target (--force): "
                                    + (e.getCause() == null ? e : e.getCause()).getMessage()));
                    continue;
                }
            }
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            for (FailoverPlan.PartitionPlan p : g.partitions()) {
                offsets.put(p.target(), new OffsetAndMetadata(p.offset()));
                topics.add(p.target().topic());
            }
            try {
                targetAdmin
                        .alterConsumerGroupOffsets(g.group(), offsets)
                        .all()
                        .get(Connections.TIMEOUT_MS, TimeUnit.MILLISECONDS);
                results.add(new GroupResult(g.group(), Outcome.MOVED, offsets.size() + " partitions"));
            } catch (ExecutionException e) {
                results.add(new GroupResult(g.group(), Outcome.FAILED, failure(e, g.group(), offsets)));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                results.add(new GroupResult(g.group(), Outcome.FAILED, "interrupted"));
            } catch (java.util.concurrent.TimeoutException e) {
                results.add(new GroupResult(g.group(), Outcome.FAILED, "timed out"));
            }
        }
        progress.update(results.size());
        writeMarkers(topics);
        return results;
    }

    /** Kafka's message for a refused offset commit names the partitions only: say which grant is missing. */
    private static @Nullable String failure(
            ExecutionException e, String group, Map<TopicPartition, OffsetAndMetadata> offsets) {
        Throwable cause = e.getCause() == null ? e : e.getCause();
        if (!(cause instanceof org.apache.kafka.common.errors.AuthorizationException)) {
            return cause.getMessage();
        }
        Set<String> topics = new java.util.TreeSet<>();
        offsets.keySet().forEach(tp -> topics.add(tp.topic()));
        boolean onGroup = cause instanceof org.apache.kafka.common.errors.GroupAuthorizationException;
        String resource = onGroup ? "group " + group : "topic " + String.join(", ", topics);
        return "the target cluster denied the principal of the target. settings READ on " + resource + " ("
                + cause.getClass().getSimpleName() + "): grant it (kafka-acls --bootstrap-server <target> --add "
                + "--allow-principal User:<failover> --operation Read "
                + (onGroup ? "--group " + group : "--topic " + topics.iterator().next()) + ")";
    }

    private void writeMarkers(Set<String> topics) {
        Map<String, FailoverMarker> existing = contents.markers(sourceCluster);
        Set<TopicPartition> tps = Clusters.partitions(targetAdmin, topics, Connections.TIMEOUT_MS);
        Map<TopicPartition, Long> ends = Clusters.endOffsets(targetAdmin, tps, Connections.TIMEOUT_MS);
        long now = time.milliseconds();
        for (String topic : topics) {
            if (existing.containsKey(topic)) {
                continue;
            }
            Map<Integer, Long> byPartition = new HashMap<>();
            ends.forEach((tp, end) -> {
                if (tp.topic().equals(topic)) {
                    byPartition.put(tp.partition(), end);
                }
            });
            FailoverMarker marker = new FailoverMarker(topic, now, byPartition);
            try {
                syncTopic.ensure(targetAdmin, (short) -1);
                syncTopic
                        .write(SyncRecords.failoverKey(sourceCluster, topic), SyncRecords.encode(marker))
                        .get(Connections.TIMEOUT_MS, TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                warnings.add("could not record the failover point of " + topic + " in the sync topic (" + e.getMessage()
                        + "): failback will start from the records' provenance instead");
            }
        }
    }

    public List<String> warnings() {
        return List.copyOf(warnings);
    }

    @Override
    public void close() {
        if (syncTopic != null) {
            syncTopic.close();
        }
        connections.close();
    }
}
