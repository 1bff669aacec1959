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
import dev.strait.mirror.sync.GroupCheckpoint;
import dev.strait.mirror.sync.MapUpkeep;
import dev.strait.mirror.sync.OffsetMap;
import dev.strait.mirror.sync.PartitionIndex;
import dev.strait.mirror.sync.SyncContents;
import dev.strait.mirror.sync.SyncRecords;
import dev.strait.mirror.sync.SyncTopic;
import dev.strait.mirror.sync.TargetHistory;
import dev.strait.mirror.sync.TargetReader;
import dev.strait.mirror.sync.Translation;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
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
 * <p>Partitions keep their numbers in both directions (the mirror's preserve mode). Not thread-safe.
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
    private final List<String> warnings = new ArrayList<>();
    private OffsetMap forward;
    private Map<String, String> sourceTopicOf = Map.of();
    private Map<TopicPartition, Long> failoverPoints = Map.of();

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
        warnings.clear();
        long now = time.milliseconds();
        Map<String, FailoverMarker> markers = contents.markers(sourceCluster);
        forward = contents.offsetMap(sourceCluster, Integer.MAX_VALUE / 4);
        Set<String> targetTopics = new HashSet<>(markers.keySet());
        if (targetTopics.isEmpty()) {
            forward.histories().forEach(h -> targetTopics.add(h.target().topic()));
            if (targetTopics.isEmpty()) {
                throw new FailoverException("nothing to fail back: the sync topic " + config.syncTopic() + " holds no "
                        + "failover point and no offset map for source cluster " + sourceCluster);
            }
            warnings.add("no failover point was recorded (failover --execute was not run): records after the last copy "
                    + "from the source count as written on the target");
        }
        sourceTopicOf = sourceTopics(targetTopics);
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
        tps.forEach(forward::history);
        Map<TopicPartition, Long> starts = onTarget(
                "READ", "topic", targetTopics, () -> Clusters.startOffsets(targetAdmin, tps, Connections.TIMEOUT_MS));
        Map<TopicPartition, Long> ends = onTarget(
                "READ", "topic", targetTopics, () -> Clusters.endOffsets(targetAdmin, tps, Connections.TIMEOUT_MS));
        // Learn the copies up to the failover point (what is above it was written on the target).
        Map<TopicPartition, Long> readTo = new HashMap<>();
        for (TopicPartition tp : tps) {
            FailoverMarker m = markers.get(tp.topic());
            readTo.put(
                    tp,
                    m != null && m.endOffsets().containsKey(tp.partition())
                            ? Math.min(m.endOffsets().get(tp.partition()), ends.get(tp))
                            : ends.get(tp));
        }
        onTarget("READ", "topic", targetTopics, () -> {
            try (TargetReader reader = new TargetReader(config.target(), sourceCluster, time, Connections.TIMEOUT_MS)) {
                MapUpkeep.run(forward, reader, MapUpkeep.knownEnds(forward), starts, ends, READ_BUDGET, readTo);
            }
            return null;
        });
        Map<TopicPartition, Long> points = new HashMap<>();
        for (TopicPartition tp : tps) {
            FailoverMarker m = markers.get(tp.topic());
            long point;
            if (m != null && m.endOffsets().containsKey(tp.partition())) {
                point = m.endOffsets().get(tp.partition());
            } else {
                long last = forward.history(tp).index().lastCopyEnd();
                point = last < 0 ? starts.get(tp) : last;
            }
            points.put(tp, point);
        }
        failoverPoints = points;

        Set<TopicPartition> sourceTps = new HashSet<>();
        tps.forEach(tp -> sourceTps.add(new TopicPartition(sourceTopicOf.get(tp.topic()), tp.partition())));
        Set<String> sourceNames = new HashSet<>(sourceTopicOf.values());
        Set<TopicPartition> existingSource = onSource(
                "READ",
                "topic",
                sourceNames,
                () -> Clusters.partitions(sourceAdmin, sourceNames, Connections.TIMEOUT_MS));
        sourceTps.retainAll(existingSource);
        Map<TopicPartition, Long> sourceEnds = onSource(
                "READ",
                "topic",
                sourceNames,
                () -> Clusters.endOffsets(sourceAdmin, sourceTps, Connections.TIMEOUT_MS));
        List<FailbackPlan.TopicBack> topics = new ArrayList<>();
        try (SourceTail tail = new SourceTail(config.source(), targetCluster, time, 1_000_000)) {
            for (String topic : new java.util.TreeSet<>(targetTopics)) {
                List<FailbackPlan.PartitionBack> parts = new ArrayList<>();
                for (int p = 0; p < counts.getOrDefault(topic, 0); p++) {
                    TopicPartition tp = new TopicPartition(topic, p);
                    TopicPartition sp = new TopicPartition(sourceTopicOf.get(topic), p);
                    long frontier = Math.max(0, frontier(sp));
                    long sourceEnd = sourceEnds.getOrDefault(sp, 0L);
                    SourceTail.Missing divergent =
                            onSource("READ", "topic", Set.of(sp.topic()), () -> tail.missing(sp, frontier, sourceEnd));
                    parts.add(new FailbackPlan.PartitionBack(
                            p,
                            points.get(tp),
                            ends.get(tp),
                            -1,
                            -1,
                            -1,
                            frontier,
                            sourceEnd,
                            Math.max(0, divergent.records()),
                            divergent.oldestAgeSeconds()));
                }
                FailoverMarker m = markers.get(topic);
                topics.add(new FailbackPlan.TopicBack(
                        topic, sourceTopicOf.get(topic), m == null ? -1 : m.timeMs(), parts));
            }
        }
        List<FailbackPlan.GroupBack> groupPlans = groups(groups, tps, null, divergentEnds(topics));
        return new FailbackPlan(sourceCluster, targetCluster, now, topics, groupPlans, List.copyOf(warnings));
    }

    /** One past the highest source offset of {@code sp} copied to the target before the failover, or -1. */
    private long frontier(TopicPartition sp) {
        long f = -1;
        for (TargetHistory h : forward.histories()) {
            f = Math.max(f, h.index().frontier(sp));
        }
        return f;
    }

    /** Source topic of each target topic: the one the mirror's rename maps to it, else the same name. */
    private Map<String, String> sourceTopics(Set<String> targetTopics) {
        Set<String> names =
                Clusters.get(sourceAdmin.listTopics().names(), Connections.TIMEOUT_MS, "list source topics");
        Map<String, String> out = new HashMap<>();
        TopicRenamer renamer = config.renamer();
        for (String target : targetTopics) {
            String found = null;
            for (String s : names) {
                if (renamer.targetTopic(s).equals(target)) {
                    found = s;
                }
            }
            if (found == null) {
                found = target;
                warnings.add(
                        "no source topic maps to " + target + " with the configured rename; copying back to a topic "
                                + "named " + target + " (created if missing)");
            }
            out.put(target, found);
        }
        return out;
    }

    /**
     * Where a group that read records written on the target after the failover resumes on {@code sp}: after their
     * copies written back, unless source records it never read come first (divergence: source records that never
     * reached the target, and that it had not consumed on the source before the failover). Then it resumes at the
     * first of those and reads the copies of what it read on the target again: it never skips a record.
     */
    private FailbackPlan.PartitionGroupBack afterTheFailover(
            TopicPartition tp,
            TopicPartition sp,
            long x,
            GroupCheckpoint checkpoint,
            OffsetMap reverse,
            Map<TopicPartition, Long> divergentEnds) {
        long point = failoverPoints.get(tp);
        long firstUnread = Math.max(0, frontier(sp));
        if (checkpoint != null && checkpoint.committed().containsKey(sp)) {
            firstUnread = Math.max(firstUnread, checkpoint.committed().get(sp));
        }
        TargetHistory h = reverse == null ? null : reverse.existing(sp);
        long divergentEnd = divergentEnds.getOrDefault(sp, -1L);
        if (h != null) {
            long firstCopy = firstCopyBack(h, point);
            if (firstCopy >= 0) {
                divergentEnd = divergentEnd < 0 ? firstCopy : Math.min(divergentEnd, firstCopy);
            }
        }
        Translation t = h == null ? null : h.index().translate(Map.of(tp, x));
        long after = t == null ? -1 : t.offset();
        if (firstUnread < divergentEnd) {
            // The copies of the x - point records it read on the target follow the divergent records.
            long again = h == null ? x - point : copiesBack(h, point, x);
            return new FailbackPlan.PartitionGroupBack(
                    tp, sp, x, firstUnread, "at the divergent records it never read", again);
        }
        return new FailbackPlan.PartitionGroupBack(tp, sp, x, after, "after the copies written back", 0);
    }

    /** Per source partition, one past its divergent records (they follow the forward mirror's frontier). */
    private static Map<TopicPartition, Long> divergentEnds(List<FailbackPlan.TopicBack> topics) {
        Map<TopicPartition, Long> out = new HashMap<>();
        for (FailbackPlan.TopicBack t : topics) {
            for (FailbackPlan.PartitionBack p : t.partitions()) {
                out.put(new TopicPartition(t.sourceTopic(), p.partition()), p.sourceFrontier() + p.divergent());
            }
        }
        return out;
    }

    /** The source offset of the first copy written back of a target record at or after {@code point}, or -1. */
    private static long firstCopyBack(TargetHistory reverse, long point) {
        var snap = reverse.snapshot();
        long first = -1;
        for (int i = 0; i < snap.size(); i++) {
            long skip = Math.max(0, point - snap.s()[i]);
            if (skip < snap.len()[i]) {
                long at = snap.t()[i] + skip;
                first = first < 0 ? at : Math.min(first, at);
            }
        }
        return first;
    }

    /** Copies on the source of the target records in [point, x): what a group that read them reads again. */
    private static long copiesBack(TargetHistory reverse, long point, long x) {
        var snap = reverse.snapshot();
        long n = 0;
        for (int i = 0; i < snap.size(); i++) {
            long lo = Math.max(point, snap.s()[i]);
            long hi = Math.min(x, snap.s()[i] + snap.len()[i]);
            n += Math.max(0, hi - lo);
        }
        return n;
    }

    private List<FailbackPlan.GroupBack> groups(
            GroupFilter filter, Set<TopicPartition> tps, OffsetMap reverse, Map<TopicPartition, Long> divergentEnds) {
        String reverseGroup = reverseGroup();
        List<String> names = Clusters.consumerGroups(
                targetAdmin, g -> !g.equals(reverseGroup) && filter.matches(g), Connections.TIMEOUT_MS);
        if (names.isEmpty() && reverse == null) {
            // Kafka lists only the groups the principal may DESCRIBE: a missing ACL looks like no group.
            warnings.add("no consumer group on the target matches --groups "
                    + filter.include().pattern() + ", so no group moves: the target lists "
                    + "only the groups the principal of the target. settings may DESCRIBE; grant it (kafka-acls "
                    + "--bootstrap-server <target> --add --allow-principal User:<failback> --operation Describe "
                    + "--group <group>)");
        }
        Map<String, Map<TopicPartition, OffsetAndMetadata>> committed = onTarget(
                "DESCRIBE", "group", names, () -> Clusters.committed(targetAdmin, names, Connections.TIMEOUT_MS));
        Map<String, Integer> onTarget = onTarget(
                "DESCRIBE", "group", names, () -> Clusters.members(targetAdmin, names, Connections.TIMEOUT_MS));
        Map<String, Integer> onSource = onSource(
                "DESCRIBE", "group", names, () -> Clusters.members(sourceAdmin, names, Connections.TIMEOUT_MS));
        Map<String, GroupCheckpoint> checkpoints = contents.checkpoints(sourceCluster);
        List<FailbackPlan.GroupBack> out = new ArrayList<>();
        for (String g : names) {
            List<FailbackPlan.PartitionGroupBack> parts = new ArrayList<>();
            Map<TopicPartition, OffsetAndMetadata> offsets = new TreeMap<>(
                    Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
            offsets.putAll(committed.getOrDefault(g, Map.of()));
            for (Map.Entry<TopicPartition, OffsetAndMetadata> e : offsets.entrySet()) {
                TopicPartition tp = e.getKey();
                if (!tps.contains(tp)) {
                    continue;
                }
                TopicPartition sp = new TopicPartition(sourceTopicOf.get(tp.topic()), tp.partition());
                long x = e.getValue().offset();
                long point = failoverPoints.get(tp);
                if (x <= point) {
                    PartitionIndex index = forward.history(tp).index();
                    // One source partition in preserve mode; in hash mode every source partition feeding tp.
                    Set<TopicPartition> feeders = index.sources().isEmpty()
                            ? Set.of(sp)
                            : new java.util.TreeSet<>(Comparator.comparing(TopicPartition::topic)
                                    .thenComparingInt(TopicPartition::partition));
                    if (!index.sources().isEmpty()) {
                        feeders.addAll(index.sources());
                    }
                    for (TopicPartition f : feeders) {
                        long s = x == point ? -1 : index.sourceOffsetAtOrAfter(f, x);
                        String how = "from the failover copy";
                        if (s < 0) {
                            // It had read every copy: it resumes after them, or after what it had read on the source
                            // before the failover (records that never reached the target are divergence).
                            s = Math.max(0, frontier(f));
                            GroupCheckpoint c = checkpoints.get(g);
                            if (c != null && c.committed().containsKey(f)) {
                                s = Math.max(s, c.committed().get(f));
                            }
                            how = "after the failover copy";
                        }
                        parts.add(new FailbackPlan.PartitionGroupBack(tp, f, x, s, how, 0));
                    }
                } else {
                    parts.add(afterTheFailover(tp, sp, x, checkpoints.get(g), reverse, divergentEnds));
                }
            }
            out.add(new FailbackPlan.GroupBack(
                    g, onTarget.getOrDefault(g, 0), onSource.getOrDefault(g, 0), parts, null));
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
        for (FailbackPlan.GroupBack g : plan.groups()) {
            if (g.activeOnTarget() > 0 && !force) {
                throw new FailoverException(
                        "group " + g.group() + " still has " + g.activeOnTarget() + " members on the "
                                + "target: stop the applications on the target before failing back (or --force)");
            }
        }
        Set<TopicPartition> tps = new HashSet<>(failoverPoints.keySet());
        Map<TopicPartition, Long> endsAtStart = Clusters.endOffsets(targetAdmin, tps, Connections.TIMEOUT_MS);
        // A re-run goes on after the last copy already on the source, never from the failover point again.
        OffsetMap reverse = new OffsetMap(targetCluster, OffsetMap.DEFAULT_MAX_SEGMENTS);
        Map<TopicPartition, OffsetAndMetadata> start = new HashMap<>();
        resumePoints(reverse, tps).forEach((tp, offset) -> start.put(tp, new OffsetAndMetadata(offset)));
        String group = reverseGroup();
        onTarget(
                "READ",
                "group",
                Set.of(group),
                () -> Clusters.get(
                        targetAdmin.alterConsumerGroupOffsets(group, start).all(),
                        Connections.TIMEOUT_MS,
                        "set the failback mirror's start offsets on the target (is a failback already running?)"));

        MirrorEngine engine = new MirrorEngine(
                reverseSettings(group, tps), new MirrorMetrics(new MetricRegistry()), time, reverse::acknowledged);
        engine.start();
        long deadline = time.milliseconds() + timeout.toMillis();
        Map<TopicPartition, Long> copyFrom = new HashMap<>();
        start.forEach((tp, o) -> copyFrom.put(tp, o.offset()));
        progress.start(toCopy(copyFrom, endsAtStart, copyFrom));
        try {
            while (true) {
                Map<TopicPartition, Long> reached = committed(group);
                progress.update(toCopy(copyFrom, endsAtStart, copyFrom) - toCopy(reached, endsAtStart, copyFrom));
                if (caughtUp(reached, endsAtStart)) {
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
        Map<TopicPartition, Long> endsAfter = Clusters.endOffsets(targetAdmin, tps, Connections.TIMEOUT_MS);
        endsAfter.forEach((tp, end) -> {
            if (end > endsAtStart.get(tp)) {
                warnings.add(
                        tp + " took " + (end - endsAtStart.get(tp)) + " records on the target during the failback; "
                                + "they were not copied back: stop the producers on the target and run failback again");
            }
        });

        List<FailbackPlan.TopicBack> topics = new ArrayList<>();
        for (FailbackPlan.TopicBack t : plan.topics()) {
            List<FailbackPlan.PartitionBack> parts = new ArrayList<>();
            for (FailbackPlan.PartitionBack p : t.partitions()) {
                TargetHistory h = reverse.existing(new TopicPartition(t.sourceTopic(), p.partition()));
                long copied = 0;
                long from = -1;
                long to = -1;
                if (h != null) {
                    // This failover's copies (earlier runs included), not those of an earlier failback.
                    var snap = h.snapshot();
                    for (int i = 0; i < snap.size(); i++) {
                        long skip = Math.max(0, p.failoverOffset() - snap.s()[i]);
                        if (skip >= snap.len()[i]) {
                            continue;
                        }
                        long first = snap.t()[i] + skip;
                        copied += snap.len()[i] - skip;
                        from = from < 0 ? first : Math.min(from, first);
                        to = Math.max(to, snap.t()[i] + snap.len()[i]);
                    }
                }
                parts.add(new FailbackPlan.PartitionBack(
                        p.partition(),
                        p.failoverOffset(),
                        p.targetEnd(),
                        copied,
                        from,
                        to,
                        p.sourceFrontier(),
                        p.sourceEnd(),
                        p.divergent(),
                        p.divergentAgeSeconds()));
            }
            topics.add(new FailbackPlan.TopicBack(t.targetTopic(), t.sourceTopic(), t.failoverTimeMs(), parts));
        }

        List<FailbackPlan.GroupBack> groups = new ArrayList<>();
        List<String> notMoved = new ArrayList<>();
        for (FailbackPlan.GroupBack g : groups(filter, tps, reverse, divergentEnds(plan.topics()))) {
            FailbackPlan.GroupBack done = moveOnSource(g, force);
            groups.add(done);
            if (!done.outcome().equals("moved") && !done.outcome().equals("nothing to move")) {
                notMoved.add(done.group());
            }
        }
        if (notMoved.isEmpty()) {
            clearMarkers(plan);
        } else {
            // Without the failover points a re-run could not tell the records written on the target from copies.
            warnings.add("the failover points are kept because " + String.join(", ", notMoved) + " did not move: "
                    + "run failback --execute again to move them (it copies only what is not on the source yet)");
        }
        return new FailbackPlan(
                plan.sourceCluster(), plan.targetCluster(), time.milliseconds(), topics, groups, List.copyOf(warnings));
    }

    /**
     * Where the reverse copy of each target partition starts: after the last record of this failover already
     * copied back to the source (an earlier run's work, found from the copies' provenance on the source), else at
     * the failover point. Teaches {@code reverse} the copies it finds, so that groups translate through them.
     */
    private Map<TopicPartition, Long> resumePoints(OffsetMap reverse, Set<TopicPartition> tps) {
        Map<TopicPartition, TopicPartition> sourceOf = new HashMap<>();
        tps.forEach(tp -> sourceOf.put(tp, new TopicPartition(sourceTopicOf.get(tp.topic()), tp.partition())));
        Set<String> sourceNames = new HashSet<>(sourceTopicOf.values());
        Set<TopicPartition> existing = onSource(
                "READ",
                "topic",
                sourceNames,
                () -> Clusters.partitions(sourceAdmin, sourceNames, Connections.TIMEOUT_MS));
        Set<TopicPartition> present = new HashSet<>(sourceOf.values());
        present.retainAll(existing);
        Map<TopicPartition, Long> sourceEnds = onSource(
                "READ", "topic", sourceNames, () -> Clusters.endOffsets(sourceAdmin, present, Connections.TIMEOUT_MS));
        Map<TopicPartition, Long> out = new HashMap<>();
        onSource("READ", "topic", sourceNames, () -> {
            try (TargetReader reader = new TargetReader(config.source(), targetCluster, time, Connections.TIMEOUT_MS)) {
                for (TopicPartition tp : tps) {
                    TopicPartition sp = sourceOf.get(tp);
                    long point = failoverPoints.get(tp);
                    if (!present.contains(sp)) {
                        out.put(tp, point);
                        continue;
                    }
                    // Copies back land after what the forward mirror had copied (and the divergent records).
                    long from = Math.max(0, frontier(sp));
                    long end = sourceEnds.get(sp);
                    long reached = reader.fill(reverse.history(sp), from, end);
                    if (reached < end) {
                        throw new FailoverException("could not read " + sp + " on the source from offset " + from
                                + " to its end " + end + " within " + Connections.TIMEOUT_MS / 1000 + " s to find "
                                + "what an earlier failback copied back; nothing was copied: run failback again");
                    }
                    out.put(tp, Math.max(point, reverse.history(sp).index().frontier(tp)));
                }
            }
            return null;
        });
        return out;
    }

    private FailbackPlan.GroupBack moveOnSource(FailbackPlan.GroupBack g, boolean force) {
        String outcome;
        Map<TopicPartition, OffsetAndMetadata> offsets = new HashMap<>();
        for (FailbackPlan.PartitionGroupBack p : g.partitions()) {
            // Several target partitions may point into one source partition (hash mode): the lowest skips nothing.
            if (p.sourceOffset() >= 0) {
                offsets.merge(
                        p.source(),
                        new OffsetAndMetadata(p.sourceOffset()),
                        (a, b) -> a.offset() <= b.offset() ? a : b);
            }
        }
        if (offsets.isEmpty()) {
            outcome = "nothing to move";
        } else if (g.activeOnSource() > 0 && !force) {
            outcome = "refused: " + g.activeOnSource() + " members are active on the source (--force removes them)";
        } else {
            try {
                if (g.activeOnSource() > 0) {
                    Clusters.get(
                            sourceAdmin
                                    .removeMembersFromConsumerGroup(
                                            g.group(),
                                            new org.apache.kafka.clients.admin.RemoveMembersFromConsumerGroupOptions())
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

    private void clearMarkers(FailbackPlan plan) {
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
    }

    /** The reverse mirror's committed offsets on the target: how far its copy got. */
    private Map<TopicPartition, Long> committed(String group) {
        Map<TopicPartition, Long> out = new HashMap<>();
        Clusters.committed(targetAdmin, List.of(group), Connections.TIMEOUT_MS)
                .getOrDefault(group, Map.of())
                .forEach((tp, c) -> out.put(tp, c.offset()));
        return out;
    }

    private static boolean caughtUp(Map<TopicPartition, Long> committed, Map<TopicPartition, Long> ends) {
        for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
            Long c = committed.get(e.getKey());
            if (c == null || c < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    /** Offsets still to copy from {@code at} to {@code ends} (a partition with no position counts from {@code from}). */
    private static long toCopy(
            Map<TopicPartition, Long> at, Map<TopicPartition, Long> ends, Map<TopicPartition, Long> from) {
        long n = 0;
        for (Map.Entry<TopicPartition, Long> e : ends.entrySet()) {
            long position = at.getOrDefault(e.getKey(), from.getOrDefault(e.getKey(), e.getValue()));
            n += Math.max(0, e.getValue() - position);
        }
        return n;
    }

    private MirrorSettings reverseSettings(String group, Set<TopicPartition> tps) {
        Properties consumer = config.target();
        consumer.put("group.id", group);
        consumer.put("auto.offset.reset", "none");
        Properties producer = config.source();
        Set<String> topics = new java.util.TreeSet<>();
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
                .renamer(TopicRenamer.explicit(sourceTopicOf))
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
        Set<String> sourceNames = new java.util.TreeSet<>(sourceTopicOf.values());
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
            line = Denial.line("target", denied, "READ", "topic", new java.util.TreeSet<>(sourceTopicOf.keySet()));
        }
        return new FailoverException(
                "the failback mirror stopped; nothing was copied past the refused record: " + line, failure);
    }

    private <T> T onTarget(String operation, String kind, Set<String> names, java.util.function.Supplier<T> step) {
        try {
            return step.get();
        } catch (RuntimeException e) {
            throw Denial.translate(e, "target", operation, kind, names);
        }
    }

    private <T> T onTarget(String operation, String kind, List<String> names, java.util.function.Supplier<T> step) {
        return onTarget(operation, kind, new HashSet<>(names), step);
    }

    private <T> T onSource(String operation, String kind, Set<String> names, java.util.function.Supplier<T> step) {
        try {
            return step.get();
        } catch (RuntimeException e) {
            throw Denial.translate(e, "source", operation, kind, names);
        }
    }

    private <T> T onSource(String operation, String kind, List<String> names, java.util.function.Supplier<T> step) {
        return onSource(operation, kind, new HashSet<>(names), step);
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
