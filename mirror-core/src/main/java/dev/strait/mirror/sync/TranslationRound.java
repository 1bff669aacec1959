package dev.strait.mirror.sync;

import dev.strait.mirror.config.TopicRenamer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * One round of translation: the offset map's partitions indexed once, then any number of groups translated
 * against them. A group's committed source offsets become target offsets per target partition: in preserve
 * mode one source partition feeds one target partition; in hash mode each target partition is fed by several
 * and translates from all of them at once (see {@link PartitionIndex}).
 *
 * <p>A source partition of which no copy is known yet (nothing mirrored, an empty partition, or copies written but
 * not acknowledged yet) goes to the target partition with its number, at the end of what the offset map knows
 * of it, never further: the target's end offset may already count copies whose acknowledgements have not
 * arrived (of this source partition, or in hash mode of any other), and committing past them would skip them
 * for good (a target offset never moves back). When the map knows nothing of that partition, the group starts
 * at its first record (read again, never skipped); the next round, knowing more, moves it forward.
 *
 * <p>Not thread-safe; build one per round.
 */
public final class TranslationRound {
    private static final java.util.Comparator<TopicPartition> ORDER =
            java.util.Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    private final TopicRenamer renamer;
    private final Map<TopicPartition, PartitionIndex> indexes = new HashMap<>();
    private final Map<TopicPartition, List<PartitionIndex>> bySource = new HashMap<>();
    private final Map<TopicPartition, Long> targetStarts;
    private final Map<TopicPartition, Long> targetEnds;
    private final Map<TopicPartition, Long> sourceEnds;
    /** Target topics whose partitions interleave copies of several source partitions (hash mode). */
    private final Set<String> interleaved = new HashSet<>();

    /**
     * @param targetStarts the log start offset of the target partitions (a partition missing here starts at 0)
     * @param targetEnds the log end offset of every target partition of the mirrored topics (a partition missing
     *     here does not exist on the target), read before the offset map is looked at here
     * @param sourceEnds the log end offsets of the source partitions, where known: a group committed at a source
     *     partition's end has nothing of it left to skip (a partition missing here is taken as not consumed to
     *     its end)
     */
    public TranslationRound(
            OffsetMap map,
            TopicRenamer renamer,
            Map<TopicPartition, Long> targetStarts,
            Map<TopicPartition, Long> targetEnds,
            Map<TopicPartition, Long> sourceEnds) {
        this.renamer = renamer;
        this.targetStarts = targetStarts;
        this.targetEnds = targetEnds;
        this.sourceEnds = sourceEnds;
        for (TargetHistory h : map.histories()) {
            PartitionIndex index = h.index();
            indexes.put(h.target(), index);
            if (index.sources().size() > 1) {
                interleaved.add(h.target().topic());
            }
            for (TopicPartition source : index.sources()) {
                bySource.computeIfAbsent(source, k -> new ArrayList<>()).add(index);
            }
        }
        bySource.values().forEach(targets -> {
            if (targets.size() > 1) {
                targets.forEach(i -> interleaved.add(i.target().topic()));
            }
        });
    }

    /**
     * The committed source partitions whose unconsumed copies may lie in {@code target} below the offset map's
     * window, where the translation cannot see them: in an interleaved (hash-mode) topic whose window does not
     * reach back to the partition's first record, a source partition that feeds the topic, has no copy in the
     * window (it was idle while the window's records were copied, or the map dropped its older copies) and that
     * the group has not consumed to its end. Empty in preserve mode.
     */
    public Set<TopicPartition> possiblyBelow(TopicPartition target, Map<TopicPartition, Long> committed) {
        PartitionIndex index = indexes.get(target);
        if (index == null
                || index.from() < 0
                || !interleaved.contains(target.topic())
                || index.from() <= targetStarts.getOrDefault(target, 0L)) {
            return Set.of();
        }
        Set<TopicPartition> out = new HashSet<>();
        committed.forEach((source, c) -> {
            Long end = sourceEnds.get(source);
            if (renamer.targetTopic(source.topic()).equals(target.topic())
                    && !index.sources().contains(source)
                    && (end == null || c < end)) {
                out.add(source);
            }
        });
        return out;
    }

    public @Nullable PartitionIndex index(TopicPartition target) {
        return indexes.get(target);
    }

    /** The target partitions holding copies of {@code source}. */
    public List<PartitionIndex> targetsOf(TopicPartition source) {
        return bySource.getOrDefault(source, List.of());
    }

    /**
     * Translates one group. {@code committed} holds the group's committed offsets on the source (partitions of
     * topics that are not mirrored are ignored by the caller). The result is ordered by topic and partition.
     */
    public Map<TopicPartition, Translation> translate(Map<TopicPartition, Long> committed) {
        Map<TopicPartition, Map<TopicPartition, Long>> perTarget = new HashMap<>();
        Map<TopicPartition, Translation> out = new TreeMap<>(ORDER);
        for (Map.Entry<TopicPartition, Long> e : committed.entrySet()) {
            List<PartitionIndex> targets = bySource.get(e.getKey());
            if (targets != null
                    && targets.size() == 1
                    && e.getKey().equals(targets.get(0).onlySource())) {
                // Preserve mode: one source partition, one target partition.
                PartitionIndex index = targets.get(0);
                out.put(index.target(), index.translateOnly(e.getKey(), e.getValue()));
                continue;
            }
            if (targets == null) {
                TopicPartition same = new TopicPartition(
                        renamer.targetTopic(e.getKey().topic()), e.getKey().partition());
                Long end = targetEnds.get(same);
                PartitionIndex index = indexes.get(same);
                if (end != null && (index == null || index.sources().isEmpty())) {
                    out.put(same, noCopyKnown(same, index, end));
                }
                continue;
            }
            for (PartitionIndex index : targets) {
                perTarget.computeIfAbsent(index.target(), k -> new HashMap<>()).put(e.getKey(), e.getValue());
            }
        }
        for (Map.Entry<TopicPartition, Map<TopicPartition, Long>> e : perTarget.entrySet()) {
            Translation t = Objects.requireNonNull(indexes.get(e.getKey()), "a target of an index")
                    .translate(e.getValue());
            if (t != null) {
                out.put(e.getKey(), t);
            }
        }
        for (Map.Entry<TopicPartition, Translation> e : out.entrySet()) {
            Translation t = e.getValue();
            if (!t.belowKnown() && !possiblyBelow(e.getKey(), committed).isEmpty()) {
                // What the window shows is not all there is: the caller resolves it on the target.
                e.setValue(new Translation(t.target(), t.offset(), t.readAgain(), true, t.uncommittedSources()));
            }
        }
        return out;
    }

    /**
     * The translation on {@code target} of a source partition with no known copy, when the map knows no copy of
     * any source partition there either ({@code index} null or without sources).
     */
    private Translation noCopyKnown(TopicPartition target, @Nullable PartitionIndex index, long end) {
        long start = targetStarts.getOrDefault(target, 0L);
        if (end <= start) {
            // An empty partition: nothing to skip or read again.
            return new Translation(target, end, 0, false, 0);
        }
        if (index != null && index.from() >= 0 && index.from() <= start && index.to() >= start) {
            // The map knows [start, to) holds no copy; beyond it may lie copies not acknowledged yet.
            return new Translation(target, Math.min(index.to(), end), 0, false, 0);
        }
        return new Translation(target, start, -1, false, 0);
    }

    public Set<TopicPartition> targets() {
        return indexes.keySet();
    }
}
