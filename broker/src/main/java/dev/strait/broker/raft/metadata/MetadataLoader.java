package dev.strait.broker.raft.metadata;

import dev.strait.broker.raft.LogEntry;
import dev.strait.broker.raft.RaftNode;

/**
 * Follows a {@link RaftNode}'s committed log and replays each metadata record into the {@link MetadataImage}:
 * how every node, voter or observer, learns the metadata. Only entries below the node's high watermark are
 * read, so the image never shows something a failover could take back. Leader-change entries carry no
 * metadata and are skipped.
 *
 * <p>Not thread-safe; call {@link #poll()} on the thread that drives the node, after handling its events, and
 * publish the returned image to other threads (it is immutable).
 */
public final class MetadataLoader {

    private final RaftNode node;
    private MetadataImage image = MetadataImage.EMPTY;
    private long nextOffset;

    public MetadataLoader(RaftNode node) {
        this.node = node;
    }

    /** Applies what was committed since the last call and returns the current image. */
    public MetadataImage poll() {
        long committedEnd = node.highWatermark();
        while (nextOffset < committedEnd) {
            LogEntry entry = node.entry(nextOffset);
            if (entry.kind() == LogEntry.Kind.DATA) {
                image = image.apply(nextOffset, MetadataRecordSerde.deserialize(entry.payload()));
            }
            nextOffset++;
        }
        return image;
    }

    public MetadataImage image() {
        return image;
    }
}
