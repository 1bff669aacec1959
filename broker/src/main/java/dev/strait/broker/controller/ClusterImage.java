package dev.strait.broker.controller;

import dev.strait.broker.raft.metadata.MetadataImage;
import dev.strait.broker.raft.metadata.MetadataImage.NodeRegistration;
import dev.strait.broker.raft.metadata.MetadataImage.TopicImage;
import dev.strait.broker.raft.metadata.MetadataRecord;
import dev.strait.broker.raft.metadata.MetadataRecord.DeleteTopic;
import dev.strait.broker.raft.metadata.MetadataRecord.PartitionChange;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * A {@link MetadataImage} plus what the controller protocol needs on top: the partition epoch of every partition
 * (0 when created, +1 for each later {@link PartitionChange}, derived from the log so every node agrees) and how
 * far the metadata log has been read ({@link #endOffset()}, which counts leader-change entries too, unlike the
 * image's own offset). Immutable; copy-on-write like the image.
 */
final class ClusterImage {

    static final ClusterImage EMPTY = new ClusterImage(MetadataImage.EMPTY, Map.of(), 0);

    private final MetadataImage image;
    private final Map<UUID, Map<Integer, Integer>> partitionEpochs;
    private final long endOffset;

    private ClusterImage(MetadataImage image, Map<UUID, Map<Integer, Integer>> partitionEpochs, long endOffset) {
        this.image = image;
        this.partitionEpochs = partitionEpochs;
        this.endOffset = endOffset;
    }

    /**
     * The image a metadata snapshot holds, as of log offset {@code endOffset} (the snapshot's end): the partition
     * epochs come from the image, which keeps them for exactly this.
     */
    static ClusterImage fromSnapshot(MetadataImage image, long endOffset) {
        if (image.nextOffset() > endOffset) {
            throw new IllegalStateException("snapshot image at " + image.nextOffset() + " beyond its end " + endOffset);
        }
        Map<UUID, Map<Integer, Integer>> epochs = new HashMap<>();
        image.partitionEpochs()
                .forEach(
                        (topicId, ofTopic) -> epochs.put(topicId, Collections.unmodifiableMap(new HashMap<>(ofTopic))));
        return new ClusterImage(image, Collections.unmodifiableMap(epochs), endOffset);
    }

    MetadataImage image() {
        return image;
    }

    /** Log entries {@code [0, endOffset)} are reflected here. */
    long endOffset() {
        return endOffset;
    }

    ClusterImage withEndOffset(long newEndOffset) {
        if (newEndOffset < endOffset) {
            throw new IllegalStateException("image end offset would go back: " + endOffset + " -> " + newEndOffset);
        }
        return newEndOffset == endOffset ? this : new ClusterImage(image, partitionEpochs, newEndOffset);
    }

    /** The image after a batch of one record at {@code offset}. */
    ClusterImage apply(long offset, MetadataRecord record) {
        return apply(offset, List.of(record));
    }

    /** The image after the batch (one log entry, one controller decision) at {@code offset}; all or nothing. */
    ClusterImage apply(long offset, List<MetadataRecord> batch) {
        MetadataImage next = image.apply(offset, batch);
        Map<UUID, Map<Integer, Integer>> epochs = partitionEpochs;
        Map<UUID, Map<Integer, Integer>> copy = null;
        Map<UUID, Map<Integer, Integer>> changedTopics = new HashMap<>();
        for (MetadataRecord record : batch) {
            if (record instanceof PartitionChange change) {
                if (copy == null) {
                    copy = new HashMap<>(epochs);
                }
                Map<UUID, Map<Integer, Integer>> source = copy;
                Map<Integer, Integer> ofTopic = changedTopics.computeIfAbsent(
                        change.topicId(), id -> new HashMap<>(source.getOrDefault(id, Map.of())));
                ofTopic.merge(change.partition(), 0, (previous, zero) -> previous + 1);
            } else if (record instanceof DeleteTopic delete) {
                if (copy == null) {
                    copy = new HashMap<>(epochs);
                }
                copy.remove(delete.topicId());
                changedTopics.remove(delete.topicId());
            }
        }
        if (copy != null) {
            for (Map.Entry<UUID, Map<Integer, Integer>> e : changedTopics.entrySet()) {
                copy.put(e.getKey(), Collections.unmodifiableMap(e.getValue()));
            }
            epochs = Collections.unmodifiableMap(copy);
        }
        return new ClusterImage(next, epochs, Math.max(endOffset, offset + 1));
    }

    Optional<TopicImage> topic(String name) {
        return image.topic(name);
    }

    Optional<TopicImage> topic(UUID topicId) {
        return Optional.ofNullable(image.topics().get(topicId));
    }

    int partitionEpoch(UUID topicId, int partition) {
        return partitionEpochs.getOrDefault(topicId, Map.of()).getOrDefault(partition, 0);
    }

    Optional<NodeRegistration> node(int nodeId) {
        return Optional.ofNullable(image.nodes().get(nodeId));
    }

    boolean isUnfenced(int nodeId) {
        NodeRegistration node = image.nodes().get(nodeId);
        return node != null && !node.fenced();
    }

    @Override
    public String toString() {
        return "ClusterImage(end=" + endOffset + " " + image + ")";
    }
}
