package dev.strait.mirror.failover;

import dev.strait.mirror.sync.HistorySnapshot;
import dev.strait.mirror.sync.OffsetMap;
import dev.strait.mirror.sync.PartitionIndex;
import dev.strait.mirror.sync.TargetHistory;
import dev.strait.mirror.sync.Translation;
import java.util.HashMap;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * The copies a failback wrote back to the source, per source partition: which target record each one copies
 * (a failback's reverse mirror has the target as its source, so a snapshot's source offsets are target offsets and
 * its target offsets are source offsets). A partition listed with no copies differs from one not listed: it was
 * read and holds none. Immutable.
 *
 * @param snapshots per source partition, its copies of target records
 * @param indexes per source partition, the same copies arranged for translation
 */
record CopiesBack(Map<TopicPartition, HistorySnapshot> snapshots, Map<TopicPartition, PartitionIndex> indexes) {
    /** Before anything was copied back (a dry run). */
    static final CopiesBack NONE = new CopiesBack(Map.of(), Map.of());

    CopiesBack {
        snapshots = Map.copyOf(snapshots);
        indexes = Map.copyOf(indexes);
        if (!snapshots.keySet().equals(indexes.keySet())) {
            throw new IllegalArgumentException(
                    "copies back of partitions " + snapshots.keySet() + " but indexes of " + indexes.keySet());
        }
    }

    /** A view of {@code reverse} (the reverse mirror's offset map) as it is now. */
    static CopiesBack of(OffsetMap reverse) {
        Map<TopicPartition, HistorySnapshot> snapshots = new HashMap<>();
        Map<TopicPartition, PartitionIndex> indexes = new HashMap<>();
        for (TargetHistory h : reverse.histories()) {
            snapshots.put(h.target(), h.snapshot());
            indexes.put(h.target(), h.index());
        }
        return new CopiesBack(snapshots, indexes);
    }

    /** The copies back of one target partition: how many, and the source offsets they span. */
    record Copied(long records, long from, long to) {}

    boolean knows(TopicPartition source) {
        return snapshots.containsKey(source);
    }

    /** The index of {@code source}; an empty one when nothing of it is known. */
    PartitionIndex index(TopicPartition source) {
        PartitionIndex index = indexes.get(source);
        return index != null ? index : new TargetHistory(source, 2).index();
    }

    /** Where on {@code source} a group that stopped at {@code targetOffset} on {@code target} resumes, or null. */
    @Nullable
    Translation translate(TopicPartition source, TopicPartition target, long targetOffset) {
        PartitionIndex index = indexes.get(source);
        return index == null ? null : index.translate(Map.of(target, targetOffset));
    }

    /** The source offset of the first copy on {@code source} of a target record at or after {@code point}, or -1. */
    long firstAtOrAfter(TopicPartition source, long point) {
        HistorySnapshot snap = snapshots.get(source);
        long first = -1;
        for (int i = 0; snap != null && i < snap.size(); i++) {
            long skip = Math.max(0, point - snap.s()[i]);
            if (skip < snap.len()[i]) {
                long at = snap.t()[i] + skip;
                first = first < 0 ? at : Math.min(first, at);
            }
        }
        return first;
    }

    /** Copies on {@code source} of the target records in {@code [point, x)}: what a group that read them reads again. */
    long between(TopicPartition source, long point, long x) {
        HistorySnapshot snap = snapshots.get(source);
        long n = 0;
        for (int i = 0; snap != null && i < snap.size(); i++) {
            long lo = Math.max(point, snap.s()[i]);
            long hi = Math.min(x, snap.s()[i] + snap.len()[i]);
            n += Math.max(0, hi - lo);
        }
        return n;
    }

    /**
     * The copies on {@code source} of target records at or after {@code failoverOffset}: this failover's copies
     * (earlier runs included), not those of an earlier failback.
     */
    Copied since(TopicPartition source, long failoverOffset) {
        HistorySnapshot snap = snapshots.get(source);
        long copied = 0;
        long from = -1;
        long to = -1;
        for (int i = 0; snap != null && i < snap.size(); i++) {
            long skip = Math.max(0, failoverOffset - snap.s()[i]);
            if (skip >= snap.len()[i]) {
                continue;
            }
            long first = snap.t()[i] + skip;
            copied += snap.len()[i] - skip;
            from = from < 0 ? first : Math.min(from, first);
            to = Math.max(to, snap.t()[i] + snap.len()[i]);
        }
        return new Copied(copied, from, to);
    }
}
