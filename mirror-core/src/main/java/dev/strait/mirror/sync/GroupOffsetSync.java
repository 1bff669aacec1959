package dev.strait.mirror.sync;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.time.Time;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.KafkaFuture;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mirror's sync loop, on its own thread, every {@code interval}: keeps the offset map (what the target
 * acknowledged) true and persisted in the sync topic, and, when groups were asked for, writes to each matching
 * group on the target the exact translation of its committed source offsets (see {@link PartitionIndex}).
 *
 * <p>Rules: a group with members on the target is never touched (its consumers own their offsets); a target
 * offset is never moved back (a group that already read further on the target keeps its place); the group's
 * source commits are saved as a {@link GroupCheckpoint} so that {@code strait failover} works with the source
 * down. A round that fails is logged, counted ({@code strait.mirror.sync.group-offsets.failing}) and retried on
 * the next interval; it never stops the mirror.
 *
 * <p>Threading: the loop owns every field; {@link #requestStop()} may be called from any thread.
 */
public final class GroupOffsetSync implements Runnable {
    private static final Logger LOGGER = LoggerFactory.getLogger(GroupOffsetSync.class);
    private static final long TIMEOUT_MS = 30_000;
    /** Records read from the target per round to fill what the offset map does not know. */
    private static final long READ_BUDGET = 2_000_000;

    private static final int WRITES_IN_FLIGHT = 50;
    /**
     * Stretches of folded runs read from the target per round for groups far behind (a hundred partitions' at a
     * time): past it a group is put at the checkpoint below its position (nothing skipped) and moved forward to the
     * exact offset in later rounds.
     */
    private static final long FOLDED_READS_PER_ROUND = 20_000;
    /** At most this long (or half the interval) reading those stretches per round. */
    private static final long FOLDED_READ_MS_PER_ROUND = 1_000;

    /** What to sync; {@code groups} null means only the offset map is kept (no group offsets written). */
    /** {@code groups} null: no group's offsets are synced (the offset map is kept all the same). */
    public record Config(
            @Nullable GroupFilter groups, long intervalMs, String mirrorGroup, Pattern topics, TopicRenamer renamer) {}

    private final Config settings;
    private final Admin sourceAdmin;
    private final Admin targetAdmin;
    private final OffsetMap map;
    private final SyncTopic syncTopic;
    private final TargetReader reader;
    private final Time time;
    private final String writerId;
    private final SyncMetrics groupMetrics;
    private final SyncMetrics mapMetrics;
    private final Object wakeup = new Object();
    private volatile boolean stopRequested;

    private boolean loaded;
    private final Map<TopicPartition, Long> persistedVersions = new HashMap<>();
    private final Map<String, Map<TopicPartition, Long>> lastCheckpoints = new HashMap<>();
    private final BelowResolver below;
    /**
     * Per group, the target offsets it is known to have (written by this process, or found at or beyond the
     * translation): a group whose translation does not go past them needs no look at the target this round.
     */
    private final Map<String, Map<TopicPartition, Long>> knownOnTarget = new HashMap<>();

    private volatile RoundStats lastRound = new RoundStats(0, 0, 0, 0, 0, 0);

    /**
     * What the last round did, for logs, metrics and tests: groups and partitions translated, offsets written,
     * groups left alone because they have members on the target, partitions not exactly translatable, the whole
     * round's time and its parts (reading the source, translating, checking and writing the target groups).
     */
    public record RoundStats(
            int groups,
            int partitions,
            int written,
            int skippedActive,
            int inexact,
            long millis,
            long sourceMillis,
            long translateMillis,
            long targetMillis) {
        RoundStats(int groups, int partitions, int written, int skippedActive, int inexact, long millis) {
            this(groups, partitions, written, skippedActive, inexact, millis, 0, 0, 0);
        }
    }

    public GroupOffsetSync(
            Config settings,
            Admin sourceAdmin,
            Admin targetAdmin,
            OffsetMap map,
            SyncTopic syncTopic,
            TargetReader reader,
            Time time,
            String writerId,
            MetricRegistry registry) {
        this.settings = settings;
        this.sourceAdmin = sourceAdmin;
        this.targetAdmin = targetAdmin;
        this.map = map;
        this.syncTopic = syncTopic;
        this.reader = reader;
        this.time = time;
        this.writerId = writerId;
        this.below = new BelowResolver(
                reader, FOLDED_READS_PER_ROUND, time, Math.min(FOLDED_READ_MS_PER_ROUND, settings.intervalMs() / 2));
        // The mirror's map: bounded per partition whatever the source's shape; the resolver reads what it folded.
        map.fold(OffsetMap.FOLD_WINDOW, OffsetMap.FOLD_CHECKPOINTS);
        this.groupMetrics = new SyncMetrics(registry, "group-offsets");
        this.mapMetrics = new SyncMetrics(registry, "offset-map");
        registry.gauge(SyncMetrics.PREFIX + "group-offsets.groups", () -> () -> lastRound.groups());
        registry.gauge(SyncMetrics.PREFIX + "group-offsets.partitions", () -> () -> lastRound.partitions());
        registry.gauge(SyncMetrics.PREFIX + "group-offsets.skipped-active", () -> () -> lastRound.skippedActive());
        registry.gauge(SyncMetrics.PREFIX + "group-offsets.inexact", () -> () -> lastRound.inexact());
        registry.gauge(
                SyncMetrics.PREFIX + "offset-map.segments",
                () -> () -> map.histories().stream()
                        .mapToLong(TargetHistory::segments)
                        .sum());
    }

    public void requestStop() {
        stopRequested = true;
        synchronized (wakeup) {
            wakeup.notifyAll();
        }
    }

    public RoundStats lastRound() {
        return lastRound;
    }

    public SyncMetrics groupMetrics() {
        return groupMetrics;
    }

    @Override
    public void run() {
        while (!stopRequested) {
            long start = time.milliseconds();
            round();
            long next = start + settings.intervalMs();
            try {
                time.waitObject(wakeup, () -> stopRequested || time.milliseconds() >= next, next);
            } catch (org.apache.kafka.common.errors.TimeoutException e) {
                // the deadline passed between two looks at the clock: time for the next round
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                stopRequested = true;
            }
        }
        // A last snapshot, so that a restart (or a failover) starts from everything this process learnt.
        try {
            persistMap();
            syncTopic.flush();
        } catch (RuntimeException e) {
            LOGGER.warn(
                    "Could not persist the offset map on stop: {}; a restart reads the missing part from the target",
                    e.toString());
        }
    }

    /** One round; never throws. */
    public void round() {
        long start = time.milliseconds();
        try (var ignored = mapMetrics.time()) {
            long failedBefore = mapMetrics.consecutiveFailures();
            long changed = upkeep();
            mapMetrics.succeeded(time.milliseconds(), changed);
            if (failedBefore > 0) {
                LOGGER.info("Offset map upkeep works again after {} failed rounds", failedBefore);
            }
        } catch (RuntimeException e) {
            long n = mapMetrics.failed();
            if (SyncMetrics.worthLogging(n)) {
                LOGGER.warn(
                        "Offset map upkeep failed ({} in a row): {}; retrying every {} ms",
                        n,
                        e.getMessage(),
                        settings.intervalMs());
            }
            return;
        }
        GroupFilter groups = settings.groups();
        if (groups == null) {
            return;
        }
        try (var ignored = groupMetrics.time()) {
            long failedBefore = groupMetrics.consecutiveFailures();
            RoundStats stats = syncGroups(start, groups);
            if (failedBefore > 0) {
                LOGGER.info("Group offset sync works again after {} failed rounds", failedBefore);
            }
            lastRound = stats;
            groupMetrics.succeeded(time.milliseconds(), stats.written());
            if (groupMetrics.rounds() == 1 || stats.written() > 0) {
                LOGGER.info(
                        "Group offset sync: {} groups, {} partitions translated, {} offsets written, {} groups left "
                                + "alone (active on the target), {} partitions inexact, {} ms",
                        stats.groups(),
                        stats.partitions(),
                        stats.written(),
                        stats.skippedActive(),
                        stats.inexact(),
                        stats.millis());
            }
        } catch (RuntimeException e) {
            long n = groupMetrics.failed();
            if (SyncMetrics.worthLogging(n)) {
                LOGGER.warn(
                        "Group offset sync failed ({} in a row): {}; retrying every {} ms",
                        n,
                        e.getMessage(),
                        settings.intervalMs());
            }
        }
    }

    /** Loads and merges the sync topic, reads what the map misses from the target, persists changes. */
    private long upkeep() {
        if (!loaded) {
            syncTopic.ensure(targetAdmin, (short) -1);
        }
        for (ConsumerRecord<byte[], byte[]> r : syncTopic.readNew()) {
            SyncRecords.Key key = SyncRecords.parseKey(r.key());
            if (key != null
                    && !loaded
                    && key.kind() == SyncRecords.Kind.GROUP
                    && key.sourceCluster().equals(map.sourceCluster())) {
                // Where each group stood when the mirror last looked: a group moved back on the source while the
                // mirror was down is followed too.
                GroupCheckpoint c = SyncRecords.decodeGroup(r.value());
                if (c != null) {
                    lastCheckpoints.merge(c.group(), c.committed(), GroupOffsetSync::union);
                }
                continue;
            }
            if (key == null
                    || key.kind() != SyncRecords.Kind.MAP
                    || !key.sourceCluster().equals(map.sourceCluster())) {
                continue;
            }
            SyncRecords.MapValue value = SyncRecords.decodeMap(r.value());
            // Our own snapshots add nothing after the first load; another process's are merged (facts agree).
            if (value != null && (!loaded || !value.writer().equals(writerId))) {
                map.merge(value.snapshot());
            }
        }
        loaded = true;
        Map<TopicPartition, Long> knownEnds = MapUpkeep.knownEnds(map);
        List<TopicPartition> tps = new ArrayList<>(existing(MapUpkeep.partitions(map)));
        Map<TopicPartition, Long> starts = Clusters.startOffsets(targetAdmin, tps, TIMEOUT_MS);
        Map<TopicPartition, Long> ends = Clusters.endOffsets(targetAdmin, tps, TIMEOUT_MS);
        MapUpkeep.Result result = MapUpkeep.run(map, reader, knownEnds, starts, ends, READ_BUDGET, null);
        if (result.recordsRead() > 0) {
            LOGGER.info(
                    "Offset map: read {} records back from the target to fill what it did not know{}",
                    result.recordsRead(),
                    result.complete() ? "" : " (more next round)");
        }
        return persistMap() + result.partitionsReset();
    }

    /** The partitions among {@code tps} whose topics exist on the target. */
    private Set<TopicPartition> existing(List<TopicPartition> tps) {
        Set<String> topics = new HashSet<>();
        tps.forEach(tp -> topics.add(tp.topic()));
        Set<TopicPartition> all = Clusters.partitions(targetAdmin, topics, TIMEOUT_MS);
        Set<TopicPartition> out = new HashSet<>(tps);
        out.retainAll(all);
        return out;
    }

    private long persistMap() {
        List<Future<?>> sent = new ArrayList<>();
        Map<TopicPartition, Long> versions = new HashMap<>();
        nameIncarnations();
        for (TargetHistory h : map.histories()) {
            long v = h.version();
            if (persistedVersions.getOrDefault(h.target(), -1L) == v) {
                continue;
            }
            sent.add(syncTopic.write(
                    SyncRecords.mapKey(map.sourceCluster(), h.target()), SyncRecords.encode(h.snapshot(), writerId)));
            versions.put(h.target(), v);
        }
        await(sent, "persist the offset map");
        persistedVersions.putAll(versions);
        return versions.size();
    }

    /**
     * Gives every history about to be persisted without a topic id the id of its target topic: what this process
     * acknowledged since the last upkeep (or on its way out) is of the topic as it is now. A snapshot without an id is
     * what an older version wrote, and whoever loads it checks it on the target record by record, which is slow.
     */
    private void nameIncarnations() {
        Set<String> topics = new HashSet<>();
        for (TargetHistory h : map.histories()) {
            if (h.topicId() == null && persistedVersions.getOrDefault(h.target(), -1L) != h.version()) {
                topics.add(h.target().topic());
            }
        }
        if (topics.isEmpty()) {
            return;
        }
        Map<String, String> ids = reader.topicIds(topics);
        for (TargetHistory h : map.histories()) {
            String id = h.topicId() == null ? ids.get(h.target().topic()) : null;
            if (id != null && !h.unverified()) {
                h.confirm(id);
            }
        }
    }

    private RoundStats syncGroups(long startMs, GroupFilter groupFilter) {
        List<String> groups = Clusters.consumerGroups(
                sourceAdmin, g -> !g.equals(settings.mirrorGroup()) && groupFilter.matches(g), TIMEOUT_MS);
        Map<String, Map<TopicPartition, OffsetAndMetadata>> committed =
                Clusters.committed(sourceAdmin, groups, TIMEOUT_MS);
        Set<TopicPartition> sourceTps = new HashSet<>();
        Map<String, Map<TopicPartition, Long>> offsets = new HashMap<>();
        for (Map.Entry<String, Map<TopicPartition, OffsetAndMetadata>> e : committed.entrySet()) {
            Map<TopicPartition, Long> mirrored = new HashMap<>();
            e.getValue().forEach((tp, om) -> {
                if (settings.topics().matcher(tp.topic()).matches()) {
                    mirrored.put(tp, om.offset());
                }
            });
            if (!mirrored.isEmpty()) {
                offsets.put(e.getKey(), mirrored);
                sourceTps.addAll(mirrored.keySet());
            }
        }
        Map<TopicPartition, Long> sourceEnds = Clusters.endOffsets(sourceAdmin, sourceTps, TIMEOUT_MS);
        long sourceDone = time.milliseconds();
        Set<String> targetTopics = new HashSet<>();
        sourceTps.forEach(tp -> targetTopics.add(settings.renamer().targetTopic(tp.topic())));
        map.histories().forEach(h -> targetTopics.add(h.target().topic()));
        Set<TopicPartition> targetTps = Clusters.partitions(targetAdmin, targetTopics, TIMEOUT_MS);
        Map<TopicPartition, Long> targetStarts = Clusters.startOffsets(targetAdmin, targetTps, TIMEOUT_MS);
        Map<TopicPartition, Long> targetEnds = Clusters.endOffsets(targetAdmin, targetTps, TIMEOUT_MS);

        TranslationRound round = new TranslationRound(map, settings.renamer(), targetStarts, targetEnds, sourceEnds);
        Map<String, Map<TopicPartition, Translation>> translated = new HashMap<>();
        int partitions = 0;
        int inexact = 0;
        below.from(map);
        List<String> names = new ArrayList<>(offsets.keySet());
        List<Map<TopicPartition, Long>> positions = new ArrayList<>();
        List<Map<TopicPartition, Translation>> raw = new ArrayList<>();
        for (String g : names) {
            Map<TopicPartition, Long> groupOffsets = Objects.requireNonNull(offsets.get(g), "one of offsets' groups");
            positions.add(groupOffsets);
            raw.add(round.translate(groupOffsets));
        }
        // What lies inside folded runs is read from the target together, before the groups are resolved one by one.
        below.prefetch(round, raw, positions);
        for (int i = 0; i < names.size(); i++) {
            Map<TopicPartition, Translation> t = below.resolve(round, raw.get(i), positions.get(i), targetStarts);
            translated.put(names.get(i), t);
            partitions += t.size();
            for (Translation tr : t.values()) {
                if (!tr.exact()) {
                    inexact++;
                }
            }
        }
        long translateDone = time.milliseconds();
        Map<String, Set<TopicPartition>> rewound = rewound(offsets);
        List<String> candidates = new ArrayList<>();
        for (Map.Entry<String, Map<TopicPartition, Translation>> e : translated.entrySet()) {
            Map<TopicPartition, Long> known = knownOnTarget.get(e.getKey());
            boolean ahead = known == null || rewound.containsKey(e.getKey());
            for (Translation t : e.getValue().values()) {
                Long k = known == null ? null : known.get(t.target());
                if (k == null || t.offset() > k) {
                    ahead = true;
                }
            }
            if (ahead) {
                candidates.add(e.getKey());
            }
        }
        Map<String, Integer> members = Clusters.members(targetAdmin, candidates, TIMEOUT_MS);
        List<String> idle = new ArrayList<>();
        int skippedActive = 0;
        for (String g : candidates) {
            if (members.getOrDefault(g, 0) > 0) {
                skippedActive++;
                knownOnTarget.remove(g);
            } else {
                idle.add(g);
            }
        }
        Map<String, Map<TopicPartition, OffsetAndMetadata>> onTarget =
                Clusters.committed(targetAdmin, idle, TIMEOUT_MS);
        Map<String, Map<TopicPartition, OffsetAndMetadata>> pending = new HashMap<>();
        int written = 0;
        int writeFailures = 0;
        String firstFailure = null;
        for (String g : idle) {
            Map<TopicPartition, OffsetAndMetadata> current = onTarget.getOrDefault(g, Map.of());
            Map<TopicPartition, OffsetAndMetadata> out = new HashMap<>();
            Map<TopicPartition, Long> known = new HashMap<>();
            Set<TopicPartition> back = rewound.getOrDefault(g, Set.of());
            for (Translation t : Objects.requireNonNull(translated.get(g), "every idle group was translated")
                    .values()) {
                OffsetAndMetadata now = current.get(t.target());
                if (now != null && t.offset() < now.offset() && fedByAny(t.target(), back)) {
                    LOGGER.info(
                            "Group {} was moved back on the source: moving it back on the target too, {} {} -> {} "
                                    + "(it has no members there)",
                            g,
                            t.target(),
                            now.offset(),
                            t.offset());
                    out.put(t.target(), new OffsetAndMetadata(t.offset()));
                    known.put(t.target(), t.offset());
                } else if (now == null || t.offset() > now.offset()) {
                    out.put(t.target(), new OffsetAndMetadata(t.offset()));
                    known.put(t.target(), t.offset());
                } else {
                    known.put(t.target(), now.offset());
                }
            }
            knownOnTarget.put(g, known);
            if (!out.isEmpty()) {
                pending.put(g, out);
                written += out.size();
            }
        }
        // A bounded number of writes in flight, so that a thousand groups moving at once do not swamp the
        // target's group coordinators (and time out).
        List<String> order = new ArrayList<>(pending.keySet());
        for (int from = 0; from < order.size(); from += WRITES_IN_FLIGHT) {
            Map<String, KafkaFuture<Void>> writes = new HashMap<>();
            for (String g : order.subList(from, Math.min(order.size(), from + WRITES_IN_FLIGHT))) {
                writes.put(
                        g,
                        targetAdmin.alterConsumerGroupOffsets(g, pending.get(g)).all());
            }
            for (Map.Entry<String, KafkaFuture<Void>> w : writes.entrySet()) {
                try {
                    w.getValue().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
                } catch (ExecutionException e) {
                    knownOnTarget.remove(w.getKey());
                    Throwable cause = e.getCause();
                    if (cause instanceof org.apache.kafka.common.errors.UnknownMemberIdException
                            || cause instanceof org.apache.kafka.common.errors.GroupNotEmptyException
                            || cause instanceof org.apache.kafka.common.errors.IllegalGenerationException) {
                        // A consumer joined between the check and the write: the broker refused, as it should.
                        skippedActive++;
                    } else {
                        if (writeFailures++ == 0) {
                            firstFailure = w.getKey() + ": " + cause;
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new SyncException("interrupted", e);
                } catch (java.util.concurrent.TimeoutException e) {
                    throw new SyncException(
                            "timed out writing the offsets of group " + w.getKey() + " on the target", e);
                }
            }
        }
        writeCheckpoints(offsets, sourceEnds, startMs);
        knownOnTarget.keySet().retainAll(translated.keySet());
        if (writeFailures > 0) {
            throw new SyncException(writeFailures + " groups' offsets could not be written on the target (first: "
                    + firstFailure + "); they are written again next round");
        }
        long end = time.milliseconds();
        return new RoundStats(
                offsets.size(),
                partitions,
                written,
                skippedActive,
                inexact,
                end - startMs,
                sourceDone - startMs,
                translateDone - sourceDone,
                end - translateDone);
    }

    /**
     * Groups whose committed offset went down on the source since the mirror last read it (an operator's
     * {@code kafka-consumer-groups --reset-offsets}, or an application seeking back): per group, the target topics
     * of the partitions moved back. A target offset is otherwise never moved back, but for these the group's
     * offset on the target follows the source down, or a consumer started on the target would skip the rewound
     * records.
     */
    private Map<String, Set<TopicPartition>> rewound(Map<String, Map<TopicPartition, Long>> offsets) {
        Map<String, Set<TopicPartition>> out = new HashMap<>();
        offsets.forEach((g, now) -> {
            Map<TopicPartition, Long> before = lastCheckpoints.get(g);
            if (before == null) {
                return;
            }
            now.forEach((tp, offset) -> {
                Long was = before.get(tp);
                if (was != null && offset < was) {
                    LOGGER.info("Group {} moved back on the source: {} {} -> {}", g, tp, was, offset);
                    out.computeIfAbsent(g, k -> new HashSet<>()).add(tp);
                }
            });
        });
        return out;
    }

    /** Whether any of {@code sources} has copies in {@code target} (or, before any is known, maps to it). */
    private boolean fedByAny(TopicPartition target, Set<TopicPartition> sources) {
        TargetHistory h = map.existing(target);
        Set<TopicPartition> feeders = h == null ? Set.of() : h.index().sources();
        for (TopicPartition s : sources) {
            if (feeders.contains(s)
                    || (s.partition() == target.partition()
                            && settings.renamer().targetTopic(s.topic()).equals(target.topic()))) {
                return true;
            }
        }
        return false;
    }

    private static Map<TopicPartition, Long> union(Map<TopicPartition, Long> a, Map<TopicPartition, Long> b) {
        Map<TopicPartition, Long> out = new HashMap<>(a);
        out.putAll(b);
        return out;
    }

    private void writeCheckpoints(
            Map<String, Map<TopicPartition, Long>> offsets, Map<TopicPartition, Long> sourceEnds, long nowMs) {
        List<Future<?>> sent = new ArrayList<>();
        Map<String, Map<TopicPartition, Long>> written = new HashMap<>();
        for (Map.Entry<String, Map<TopicPartition, Long>> e : offsets.entrySet()) {
            if (e.getValue().equals(lastCheckpoints.get(e.getKey()))) {
                continue;
            }
            Map<TopicPartition, Long> ends = new HashMap<>();
            e.getValue().keySet().forEach(tp -> {
                Long end = sourceEnds.get(tp);
                if (end != null) {
                    ends.put(tp, end);
                }
            });
            sent.add(syncTopic.write(
                    SyncRecords.groupKey(map.sourceCluster(), e.getKey(), settings.mirrorGroup()),
                    SyncRecords.encode(new GroupCheckpoint(e.getKey(), nowMs, e.getValue(), ends))));
            written.put(e.getKey(), e.getValue());
        }
        await(sent, "write group checkpoints");
        lastCheckpoints.putAll(written);
    }

    private static void await(List<Future<?>> sent, String what) {
        for (Future<?> f : sent) {
            try {
                f.get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            } catch (ExecutionException e) {
                throw new SyncException(
                        "could not " + what + " in the sync topic: "
                                + (e.getCause() == null ? e : e.getCause()).getMessage(),
                        e.getCause());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new SyncException("interrupted", e);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new SyncException("timed out trying to " + what + " in the sync topic", e);
            }
        }
    }
}
