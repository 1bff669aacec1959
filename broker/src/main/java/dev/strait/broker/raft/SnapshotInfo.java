package dev.strait.broker.raft;

import java.util.Objects;

/**
 * A stored snapshot of the replicated state machine, as KIP-630 names it: {@code id} is the end offset
 * (exclusive) and the epoch of the last log entry the snapshot covers, so the snapshot stands in for every entry
 * below {@code id.offset()}. {@code sizeBytes} and {@code crc32c} describe the content (the state machine's own
 * bytes, without any file framing): a follower that downloads a snapshot in chunks checks both before it
 * installs it.
 */
public record SnapshotInfo(OffsetAndEpoch id, long sizeBytes, int crc32c) {

    public SnapshotInfo {
        Objects.requireNonNull(id, "id");
        if (id.offset() <= 0 || id.epoch() <= 0) {
            throw new IllegalArgumentException("a snapshot covers at least one entry of a real epoch: " + id);
        }
        if (sizeBytes < 0) {
            throw new IllegalArgumentException("negative snapshot size " + sizeBytes);
        }
    }

    /** Offset of the first entry that is not in the snapshot: where the log starts once it is truncated. */
    public long endOffset() {
        return id.offset();
    }
}
