package dev.strait.broker.raft.metadata;

import java.util.List;
import java.util.Objects;
import java.util.UUID;

/**
 * The records of the cluster metadata log. The controller writes them through the Raft leader; every node
 * builds its {@link MetadataImage} by replaying the committed ones in order. Each record is a complete fact, so
 * replay needs no other input than the log.
 *
 * <p>Heartbeats are deliberately not records: they would grow the log without bound. The controller keeps
 * liveness in memory and logs only what heartbeats decide, {@link FenceNode} and {@link UnfenceNode} (KRaft does
 * the same).
 */
public sealed interface MetadataRecord {

    /**
     * A node joined (or rejoined) the cluster. The offset of this record becomes the node's epoch, so a record
     * about an older incarnation cannot be mistaken for the current one. A registered node starts fenced.
     */
    record RegisterNode(int nodeId, UUID incarnationId, String host, int port, String rack)
            implements MetadataRecord {
        public RegisterNode {
            Objects.requireNonNull(incarnationId, "incarnationId");
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(rack, "rack (empty for none)");
        }
    }

    /** The controller stopped trusting the node (missed heartbeats, shutdown); it leads nothing until unfenced. */
    record FenceNode(int nodeId, long nodeEpoch) implements MetadataRecord {
    }

    /** The node is caught up and heartbeating; it may lead partitions. */
    record UnfenceNode(int nodeId, long nodeEpoch) implements MetadataRecord {
    }

    /** A topic's name and id. Its partitions follow as {@link PartitionChange} records. */
    record CreateTopic(String name, UUID topicId) implements MetadataRecord {
        public CreateTopic {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(topicId, "topicId");
        }
    }

    /**
     * The complete state of one partition: its replicas, in-sync replicas, leader (-1 for none) and leader epoch.
     * The first record for a partition creates it. The leader epoch may not go back.
     */
    record PartitionChange(UUID topicId, int partition, List<Integer> replicas, List<Integer> isr, int leader,
            int leaderEpoch) implements MetadataRecord {
        public PartitionChange {
            Objects.requireNonNull(topicId, "topicId");
            replicas = List.copyOf(replicas);
            isr = List.copyOf(isr);
        }
    }

    /** Sets a topic config; a null value removes the key. */
    record TopicConfig(UUID topicId, String key, String value) implements MetadataRecord {
        public TopicConfig {
            Objects.requireNonNull(topicId, "topicId");
            Objects.requireNonNull(key, "key");
        }
    }

    record DeleteTopic(UUID topicId) implements MetadataRecord {
        public DeleteTopic {
            Objects.requireNonNull(topicId, "topicId");
        }
    }

    /**
     * Producer ids {@code [firstProducerId, firstProducerId + size)} now belong to {@code nodeId}. Blocks are
     * handed out in order, so the next block starts where the last one ended.
     */
    record ProducerIdBlock(int nodeId, long firstProducerId, int size) implements MetadataRecord {
    }
}
