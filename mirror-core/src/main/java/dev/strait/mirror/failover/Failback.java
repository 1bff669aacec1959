package dev.strait.mirror.failover;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.config.MirrorSettings;
import dev.strait.mirror.config.PartitionMode;
import dev.strait.mirror.config.SyncSettings;
import dev.strait.mirror.config.TopicConfigFilter;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.mirror.config.TopicSyncSettings;
import dev.strait.mirror.engine.MirrorEngine;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.progress.Progress;
import dev.strait.mirror.sync.Clusters;
import dev.strait.mirror.sync.FailoverMarker;
import dev.strait.mirror.sync.MapUpkeep;
import dev.strait.mirror.sync.OffsetMap;
import dev.strait.mirror.sync.SyncContents;
import dev.strait.mirror.sync.SyncRecords;
import dev.strait.mirror.sync.SyncTopic;
import dev.strait.mirror.sync.TargetReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.ClusterAuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.utils.Time;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code strait failback}: returns to the source after a failover. A reverse mirror (target to source, the
 * source's topic names, loop prevention on) copies the records written on the target after the failover, and
 * only those: it starts at the failover point {@code failover --execute} recorded (or, without one, after the
 * last copy that came from the source). Source records that never reached the target before the failover are
 * divergence: they stay on the source, before the records copied back, and are named. Each group then resumes on
 * the source where it stopped on the target: at the source original of the first copy it had not read, or, if
 * it read records written on the target, after their copies on the source.
 *
 * <p>This class does the reading and the writing: it reads both clusters into a {@link FailbackObservation},
 * {@link FailbackPlanner} decides, and {@link #execute} carries the plan out (the reverse mirror, the groups'
 * offsets on the source, the failover points). Partitions keep their numbers in both directions (the mirror's
 * preserve mode). Not thread-safe.
 */
public final class Failback implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(Failback.class);
    private static final long READ_BUDGET = 20_000_000;
    private static final long POLL_MS = 500;

    private final FailoverConfig config;
    private final Time time;
    private final Connections connections = new Connections();
    private final Admin sourceAdmin;
    private final Admin targetAdmin;
    private final String sourceCluster;
    private final String targetCluster;
    private final SyncTopic syncTopic;
    private final SyncContents contents;
    /** What the last {@link #plan} read; {@link #execute} goes on from it. */
    private FailbackObservation observed;

    public Failback(FailoverConfig config, Time time) {
        this.config = config;
        this.time = time;
        try {
            targetAdmin = connections.admin(config.target(), "strait-failback-target");
            targetCluster = Connections.requireTarget(targetAdmin, config.target());
            sourceAdmin = connections.admin(config.source(), "strait-failback-source");
            sourceCluster = Connections.clusterId(sourceAdmin);
            if (sourceCluster == null) {
                throw new FailoverException(
                        "cannot reach the source cluster at " + config.source().getProperty("bootstrap.servers")
                                + ": a failback writes to the source, so it must be back first");
            }
            syncTopic = new SyncTopic(config.syncTopic(), config.target(), time);
            contents = onTarget("READ", "topic", Set.of(config.syncTopic()), () -> SyncContents.read(syncTopic));
        } catch (RuntimeException e) {
            close();
            throw e;
        }
    }

    /** The reverse mirror's consumer group on the target. */
    public String reverseGroup() {
        return "strait-failback-" + sourceCluster;
    }

    public FailbackPlan plan(GroupFilter groups) {
        observed = observe(groups, time.milliseconds());
        return FailbackPlanner.plan(observed, groups);
    }

    private FailbackObservation observe(GroupFilter filter, long now) {
        Map<String, FailoverMarker> markers = contents.markers(sourceCluster);
        OffsetMap forwardMap = contents.offsetMap(sourceCluster, Integer.MAX_VALUE / 4);
        Set<String> mapped = new HashSet<>();
        forwardMap.histories().forEach(h -> mapped.add(h.target().topic()));
        Set<String> targetTopics = FailbackPlanner.targetTopics(markers, mapped, config.syncTopic(), sourceCluster);
        Set<String> sourceNames =
                Clusters.get(sourceAdmin.listTopics().names(), Connections.TIMEOUT_MS, "list source topics");
        FailbackPlanner.Scope scope = FailbackPlanner.scope(markers, targetTopics, sourceNames, config.renamer());
        Map<String, Integer> counts = onTarget(
                "READ",
                "topic",
                targetTopics,
                () -> Clusters.partitionCounts(targetAdmin, targetTopics, Connections.TIMEOUT_MS));
        Set<TopicPartition> tps = new HashSet<>();
        counts.forEach((t, n) -> {
            for (int p = 0; p < n; p++) {
                tps.add(new TopicPartition(t, p));
            }
        });
        tps.forEach(forwardMap::history);
        Map<TopicPartition, Long> starts = onTarget(
                "READ", "topic", targetTopics, () -> Clusters.startOffsets(targetAdmin, tps, Connections.TIMEOUT_MS));
        Map<TopicPartition, Long> ends = onTarget(
                "READ", "topic", targetTopics, () -> Clusters.endOffsets(targetAdmin, tps, Connections.TIMEOUT_MS));
        Map<TopicPartition, Long> readTo = FailbackPlanner.readTo(tps, markers, ends);
        onTarget("READ", "topic", targetTopics, () -> {
            try (TargetReader reader = new TargetReader(config.target(), sourceCluster, time, Connections.TIMEOUT_MS)) {
                MapUpkeep.run(forwardMap, reader, MapUpkeep.knownEnds(forwardMap), starts, ends, READ_BUDGET, readTo);
            }
            return null;
        });
        ForwardCopies forward = ForwardCopies.of(forwardMap);

        Map<TopicPartition, TopicPartition> sourceOf = new TreeMap<>(FailbackObservation.ORDER);
        tps.forEach(tp ->
                sourceOf.put(tp, new TopicPartition(scope.sourceTopicOf().get(tp.topic()), tp.partition())));
        Set<String> sourceTopics = new HashSet<>(scope.sourceTopicOf().values());
        Set<TopicPartition> sourceTps = new HashSet<>(sourceOf.values());
        sourceTps.retainAll(onSource(
                "READ",
                "topic",
                sourceTopics,
                () -> Clusters.partitions(sourceAdmin, sourceTopics, Connections.TIMEOUT_MS)));
        Map<TopicPartition, Long> sourceEnds = onSource(
                "READ",
                "topic",
                sourceTopics,
                () -> Clusters.endOffsets(sourceAdmin, sourceTps, Connections.TIMEOUT_MS));
        Map<TopicPartition, SourceTail.Missing> divergence = new HashMap<>();
        try (SourceTail tail = new SourceTail(config.source(), targetCluster, time, 1_000_000)) {
            for (TopicPartition sp : sourceOf.values()) {
                long frontier = Math.max(0, forward.frontier(sp));
                long sourceEnd = sourceEnds.getOrDefault(sp, 0L);
                divergence.put(
                        sp, onSource("READ", "topic", Set.of(sp.topic()), () -> tail.missing(sp, frontier, sourceEnd)));
            }
        }
        return new FailbackObservation(
                sourceCluster,
                targetCluster,
                now,
                scope,
                markers,
                counts,
                starts,
                ends,
                forward,
                sourceEnds,
                divergence,
                contents.checkpoints(sourceCluster),
                observeGroups(filter));
    }

    /** The matching groups on the target (never the reverse mirror's own): their offsets and members. */
    private List<FailbackObservation.Group> observeGroups(GroupFilter filter) {
        String reverseGroup = reverseGroup();
        List<String> names = Clusters.consumerGroups(
                targetAdmin, g -> !g.equals(reverseGroup) && filter.matches(g), Connections.TIMEOUT_MS);
        Map<String, Map<TopicPartition, OffsetAndMetadata>> committed = onTarget(
                "DESCRIBE", "group", names, () -> Clusters.committed(targetAdmin, names, Connections.TIMEOUT_MS));
        Map<String, Integer> onTarget = onTarget(
                "DESCRIBE", "group", names, () -> Clusters.members(targetAdmin, names, Connections.TIMEOUT_MS));
        Map<String, Integer> onSource = onSource(
                "DESCRIBE", "group", names, () -> Clusters.members(sourceAdmin, names, Connections.TIMEOUT_MS));
        List<FailbackObservation.Group> out = new ArrayList<>();
        for (String g : names) {
            Map<TopicPartition, Long> offsets = new HashMap<>();
            committed.getOrDefault(g, Map.of()).forEach((tp, om) -> offsets.put(tp, om.offset()));
            out.add(new FailbackObservation.Group(
                    g, offsets, onTarget.getOrDefault(g, 0), onSource.getOrDefault(g, 0)));
        }
        return out;
    }

    /**
     * Copies the records written on the target after the failover back to the source (waits until the copy
     * reaches the target's end as of now, at most {@code timeout}), then moves the groups on the source and clears
     * the failover points. Returns the plan with what was done.
     */
    public FailbackPlan execute(FailbackPlan plan, GroupFilter filter, boolean force, Duration timeout)
            throws InterruptedException {
        return execute(plan, filter, force, timeout, Progress.off());
    }

    /** {@link #execute(FailbackPlan, GroupFilter, boolean, Duration)}, reporting the copy's records to {@code progress}. */
    public FailbackPlan execute(
            FailbackPlan plan, GroupFilter filter, boolean force, Duration timeout, Progress progress)
            throws InterruptedException {
        if (observed == null) {
            throw new IllegalStateException("execute needs the plan of this Failback: call plan first");
        }
        Optional<String> refused = FailbackPlanner.refusal(plan, force);
        if (refused.isPresent()) {
            throw new FailoverException(refused.get());
        }
        Map<TopicPartition, Long> points = FailbackPlanner.failoverPoints(observed);
        Set<TopicPartition> tps = new HashSet<>(points.keySet());
        Map<TopicPartition, Long> endsAtStart = Clusters.endOffsets(targetAdmin, tps, Connections.TIMEOUT_MS);
        OffsetMap reverse = new OffsetMap(targetCluster, OffsetMap.DEFAULT_MAX_SEGMENTS);
        Map<TopicPartition, Long> resume = FailbackPlanner.resumePoints(
                points, observed.scope().sourceTopicOf(), learnCopiesBack(reverse, tps), CopiesBack.of(reverse));
        Map<TopicPartition, OffsetAndMetadata> start = new HashMap<>();
        resume.forEach((tp, offset) -> start.put(tp, new OffsetAndMetadata(offset)));
        String group = reverseGroup();
        onTarget(
                "READ",
                "group",
                Set.of(group),
                () -> Clusters.get(
                        targetAdmin.alterConsumerGroupOffsets(group, start).all(),
                        Connections.TIMEOUT_MS,
                        "set the failback mirror's start offsets on the target (is a failback already running?)"));
        copyBack(group, tps, new CopyRange(resume, endsAtStart), timeout, progress, reverse);

        List<String> warnings = new ArrayList<>(plan.warnings());
        Map<TopicPartition, Long> endsAfter = Clusters.endOffsets(targetAdmin, tps, Connections.TIMEOUT_MS);
        warnings.addAll(FailbackPlanner.writtenDuringCopy(endsAtStart, endsAfter));
        CopiesBack copies = CopiesBack.of(reverse);
        List<FailbackPlan.TopicBack> topics = FailbackPlanner.copiedBack(plan.topics(), copies);
        List<FailbackPlan.GroupBack> groups = new ArrayList<>();
        for (FailbackPlan.GroupBack g : FailbackPlanner.groups(
                observed.withGroups(observeGroups(filter)),
                points,
                copies,
                FailbackPlanner.divergentEnds(plan.topics()))) {
            groups.add(moveOnSource(g, force));
        }
        Optional<String> kept = FailbackPlanner.keepFailoverPoints(groups);
        if (kept.isPresent()) {
            warnings.add(kept.get());
        } else {
            warnings.addAll(clearFailoverPoints(plan));
        }
        return new FailbackPlan(
                plan.sourceCluster(), plan.targetCluster(), time.milliseconds(), topics, groups, List.copyOf(warnings));
    }

    /**
     * Runs the reverse mirror from {@code range.from()} until its commits reach {@code range.ends()} (at most
     * {@code timeout}); {@code reverse} learns each copy it writes.
     */
    private void copyBack(
            String group,
            Set<TopicPartition> tps,
            CopyRange range,
            Duration timeout,
            Progress progress,
            OffsetMap reverse)
            throws InterruptedException {
        MirrorEngine engine = new MirrorEngine(
                reverseSettings(group, tps), new MirrorMetrics(new MetricRegistry()), time, reverse::acknowledged);
        engine.start();
        long deadline = time.milliseconds() + timeout.toMillis();
        progress.start(range.total());
        try {
            while (true) {
                Map<TopicPartition, Long> reached = committed(group);
                progress.update(range.total() - range.remaining(reached));
                if (range.done(reached)) {
                    break;
                }
                if (engine.state() == MirrorEngine.State.FAILED) {
                    throw mirrorFailed(engine.failure(), group);
                }
                if (time.milliseconds() > deadline) {
                    throw new FailoverException(
                            "the failback copy did not reach the target's end within " + timeout.toSeconds()
                                    + " s; run failback --execute again to go on (it resumes where it stopped)");
                }
                time.sleep(POLL_MS);
            }
        } finally {
            progress.finish();
            engine.requestStop();
            if (!engine.awaitTermination(Duration.ofMinutes(2))) {
                LOGGER.warn("The failback mirror did not stop within 2 minutes");
            }
        }
    }

    /**
     * Teaches {@code reverse} the copies an earlier failback run already wrote to the source (found from the
     * copies' provenance), so that the copy goes on after them and groups translate through them. Returns the
     * source partitions that exist.
     */
    private Set<TopicPartition> learnCopiesBack(OffsetMap reverse, Set<TopicPartition> tps) {
        Map<String, String> sourceTopicOf = observed.scope().sourceTopicOf();
        Set<String> sourceNames = new HashSet<>(sourceTopicOf.values());
        Set<TopicPartition> existing = onSource(
                "READ",
                "topic",
                sourceNames,
                () -> Clusters.partitions(sourceAdmin, sourceNames, Connections.TIMEOUT_MS));
        Set<TopicPartition> present = new HashSet<>();
        tps.forEach(tp -> present.add(observed.sourceOf(tp)));
        present.retainAll(existing);
        Map<TopicPartition, Long> sourceEnds = onSource(
                "READ", "topic", sourceNames, () -> Clusters.endOffsets(sourceAdmin, present, Connections.TIMEOUT_MS));
        onSource("READ", "topic", sourceNames, () -> {
            try (TargetReader reader = new TargetReader(config.source(), targetCluster, time, Connections.TIMEOUT_MS)) {
                for (TopicPartition tp : tps) {
                    TopicPartition sp = observed.sourceOf(tp);
                    if (!present.contains(sp)) {
                        continue;
                    }
                    // Copies back land after what the forward mirror had copied (and the divergent records).
                    long from = Math.max(0, observed.forward().frontier(sp));
                    long end = sourceEnds.get(sp);
                    long reached = reader.fill(reverse.history(sp), from, end);
                    if (reached < end) {
                        throw new FailoverException("could not read " + sp + " on the source from offset " + from
                                + " to its end " + end + " within " + Connections.TIMEOUT_MS / 1000 + " s to find "
                                + "what an earlier failback copied back; nothing was copied: run failback again");
                    }
                }
            }
            return null;
        });
        return present;
    }

    private FailbackPlan.GroupBack moveOnSource(FailbackPlan.GroupBack g, boolean force) {
        FailbackPlanner.Move move = FailbackPlanner.move(g, force);
        String outcome = move.outcome();
        if (outcome == null) {
            Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
            move.offsets().forEach((sp, offset) -> offsets.put(sp, new OffsetAndMetadata(offset)));
            try {
                if (move.removeMembers()) {
                    Clusters.get(
                            sourceAdmin
                                    .removeMembersFromConsumerGroup(
                                            g.group(), new RemoveMembersFromConsumerGroupOptions())
                                    .all(),
                            Connections.TIMEOUT_MS,
                            "remove the members of " + g.group() + " on the source");
                }
                Clusters.get(
                        sourceAdmin
                                .alterConsumerGroupOffsets(g.group(), offsets)
                                .all(),
                        Connections.TIMEOUT_MS,
                        "write the offsets of " + g.group() + " on the source");
                outcome = "moved";
            } catch (RuntimeException e) {
                outcome = "failed: "
                        + Denial.translate(e, "source", "READ", "group", Set.of(g.group()))
                                .getMessage();
            }
        }
        return new FailbackPlan.GroupBack(g.group(), g.activeOnTarget(), g.activeOnSource(), g.partitions(), outcome);
    }

    /** Clears the failover point of each topic of {@code plan}; returns a warning per one it could not clear. */
    private List<String> clearFailoverPoints(FailbackPlan plan) {
        List<String> warnings = new ArrayList<>();
        for (FailbackPlan.TopicBack t : plan.topics()) {
            try {
                syncTopic
                        .write(SyncRecords.failoverKey(sourceCluster, t.targetTopic()), null)
                        .get(Connections.TIMEOUT_MS, TimeUnit.MILLISECONDS);
            } catch (Exception e) {
                AuthorizationException denied = Denial.find(e);
                warnings.add("could not clear the failover point of " + t.targetTopic() + ": "
                        + (denied == null
                                ? e.getMessage()
                                : Denial.line("target", denied, "WRITE", "topic", Set.of(config.syncTopic()))));
            }
        }
        return warnings;
    }

    /** The reverse mirror's committed offsets on the target: how far its copy got. */
    private Map<TopicPartition, Long> committed(String group) {
        Map<TopicPartition, Long> out = new HashMap<>();
        Clusters.committed(targetAdmin, List.of(group), Connections.TIMEOUT_MS)
                .getOrDefault(group, Map.of())
                .forEach((tp, c) -> out.put(tp, c.offset()));
        return out;
    }

    private MirrorSettings reverseSettings(String group, Set<TopicPartition> tps) {
        Properties consumer = config.target();
        consumer.put("group.id", group);
        consumer.put("auto.offset.reset", "none");
        Properties producer = config.source();
        Set<String> topics = new TreeSet<>();
        tps.forEach(tp -> topics.add(tp.topic()));
        StringBuilder include = new StringBuilder();
        for (String t : topics) {
            include.append(include.length() == 0 ? "" : "|").append(Pattern.quote(t));
        }
        return MirrorSettings.builder()
                .consumerConfig(consumer)
                .producerConfig(producer)
                .include(include.toString())
                .offsetCommitIntervalMs(1000)
                .partitionMode(PartitionMode.PRESERVE)
                .renamer(TopicRenamer.explicit(observed.scope().sourceTopicOf()))
                .sync(new SyncSettings(
                        null,
                        SyncSettings.DEFAULT_GROUP_OFFSETS_INTERVAL_MS,
                        false,
                        SyncSettings.DEFAULT_SYNC_TOPIC,
                        new TopicSyncSettings(false, true, false, 60_000, TopicConfigFilter.defaults())))
                .build();
    }

    /**
     * The reverse mirror's failure as one line. Its messages speak of the mirror's own flags (--producer.config);
     * here its producer is the source. settings and its consumer the target. settings, so a refusal says that.
     */
    private FailoverException mirrorFailed(Throwable failure, String group) {
        AuthorizationException denied = Denial.find(failure);
        if (denied == null) {
            return new FailoverException("the failback mirror failed: " + failure.getMessage(), failure);
        }
        Set<String> sourceNames = observed.sourceTopics();
        String line;
        if (denied instanceof GroupAuthorizationException) {
            line = Denial.line("target", denied, "READ", "group", Set.of(group));
        } else if (denied instanceof ClusterAuthorizationException) {
            // Kafka refuses the idempotent producer's InitProducerId with no WRITE on any topic; WRITE implies it.
            line = Denial.line("source", denied, "WRITE", "topic", sourceNames);
        } else if (failure.getMessage() != null && failure.getMessage().startsWith("send of source record")) {
            // The engine's send failures (MirrorStream.abortError) start so: the source refused the copy.
            line = Denial.line("source", denied, "WRITE", "topic", sourceNames);
        } else {
            line = Denial.line(
                    "target",
                    denied,
                    "READ",
                    "topic",
                    new TreeSet<>(observed.scope().sourceTopicOf().keySet()));
        }
        return new FailoverException(
                "the failback mirror stopped; nothing was copied past the refused record: " + line, failure);
    }

    private <T> T onTarget(String operation, String kind, Set<String> names, Supplier<T> step) {
        try {
            return step.get();
        } catch (RuntimeException e) {
            throw Denial.translate(e, "target", operation, kind, names);
        }
    }

    private <T> T onTarget(String operation, String kind, List<String> names, Supplier<T> step) {
        return onTarget(operation, kind, new HashSet<>(names), step);
    }

    private <T> T onSource(String operation, String kind, Set<String> names, Supplier<T> step) {
        try {
            return step.get();
        } catch (RuntimeException e) {
            throw Denial.translate(e, "source", operation, kind, names);
        }
    }

    private <T> T onSource(String operation, String kind, List<String> names, Supplier<T> step) {
        return onSource(operation, kind, new HashSet<>(names), step);
    }

    @Override
    public void close() {
        if (syncTopic != null) {
            syncTopic.close();
        }
        connections.close();
    }
}
