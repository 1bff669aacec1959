package dev.strait.mirror.failover;

import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.progress.Progress;
import dev.strait.mirror.sync.Clusters;
import dev.strait.mirror.sync.OffsetMap;
import dev.strait.mirror.sync.SyncContents;
import dev.strait.mirror.sync.SyncRecords;
import dev.strait.mirror.sync.SyncTopic;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.AuthorizationException;
import org.jspecify.annotations.Nullable;

/**
 * {@code strait failback}: returns to the source after a failover. A reverse mirror (target to source, the
 * source's topic names, loop prevention on) copies the records written on the target after the failover, and
 * only those: it starts at the failover point {@code failover --execute} recorded (or, without one, after the
 * last copy that came from the source). Source records that never reached the target before the failover are
 * divergence: they stay on the source, before the records copied back, and are named. Each group then resumes on
 * the source where it stopped on the target: at the source original of the first copy it had not read, or, if
 * it read records written on the target, after their copies on the source.
 *
 * <p>{@link FailbackReader} reads both clusters into a {@link FailbackObservation}, {@link FailbackPlanner} decides
 * from it, and this class carries the plan out: {@link ReverseCopy} copies back, then the groups' offsets are
 * written on the source and the failover points cleared. Partitions keep their numbers in both directions (the
 * mirror's preserve mode). Not thread-safe.
 */
public final class Failback implements AutoCloseable {
    private final FailoverConfig config;
    private final Time time;
    private final Connections connections = new Connections();
    private final Admin sourceAdmin;
    private final Admin targetAdmin;
    private final String sourceCluster;
    private final String targetCluster;
    private final SyncTopic syncTopic;
    private final FailbackReader reader;
    /** What the last {@link #plan} read; {@link #execute} goes on from it. */
    private @Nullable FailbackObservation observed;

    public Failback(FailoverConfig config, Time time) {
        this.config = config;
        this.time = time;
        try {
            targetAdmin = connections.admin(config.target(), "strait-failback-target");
            targetCluster = Connections.requireTarget(targetAdmin, config.target());
            sourceAdmin = connections.admin(config.source(), "strait-failback-source");
            String sourceId = Connections.clusterId(sourceAdmin);
            if (sourceId == null) {
                throw new FailoverException(
                        "cannot reach the source cluster at " + config.source().getProperty("bootstrap.servers")
                                + ": a failback writes to the source, so it must be back first");
            }
            sourceCluster = sourceId;
            syncTopic = new SyncTopic(config.syncTopic(), config.target(), time);
            SyncContents contents = Denial.guard(
                    "target", "READ", "topic", Set.of(config.syncTopic()), () -> SyncContents.read(syncTopic));
            reader = new FailbackReader(
                    config, time, sourceAdmin, targetAdmin, sourceCluster, targetCluster, contents, reverseGroup());
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
        observed = reader.observe(groups, time.milliseconds());
        return FailbackPlanner.plan(observed, groups);
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
                points,
                observed.scope().sourceTopicOf(),
                reader.learnCopiesBack(observed, reverse, tps),
                CopiesBack.of(reverse));
        Map<TopicPartition, OffsetAndMetadata> start = new HashMap<>();
        resume.forEach((tp, offset) -> start.put(tp, new OffsetAndMetadata(offset)));
        String group = reverseGroup();
        Denial.guard(
                "target",
                "READ",
                "group",
                Set.of(group),
                () -> Clusters.get(
                        targetAdmin.alterConsumerGroupOffsets(group, start).all(),
                        Connections.TIMEOUT_MS,
                        "set the failback mirror's start offsets on the target (is a failback already running?)"));
        new ReverseCopy(config, time, targetAdmin, observed.scope().sourceTopicOf(), group)
                .run(tps, new CopyRange(resume, endsAtStart), timeout, progress, reverse);

        List<String> warnings = new ArrayList<>(plan.warnings());
        Map<TopicPartition, Long> endsAfter = Clusters.endOffsets(targetAdmin, tps, Connections.TIMEOUT_MS);
        warnings.addAll(FailbackPlanner.writtenDuringCopy(endsAtStart, endsAfter));
        CopiesBack copies = CopiesBack.of(reverse);
        List<FailbackPlan.TopicBack> topics = FailbackPlanner.copiedBack(plan.topics(), copies);
        List<FailbackPlan.GroupBack> groups = new ArrayList<>();
        for (FailbackPlan.GroupBack g : FailbackPlanner.groups(
                observed.withGroups(reader.groups(filter)),
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

    @Override
    public void close() {
        if (syncTopic != null) {
            syncTopic.close();
        }
        connections.close();
    }
}
