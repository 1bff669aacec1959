package dev.strait.mirror.failover;

import dev.strait.mirror.sync.OffsetMap;
import dev.strait.mirror.sync.PartitionIndex;
import dev.strait.mirror.sync.TargetHistory;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;

/**
 * What the forward mirror had copied to the target before the failover, as the offset map in the sync topic tells
 * it: per target partition its index, and per source partition how far its copies reached over every target
 * partition. Immutable.
 *
 * @param byTarget the index of each target partition the map knows
 * @param frontiers per source partition, one past the highest source offset copied to any target partition
 */
record ForwardCopies(Map<TopicPartition, PartitionIndex> byTarget, Map<TopicPartition, Long> frontiers) {
    ForwardCopies {
        byTarget = Map.copyOf(byTarget);
        frontiers = Map.copyOf(frontiers);
    }

    /** A view of {@code map} as it is now (the map may go on learning; this view does not). */
    static ForwardCopies of(OffsetMap map) {
        Map<TopicPartition, PartitionIndex> byTarget = new HashMap<>();
        Map<TopicPartition, Long> frontiers = new HashMap<>();
        for (TargetHistory h : map.histories()) {
            PartitionIndex index = h.index();
            byTarget.put(h.target(), index);
            for (TopicPartition source : index.sources()) {
                frontiers.merge(source, index.frontier(source), Math::max);
            }
        }
        return new ForwardCopies(byTarget, frontiers);
    }

    /** One past the highest offset of {@code source} copied to the target before the failover, or -1. */
    long frontier(TopicPartition source) {
        return frontiers.getOrDefault(source, -1L);
    }

    /** The index of {@code target}; an empty one when the map knows nothing of it. */
    PartitionIndex index(TopicPartition target) {
        PartitionIndex index = byTarget.get(target);
        return index != null ? index : new TargetHistory(target, 2).index();
    }
}
