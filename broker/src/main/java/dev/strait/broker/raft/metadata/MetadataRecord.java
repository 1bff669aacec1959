package dev.strait.broker.raft.metadata;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

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
    record RegisterNode(int nodeId, UUID incarnationId, String host, int port, String rack, List<Endpoint> endpoints)
            implements MetadataRecord {
        public RegisterNode {
            Objects.requireNonNull(incarnationId, "incarnationId");
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(rack, "rack (empty for none)");
            endpoints = List.copyOf(endpoints);
        }

        /** A registration as written before nodes listed their listeners: only the inter-broker endpoint. */
        public RegisterNode(int nodeId, UUID incarnationId, String host, int port, String rack) {
            this(nodeId, incarnationId, host, port, rack, List.of());
        }
    }

    /**
     * One broker listener of a node as it advertises it. {@code host}/{@code port} of a registration are those of
     * its inter-broker listener; the endpoints list every broker listener (empty in records written before).
     */
    record Endpoint(String name, String host, int port, String protocol) {
        public Endpoint {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(host, "host");
            Objects.requireNonNull(protocol, "protocol");
        }
    }

    /** The controller stopped trusting the node (missed heartbeats, shutdown); it leads nothing until unfenced. */
    record FenceNode(int nodeId, long nodeEpoch) implements MetadataRecord {}

    /** The node is caught up and heartbeating; it may lead partitions. */
    record UnfenceNode(int nodeId, long nodeEpoch) implements MetadataRecord {}

    /** A topic's name and id. Its partitions follow as {@link PartitionChange} records. */
    record CreateTopic(String name, UUID topicId) implements MetadataRecord {
        public CreateTopic {
            Objects.requireNonNull(name, "name");
            Objects.requireNonNull(topicId, "topicId");
        }
    }

    /**
     * The complete state of one partition: its replicas, in-sync replicas, leader (-1 for none), leader epoch and
     * eligible leader replicas and last known ELR (KIP-966), and while a reassignment runs (KIP-455) the replicas
     * being added and being removed: then {@code replicas} is the union of the target replicas and the original
     * ones, the target being {@code replicas} less {@code removingReplicas} and the original {@code replicas} less
     * {@code addingReplicas}.
     * The first record for a partition creates it. The leader epoch may not go back.
     */
    record PartitionChange(
            UUID topicId,
            int partition,
            List<Integer> replicas,
            List<Integer> isr,
            int leader,
            int leaderEpoch,
            List<Integer> elr,
            List<Integer> lastKnownElr,
            List<Integer> addingReplicas,
            List<Integer> removingReplicas)
            implements MetadataRecord {
        public PartitionChange {
            Objects.requireNonNull(topicId, "topicId");
            replicas = List.copyOf(replicas);
            isr = List.copyOf(isr);
            elr = List.copyOf(elr);
            lastKnownElr = List.copyOf(lastKnownElr);
            addingReplicas = List.copyOf(addingReplicas);
            removingReplicas = List.copyOf(removingReplicas);
        }

        /** A change of a partition that is not being reassigned (KIP-455). */
        public PartitionChange(
                UUID topicId,
                int partition,
                List<Integer> replicas,
                List<Integer> isr,
                int leader,
                int leaderEpoch,
                List<Integer> elr,
                List<Integer> lastKnownElr) {
            this(topicId, partition, replicas, isr, leader, leaderEpoch, elr, lastKnownElr, List.of(), List.of());
        }

        /** Whether a reassignment (KIP-455) is running: some replicas are being added or removed. */
        public boolean reassigning() {
            return !addingReplicas.isEmpty() || !removingReplicas.isEmpty();
        }

        /** A change with an empty ELR and last known ELR (KIP-966). */
        public PartitionChange(
                UUID topicId, int partition, List<Integer> replicas, List<Integer> isr, int leader, int leaderEpoch) {
            this(topicId, partition, replicas, isr, leader, leaderEpoch, List.of(), List.of());
        }

        /** A change with an ELR and an empty last known ELR. */
        public PartitionChange(
                UUID topicId,
                int partition,
                List<Integer> replicas,
                List<Integer> isr,
                int leader,
                int leaderEpoch,
                List<Integer> elr) {
            this(topicId, partition, replicas, isr, leader, leaderEpoch, elr, List.of());
        }
    }

    /** Sets a topic config; a null value removes the key. */
    record TopicConfig(UUID topicId, String key, @Nullable String value) implements MetadataRecord {
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
    record ProducerIdBlock(int nodeId, long firstProducerId, int size) implements MetadataRecord {}

    /**
     * One ACL in Kafka's wire codes (resource type, pattern type, operation, permission type), so this pure
     * package needs no Kafka classes. A value: ACLs have set semantics.
     */
    record Acl(
            byte resourceType,
            String resourceName,
            byte patternType,
            String principal,
            String host,
            byte operation,
            byte permissionType) {
        public Acl {
            Objects.requireNonNull(resourceName, "resourceName");
            Objects.requireNonNull(principal, "principal");
            Objects.requireNonNull(host, "host");
        }
    }

    /** Adds an ACL (no-op if present). */
    record AddAcl(Acl acl) implements MetadataRecord {
        public AddAcl {
            Objects.requireNonNull(acl, "acl");
        }
    }

    /** Removes an ACL (no-op if absent). */
    record RemoveAcl(Acl acl) implements MetadataRecord {
        public RemoveAcl {
            Objects.requireNonNull(acl, "acl");
        }
    }

    /**
     * Sets a user's SCRAM credential for one mechanism (Kafka's code: 1 SCRAM-SHA-256, 2 SCRAM-SHA-512): salt,
     * stored key, server key and iterations, never the password.
     */
    record ScramCredential(String user, byte mechanism, byte[] salt, byte[] storedKey, byte[] serverKey, int iterations)
            implements MetadataRecord {
        public ScramCredential {
            Objects.requireNonNull(user, "user");
            salt = salt.clone();
            storedKey = storedKey.clone();
            serverKey = serverKey.clone();
        }

        @Override
        public byte[] salt() {
            return salt.clone();
        }

        @Override
        public byte[] storedKey() {
            return storedKey.clone();
        }

        @Override
        public byte[] serverKey() {
            return serverKey.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof ScramCredential other
                    && user.equals(other.user)
                    && mechanism == other.mechanism
                    && iterations == other.iterations
                    && Arrays.equals(salt, other.salt)
                    && Arrays.equals(storedKey, other.storedKey)
                    && Arrays.equals(serverKey, other.serverKey);
        }

        @Override
        public int hashCode() {
            return Objects.hash(user, mechanism, iterations, Arrays.hashCode(salt));
        }

        @Override
        public String toString() {
            return "ScramCredential(" + user + ", mechanism " + mechanism + ", " + iterations + " iterations)";
        }
    }

    /** Removes a user's SCRAM credential for one mechanism (no-op if absent). */
    record RemoveScramCredential(String user, byte mechanism) implements MetadataRecord {
        public RemoveScramCredential {
            Objects.requireNonNull(user, "user");
        }
    }
}
