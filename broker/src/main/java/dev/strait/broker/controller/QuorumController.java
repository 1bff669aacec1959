package dev.strait.broker.controller;

import dev.strait.broker.controller.ControllerRequest.AllocateProducerIds;
import dev.strait.broker.controller.ControllerRequest.AlterConfigs;
import dev.strait.broker.controller.ControllerRequest.AlterPartition;
import dev.strait.broker.controller.ControllerRequest.CreatePartitions;
import dev.strait.broker.controller.ControllerRequest.CreateTopic;
import dev.strait.broker.controller.ControllerRequest.DeleteTopic;
import dev.strait.broker.controller.ControllerRequest.ElectPreferredLeaders;
import dev.strait.broker.controller.ControllerRequest.Heartbeat;
import dev.strait.broker.controller.ControllerRequest.RegisterBroker;
import dev.strait.broker.controller.ControllerResponse.Error;
import dev.strait.broker.raft.metadata.MetadataImage.NodeRegistration;
import dev.strait.broker.raft.metadata.MetadataImage.PartitionState;
import dev.strait.broker.raft.metadata.MetadataImage.TopicImage;
import dev.strait.broker.raft.metadata.MetadataRecord;
import dev.strait.broker.raft.metadata.MetadataRecord.FenceNode;
import dev.strait.broker.raft.metadata.MetadataRecord.PartitionChange;
import dev.strait.broker.raft.metadata.MetadataRecord.ProducerIdBlock;
import dev.strait.broker.raft.metadata.MetadataRecord.RegisterNode;
import dev.strait.broker.raft.metadata.MetadataRecord.TopicConfig;
import dev.strait.broker.raft.metadata.MetadataRecord.UnfenceNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The active controller: runs only on the Raft leader, decides every metadata change and writes it as
 * {@link MetadataRecord}s through the leader's log. Nothing it decides is visible to anyone until committed:
 * replies are sent when the last record of a change commits, and every node (this one too) learns the change
 * by replaying the committed log.
 *
 * <h2>State</h2>
 * {@link #projected} is the committed image plus every record this leader (or an earlier one) has appended but
 * not yet seen committed, so that two quick requests validate against each other (two creations of one name
 * cannot both pass). It is built from the local log when the node becomes leader, which by Raft's leader
 * completeness holds every committed entry. Liveness (last heartbeat per node) is kept in memory only; a new
 * controller gives every node a full session timeout before it fences anyone.
 *
 * <h2>Rules</h2>
 * <ul>
 *   <li>Placement: round robin over unfenced nodes; the first replica is the preferred leader.</li>
 *   <li>Leaders are elected from the ISR only, in replica order, among unfenced nodes (no unclean election);
 *       every leader change bumps the leader epoch; every {@link PartitionChange} bumps the partition epoch.</li>
 *   <li>A node is fenced when it misses heartbeats for the session timeout, and on controlled shutdown (after
 *       its leaderships are moved). A fenced node leaves every ISR unless it is the last member, which keeps
 *       the partition's last in-sync copy eligible (a simplified ELR, KIP-966): the partition stays leaderless
 *       until that node is back.</li>
 *   <li>A registration of a new incarnation (restart) fences the node and takes it out of every ISR in the same
 *       way (KIP-903): it may have lost unflushed records; it rejoins ISRs only through its leaders'
 *       AlterPartition.</li>
 *   <li>A node is unfenced on its first heartbeat after its metadata image reached its registration; leaderless
 *       partitions whose ISR holds it are then given a leader.</li>
 *   <li>AlterPartition must name the current leader, leader epoch and partition epoch.</li>
 * </ul>
 *
 * <p>Not thread-safe: owned by the node's event loop ({@link QuorumRuntime}).
 */
final class QuorumController {

    private static final Logger LOGGER = LoggerFactory.getLogger(QuorumController.class);

    /** Appends one record to the Raft leader's log. */
    interface Proposer {
        /** @return the record's offset and a future completing when it is committed */
        Proposal propose(MetadataRecord record);
    }

    record Proposal(long offset, CompletableFuture<Long> committed) {
    }

    private final int nodeId;
    private final long sessionTimeoutMs;
    private final int defaultReplicationFactor;
    private final Proposer proposer;
    private final Supplier<UUID> topicIds;
    private final Map<Integer, Long> lastHeartbeatMs = new HashMap<>();
    private final String prefix;
    private ClusterImage projected;
    private long activatedAtMs;
    private int placementCursor;

    QuorumController(int nodeId, long sessionTimeoutMs, int defaultReplicationFactor, ClusterImage projected,
            Proposer proposer, Supplier<UUID> topicIds, long nowMs) {
        this.nodeId = nodeId;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.defaultReplicationFactor = defaultReplicationFactor;
        this.projected = projected;
        this.proposer = proposer;
        this.topicIds = topicIds;
        this.activatedAtMs = nowMs;
        this.prefix = "[QuorumController " + nodeId + "] ";
        LOGGER.info("{}active at log offset {} with {}", prefix, projected.endOffset(), projected.image());
    }

    ClusterImage projected() {
        return projected;
    }

    // ---------------------------------------------------------------- requests

    CompletableFuture<ControllerResponse> handle(ControllerRequest request, long nowMs) {
        try {
            if (request instanceof RegisterBroker r) {
                return register(r, nowMs);
            } else if (request instanceof Heartbeat r) {
                return heartbeat(r, nowMs);
            } else if (request instanceof CreateTopic r) {
                return createTopic(r);
            } else if (request instanceof DeleteTopic r) {
                TopicImage topic = projected.topic(r.name()).orElse(null);
                if (topic == null) {
                    return failed(Error.UNKNOWN_TOPIC, "unknown topic '" + r.name() + "'");
                }
                propose(new MetadataRecord.DeleteTopic(topic.topicId()));
                return replyWhenCommitted(offset -> ControllerResponse.ok(offset));
            } else if (request instanceof CreatePartitions r) {
                return createPartitions(r);
            } else if (request instanceof AlterConfigs r) {
                return alterConfigs(r);
            } else if (request instanceof AlterPartition r) {
                return alterPartition(r);
            } else if (request instanceof AllocateProducerIds r) {
                if (r.count() < 1) {
                    return failed(Error.INVALID_REQUEST, "count must be >= 1, got " + r.count());
                }
                long first = projected.image().nextProducerId();
                propose(new ProducerIdBlock(r.nodeId(), first, r.count()));
                return replyWhenCommitted(offset -> ControllerResponse.ok(offset, first, false));
            } else if (request instanceof ElectPreferredLeaders r) {
                return electPreferredLeaders(r);
            }
            return failed(Error.INVALID_REQUEST, "unknown request " + request);
        } catch (IllegalArgumentException e) {
            return failed(Error.INVALID_REQUEST, e.getMessage());
        }
    }

    /** Fences nodes whose session expired. */
    void tick(long nowMs) {
        for (NodeRegistration node : List.copyOf(projected.image().nodes().values())) {
            if (node.fenced()) {
                continue;
            }
            long last = lastHeartbeatMs.getOrDefault(node.nodeId(), activatedAtMs);
            if (nowMs - Math.max(last, activatedAtMs) > sessionTimeoutMs) {
                LOGGER.info("{}fencing node {}: no heartbeat for {} ms", prefix, node.nodeId(), nowMs - last);
                fence(node.nodeId());
                replyWhenCommitted(offset -> ControllerResponse.ok(offset));
            }
        }
    }

    long nextDeadlineMs() {
        long next = Long.MAX_VALUE;
        for (NodeRegistration node : projected.image().nodes().values()) {
            if (!node.fenced()) {
                long last = Math.max(lastHeartbeatMs.getOrDefault(node.nodeId(), activatedAtMs), activatedAtMs);
                next = Math.min(next, last + sessionTimeoutMs + 1);
            }
        }
        return next;
    }

    private CompletableFuture<ControllerResponse> register(RegisterBroker r, long nowMs) {
        NodeRegistration existing = projected.node(r.nodeId()).orElse(null);
        if (existing != null && existing.incarnationId().equals(r.incarnationId())) {
            // A retry of a registration that already went through.
            lastHeartbeatMs.put(r.nodeId(), nowMs);
            return CompletableFuture.completedFuture(ControllerResponse.ok(existing.nodeEpoch(),
                    existing.nodeEpoch(), existing.fenced()));
        }
        long epoch = propose(new RegisterNode(r.nodeId(), r.incarnationId(), r.host(), r.port(), ""));
        lastHeartbeatMs.put(r.nodeId(), nowMs);
        if (existing != null) {
            LOGGER.info("{}node {} re-registered (epoch {}): out of every ISR it is not the last member of", prefix,
                    r.nodeId(), epoch);
            takeOutOfIsrs(r.nodeId());
        }
        return replyWhenCommitted(offset -> ControllerResponse.ok(offset, epoch, true));
    }

    private CompletableFuture<ControllerResponse> heartbeat(Heartbeat r, long nowMs) {
        NodeRegistration node = projected.node(r.nodeId()).orElse(null);
        if (node == null || node.nodeEpoch() != r.nodeEpoch()) {
            return failed(Error.STALE_BROKER_EPOCH, "node " + r.nodeId() + " epoch " + r.nodeEpoch()
                    + " is not registered" + (node == null ? "" : " (current epoch " + node.nodeEpoch() + ")"));
        }
        lastHeartbeatMs.put(r.nodeId(), nowMs);
        if (r.wantShutdown()) {
            if (node.fenced()) {
                return CompletableFuture.completedFuture(ControllerResponse.ok(projected.endOffset() - 1, 0, true));
            }
            LOGGER.info("{}controlled shutdown of node {}", prefix, r.nodeId());
            moveLeadershipsAway(r.nodeId());
            propose(new FenceNode(r.nodeId(), node.nodeEpoch()));
            takeOutOfIsrs(r.nodeId());
            return replyWhenCommitted(offset -> ControllerResponse.ok(offset, 0, true));
        }
        if (node.fenced() && r.metadataOffset() > node.nodeEpoch()) {
            LOGGER.info("{}unfencing node {} (epoch {})", prefix, r.nodeId(), node.nodeEpoch());
            propose(new UnfenceNode(r.nodeId(), node.nodeEpoch()));
            electLeaderless();
            return replyWhenCommitted(offset -> ControllerResponse.ok(offset, 0, false));
        }
        return CompletableFuture.completedFuture(ControllerResponse.ok(-1, 0, node.fenced()));
    }

    private CompletableFuture<ControllerResponse> createTopic(CreateTopic r) {
        if (projected.topic(r.name()).isPresent()) {
            return failed(Error.TOPIC_EXISTS, "Topic '" + r.name() + "' already exists.");
        }
        if (r.partitions() < 1) {
            return failed(Error.INVALID_REQUEST, "partitions must be >= 1, got " + r.partitions());
        }
        int factor = r.replicationFactor() == -1 ? defaultReplicationFactor : r.replicationFactor();
        List<Integer> brokers = unfencedNodes();
        if (factor < 1 || factor > brokers.size()) {
            return failed(Error.INVALID_REPLICATION_FACTOR, "Replication factor: " + factor
                    + " larger than available brokers: " + brokers.size() + ".");
        }
        UUID topicId = topicIds.get();
        while (projected.topic(topicId).isPresent()) {
            topicId = topicIds.get();
        }
        propose(new MetadataRecord.CreateTopic(r.name(), topicId));
        for (Map.Entry<String, String> config : new java.util.TreeMap<>(r.configs()).entrySet()) {
            propose(new TopicConfig(topicId, config.getKey(), config.getValue()));
        }
        addPartitions(topicId, 0, r.partitions(), factor, brokers);
        return replyWhenCommitted(offset -> ControllerResponse.ok(offset));
    }

    private CompletableFuture<ControllerResponse> createPartitions(CreatePartitions r) {
        TopicImage topic = projected.topic(r.name()).orElse(null);
        if (topic == null) {
            return failed(Error.UNKNOWN_TOPIC, "unknown topic '" + r.name() + "'");
        }
        int current = topic.partitions().size();
        if (r.newCount() <= current) {
            return failed(Error.INVALID_REQUEST, "topic '" + r.name() + "' has " + current + " partitions; "
                    + r.newCount() + " would not be an increase");
        }
        int factor = topic.partitions().isEmpty() ? defaultReplicationFactor
                : topic.partitions().get(topic.partitions().firstKey()).replicas().size();
        List<Integer> brokers = unfencedNodes();
        if (factor > brokers.size()) {
            return failed(Error.INVALID_REPLICATION_FACTOR, "Replication factor: " + factor
                    + " larger than available brokers: " + brokers.size() + ".");
        }
        addPartitions(topic.topicId(), current, r.newCount(), factor, brokers);
        return replyWhenCommitted(offset -> ControllerResponse.ok(offset));
    }

    private void addPartitions(UUID topicId, int from, int to, int factor, List<Integer> brokers) {
        int start = Math.floorMod(placementCursor++, brokers.size());
        for (int p = from; p < to; p++) {
            List<Integer> replicas = new ArrayList<>();
            for (int j = 0; j < factor; j++) {
                replicas.add(brokers.get((start + p + j) % brokers.size()));
            }
            propose(new PartitionChange(topicId, p, replicas, replicas, replicas.get(0), 0));
        }
    }

    private CompletableFuture<ControllerResponse> alterConfigs(AlterConfigs r) {
        TopicImage topic = projected.topic(r.name()).orElse(null);
        if (topic == null) {
            return failed(Error.UNKNOWN_TOPIC, "unknown topic '" + r.name() + "'");
        }
        for (String key : List.copyOf(topic.configs().keySet())) {
            if (!r.configs().containsKey(key)) {
                propose(new TopicConfig(topic.topicId(), key, null));
            }
        }
        for (Map.Entry<String, String> config : new java.util.TreeMap<>(r.configs()).entrySet()) {
            if (!config.getValue().equals(topic.configs().get(config.getKey()))) {
                propose(new TopicConfig(topic.topicId(), config.getKey(), config.getValue()));
            }
        }
        return replyWhenCommitted(offset -> ControllerResponse.ok(offset));
    }

    private CompletableFuture<ControllerResponse> alterPartition(AlterPartition r) {
        TopicImage topic = projected.topic(r.topicId()).orElse(null);
        PartitionState state = topic == null ? null : topic.partitions().get(r.partition());
        if (state == null) {
            return failed(Error.UNKNOWN_TOPIC, "unknown partition " + r.topicId() + "-" + r.partition());
        }
        int partitionEpoch = projected.partitionEpoch(r.topicId(), r.partition());
        if (r.leaderId() != state.leader() || r.leaderEpoch() != state.leaderEpoch()
                || r.partitionEpoch() != partitionEpoch) {
            return failed(Error.STALE_EPOCH, "AlterPartition from " + r.leaderId() + " with leader epoch "
                    + r.leaderEpoch() + " and partition epoch " + r.partitionEpoch() + " refused: leader "
                    + state.leader() + ", leader epoch " + state.leaderEpoch() + ", partition epoch "
                    + partitionEpoch);
        }
        Set<Integer> distinct = new HashSet<>(r.newIsr());
        if (distinct.size() != r.newIsr().size() || !state.replicas().containsAll(r.newIsr())
                || !r.newIsr().contains(state.leader())) {
            return failed(Error.INVALID_REQUEST, "ISR " + r.newIsr() + " must be distinct replicas of "
                    + state.replicas() + " including the leader " + state.leader());
        }
        for (int id : r.newIsr()) {
            if (!state.isr().contains(id) && !projected.isUnfenced(id)) {
                return failed(Error.INVALID_REQUEST, "replica " + id + " is fenced and cannot join the ISR");
            }
        }
        List<Integer> ordered = inReplicaOrder(state.replicas(), distinct);
        if (ordered.equals(inReplicaOrder(state.replicas(), new HashSet<>(state.isr())))) {
            return CompletableFuture.completedFuture(ControllerResponse.ok(projected.endOffset() - 1));
        }
        propose(new PartitionChange(r.topicId(), r.partition(), state.replicas(), ordered, state.leader(),
                state.leaderEpoch()));
        return replyWhenCommitted(offset -> ControllerResponse.ok(offset));
    }

    private CompletableFuture<ControllerResponse> electPreferredLeaders(ElectPreferredLeaders r) {
        for (TopicImage topic : List.copyOf(projected.image().topics().values())) {
            if (!r.topics().isEmpty() && !r.topics().contains(topic.name())) {
                continue;
            }
            for (Map.Entry<Integer, PartitionState> e : topic.partitions().entrySet()) {
                PartitionState state = e.getValue();
                int preferred = state.replicas().get(0);
                if (state.leader() != preferred && state.isr().contains(preferred) && projected.isUnfenced(preferred)) {
                    propose(new PartitionChange(topic.topicId(), e.getKey(), state.replicas(), state.isr(), preferred,
                            state.leaderEpoch() + 1));
                }
            }
        }
        return replyWhenCommitted(offset -> ControllerResponse.ok(offset));
    }

    // ---------------------------------------------------------------- partition changes

    private void fence(int id) {
        NodeRegistration node = projected.node(id).orElseThrow();
        propose(new FenceNode(id, node.nodeEpoch()));
        takeOutOfIsrs(id);
    }

    /** Before fencing for a controlled shutdown: leaders move to another in-sync replica where there is one. */
    private void moveLeadershipsAway(int id) {
        forEachPartition((topicId, partition, state) -> {
            if (state.leader() != id) {
                return;
            }
            int leader = pickLeader(state.replicas(), state.isr(), id);
            if (leader != -1) {
                List<Integer> isr = new ArrayList<>(state.isr());
                isr.remove(Integer.valueOf(id));
                propose(new PartitionChange(topicId, partition, state.replicas(), isr, leader,
                        state.leaderEpoch() + 1));
            }
        });
    }

    /**
     * The node (already fenced in {@link #projected}) leaves every ISR it is not the last member of, and gives
     * up what it leads: the next in-sync, unfenced replica leads in a new epoch, or nobody.
     */
    private void takeOutOfIsrs(int id) {
        forEachPartition((topicId, partition, state) -> {
            if (!state.isr().contains(id) && state.leader() != id) {
                return;
            }
            List<Integer> isr = new ArrayList<>(state.isr());
            if (isr.size() > 1) {
                isr.remove(Integer.valueOf(id));
            }
            int leader = state.leader();
            int leaderEpoch = state.leaderEpoch();
            if (leader == id) {
                leader = pickLeader(state.replicas(), isr, id);
                leaderEpoch++;
            }
            if (!isr.equals(state.isr()) || leader != state.leader()) {
                propose(new PartitionChange(topicId, partition, state.replicas(), isr, leader, leaderEpoch));
            }
        });
    }

    private void electLeaderless() {
        forEachPartition((topicId, partition, state) -> {
            if (state.leader() != -1) {
                return;
            }
            int leader = pickLeader(state.replicas(), state.isr(), -1);
            if (leader != -1) {
                propose(new PartitionChange(topicId, partition, state.replicas(), state.isr(), leader,
                        state.leaderEpoch() + 1));
            }
        });
    }

    private interface PartitionVisitor {
        void visit(UUID topicId, int partition, PartitionState state);
    }

    /** Visits a snapshot of the partitions, so proposing while visiting is safe. */
    private void forEachPartition(PartitionVisitor visitor) {
        for (TopicImage topic : List.copyOf(projected.image().topics().values())) {
            for (Map.Entry<Integer, PartitionState> e : topic.partitions().entrySet()) {
                visitor.visit(topic.topicId(), e.getKey(), e.getValue());
            }
        }
    }

    /** First replica, in preference order, that is in the ISR, unfenced and not {@code excluded}; or -1. */
    private int pickLeader(List<Integer> replicas, List<Integer> isr, int excluded) {
        for (int replica : replicas) {
            if (replica != excluded && isr.contains(replica) && projected.isUnfenced(replica)) {
                return replica;
            }
        }
        return -1;
    }

    private static List<Integer> inReplicaOrder(List<Integer> replicas, Set<Integer> members) {
        List<Integer> ordered = new ArrayList<>();
        for (int replica : replicas) {
            if (members.contains(replica)) {
                ordered.add(replica);
            }
        }
        return ordered;
    }

    private List<Integer> unfencedNodes() {
        List<Integer> ids = new ArrayList<>();
        for (NodeRegistration node : projected.image().nodes().values()) {
            if (!node.fenced()) {
                ids.add(node.nodeId());
            }
        }
        return ids;
    }

    // ---------------------------------------------------------------- writing

    private CompletableFuture<Long> lastProposal;

    /** Appends {@code record} and applies it to {@link #projected}; returns its offset. */
    private long propose(MetadataRecord record) {
        Proposal proposal = proposer.propose(record);
        projected = projected.apply(proposal.offset(), record);
        lastProposal = proposal.committed();
        return proposal.offset();
    }

    /** Replies once everything proposed so far is committed (log order makes the last one enough). */
    private CompletableFuture<ControllerResponse> replyWhenCommitted(Function<Long, ControllerResponse> reply) {
        CompletableFuture<Long> last = lastProposal;
        lastProposal = null;
        if (last == null) {
            return CompletableFuture.completedFuture(reply.apply(projected.endOffset() - 1));
        }
        return last.handle((offset, error) -> error == null ? reply.apply(offset)
                : ControllerResponse.notController(-1));
    }

    private static CompletableFuture<ControllerResponse> failed(Error error, String message) {
        return CompletableFuture.completedFuture(ControllerResponse.error(error, Objects.requireNonNull(message)));
    }

    int nodeId() {
        return nodeId;
    }
}
