package dev.strait.broker.raft;

import java.util.zip.CRC32C;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This node's snapshots as its driver sees them (KIP-630): taking one of a committed prefix, which truncates the log
 * behind it, and reading the latest back whole and checked. Downloading one from the leader is
 * {@link SnapshotTransfer}'s job, and when the next one is due is {@link SnapshotSchedule}'s.
 *
 * <p>It exists so that the node's class keeps to roles and transitions; the driver's snapshot calls on
 * {@link RaftNode} delegate here. Not thread-safe; owned by the node.
 */
final class LocalSnapshots {

    private static final Logger LOGGER = LoggerFactory.getLogger(LocalSnapshots.class);
    /** Reading a snapshot back takes it this many bytes at a time. */
    private static final int READ_CHUNK_BYTES = 1 << 20;

    private final RaftStorage storage;
    private final EpochIndex epochIndex;
    private final SnapshotSchedule snapshotSchedule;
    private final HighWatermark highWatermark;
    private final String logPrefix;

    LocalSnapshots(
            RaftStorage storage,
            EpochIndex epochIndex,
            SnapshotSchedule snapshotSchedule,
            HighWatermark highWatermark,
            String logPrefix) {
        this.storage = storage;
        this.epochIndex = epochIndex;
        this.snapshotSchedule = snapshotSchedule;
        this.highWatermark = highWatermark;
        this.logPrefix = logPrefix;
    }

    /** See {@link RaftNode#createSnapshot}. */
    SnapshotInfo take(long endOffset, byte[] content, long nowMs) {
        long start = storage.startOffset();
        long committed = highWatermark.value();
        if (endOffset <= start || endOffset > committed) {
            throw new IllegalArgumentException(logPrefix + "a snapshot must end in (" + start + ", " + committed
                    + "] (after the log start, at most the high watermark), not at " + endOffset);
        }
        OffsetAndEpoch id =
                new OffsetAndEpoch(endOffset, storage.entry(endOffset - 1).epoch());
        storage.installSnapshot(id, content);
        epochIndex.onPrefixTruncated(id);
        snapshotSchedule.restart(storage, highWatermark.value(), nowMs);
        LOGGER.debug(
                "{}snapshot {} taken ({} bytes); log now starts at {}",
                logPrefix,
                id,
                content.length,
                storage.startOffset());
        return storage.latestSnapshot().orElseThrow();
    }

    /** See {@link RaftNode#readLatestSnapshot}. */
    byte[] readLatest() {
        SnapshotInfo info =
                storage.latestSnapshot().orElseThrow(() -> new IllegalStateException(logPrefix + "no snapshot"));
        byte[] content = new byte[Math.toIntExact(info.sizeBytes())];
        int at = 0;
        while (at < content.length) {
            byte[] chunk = storage.readSnapshot(info.id(), at, Math.min(content.length - at, READ_CHUNK_BYTES))
                    .orElseThrow(() -> new IllegalStateException(logPrefix + "snapshot " + info + " vanished"));
            System.arraycopy(chunk, 0, content, at, chunk.length);
            at += chunk.length;
        }
        CRC32C crc = new CRC32C();
        crc.update(content, 0, content.length);
        if ((int) crc.getValue() != info.crc32c()) {
            throw new IllegalStateException(logPrefix + "snapshot " + info + " fails its checksum on read");
        }
        return content;
    }
}
