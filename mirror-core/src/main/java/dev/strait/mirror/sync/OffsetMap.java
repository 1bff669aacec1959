package dev.strait.mirror.sync;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import org.apache.kafka.common.TopicPartition;

/**
 * Where the records of one source cluster landed on the target, per target partition: the positions the
 * mirror learns when the target acknowledges a copy, completed by reads of the target and by snapshots
 * persisted in the sync topic. Thread-safe.
 */
public final class OffsetMap {
    /** Enough for a preserve-mode partition through years of restarts; hash mode keeps about this many records. */
    public static final int DEFAULT_MAX_SEGMENTS = 200_000;

    private final String sourceCluster;
    private final int maxSegments;
    private final Map<TopicPartition, TargetHistory> histories = new ConcurrentHashMap<>();

    public OffsetMap(String sourceCluster, int maxSegments) {
        this.sourceCluster = sourceCluster;
        this.maxSegments = maxSegments;
    }

    public String sourceCluster() {
        return sourceCluster;
    }

    /** The target acknowledged a copy: called on the producer's I/O thread for every record. */
    public void acknowledged(TopicPartition source, long sourceOffset, TopicPartition target, long targetOffset) {
        TargetHistory h = histories.get(target);
        if (h == null) {
            h = histories.computeIfAbsent(target, tp -> new TargetHistory(tp, maxSegments));
        }
        h.acknowledged(source, sourceOffset, targetOffset);
    }

    public TargetHistory history(TopicPartition target) {
        return histories.computeIfAbsent(target, tp -> new TargetHistory(tp, maxSegments));
    }

    /** The history of {@code target}, or null when nothing is known of it. */
    public TargetHistory existing(TopicPartition target) {
        return histories.get(target);
    }

    public Collection<TargetHistory> histories() {
        return histories.values();
    }

    public void merge(HistorySnapshot snapshot) {
        history(snapshot.target()).merge(snapshot);
    }
}
