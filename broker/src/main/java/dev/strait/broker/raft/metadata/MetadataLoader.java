package dev.strait.broker.raft.metadata;

import dev.strait.broker.raft.LogEntry;
import dev.strait.broker.raft.RaftNode;
import dev.strait.broker.raft.SnapshotInfo;

/**
 * Follows a {@link RaftNode}'s committed log and replays each metadata batch into the {@link MetadataImage}:
 * how every node, voter or observer, learns the metadata. Only entries below the node's high watermark are
 * read, so the image never shows something a failover could take back. Leader-change entries carry no
 * metadata and are skipped.
 *
 * <p>Snapshots: when the node's log starts beyond what the loader applied (the node was restarted on a
 * truncated log, or it downloaded a snapshot from its leader), the loader replaces its image with the latest
 * snapshot's and replays the log from there. {@link #maybeSnapshot} writes a snapshot of the image when the
 * node says one is due.
 *
 * <p>Not thread-safe; call {@link #poll()} on the thread that drives the node, after handling its events, and
 * publish the returned image to other threads (it is immutable).
 */
public final class MetadataLoader {

    private final RaftNode node;
    private MetadataImage image = MetadataImage.EMPTY;
    private long nextOffset;
    private long snapshotsLoaded;

    public MetadataLoader(RaftNode node) {
        this.node = node;
    }

    /** Applies what was committed since the last call and returns the current image. */
    public MetadataImage poll() {
        long committedEnd = node.highWatermark();
        if (nextOffset < node.logStartOffset()) {
            loadLatestSnapshot();
        }
        while (nextOffset < committedEnd) {
            LogEntry entry = node.entry(nextOffset);
            if (entry.kind() == LogEntry.Kind.DATA) {
                image = image.apply(nextOffset, MetadataRecordSerde.deserializeBatch(entry.payload()));
            }
            nextOffset++;
        }
        return image;
    }

    /**
     * Polls, then writes a snapshot of the image if the node says one is due. Returns whether it wrote one.
     */
    public boolean maybeSnapshot(long nowMs) {
        poll();
        if (!node.snapshotDue(nowMs) || nextOffset <= node.logStartOffset()) {
            return false;
        }
        node.createSnapshot(nextOffset, MetadataImageSerde.serialize(image), nowMs);
        return true;
    }

    public MetadataImage image() {
        return image;
    }

    /** The log offset up to which the image reflects the log (leader-change entries counted). */
    public long appliedOffset() {
        return nextOffset;
    }

    /** How many times the image was replaced by a snapshot. */
    public long snapshotsLoaded() {
        return snapshotsLoaded;
    }

    private void loadLatestSnapshot() {
        SnapshotInfo snapshot = node.latestSnapshot()
                .orElseThrow(() -> new IllegalStateException(
                        "node " + node.nodeId() + "'s log starts at " + node.logStartOffset() + " without a snapshot"));
        MetadataImage loaded = MetadataImageSerde.deserialize(node.readLatestSnapshot());
        if (loaded.nextOffset() > snapshot.endOffset()) {
            throw new IllegalStateException(
                    "snapshot " + snapshot + " holds records up to " + loaded.nextOffset() + ", beyond its own end");
        }
        image = loaded;
        nextOffset = snapshot.endOffset();
        snapshotsLoaded++;
    }
}
