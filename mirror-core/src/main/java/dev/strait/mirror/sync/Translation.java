package dev.strait.mirror.sync;

import org.apache.kafka.common.TopicPartition;

/**
 * Where a consumer group resumes on one target partition.
 *
 * @param target the target partition
 * @param offset the offset to commit on the target
 * @param readAgain copies at or after {@code offset} of source records the group had already consumed (0 when the
 *     translation is exact; above 0 only when records of several source partitions interleave in this target
 *     partition (hash mode), or when a re-copy after a mirror crash has not caught up yet: the translation then
 *     prefers reading again to skipping); -1 when unknown (hash mode, a position far below what the map keeps: the
 *     group starts at the partition's first record rather than risk a skip)
 * @param belowKnown the group's position lies below what the offset map knows of this partition and the map does
 *     not reach back to the partition's first record, or (hash mode) a source partition the group has not
 *     consumed to its end has no copy in what the map knows, so its copies may lie below: the caller must resolve
 *     it on the target
 * @param uncommittedSources source partitions feeding this target partition for which the group has no committed
 *     offset; they were treated as "from their first copied record" (hash mode only)
 */
public record Translation(
        TopicPartition target, long offset, long readAgain, boolean belowKnown, int uncommittedSources) {
    public boolean exact() {
        return readAgain == 0 && !belowKnown;
    }
}
