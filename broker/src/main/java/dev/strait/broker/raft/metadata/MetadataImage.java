package dev.strait.broker.raft.metadata;

import dev.strait.broker.raft.metadata.MetadataRecord.AddAcl;
import dev.strait.broker.raft.metadata.MetadataRecord.CreateTopic;
import dev.strait.broker.raft.metadata.MetadataRecord.DeleteTopic;
import dev.strait.broker.raft.metadata.MetadataRecord.FenceNode;
import dev.strait.broker.raft.metadata.MetadataRecord.PartitionChange;
import dev.strait.broker.raft.metadata.MetadataRecord.ProducerIdBlock;
import dev.strait.broker.raft.metadata.MetadataRecord.RegisterNode;
import dev.strait.broker.raft.metadata.MetadataRecord.RemoveAcl;
import dev.strait.broker.raft.metadata.MetadataRecord.RemoveScramCredential;
import dev.strait.broker.raft.metadata.MetadataRecord.ScramCredential;
import dev.strait.broker.raft.metadata.MetadataRecord.TopicConfig;
import dev.strait.broker.raft.metadata.MetadataRecord.UnfenceNode;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The cluster metadata as of some offset of the metadata log: an immutable value. {@link #apply} returns a new
 * image and leaves this one untouched (copy-on-write of the one map that changes), so readers on other threads
 * can hold an image without locks while the replaying thread moves on. Replay is deterministic: the same
 * records at the same offsets give equal images on every node.
 *
 * <p>A record that contradicts the image (a partition of an unknown topic, a leader epoch going back, a
 * producer-id block that does not continue the last one) throws {@link IllegalStateException}: the controller
 * validates before it writes, so such a record means a bug, and the node must stop rather than diverge.
 */
public final class MetadataImage {

    public static final MetadataImage EMPTY = new MetadataImage(
            0,
            Collections.emptySortedMap(),
            Collections.emptySortedMap(),
            Collections.emptySortedMap(),
            Collections.emptySortedMap(),
            0,
            SecurityImage.EMPTY);

    /** A registered node. {@code nodeEpoch} is the offset of its registration record. */
    public record NodeRegistration(
            int nodeId,
            long nodeEpoch,
            UUID incarnationId,
            String host,
            int port,
            String rack,
            boolean fenced,
            List<MetadataRecord.Endpoint> endpoints) {
        public NodeRegistration {
            endpoints = List.copyOf(endpoints);
        }

        public NodeRegistration(
                int nodeId, long nodeEpoch, UUID incarnationId, String host, int port, String rack, boolean fenced) {
            this(nodeId, nodeEpoch, incarnationId, host, port, rack, fenced, List.of());
        }
    }

    /**
     * A partition's replicas, ISR, leader (-1 for none), leader epoch and eligible leader replicas (KIP-966): the
     * replicas that left the ISR while it was below min.insync.replicas. The high watermark does not move while the
     * ISR is that small, so each of them holds every committed record and may lead when no ISR member can.
     * {@code lastKnownElr} (KIP-966) names the replicas that were in the ISR or ELR while the ISR was below
     * min.insync.replicas and left both since (an unclean shutdown): where the data was last known to be, for
     * an operator deciding on an unclean recovery. Both empty once the ISR reaches min.insync.replicas.
     * {@code addingReplicas} and {@code removingReplicas}: a running reassignment (KIP-455), as in
     * {@link PartitionChange}; both empty when none runs.
     */
    public record PartitionState(
            List<Integer> replicas,
            List<Integer> isr,
            int leader,
            int leaderEpoch,
            List<Integer> elr,
            List<Integer> lastKnownElr,
            List<Integer> addingReplicas,
            List<Integer> removingReplicas) {
        public PartitionState {
            replicas = List.copyOf(replicas);
            isr = List.copyOf(isr);
            elr = List.copyOf(elr);
            lastKnownElr = List.copyOf(lastKnownElr);
            addingReplicas = List.copyOf(addingReplicas);
            removingReplicas = List.copyOf(removingReplicas);
        }

        /** A partition that is not being reassigned. */
        public PartitionState(
                List<Integer> replicas,
                List<Integer> isr,
                int leader,
                int leaderEpoch,
                List<Integer> elr,
                List<Integer> lastKnownElr) {
            this(replicas, isr, leader, leaderEpoch, elr, lastKnownElr, List.of(), List.of());
        }

        /** Whether a reassignment (KIP-455) is running. */
        public boolean reassigning() {
            return !addingReplicas.isEmpty() || !removingReplicas.isEmpty();
        }

        /** The replicas a running reassignment moves to: {@code replicas} less {@code removingReplicas}. */
        public List<Integer> targetReplicas() {
            return replicas.stream()
                    .filter(id -> !removingReplicas.contains(id))
                    .toList();
        }

        /** The replicas before the running reassignment: {@code replicas} less {@code addingReplicas}. */
        public List<Integer> originalReplicas() {
            return replicas.stream().filter(id -> !addingReplicas.contains(id)).toList();
        }

        public PartitionState(List<Integer> replicas, List<Integer> isr, int leader, int leaderEpoch) {
            this(replicas, isr, leader, leaderEpoch, List.of(), List.of());
        }
    }

    public record TopicImage(
            String name,
            UUID topicId,
            SortedMap<Integer, PartitionState> partitions,
            SortedMap<String, String> configs) {}

    private final long nextOffset;
    private final SortedMap<Integer, NodeRegistration> nodes;
    private final SortedMap<UUID, TopicImage> topics;
    private final SortedMap<String, UUID> topicIds;
    /** Per topic and partition: 0 when created, +1 for every later {@link PartitionChange} (Kafka's partition epoch). */
    private final SortedMap<UUID, SortedMap<Integer, Integer>> partitionEpochs;

    private final long nextProducerId;
    private final SecurityImage security;

    private MetadataImage(
            long nextOffset,
            SortedMap<Integer, NodeRegistration> nodes,
            SortedMap<UUID, TopicImage> topics,
            SortedMap<String, UUID> topicIds,
            SortedMap<UUID, SortedMap<Integer, Integer>> partitionEpochs,
            long nextProducerId,
            SecurityImage security) {
        this.nextOffset = nextOffset;
        this.nodes = nodes;
        this.topics = topics;
        this.topicIds = topicIds;
        this.partitionEpochs = partitionEpochs;
        this.nextProducerId = nextProducerId;
        this.security = security;
    }

    /**
     * An image from its parts, as a snapshot stores them ({@link MetadataImageSerde}). Checks what replay would
     * have guaranteed: names unique, every partition with an epoch, every topic known.
     */
    static MetadataImage restore(
            long nextOffset,
            SortedMap<Integer, NodeRegistration> nodes,
            SortedMap<UUID, TopicImage> topics,
            SortedMap<UUID, SortedMap<Integer, Integer>> partitionEpochs,
            long nextProducerId,
            SecurityImage security) {
        TreeMap<String, UUID> ids = new TreeMap<>();
        for (TopicImage topic : topics.values()) {
            if (ids.put(topic.name(), topic.topicId()) != null) {
                throw new IllegalArgumentException("topic name " + topic.name() + " appears twice");
            }
            SortedMap<Integer, Integer> epochs =
                    partitionEpochs.getOrDefault(topic.topicId(), Collections.emptySortedMap());
            if (!epochs.keySet().equals(topic.partitions().keySet())) {
                throw new IllegalArgumentException("partition epochs " + epochs.keySet() + " do not match the "
                        + "partitions " + topic.partitions().keySet() + " of topic " + topic.name());
            }
        }
        if (!topics.keySet().containsAll(partitionEpochs.keySet())) {
            throw new IllegalArgumentException("partition epochs for unknown topics");
        }
        return new MetadataImage(
                nextOffset,
                Collections.unmodifiableSortedMap(new TreeMap<>(nodes)),
                Collections.unmodifiableSortedMap(new TreeMap<>(topics)),
                Collections.unmodifiableSortedMap(ids),
                Collections.unmodifiableSortedMap(new TreeMap<>(partitionEpochs)),
                nextProducerId,
                Objects.requireNonNull(security, "security"));
    }

    /** The offset after the last record applied. */
    public long nextOffset() {
        return nextOffset;
    }

    public SortedMap<Integer, NodeRegistration> nodes() {
        return nodes;
    }

    public SortedMap<UUID, TopicImage> topics() {
        return topics;
    }

    public Optional<TopicImage> topic(String name) {
        UUID id = topicIds.get(name);
        return id == null
                ? Optional.empty()
                : Optional.of(Objects.requireNonNull(topics.get(id), "every topic id named has its topic"));
    }

    /** The partition epoch of a partition: 0 when created, +1 per later change; 0 for an unknown one. */
    public int partitionEpoch(UUID topicId, int partition) {
        return partitionEpochs
                .getOrDefault(topicId, Collections.emptySortedMap())
                .getOrDefault(partition, 0);
    }

    /** Every partition's epoch, by topic id and partition (what a snapshot stores). */
    public SortedMap<UUID, SortedMap<Integer, Integer>> partitionEpochs() {
        return partitionEpochs;
    }

    /** The ACLs and SCRAM credentials. */
    public SecurityImage security() {
        return security;
    }

    /** First producer id not yet handed to any node. */
    public long nextProducerId() {
        return nextProducerId;
    }

    /** The image after the single-record batch committed at {@code offset}. */
    public MetadataImage apply(long offset, MetadataRecord record) {
        return apply(offset, List.of(record));
    }

    /**
     * The image after the batch committed at {@code offset}. All or nothing: if any record contradicts the image
     * this throws and, images being immutable, nothing of the batch is visible anywhere.
     */
    public MetadataImage apply(long offset, List<MetadataRecord> batch) {
        if (offset < nextOffset) {
            throw new IllegalStateException("replay went back: batch at " + offset + " after " + (nextOffset - 1));
        }
        MetadataImage image = this;
        for (MetadataRecord record : batch) {
            image = image.applyOne(offset, record);
        }
        return image;
    }

    private MetadataImage applyOne(long offset, MetadataRecord record) {
        long next = offset + 1;
        if (record instanceof RegisterNode r) {
            NodeRegistration registration = new NodeRegistration(
                    r.nodeId(), offset, r.incarnationId(), r.host(), r.port(), r.rack(), true, r.endpoints());
            return withNodes(next, put(nodes, r.nodeId(), registration));
        } else if (record instanceof FenceNode r) {
            return withNodes(next, setFenced(offset, r.nodeId(), r.nodeEpoch(), true));
        } else if (record instanceof UnfenceNode r) {
            return withNodes(next, setFenced(offset, r.nodeId(), r.nodeEpoch(), false));
        } else if (record instanceof CreateTopic r) {
            require(
                    !topicIds.containsKey(r.name()) && !topics.containsKey(r.topicId()),
                    offset,
                    record,
                    "topic name or id exists");
            TopicImage topic =
                    new TopicImage(r.name(), r.topicId(), Collections.emptySortedMap(), Collections.emptySortedMap());
            return new MetadataImage(
                    next,
                    nodes,
                    put(topics, r.topicId(), topic),
                    put(topicIds, r.name(), r.topicId()),
                    partitionEpochs,
                    nextProducerId,
                    security);
        } else if (record instanceof PartitionChange r) {
            TopicImage topic = applyPartitionChange(offset, r);
            SortedMap<Integer, Integer> epochs =
                    partitionEpochs.getOrDefault(r.topicId(), Collections.emptySortedMap());
            Integer previous = epochs.get(r.partition());
            SortedMap<UUID, SortedMap<Integer, Integer>> newEpochs =
                    put(partitionEpochs, r.topicId(), put(epochs, r.partition(), previous == null ? 0 : previous + 1));
            return new MetadataImage(
                    next, nodes, put(topics, topic.topicId(), topic), topicIds, newEpochs, nextProducerId, security);
        } else if (record instanceof TopicConfig r) {
            TopicImage topic = existingTopic(offset, r, r.topicId());
            SortedMap<String, String> configs =
                    r.value() == null ? remove(topic.configs(), r.key()) : put(topic.configs(), r.key(), r.value());
            return withTopic(next, new TopicImage(topic.name(), topic.topicId(), topic.partitions(), configs));
        } else if (record instanceof DeleteTopic r) {
            TopicImage topic = existingTopic(offset, r, r.topicId());
            return new MetadataImage(
                    next,
                    nodes,
                    remove(topics, r.topicId()),
                    remove(topicIds, topic.name()),
                    remove(partitionEpochs, r.topicId()),
                    nextProducerId,
                    security);
        } else if (record instanceof ProducerIdBlock r) {
            // The first block may start anywhere above 0: a cluster's ids start in a range of its own.
            boolean first = nextProducerId == 0 && r.firstProducerId() >= 0;
            require(
                    (first || r.firstProducerId() == nextProducerId) && r.size() > 0,
                    offset,
                    record,
                    "block must start at " + nextProducerId + " and be non-empty");
            return new MetadataImage(
                    next, nodes, topics, topicIds, partitionEpochs, r.firstProducerId() + r.size(), security);
        } else if (record instanceof AddAcl r) {
            return withSecurity(next, security.withAcl(r.acl(), true));
        } else if (record instanceof RemoveAcl r) {
            return withSecurity(next, security.withAcl(r.acl(), false));
        } else if (record instanceof ScramCredential r) {
            return withSecurity(next, security.withScram(r));
        } else if (record instanceof RemoveScramCredential r) {
            return withSecurity(next, security.withoutScram(r.user(), r.mechanism()));
        }
        throw new IllegalArgumentException("unknown metadata record " + record);
    }

    private TopicImage applyPartitionChange(long offset, PartitionChange r) {
        TopicImage topic = existingTopic(offset, r, r.topicId());
        require(
                !r.replicas().isEmpty()
                        && new HashSet<>(r.replicas()).size() == r.replicas().size(),
                offset,
                r,
                "replicas must be distinct and non-empty");
        require(r.replicas().containsAll(r.isr()), offset, r, "ISR must be a subset of the replicas");
        require(r.leader() == -1 || r.isr().contains(r.leader()), offset, r, "leader must be in the ISR");
        require(
                r.replicas().containsAll(r.elr())
                        && r.elr().stream().noneMatch(r.isr()::contains)
                        && new HashSet<>(r.elr()).size() == r.elr().size(),
                offset,
                r,
                "ELR must be distinct replicas outside the ISR");
        require(
                r.replicas().containsAll(r.lastKnownElr())
                        && new HashSet<>(r.lastKnownElr()).size()
                                == r.lastKnownElr().size(),
                offset,
                r,
                "last known ELR must be distinct replicas");
        PartitionState previous = topic.partitions().get(r.partition());
        require(previous == null || r.leaderEpoch() >= previous.leaderEpoch(), offset, r, "leader epoch went back");
        require(
                r.replicas().containsAll(r.addingReplicas())
                        && r.replicas().containsAll(r.removingReplicas())
                        && r.addingReplicas().stream().noneMatch(r.removingReplicas()::contains)
                        && r.replicas().size() > r.removingReplicas().size(),
                offset,
                r,
                "adding and removing replicas must be disjoint replicas, some replica staying");
        PartitionState state = new PartitionState(
                r.replicas(),
                r.isr(),
                r.leader(),
                r.leaderEpoch(),
                r.elr(),
                r.lastKnownElr(),
                r.addingReplicas(),
                r.removingReplicas());
        return new TopicImage(
                topic.name(), topic.topicId(), put(topic.partitions(), r.partition(), state), topic.configs());
    }

    /** Fence/unfence for an older incarnation is a no-op: the node re-registered since the controller decided. */
    private SortedMap<Integer, NodeRegistration> setFenced(long offset, int nodeId, long nodeEpoch, boolean fenced) {
        NodeRegistration node = present(nodes.get(nodeId), offset, nodeId, "unknown node");
        if (node.nodeEpoch() != nodeEpoch) {
            return nodes;
        }
        return put(
                nodes,
                nodeId,
                new NodeRegistration(
                        nodeId,
                        node.nodeEpoch(),
                        node.incarnationId(),
                        node.host(),
                        node.port(),
                        node.rack(),
                        fenced,
                        node.endpoints()));
    }

    private TopicImage existingTopic(long offset, MetadataRecord record, UUID topicId) {
        TopicImage topic = topics.get(topicId);
        require(topic != null, offset, record, "unknown topic id " + topicId);
        return Objects.requireNonNull(topic, "checked above");
    }

    private MetadataImage withNodes(long next, SortedMap<Integer, NodeRegistration> newNodes) {
        return new MetadataImage(next, newNodes, topics, topicIds, partitionEpochs, nextProducerId, security);
    }

    private MetadataImage withTopic(long next, TopicImage topic) {
        return new MetadataImage(
                next, nodes, put(topics, topic.topicId(), topic), topicIds, partitionEpochs, nextProducerId, security);
    }

    private MetadataImage withSecurity(long next, SecurityImage newSecurity) {
        return new MetadataImage(next, nodes, topics, topicIds, partitionEpochs, nextProducerId, newSecurity);
    }

    /** {@code value}, which the record being replayed needs: else the same refusal as {@link #require}. */
    private static <T> T present(@Nullable T value, long offset, Object record, String why) {
        require(value != null, offset, record, why);
        return Objects.requireNonNull(value);
    }

    private static void require(boolean condition, long offset, Object record, String why) {
        if (!condition) {
            throw new IllegalStateException("cannot replay " + record + " at offset " + offset + ": " + why);
        }
    }

    private static <K, V> SortedMap<K, V> put(SortedMap<K, V> map, K key, V value) {
        TreeMap<K, V> copy = new TreeMap<>(map);
        copy.put(key, value);
        return Collections.unmodifiableSortedMap(copy);
    }

    private static <K, V> SortedMap<K, V> remove(SortedMap<K, V> map, K key) {
        TreeMap<K, V> copy = new TreeMap<>(map);
        copy.remove(key);
        return Collections.unmodifiableSortedMap(copy);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof MetadataImage other
                && nextOffset == other.nextOffset
                && nextProducerId == other.nextProducerId
                && nodes.equals(other.nodes)
                && topics.equals(other.topics)
                && partitionEpochs.equals(other.partitionEpochs)
                && security.equals(other.security);
    }

    @Override
    public int hashCode() {
        return Objects.hash(nextOffset, nodes, topics, partitionEpochs, nextProducerId, security);
    }

    @Override
    public String toString() {
        return "MetadataImage(next=" + nextOffset + " nodes=" + nodes.keySet() + " topics=" + topicIds.keySet()
                + " nextProducerId=" + nextProducerId + " " + security + ")";
    }
}
