package dev.strait.mirror.sync;

import java.util.Arrays;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * The oldest stretch of a target partition's history, folded to keep memory bounded: every copy in target offsets
 * {@code [t[0], lastT]} is of {@code source}, their source offsets go strictly up, and every copy after it is of a
 * source offset above {@code lastS}. Only sparse checkpoints are kept ({@code t[i]} holds the copy of {@code s[i]};
 * {@code t[0]} is the first copy, {@code lastT} the last); the copies between two checkpoints (holes left by
 * transaction markers or compaction) are read back from the target when a translation needs them.
 *
 * <p>Why this stays exact (see {@link PartitionIndex} for the rule): no copy of a record in the run is held again,
 * so for a group at C inside the run the exact offset is one past the last copy below C, which lies between the
 * two checkpoints around C; for C above the run only its last copy matters. The arrays are not copied again: treat
 * them as immutable.
 */
public record FoldedRun(TopicPartition source, long[] t, long[] s, long lastT, long lastS) {
    public FoldedRun {
        if (t.length == 0 || t.length != s.length) {
            throw new IllegalArgumentException("a folded run needs at least one checkpoint");
        }
    }

    public long firstT() {
        return t[0];
    }

    public long firstS() {
        return s[0];
    }

    public int checkpoints() {
        return t.length;
    }

    /**
     * The target range {@code [from, to)} that holds the last copy below {@code c}, and {@code from}'s source offset,
     * as {@code {from, to, sourceAtFrom}}; null when {@code c} is not inside the run ({@code c <= firstS()} or
     * {@code c > lastS}).
     */
    public long @Nullable [] bracket(long c) {
        if (c <= s[0] || c > lastS) {
            return null;
        }
        int i = Arrays.binarySearch(s, c);
        // the last checkpoint whose source offset is below c
        i = i >= 0 ? i - 1 : -i - 2;
        long to = i + 1 < t.length ? t[i + 1] : lastT;
        return new long[] {t[i], to, s[i]};
    }

    /** The same checkpoints, source and ends. */
    public boolean sameAs(FoldedRun other) {
        return other != null
                && source.equals(other.source)
                && lastT == other.lastT
                && lastS == other.lastS
                && Arrays.equals(t, other.t)
                && Arrays.equals(s, other.s);
    }
}
