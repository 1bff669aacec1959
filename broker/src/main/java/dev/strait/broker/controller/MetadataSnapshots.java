package dev.strait.broker.controller;

import dev.strait.broker.raft.RaftNode;
import dev.strait.broker.raft.SnapshotInfo;
import dev.strait.broker.raft.metadata.MetadataImageSerde;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the quorum loop does with metadata snapshots (KIP-630): it loads the latest one when the Raft log starts
 * beyond what its image reflects (a restart on a truncated log, or a snapshot the node downloaded from the
 * leader), and writes one of its committed image when the Raft node says one is due (by bytes and by age,
 * {@code metadata.log.max.record.bytes.between.snapshots} and {@code metadata.log.max.snapshot.interval.ms}).
 * The content is {@link MetadataImageSerde}'s; the Raft node stores it, truncates its log behind it and serves it
 * to followers. Called on the loop thread only.
 */
final class MetadataSnapshots {

    private static final Logger LOGGER = LoggerFactory.getLogger(MetadataSnapshots.class);

    private MetadataSnapshots() {}

    /** {@code image}, or the latest snapshot's image if the log no longer holds what follows {@code image}. */
    static ClusterImage catchUp(RaftNode raft, ClusterImage image) {
        if (image.endOffset() >= raft.logStartOffset()) {
            return image;
        }
        SnapshotInfo snapshot = raft.latestSnapshot()
                .orElseThrow(() -> new IllegalStateException(
                        "the metadata log " + "starts at " + raft.logStartOffset() + " but there is no snapshot"));
        ClusterImage loaded = ClusterImage.fromSnapshot(
                MetadataImageSerde.deserialize(raft.readLatestSnapshot()), snapshot.endOffset());
        LOGGER.info(
                "[QuorumRuntime {}] loaded metadata snapshot {} ({} bytes)",
                raft.nodeId(),
                snapshot.id(),
                snapshot.sizeBytes());
        return loaded;
    }

    /** Writes a snapshot of {@code committed} (the image as of the high watermark) if one is due. */
    static void maybeTake(RaftNode raft, ClusterImage committed, long nowMs) {
        if (!raft.snapshotDue(nowMs)
                || committed.endOffset() <= raft.logStartOffset()
                || committed.endOffset() > raft.highWatermark()) {
            return;
        }
        SnapshotInfo snapshot =
                raft.createSnapshot(committed.endOffset(), MetadataImageSerde.serialize(committed.image()), nowMs);
        LOGGER.info(
                "[QuorumRuntime {}] wrote metadata snapshot {} ({} bytes); the log now starts there",
                raft.nodeId(),
                snapshot.id(),
                snapshot.sizeBytes());
    }
}
