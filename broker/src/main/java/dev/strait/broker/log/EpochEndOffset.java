package dev.strait.broker.log;

/**
 * The OffsetForLeaderEpoch answer: the largest epoch at or below the requested one, and the offset where it ended
 * (exclusive). Both are -1 ({@link LeaderEpochCache#UNDEFINED_EPOCH}, {@link LeaderEpochCache#UNDEFINED_EPOCH_OFFSET})
 * when the epoch cannot be answered.
 */
public record EpochEndOffset(int leaderEpoch, long endOffset) {

    public static final EpochEndOffset UNDEFINED =
            new EpochEndOffset(LeaderEpochCache.UNDEFINED_EPOCH, LeaderEpochCache.UNDEFINED_EPOCH_OFFSET);

    public boolean isUndefined() {
        return endOffset == LeaderEpochCache.UNDEFINED_EPOCH_OFFSET;
    }
}
