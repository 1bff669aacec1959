package dev.strait.mirror.linked;

import dev.strait.mirror.linked.SourceLineage.EpochStart;
import java.util.List;

/**
 * Where two copies of a partition part, found from leader-epoch lineage as a Kafka follower finds where to truncate
 * (OffsetForLeaderEpoch, KIP-101 and KIP-279): the old source's own epochs against the epochs of the old source that
 * the promoted side recorded while it copied ({@link SourceLineage}). A pure function; the old source is asked
 * through {@link EpochEnds}.
 *
 * <p>The largest epoch both hold decides: the two agree up to the smaller of its ends on each side, and part there.
 * The answer is bounded above by the promoted side's end when it was promoted (what it copied; it wrote its own
 * records after) and by the old source's end, and below by the offset where the promoted side's link began (both
 * agree below it by construction: the earlier failback cut there).
 */
final class LineageParting {

    /**
     * The old source's epochs, as OffsetForLeaderEpoch answers: for a requested epoch, the largest epoch it holds at or
     * below it and where that one ends (the start of the next, or its log end).
     */
    @FunctionalInterface
    interface EpochEnds {
        /** The answer for {@code epoch}; {@code epoch} -1 when the old source holds no epoch at or below it. */
        EpochEnd endOf(int epoch);
    }

    /** An OffsetForLeaderEpoch answer: the epoch found (-1 if none) and its end offset (-1 if none). */
    record EpochEnd(int epoch, long endOffset) {
        static final EpochEnd UNDEFINED = new EpochEnd(-1, -1);
    }

    private LineageParting() {}

    /**
     * The first offset where the old source's log and the promoted side's copy of it differ.
     *
     * @param copied          the promoted side's lineage of the old source
     * @param promotedAt      the promoted side's end at its promote (it copied nothing at or past it)
     * @param oldSource       the old source's epochs
     * @param oldSourceEnd    the old source's log end
     */
    static long partingPoint(SourceLineage copied, long promotedAt, EpochEnds oldSource, long oldSourceEnd) {
        long bound = Math.min(promotedAt, oldSourceEnd);
        long floor = Math.min(copied.linkStartOffset(), bound);
        List<EpochStart> epochs = copied.epochs();
        int below = Integer.MAX_VALUE; // only epochs below this one can still be common
        for (int i = epochs.size() - 1; i >= 0; i--) {
            EpochStart entry = epochs.get(i);
            long entryEnd = i + 1 < epochs.size() ? epochs.get(i + 1).startOffset() : promotedAt;
            if (entry.epoch() > below || entry.startOffset() >= Math.min(entryEnd, promotedAt)) {
                continue; // not held by the old source, or an empty range (cut away at the promote)
            }
            EpochEnd theirs = oldSource.endOf(entry.epoch());
            if (theirs.epoch() < 0) {
                break; // the old source holds no epoch this old: nothing above the link's start is common
            }
            if (theirs.epoch() == entry.epoch()) {
                return clamp(Math.min(theirs.endOffset(), Math.min(entryEnd, promotedAt)), floor, bound);
            }
            below = theirs.epoch();
        }
        return floor;
    }

    private static long clamp(long point, long floor, long bound) {
        return Math.max(floor, Math.min(point, bound));
    }
}
