package dev.strait.broker.controller;

import dev.strait.broker.raft.metadata.MetadataRecord;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * What a node asks of the active controller. Immutable values: they cross threads and the wire. Each has one
 * {@link ControllerResponse}; a mutation's response names the metadata log offset of its last record, and the
 * caller waits until its own image has applied that offset before it answers its caller (read-your-writes).
 */
public sealed interface ControllerRequest {

    /**
     * A node announces its listeners: {@code host}/{@code port} of its inter-broker listener, and every broker
     * listener in {@code endpoints}; {@code incarnationId} is fresh for every process start.
     * {@code previousNodeEpoch} is the node epoch its previous process wrote in its clean-shutdown marker after
     * flushing and closing its logs, or {@link #UNCLEAN} when there was none (a crash or power loss: its logs may
     * have lost acknowledged records). Kafka's previousBrokerEpoch.
     */
    record RegisterBroker(
            int nodeId,
            UUID incarnationId,
            String host,
            int port,
            List<MetadataRecord.Endpoint> endpoints,
            long previousNodeEpoch)
            implements ControllerRequest {
        /** No clean-shutdown marker was found. */
        public static final long UNCLEAN = -1;

        public RegisterBroker {
            Objects.requireNonNull(incarnationId, "incarnationId");
            Objects.requireNonNull(host, "host");
            endpoints = List.copyOf(endpoints);
        }

        public RegisterBroker(
                int nodeId, UUID incarnationId, String host, int port, List<MetadataRecord.Endpoint> endpoints) {
            this(nodeId, incarnationId, host, port, endpoints, UNCLEAN);
        }

        public RegisterBroker(int nodeId, UUID incarnationId, String host, int port) {
            this(nodeId, incarnationId, host, port, List.of());
        }
    }

    /**
     * A registered node is alive. {@code metadataOffset} is how far its image has applied the log (the controller
     * unfences a node only once it has caught up with its own registration); {@code wantShutdown} asks for a
     * controlled shutdown: move leaderships away, fence, then answer with {@code flag = true}.
     */
    record Heartbeat(int nodeId, long nodeEpoch, long metadataOffset, boolean wantShutdown)
            implements ControllerRequest {}

    /**
     * A new topic: {@code partitions} partitions of {@code replicationFactor} replicas placed by the controller, or,
     * when {@code assignments} is not empty, partition {@code i} on the replicas {@code assignments.get(i)}.
     */
    record CreateTopic(
            String name,
            int partitions,
            int replicationFactor,
            Map<String, String> configs,
            List<List<Integer>> assignments)
            implements ControllerRequest {
        public CreateTopic {
            Objects.requireNonNull(name, "name");
            configs = Map.copyOf(configs);
            assignments = assignments.stream().map(List::copyOf).toList();
        }

        public CreateTopic(String name, int partitions, int replicationFactor, Map<String, String> configs) {
            this(name, partitions, replicationFactor, configs, List.of());
        }
    }

    /**
     * Starts, replaces or (with {@code targetReplicas} null) cancels the reassignment of one partition (KIP-455):
     * Kafka's AlterPartitionReassignments for one partition.
     */
    /** {@code targetReplicas} null: cancel the reassignment in progress. */
    record AlterReassignment(
            String topic, int partition, @Nullable List<Integer> targetReplicas) implements ControllerRequest {
        public AlterReassignment {
            Objects.requireNonNull(topic, "topic");
            targetReplicas = targetReplicas == null ? null : List.copyOf(targetReplicas);
        }
    }

    record DeleteTopic(String name) implements ControllerRequest {
        public DeleteTopic {
            Objects.requireNonNull(name, "name");
        }
    }

    /**
     * Raises a topic's partition count to {@code newCount}; when {@code assignments} is not empty, added partition
     * {@code i} (counting from the first new one) on the replicas {@code assignments.get(i)}.
     */
    record CreatePartitions(String name, int newCount, List<List<Integer>> assignments) implements ControllerRequest {
        public CreatePartitions {
            Objects.requireNonNull(name, "name");
            assignments = assignments.stream().map(List::copyOf).toList();
        }

        public CreatePartitions(String name, int newCount) {
            this(name, newCount, List.of());
        }
    }

    /** Replaces every override of the topic. */
    record AlterConfigs(String name, Map<String, String> configs) implements ControllerRequest {
        public AlterConfigs {
            Objects.requireNonNull(name, "name");
            configs = Map.copyOf(configs);
        }
    }

    /**
     * Changes the topic's overrides from {@code base} (what the writer read) to {@code configs}, applied by the
     * controller to the overrides as they are then ({@link dev.strait.broker.metadata.ConfigPatch}): a change made
     * meanwhile to other keys is kept.
     */
    record PatchConfigs(String name, Map<String, String> base, Map<String, String> configs)
            implements ControllerRequest {
        public PatchConfigs {
            Objects.requireNonNull(name, "name");
            base = Map.copyOf(base);
            configs = Map.copyOf(configs);
        }
    }

    /**
     * A partition leader asks to change the ISR (Kafka's AlterPartition). {@code brokerEpochs} holds, for replicas
     * the leader adds, the node epoch they fetched with (KIP-903): the controller refuses the addition of a replica
     * that registered again since, as it may have lost what that fetch showed. A replica without an entry is not
     * checked (a leader of an older release).
     */
    record AlterPartition(
            int leaderId,
            UUID topicId,
            int partition,
            int leaderEpoch,
            int partitionEpoch,
            List<Integer> newIsr,
            Map<Integer, Long> brokerEpochs)
            implements ControllerRequest {
        public AlterPartition {
            Objects.requireNonNull(topicId, "topicId");
            newIsr = List.copyOf(newIsr);
            brokerEpochs = Map.copyOf(brokerEpochs);
        }

        public AlterPartition(
                int leaderId, UUID topicId, int partition, int leaderEpoch, int partitionEpoch, List<Integer> newIsr) {
            this(leaderId, topicId, partition, leaderEpoch, partitionEpoch, newIsr, Map.of());
        }
    }

    record AllocateProducerIds(int nodeId, int count) implements ControllerRequest {}

    /** Moves leadership back to each partition's first replica where it is in sync; empty list = every topic. */
    record ElectPreferredLeaders(List<String> topics) implements ControllerRequest {
        public ElectPreferredLeaders {
            topics = List.copyOf(topics);
        }
    }

    /**
     * An operator's unclean leader election (kafka-leader-election --election-type UNCLEAN) for the named topics'
     * partitions that have no leader and no live ISR or ELR member: a live replica leads although it may lack
     * acknowledged records. The only way back for a partition whose last eligible replicas stopped uncleanly.
     */
    record ElectUncleanLeaders(List<String> topics) implements ControllerRequest {
        public ElectUncleanLeaders {
            topics = List.copyOf(topics);
        }
    }

    /**
     * Adds and removes ACLs and SCRAM credentials: the records to commit, as one decision. Only the security
     * records ({@code AddAcl}, {@code RemoveAcl}, {@code ScramCredential}, {@code RemoveScramCredential}) are
     * accepted; each is idempotent, so the node that asks can build them from its own image.
     */
    record AlterSecurity(List<MetadataRecord> records) implements ControllerRequest {
        public AlterSecurity {
            records = List.copyOf(records);
        }
    }

    /**
     * Asks the Raft leader to describe the quorum (Kafka's DescribeQuorum). Answered by the leader's runtime from
     * its Raft node, not by the controller's state machine, and never written to the log; a node that does not
     * lead answers {@code NOT_CONTROLLER} like for any other request.
     */
    record DescribeQuorum() implements ControllerRequest {}
}
