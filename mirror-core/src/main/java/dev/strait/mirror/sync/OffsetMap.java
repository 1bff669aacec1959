package dev.strait.mirror.sync;

import java.util.Collection;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * Where the records of one source cluster landed on the target, per target partition: the positions the
 * mirror learns when the target acknowledges a copy, completed by reads of the target and by snapshots
 * persisted in the sync topic. Thread-safe.
 */
public final class OffsetMap {
    /**
     * Per target partition: a preserve-mode partition needs one segment per restart, dropped record or transaction
     * marker in the window that matters; hash mode needs about one per record, so it keeps about the last 10,000 to
     * 20,000 records of each partition exactly (at most 480 KB per partition); positions below are resolved on the
     * target ({@link BelowResolver}).
     */
    public static final int DEFAULT_MAX_SEGMENTS = 20_000;
    /**
     * With folding on ({@link #fold}), exact segments kept at the end of each partition's history: a group within
     * them (about the last 640 records of a source with a commit every 10 records) is translated without a read.
     */
    public static final int FOLD_WINDOW = 64;
    /** With folding on, checkpoints kept of each partition's folded run (16 bytes each). */
    public static final int FOLD_CHECKPOINTS = 128;

    private final String sourceCluster;
    private final int maxSegments;
    private volatile int foldWindow;
    private volatile int foldCheckpoints;
    private final Map<TopicPartition, TargetHistory> histories = new ConcurrentHashMap<>();

    public OffsetMap(String sourceCluster, int maxSegments) {
        this.sourceCluster = sourceCluster;
        this.maxSegments = maxSegments;
    }

    public String sourceCluster() {
        return sourceCluster;
    }

    /**
     * Bounds the memory of every partition's history whatever the source's shape (see {@link TargetHistory#fold}):
     * the mirror's own map, whose translations go through a {@link BelowResolver} that reads the target.
     */
    public void fold(int window, int checkpoints) {
        foldWindow = window;
        foldCheckpoints = checkpoints;
        histories.values().forEach(h -> h.fold(window, checkpoints));
    }

    /** The target acknowledged a copy: called on the producer's I/O thread for every record. */
    public void acknowledged(TopicPartition source, long sourceOffset, TopicPartition target, long targetOffset) {
        TargetHistory h = histories.get(target);
        if (h == null) {
            h = history(target);
        }
        h.acknowledged(source, sourceOffset, targetOffset);
    }

    /**
     * Loop prevention dropped {@code source}@{@code sourceOffset}, a copy of target record {@code target}@{@code
     * targetOffset}: that record stands for it in translations (see {@link TargetHistory#original}).
     */
    public void original(TopicPartition source, long sourceOffset, TopicPartition target, long targetOffset) {
        history(target).original(source, sourceOffset, targetOffset);
    }

    public TargetHistory history(TopicPartition target) {
        return histories.computeIfAbsent(target, tp -> {
            TargetHistory h = new TargetHistory(tp, maxSegments);
            if (foldWindow > 0) {
                h.fold(foldWindow, foldCheckpoints);
            }
            return h;
        });
    }

    /** The history of {@code target}, or null when nothing is known of it. */
    public @Nullable TargetHistory existing(TopicPartition target) {
        return histories.get(target);
    }

    public Collection<TargetHistory> histories() {
        return histories.values();
    }

    public void merge(HistorySnapshot snapshot) {
        history(snapshot.target()).merge(snapshot);
    }
}
