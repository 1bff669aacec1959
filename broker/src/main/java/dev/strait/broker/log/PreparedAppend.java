package dev.strait.broker.log;

import dev.strait.time.Time;
import java.nio.ByteBuffer;
import java.util.List;

/**
 * An append to a {@link PartitionLog} that passed its checks and is ready to write: the batches, the offsets they
 * hold, their largest timestamp and size, and the time the append was taken at. The three kinds of append check
 * different things; each factory runs one kind's checks in the order the log always ran them and changes nothing but
 * the fields it stamps into the batches, so a refused append leaves the log as it was. Immutable once built.
 *
 * @param batches         the validated batches, in order
 * @param logAppendTimeMs the broker time stamped into the batches under LogAppendTime; -1 otherwise
 */
record PreparedAppend(
        List<RecordBatchHeader> batches,
        long firstOffset,
        long lastOffset,
        long maxTimestampMs,
        int sizeBytes,
        long nowMs,
        long logAppendTimeMs) {

    /**
     * A produce append as leader: every batch is validated, then, in place, gets its base offset (consecutive from
     * {@code logEndOffset}), {@code leaderEpoch}, and under LogAppendTime the broker's time (with a new CRC).
     */
    static PreparedAppend asLeader(
            ByteBuffer buffer,
            LogConfig config,
            Time time,
            long logEndOffset,
            int latestEpoch,
            int leaderEpoch,
            String logPrefix) {
        List<RecordBatchHeader> views = validate(buffer, config);
        if (leaderEpoch < 0 || leaderEpoch < latestEpoch) {
            throw new IllegalArgumentException(logPrefix + "append with leader epoch " + leaderEpoch
                    + " but the log is already at epoch " + latestEpoch);
        }
        long nowMs = time.milliseconds();
        boolean logAppendTime = config.timestampType() == TimestampType.LOG_APPEND_TIME;
        long nextOffset = logEndOffset;
        long maxTimestampMs = -1;
        for (RecordBatchHeader batch : views) {
            batch.setBaseOffset(nextOffset);
            batch.setPartitionLeaderEpoch(leaderEpoch);
            if (logAppendTime) {
                batch.setLogAppendTime(nowMs);
            }
            maxTimestampMs = Math.max(maxTimestampMs, batch.maxTimestampMs());
            nextOffset = batch.nextOffset();
        }
        return new PreparedAppend(
                views,
                logEndOffset,
                nextOffset - 1,
                maxTimestampMs,
                buffer.remaining(),
                nowMs,
                logAppendTime ? nowMs : -1);
    }

    /**
     * Batches fetched from the leader, which keep their offsets and epochs: none may start below {@code logEndOffset}
     * (a follower fetches from its log end), and their epochs never go back.
     */
    static PreparedAppend asFollower(
            ByteBuffer buffer, LogConfig config, Time time, long logEndOffset, int latestEpoch, String logPrefix) {
        List<RecordBatchHeader> views = validate(buffer, config);
        long expectedOffset = logEndOffset;
        long maxTimestampMs = -1;
        int epoch = latestEpoch;
        for (RecordBatchHeader batch : views) {
            // Batches may skip offsets, the first one included: a compacted leader, or a mirror topic copied from
            // a compacted source, has no batch at the offset the follower asked for, only later ones (as Kafka
            // accepts any first offset at or above the log end).
            if (batch.baseOffset() < expectedOffset) {
                throw new IllegalArgumentException(logPrefix + "follower batch at offset " + batch.baseOffset()
                        + " does not follow offset " + (expectedOffset - 1));
            }
            if (batch.partitionLeaderEpoch() < epoch) {
                throw new IllegalArgumentException(logPrefix + "follower batch at offset " + batch.baseOffset()
                        + " has epoch " + batch.partitionLeaderEpoch() + " below the log's epoch " + epoch);
            }
            epoch = batch.partitionLeaderEpoch();
            maxTimestampMs = Math.max(maxTimestampMs, batch.maxTimestampMs());
            expectedOffset = batch.nextOffset();
        }
        return keepingOffsets(views, expectedOffset, maxTimestampMs, buffer, time);
    }

    /**
     * Batches copied from another cluster's partition, which keep their offsets: the copy must continue from the log
     * end ({@code requiredBaseOffset}) and no batch may overlap the log; then each batch's partition leader epoch
     * field (outside the CRC) is set to {@code leaderEpoch}.
     *
     * @throws MirrorOffsetMismatchException if the log end is not {@code requiredBaseOffset} or a batch overlaps it
     */
    static PreparedAppend mirrored(
            ByteBuffer buffer,
            LogConfig config,
            Time time,
            long logEndOffset,
            int latestEpoch,
            long requiredBaseOffset,
            int leaderEpoch,
            String logPrefix) {
        if (requiredBaseOffset != logEndOffset) {
            throw new MirrorOffsetMismatchException(
                    logPrefix + "mirrored copy continues from offset " + requiredBaseOffset + " but the log ends at "
                            + logEndOffset,
                    logEndOffset);
        }
        List<RecordBatchHeader> views = validate(buffer, config);
        if (leaderEpoch < 0 || leaderEpoch < latestEpoch) {
            throw new IllegalArgumentException(logPrefix + "mirrored append with leader epoch " + leaderEpoch
                    + " but the log is already at epoch " + latestEpoch);
        }
        long expectedOffset = requiredBaseOffset;
        long maxTimestampMs = -1;
        for (RecordBatchHeader batch : views) {
            if (batch.baseOffset() < expectedOffset) {
                throw new MirrorOffsetMismatchException(
                        logPrefix + "mirrored batch at offset " + batch.baseOffset() + " overlaps the log, which ends"
                                + " at " + expectedOffset,
                        logEndOffset);
            }
            maxTimestampMs = Math.max(maxTimestampMs, batch.maxTimestampMs());
            expectedOffset = batch.nextOffset();
        }
        for (RecordBatchHeader batch : views) {
            batch.setPartitionLeaderEpoch(leaderEpoch);
        }
        return keepingOffsets(views, expectedOffset, maxTimestampMs, buffer, time);
    }

    /** Batches that keep their own offsets (a follower's, a mirror's), up to {@code nextOffset}; taken now. */
    private static PreparedAppend keepingOffsets(
            List<RecordBatchHeader> views, long nextOffset, long maxTimestampMs, ByteBuffer buffer, Time time) {
        return new PreparedAppend(
                views,
                views.get(0).baseOffset(),
                nextOffset - 1,
                maxTimestampMs,
                buffer.remaining(),
                time.milliseconds(),
                -1);
    }

    /** What the append reports once written; {@code logStartOffset} is the log's after the write. */
    AppendResult result(long logStartOffset) {
        return new AppendResult(
                firstOffset, lastOffset, logAppendTimeMs, maxTimestampMs, batches.size(), sizeBytes, logStartOffset);
    }

    /** Splits {@code buffer} into batches and validates each (structure, CRC, {@code max.message.bytes}). */
    private static List<RecordBatchHeader> validate(ByteBuffer buffer, LogConfig config) {
        List<RecordBatchHeader> views = RecordBatches.split(buffer);
        if (views.isEmpty()) {
            throw new CorruptRecordException("append holds no record batches");
        }
        for (RecordBatchHeader batch : views) {
            if (batch.sizeInBytes() > config.maxMessageBytes()) {
                throw new RecordBatchTooLargeException("batch of " + batch.sizeInBytes()
                        + " bytes exceeds max.message.bytes " + config.maxMessageBytes());
            }
            batch.validate();
        }
        return views;
    }
}
