package dev.strait.broker.log;

/**
 * What an append did. Immutable.
 *
 * @param firstOffset     offset of the first record appended
 * @param lastOffset      offset of the last record appended
 * @param logAppendTimeMs the time stamped into the batches under LogAppendTime, else -1
 * @param maxTimestampMs  the largest batch maxTimestamp appended (after LogAppendTime stamping)
 * @param batchCount      number of batches appended
 * @param sizeBytes       bytes appended
 * @param logStartOffset  the log start offset at the time of the append (returned in produce responses)
 */
public record AppendResult(
        long firstOffset,
        long lastOffset,
        long logAppendTimeMs,
        long maxTimestampMs,
        int batchCount,
        int sizeBytes,
        long logStartOffset) {}
