package dev.strait.mirror.failover;

import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.mirror.sync.FailoverMarker;
import dev.strait.mirror.sync.GroupCheckpoint;
import dev.strait.mirror.sync.PartitionIndex;
import dev.strait.mirror.sync.Translation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * The decisions of {@code strait failback}, from values {@link Failback} read from both clusters: which topics go
 * back and where, what each partition copies back and which source records are divergence, where each group
 * resumes on the source, and what is refused and why. Reads no cluster and no clock. Stateless.
 */
final class FailbackPlanner {
    private FailbackPlanner() {}

    /**
     * The target topics that fail back and the source topic of each.
     *
     * @param targetTopics sorted
     * @param sourceTopicOf per target topic, the source topic it goes back to
     * @param warnings things the operator should know about this choice
     */
    record Scope(Set<String> targetTopics, Map<String, String> sourceTopicOf, List<String> warnings) {
        Scope {
            targetTopics = new TreeSet<>(targetTopics);
            sourceTopicOf = Map.copyOf(sourceTopicOf);
            warnings = List.copyOf(warnings);
        }
    }

    /**
     * What {@code --execute} does with one group's positions on the source.
     *
     * @param offsets per source partition, the offset to commit
     * @param removeMembers remove the group's members on the source first (--force)
     * @param outcome the outcome when nothing is written ("nothing to move", "refused: ..."); null when the offsets
     *     are to be written
     */
    record Move(
            Map<TopicPartition, Long> offsets,
            boolean removeMembers,
            @Nullable String outcome) {
        Move {
            offsets = Map.copyOf(offsets);
        }
    }

    /**
     * The target topics to fail back: those with a failover point, else (failover --execute was not run) every
     * topic the forward mirror copied to. Refuses when there are none.
     */
    static Set<String> targetTopics(
            Map<String, FailoverMarker> markers, Set<String> mapped, String syncTopic, String sourceCluster) {
        Set<String> topics = new TreeSet<>(markers.isEmpty() ? mapped : markers.keySet());
        if (topics.isEmpty()) {
            throw new FailoverException("nothing to fail back: the sync topic " + syncTopic + " holds no "
                    + "failover point and no offset map for source cluster " + sourceCluster);
        }
        return topics;
    }

