package dev.strait.mirror.failover;

import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.sync.Clusters;
import dev.strait.mirror.sync.FailoverMarker;
import dev.strait.mirror.sync.MapUpkeep;
import dev.strait.mirror.sync.OffsetMap;
import dev.strait.mirror.sync.SyncContents;
import dev.strait.mirror.sync.TargetReader;
import dev.strait.time.Time;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/**
 * Reads what a failback decides from, on both clusters: the sync topic's failover points and offset map, the target
 * partitions' offsets, the forward mirror's last copies, the source's ends and divergent records, the groups. A
 * refused step fails with the one line of {@link Denial}. Writes nothing. Not thread-safe.
 */
final class FailbackReader {
    /** Records read back from the target for what the persisted map does not cover (the mirror's last seconds). */
    private static final long READ_BUDGET = 20_000_000;
    /** Divergent records counted per partition at most. */
    private static final long DIVERGENCE_COUNT_LIMIT = 1_000_000;

    private final FailoverConfig config;
    private final Time time;
    private final Admin sourceAdmin;
    private final Admin targetAdmin;
    private final String sourceCluster;
    private final String targetCluster;
    private final SyncContents contents;
    private final String reverseGroup;

    FailbackReader(
            FailoverConfig config,
            Time time,
            Admin sourceAdmin,
            Admin targetAdmin,
            String sourceCluster,
            String targetCluster,
            SyncContents contents,
            String reverseGroup) {
        this.config = config;
        this.time = time;
        this.sourceAdmin = sourceAdmin;
        this.targetAdmin = targetAdmin;
        this.sourceCluster = sourceCluster;
        this.targetCluster = targetCluster;
        this.contents = contents;
        this.reverseGroup = reverseGroup;
    }

    /** Both clusters as they are now, for {@code filter}'s groups; {@code now} is when. */
    FailbackObservation observe(GroupFilter filter, long now) {
        Map<String, FailoverMarker> markers = contents.markers(sourceCluster);
        OffsetMap forwardMap = contents.offsetMap(sourceCluster, Integer.MAX_VALUE / 4);
        Set<String> mapped = new HashSet<>();
        forwardMap.histories().forEach(h -> mapped.add(h.target().topic()));
        Set<String> targetTopics = FailbackPlanner.targetTopics(markers, mapped, config.syncTopic(), sourceCluster);
        Set<String> sourceNames =
                Clusters.get(sourceAdmin.listTopics().names(), Connections.TIMEOUT_MS, "list source topics");
        FailbackPlanner.Scope scope = FailbackPlanner.scope(markers, targetTopics, sourceNames, config.renamer());
        Map<String, Integer> counts = readTopics(
                "target",
                targetTopics,
                () -> Clusters.partitionCounts(targetAdmin, targetTopics, Connections.TIMEOUT_MS));
        Set<TopicPartition> tps = new HashSet<>();
        counts.forEach((t, n) -> {
            for (int p = 0; p < n; p++) {
                tps.add(new TopicPartition(t, p));
            }
        });
        tps.forEach(forwardMap::history);
        Map<TopicPartition, Long> starts = readTopics(
                "target", targetTopics, () -> Clusters.startOffsets(targetAdmin, tps, Connections.TIMEOUT_MS));
        Map<TopicPartition, Long> ends =
                readTopics("target", targetTopics, () -> Clusters.endOffsets(targetAdmin, tps, Connections.TIMEOUT_MS));
        Map<TopicPartition, Long> readTo = FailbackPlanner.readTo(tps, markers, ends);
        readTopics("target", targetTopics, () -> {
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
        sourceTps.retainAll(readTopics(
                "source", sourceTopics, () -> Clusters.partitions(sourceAdmin, sourceTopics, Connections.TIMEOUT_MS)));
        Map<TopicPartition, Long> sourceEnds = readTopics(
                "source", sourceTopics, () -> Clusters.endOffsets(sourceAdmin, sourceTps, Connections.TIMEOUT_MS));
        Map<TopicPartition, SourceTail.Missing> divergence = new HashMap<>();
        try (SourceTail tail = new SourceTail(config.source(), targetCluster, time, DIVERGENCE_COUNT_LIMIT)) {
            for (TopicPartition sp : sourceOf.values()) {
                long frontier = Math.max(0, forward.frontier(sp));
                long sourceEnd = sourceEnds.getOrDefault(sp, 0L);
                divergence.put(
                        sp, readTopics("source", Set.of(sp.topic()), () -> tail.missing(sp, frontier, sourceEnd)));
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
                groups(filter));
    }

    /** The matching groups on the target (never the reverse mirror's own): their offsets and members. */
    List<FailbackObservation.Group> groups(GroupFilter filter) {
        List<String> names = Clusters.consumerGroups(
                targetAdmin, g -> !g.equals(reverseGroup) && filter.matches(g), Connections.TIMEOUT_MS);
        Map<String, Map<TopicPartition, OffsetAndMetadata>> committed =
                describeGroups("target", names, () -> Clusters.committed(targetAdmin, names, Connections.TIMEOUT_MS));
        Map<String, Integer> onTarget =
                describeGroups("target", names, () -> Clusters.members(targetAdmin, names, Connections.TIMEOUT_MS));
        Map<String, Integer> onSource =
                describeGroups("source", names, () -> Clusters.members(sourceAdmin, names, Connections.TIMEOUT_MS));
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
     * Teaches {@code reverse} the copies an earlier failback run already wrote to the source (found from the
     * copies' provenance), so that the copy goes on after them and groups translate through them. Returns the
     * source partitions that exist.
     */
    Set<TopicPartition> learnCopiesBack(FailbackObservation observed, OffsetMap reverse, Set<TopicPartition> tps) {
        Map<String, String> sourceTopicOf = observed.scope().sourceTopicOf();
        Set<String> sourceNames = new HashSet<>(sourceTopicOf.values());
        Set<TopicPartition> existing = readTopics(
                "source", sourceNames, () -> Clusters.partitions(sourceAdmin, sourceNames, Connections.TIMEOUT_MS));
        Set<TopicPartition> present = new HashSet<>();
        tps.forEach(tp -> present.add(observed.sourceOf(tp)));
        present.retainAll(existing);
        Map<TopicPartition, Long> sourceEnds = readTopics(
                "source", sourceNames, () -> Clusters.endOffsets(sourceAdmin, present, Connections.TIMEOUT_MS));
        readTopics("source", sourceNames, () -> {
            try (TargetReader reader = new TargetReader(config.source(), targetCluster, time, Connections.TIMEOUT_MS)) {
                for (TopicPartition tp : tps) {
                    TopicPartition sp = observed.sourceOf(tp);
                    if (!present.contains(sp)) {
                        continue;
                    }
                    // Copies back land after what the forward mirror had copied (and the divergent records).
                    long from = Math.max(0, observed.forward().frontier(sp));
                    long end = Objects.requireNonNull(
                            sourceEnds.get(sp), "the source's end offsets hold every present partition");
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

    /** A read of topics on {@code cluster}; an authorization failure names the ACL to grant. */
    private static <T> T readTopics(String cluster, Collection<String> topics, Supplier<T> step) {
        return Denial.guard(cluster, "READ", "topic", topics, step);
    }

    /** A look at groups on {@code cluster}; an authorization failure names the ACL to grant. */
    private static <T> T describeGroups(String cluster, Collection<String> groups, Supplier<T> step) {
        return Denial.guard(cluster, "DESCRIBE", "group", groups, step);
    }
}