    /**
     * Source topic of each target topic: the one the mirror's rename maps to it (of {@code sourceNames}, the
     * source's topics), else the same name.
     */
    static Scope scope(
            Map<String, FailoverMarker> markers,
            Set<String> targetTopics,
            Set<String> sourceNames,
            TopicRenamer renamer) {
        List<String> warnings = new ArrayList<>();
        if (markers.isEmpty()) {
            warnings.add("no failover point was recorded (failover --execute was not run): records after the last copy "
                    + "from the source count as written on the target");
        }
        Map<String, String> sourceTopicOf = new HashMap<>();
        for (String target : new TreeSet<>(targetTopics)) {
            String found = null;
            for (String s : new TreeSet<>(sourceNames)) {
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
            sourceTopicOf.put(target, found);
        }
        return new Scope(targetTopics, sourceTopicOf, warnings);
    }

    /**
     * How far to learn the forward mirror's copies on each target partition: up to its failover point (what is
     * above it was written on the target), never past its end.
     */
    static Map<TopicPartition, Long> readTo(
            Set<TopicPartition> tps, Map<String, FailoverMarker> markers, Map<TopicPartition, Long> ends) {
        Map<TopicPartition, Long> readTo = new HashMap<>();
        for (TopicPartition tp : tps) {
            FailoverMarker m = markers.get(tp.topic());
            long end = required(ends, tp, "end offset");
            readTo.put(
                    tp,
                    m != null && m.endOffsets().containsKey(tp.partition())
                            ? Math.min(m.endOffsets().get(tp.partition()), end)
                            : end);
        }
        return readTo;
    }

    /**
     * The failover point of each target partition: where the records written on the target start. The one
     * {@code failover --execute} recorded, else after the last copy from the source, else the partition's start.
     */
    static Map<TopicPartition, Long> failoverPoints(FailbackObservation o) {
        Map<TopicPartition, Long> points = new HashMap<>();
        for (TopicPartition tp : o.targetPartitions()) {
            FailoverMarker m = o.markers().get(tp.topic());
            long point;
            if (m != null && m.endOffsets().containsKey(tp.partition())) {
                point = m.endOffsets().get(tp.partition());
            } else {
                long last = o.forward().index(tp).lastCopyEnd();
                point = last < 0 ? required(o.targetStarts(), tp, "start offset") : last;
            }
            points.put(tp, point);
        }
        return points;
    }

    /** The dry run's plan: what to copy back per partition, the divergence, and where each group resumes. */
    static FailbackPlan plan(FailbackObservation o, GroupFilter filter) {
        List<String> warnings = new ArrayList<>(o.scope().warnings());
        Map<TopicPartition, Long> points = failoverPoints(o);
        List<FailbackPlan.TopicBack> topics = new ArrayList<>();
        for (String topic : o.scope().targetTopics()) {
            List<FailbackPlan.PartitionBack> parts = new ArrayList<>();
            for (int p = 0; p < o.partitionCounts().getOrDefault(topic, 0); p++) {
                TopicPartition tp = new TopicPartition(topic, p);
                TopicPartition sp = o.sourceOf(tp);
                SourceTail.Missing divergent = o.divergence().getOrDefault(sp, new SourceTail.Missing(0, false, -1));
                parts.add(new FailbackPlan.PartitionBack(
                        p,
                        required(points, tp, "failover point"),
                        required(o.targetEnds(), tp, "end offset"),
                        -1,
                        -1,
                        -1,
                        Math.max(0, o.forward().frontier(sp)),
                        o.sourceEnds().getOrDefault(sp, 0L),
                        Math.max(0, divergent.records()),
                        divergent.oldestAgeSeconds()));
            }
            FailoverMarker m = o.markers().get(topic);
            topics.add(new FailbackPlan.TopicBack(
                    topic,
                    Objects.requireNonNull(o.scope().sourceTopicOf().get(topic), "the scope maps every target topic"),
                    m == null ? -1 : m.timeMs(),
                    parts));
        }
        if (o.groups().isEmpty()) {
            // Kafka lists only the groups the principal may DESCRIBE: a missing ACL looks like no group.
            warnings.add("no consumer group on the target matches --groups "
                    + filter.include().pattern() + ", so no group moves: the target lists "
                    + "only the groups the principal of the target. settings may DESCRIBE; grant it (kafka-acls "
                    + "--bootstrap-server <target> --add --allow-principal User:<failback> --operation Describe "
                    + "--group <group>)");
        }
        List<FailbackPlan.GroupBack> groups = groups(o, points, CopiesBack.NONE, divergentEnds(topics));
        return new FailbackPlan(
                o.sourceCluster(), o.targetCluster(), o.timeMs(), topics, groups, List.copyOf(warnings));
    }

    /**
     * Where each group resumes on the source. A group that had not read past the failover point resumes at the
     * source original of the first copy it had not read; one that read records written on the target resumes after
     * their copies written back ({@code copies}), unless divergent records it never read come first.
     */
    static List<FailbackPlan.GroupBack> groups(
            FailbackObservation o,
            Map<TopicPartition, Long> points,
            CopiesBack copies,
            Map<TopicPartition, Long> divergentEnds) {
        List<FailbackPlan.GroupBack> out = new ArrayList<>();
        for (FailbackObservation.Group g : o.groups()) {
            List<FailbackPlan.PartitionGroupBack> parts = new ArrayList<>();
            Map<TopicPartition, Long> offsets = new TreeMap<>(FailbackObservation.ORDER);
            offsets.putAll(g.committed());
            GroupCheckpoint checkpoint = o.checkpoints().get(g.group());
            for (Map.Entry<TopicPartition, Long> e : offsets.entrySet()) {
                TopicPartition tp = e.getKey();
                if (!points.containsKey(tp)) {
                    continue;
                }
                long x = e.getValue();
                long point = points.get(tp);
                if (x <= point) {
                    parts.addAll(beforeTheFailover(o.forward(), tp, o.sourceOf(tp), x, point, checkpoint));
                } else {
                    parts.add(afterTheFailover(
                            o.forward(), tp, o.sourceOf(tp), x, point, checkpoint, copies, divergentEnds));
                }
            }
            out.add(new FailbackPlan.GroupBack(g.group(), g.membersOnTarget(), g.membersOnSource(), parts, null));
        }
        return out;
    }

    /**
     * A group that had not read past the failover point resumes, on each source partition feeding {@code tp}, at
     * the original of the first copy it had not read.
     */
    private static List<FailbackPlan.PartitionGroupBack> beforeTheFailover(
            ForwardCopies forward,
            TopicPartition tp,
            TopicPartition sp,
            long x,
            long point,
            @Nullable GroupCheckpoint checkpoint) {
        PartitionIndex index = forward.index(tp);
        // One source partition in preserve mode; in hash mode every source partition feeding tp.
        Set<TopicPartition> feeders = new TreeSet<>(FailbackObservation.ORDER);
        if (index.sources().isEmpty()) {
            feeders.add(sp);
        } else {
            feeders.addAll(index.sources());
        }
        List<FailbackPlan.PartitionGroupBack> out = new ArrayList<>();
        for (TopicPartition f : feeders) {
            long s = x == point ? -1 : index.sourceOffsetAtOrAfter(f, x);
            String how = "from the failover copy";
            if (s < 0) {
                // It had read every copy: it resumes after them, or after what it had read on the source before the
                // failover (records that never reached the target are divergence).
                s = Math.max(0, forward.frontier(f));
                if (checkpoint != null && checkpoint.committed().containsKey(f)) {
                    s = Math.max(s, checkpoint.committed().get(f));
                }
                how = "after the failover copy";
            }
            out.add(new FailbackPlan.PartitionGroupBack(tp, f, x, s, how, 0));
        }
        return out;
    }

    /**
     * Where a group that read records written on the target after the failover resumes on {@code sp}: after their
     * copies written back, unless source records it never read come first (divergence: source records that never
     * reached the target, and that it had not consumed on the source before the failover). Then it resumes at the
     * first of those and reads the copies of what it read on the target again: it never skips a record.
     */
    private static FailbackPlan.PartitionGroupBack afterTheFailover(
            ForwardCopies forward,
            TopicPartition tp,
            TopicPartition sp,
            long x,
            long point,
            @Nullable GroupCheckpoint checkpoint,
            CopiesBack copies,
            Map<TopicPartition, Long> divergentEnds) {
        long firstUnread = Math.max(0, forward.frontier(sp));
        if (checkpoint != null && checkpoint.committed().containsKey(sp)) {
            firstUnread = Math.max(firstUnread, checkpoint.committed().get(sp));
        }
        long divergentEnd = divergentEnds.getOrDefault(sp, -1L);
        boolean copied = copies.knows(sp);
        if (copied) {
            long firstCopy = copies.firstAtOrAfter(sp, point);
            if (firstCopy >= 0) {
                divergentEnd = divergentEnd < 0 ? firstCopy : Math.min(divergentEnd, firstCopy);
            }
        }
        if (firstUnread < divergentEnd) {
            // The copies of the x - point records it read on the target follow the divergent records.
            long again = copied ? copies.between(sp, point, x) : x - point;
            return new FailbackPlan.PartitionGroupBack(
                    tp, sp, x, firstUnread, "at the divergent records it never read", again);
        }
        Translation t = copied ? copies.translate(sp, tp, x) : null;
        long after = t == null ? -1 : t.offset();
        return new FailbackPlan.PartitionGroupBack(tp, sp, x, after, "after the copies written back", 0);
    }

    /** Per source partition, one past its divergent records (they follow the forward mirror's frontier). */
    static Map<TopicPartition, Long> divergentEnds(List<FailbackPlan.TopicBack> topics) {
        Map<TopicPartition, Long> out = new HashMap<>();
        for (FailbackPlan.TopicBack t : topics) {
            for (FailbackPlan.PartitionBack p : t.partitions()) {
                out.put(new TopicPartition(t.sourceTopic(), p.partition()), p.sourceFrontier() + p.divergent());
            }
        }
        return out;
    }

    /** Why {@code --execute} must not start: a group still has members on the target (without --force). */
    static Optional<String> refusal(FailbackPlan plan, boolean force) {
        for (FailbackPlan.GroupBack g : plan.groups()) {
            if (g.activeOnTarget() > 0 && !force) {
                return Optional.of("group " + g.group() + " still has " + g.activeOnTarget() + " members on the "
                        + "target: stop the applications on the target before failing back (or --force)");
            }
        }
        return Optional.empty();
    }

    /**
     * Where the reverse copy of each target partition starts: after the last record of this failover already
     * copied back to the source ({@code copies}: an earlier run's work), else at the failover point. A re-run goes
     * on from there, never from the failover point again.
     *
     * @param onSource the source partitions that exist (one that does not holds no copy yet)
     */
    static Map<TopicPartition, Long> resumePoints(
            Map<TopicPartition, Long> points,
            Map<String, String> sourceTopicOf,
            Set<TopicPartition> onSource,
            CopiesBack copies) {
        Map<TopicPartition, Long> out = new HashMap<>();
        points.forEach((tp, point) -> {
            TopicPartition sp = new TopicPartition(sourceTopicOf.get(tp.topic()), tp.partition());
            out.put(tp, onSource.contains(sp) ? Math.max(point, copies.index(sp).frontier(tp)) : point);
        });
        return out;
    }

    /** A warning per target partition that took records while the copy back ran: they were not copied back. */
    static List<String> writtenDuringCopy(Map<TopicPartition, Long> endsAtStart, Map<TopicPartition, Long> endsAfter) {
        Map<TopicPartition, Long> sorted = new TreeMap<>(FailbackObservation.ORDER);
        sorted.putAll(endsAfter);
        List<String> out = new ArrayList<>();
        sorted.forEach((tp, end) -> {
            long before = required(endsAtStart, tp, "end offset at the start");
            if (end > before) {
                out.add(tp + " took " + (end - before) + " records on the target during the failback; "
                        + "they were not copied back: stop the producers on the target and run failback again");
            }
        });
        return out;
    }

    /** The plan's topics with what was copied back of each partition. */
    static List<FailbackPlan.TopicBack> copiedBack(List<FailbackPlan.TopicBack> planned, CopiesBack copies) {
        List<FailbackPlan.TopicBack> topics = new ArrayList<>();
        for (FailbackPlan.TopicBack t : planned) {
            List<FailbackPlan.PartitionBack> parts = new ArrayList<>();
            for (FailbackPlan.PartitionBack p : t.partitions()) {
                CopiesBack.Copied c =
                        copies.since(new TopicPartition(t.sourceTopic(), p.partition()), p.failoverOffset());
                parts.add(new FailbackPlan.PartitionBack(
                        p.partition(),
                        p.failoverOffset(),
                        p.targetEnd(),
                        c.records(),
                        c.from(),
                        c.to(),
                        p.sourceFrontier(),
                        p.sourceEnd(),
                        p.divergent(),
                        p.divergentAgeSeconds()));
            }
            topics.add(new FailbackPlan.TopicBack(t.targetTopic(), t.sourceTopic(), t.failoverTimeMs(), parts));
        }
        return topics;
    }

    /** What to do with one group on the source: write its positions, or why not. */
    static Move move(FailbackPlan.GroupBack g, boolean force) {
        Map<TopicPartition, Long> offsets = new HashMap<>();
        for (FailbackPlan.PartitionGroupBack p : g.partitions()) {
            // Several target partitions may point into one source partition (hash mode): the lowest skips nothing.
            if (p.sourceOffset() >= 0) {
                offsets.merge(p.source(), p.sourceOffset(), Math::min);
            }
        }
        if (offsets.isEmpty()) {
            return new Move(Map.of(), false, "nothing to move");
        }
        if (g.activeOnSource() > 0 && !force) {
            return new Move(
                    offsets,
                    false,
                    "refused: " + g.activeOnSource() + " members are active on the source (--force removes them)");
        }
        return new Move(offsets, g.activeOnSource() > 0, null);
    }

    /**
     * Why the failover points stay, when a group did not move: without them a re-run could not tell the records
     * written on the target from copies. Empty when every group moved (they are cleared).
     */
    static Optional<String> keepFailoverPoints(List<FailbackPlan.GroupBack> done) {
        List<String> notMoved = new ArrayList<>();
        for (FailbackPlan.GroupBack g : done) {
            if (!"moved".equals(g.outcome()) && !"nothing to move".equals(g.outcome())) {
                notMoved.add(g.group());
            }
        }
        if (notMoved.isEmpty()) {
            return Optional.empty();
        }
        return Optional.of("the failover points are kept because " + String.join(", ", notMoved) + " did not move: "
                + "run failback --execute again to move them (it copies only what is not on the source yet)");
    }

    /** The offset of {@code tp} in {@code offsets}, which the observation holds for every partition it covers. */
    private static long required(Map<TopicPartition, Long> offsets, TopicPartition tp, String what) {
        Long offset = offsets.get(tp);
        if (offset == null) {
            throw new IllegalStateException("no " + what + " of " + tp + " was observed");
        }
        return offset;
    }
}
