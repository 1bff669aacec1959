package dev.strait.broker.controller;

import dev.strait.broker.controller.ControllerRequest.AllocateProducerIds;
import dev.strait.broker.controller.ControllerRequest.AlterConfigs;
import dev.strait.broker.controller.ControllerRequest.AlterPartition;
import dev.strait.broker.controller.ControllerRequest.CreatePartitions;
import dev.strait.broker.controller.ControllerRequest.CreateTopic;
import dev.strait.broker.controller.ControllerRequest.DeleteTopic;
import dev.strait.broker.controller.ControllerRequest.ElectPreferredLeaders;
import dev.strait.broker.controller.ControllerRequest.Heartbeat;
import dev.strait.broker.controller.ControllerRequest.PatchConfigs;
import dev.strait.broker.controller.ControllerRequest.RegisterBroker;
import dev.strait.broker.controller.ControllerResponse.Error;
import dev.strait.broker.controller.PartitionChanges.Eligible;
import dev.strait.broker.metadata.ConfigPatch;
import dev.strait.broker.metadata.InvalidReplicaAssignmentException;
import dev.strait.broker.metadata.MirrorTruncation;
import dev.strait.broker.metadata.ProducerIdRange;
import dev.strait.broker.metadata.ReplicaAssignments;
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
import java.util.OptionalLong;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import java.util.function.IntPredicate;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The active controller: runs only on the Raft leader, decides every metadata change and writes it through the
 * leader's log. Nothing it decides is visible to anyone until committed: replies are sent when the change
 * commits, and every node (this one too) learns the change by replaying the committed log.
 *
 * <h2>One decision, one entry</h2>
 * Every decision (a topic with its configs and partitions, a fencing with the leader and ISR changes it implies,
 * a registration, ...) is one batch of records proposed as one Raft entry, so it commits, is replayed and
 * fsynced all or nothing: a controller failover can never leave half of it. User operations are bounded to
 * {@value #MAX_RECORDS_PER_USER_OP} records, as Kafka's; the controller's own decisions (fencing a node that
 * leads more partitions than that) are cut into entries of at most {@value #MAX_RECORDS_PER_BATCH} records, the
 * node's {@link FenceNode} first, and whatever a failover cuts off is redone by the next controller's
 * reconciliation.
 *
 * <h2>State</h2>
 * {@link #projected} is the committed image plus every entry this leader (or an earlier one) has appended but
 * not yet seen committed, so that two quick requests validate against each other (two creations of one name
 * cannot both pass). It is built from the local log when the node becomes leader, which by Raft's leader
 * completeness holds every committed entry. Liveness (last heartbeat per node) is kept in memory only.
 *
 * <h2>Rules</h2>
 * <ul>
 *   <li>Placement: round robin over unfenced nodes; the first replica is the preferred leader.</li>
 *   <li>Leaders are elected from the ISR, in replica order, among unfenced nodes; when no ISR member is
 *       unfenced, from the eligible leader replicas (ELR, KIP-966), and the one elected becomes the ISR alone.
 *       Never an unclean election on its own (unclean.leader.election.enable=false); only an operator's
 *       ElectLeaders UNCLEAN ({@link #electUncleanLeaders}). Every leader change bumps the leader epoch; every
 *       {@link PartitionChange} bumps the partition epoch.</li>
 *   <li>ELR (KIP-966): a replica that leaves the ISR while the ISR is below the topic's min.insync.replicas
 *       (capped at the replica count; else the broker default this controller was given) joins the ELR; the ELR
 *       empties once the ISR reaches min.insync.replicas again; a replica back in the ISR leaves it. Leaders do
 *       not advance the high watermark while the ISR is below min.insync.replicas, so every ELR member holds
 *       every committed record.</li>
 *   <li>A fenced node leaves every ISR unless it is the last member, which stays (where Kafka moves it to the
 *       ELR: both keep it eligible and nobody else): the partition stays leaderless until that node is back,
 *       or an ELR member is.
 *       {@link #reconcile} applies this rule, and the election, to every partition in one pass; each decision
 *       that changes who is fenced runs it, and so does a newly active controller, which repairs partitions led
 *       by a fenced or unknown node that an older log (one record per entry) may have left.</li>
 *   <li>A node is fenced when it misses heartbeats for the session timeout; on controlled shutdown; and early
 *       (fast fencing) when its connections with this node closed and it showed no sign of life for
 *       {@link #fastFenceGraceMs} ({@link PeerLiveness}), which a newly active controller applies only after
 *       {@link #activationGraceMs} so that live nodes have reached it first. A paused or partitioned node's
 *       connections do not close, so it is fenced at its session timeout: fast fencing only speeds up the
 *       failover after a crash, and never decides safety, which rests on epochs.</li>
 *   <li>A registration of a new incarnation (restart) fences the node and takes it out of every ISR in the same
 *       way (KIP-903): it may have lost unflushed records; it rejoins ISRs only through its leaders'
 *       AlterPartition. If its previous process did not end with a clean shutdown (its registration does not
 *       name the node epoch that process had: Kafka's previousBrokerEpoch), it leaves every ISR even as the last
 *       member, and every ELR (Kafka's handleBrokerUncleanShutdown). A partition left with neither ISR nor ELR
 *       goes leaderless rather than be led by a replica that may have lost acknowledged records, as Kafka's does
 *       without unclean leader election; it stays so until an operator asks for an unclean election
 *       (kafka-leader-election --election-type UNCLEAN). A single-replica partition is the exception: no other
 *       copy can hold more than its one replica, so that replica stays eligible and leads again (Kafka 4.1
 *       leaves it offline until the unclean election).</li>
 *   <li>A node is unfenced on its first heartbeat after its metadata image reached its registration; leaderless
 *       partitions whose ISR holds it are then given a leader.</li>
 *   <li>AlterPartition must name the current leader, leader epoch and partition epoch; a replica it adds to the
 *       ISR must be unfenced and, if the leader names the node epoch it fetched with, still registered with that
 *       epoch (KIP-903).</li>
 * </ul>
 *
 * <p>Not thread-safe: owned by the node's event loop ({@link QuorumLoop}).
 */
final class QuorumController {

    private static final Logger LOGGER = LoggerFactory.getLogger(QuorumController.class);

    /** Kafka's {@code MAX_RECORDS_PER_USER_OP}: one request may not produce more records than this. */
    static final int MAX_RECORDS_PER_USER_OP = 10_000;
    /** Largest entry the controller writes for its own decisions; far below what one entry may hold. */
    static final int MAX_RECORDS_PER_BATCH = 10_000;
    /** Upper bound of the fast-fencing grace; a third of the session timeout if that is less. */
    static final long FAST_FENCE_GRACE_MS = 1_000;
    /** Upper bound of the grace a new controller gives before it fences on connection evidence. */
    static final long ACTIVATION_GRACE_MS = 500;

    private static final String MIN_INSYNC_REPLICAS = "min.insync.replicas";
    private static final String FLUSH_ON_ACK = "flush.on.ack";
    /** No node stopped uncleanly. */
    private static final IntPredicate NONE = PartitionChanges.NONE;

    /** Appends one decision, as one entry, to the Raft leader's log. */
    interface Proposer {
        /** @return the entry's offset and a future completing when it is committed */
        Proposal propose(List<MetadataRecord> batch);
    }

    record Proposal(long offset, CompletableFuture<Long> committed) {}

    private final int nodeId;
    private final long sessionTimeoutMs;
    private final long fastFenceGraceMs;
    private final long activationGraceMs;
    private final int defaultReplicationFactor;
    private final int defaultMinInsyncReplicas;
    private final boolean defaultFlushOnAck;
    private final Proposer proposer;
    private final Supplier<UUID> topicIds;
    private final PeerLiveness liveness;
    private final Map<Integer, Long> lastHeartbeatMs = new HashMap<>();
    private final String prefix;
    private ClusterImage projected;
    private final long activatedAtMs;
    private int placementCursor;
    /** The commit of the latest proposal not yet waited for; null when there is none. */
    private @Nullable CompletableFuture<Long> lastProposal;

    /**
     * Becomes the active controller over {@code projected} and, before anything else, writes the reconciliation
     * of partitions whose leader is fenced or unknown (nothing if there are none).
     */
    QuorumController(
            int nodeId,
            long sessionTimeoutMs,
            int defaultReplicationFactor,
            ClusterImage projected,
            Proposer proposer,
            Supplier<UUID> topicIds,
            PeerLiveness liveness,
            long nowMs) {
        this(
                nodeId,
                sessionTimeoutMs,
                defaultReplicationFactor,
                1,
                false,
                projected,
                proposer,
                topicIds,
                liveness,
                nowMs);
    }

    /**
     * As above; {@code defaultMinInsyncReplicas} and {@code defaultFlushOnAck} apply to topics that do not set
     * min.insync.replicas or flush.on.ack.
     */
    QuorumController(
            int nodeId,
            long sessionTimeoutMs,
            int defaultReplicationFactor,
            int defaultMinInsyncReplicas,
            boolean defaultFlushOnAck,
            ClusterImage projected,
            Proposer proposer,
            Supplier<UUID> topicIds,
            PeerLiveness liveness,
            long nowMs) {
        this.nodeId = nodeId;
        this.defaultMinInsyncReplicas = defaultMinInsyncReplicas;
        this.defaultFlushOnAck = defaultFlushOnAck;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.fastFenceGraceMs = Math.min(FAST_FENCE_GRACE_MS, sessionTimeoutMs / 3);
        this.activationGraceMs = Math.min(ACTIVATION_GRACE_MS, sessionTimeoutMs / 6);
        this.defaultReplicationFactor = defaultReplicationFactor;
        this.projected = projected;
        this.proposer = proposer;
        this.topicIds = topicIds;
        this.liveness = liveness;
        this.activatedAtMs = nowMs;
        this.prefix = "[QuorumController " + nodeId + "] ";
        LOGGER.info("{}active at log offset {} with {}", prefix, projected.endOffset(), projected.image());
        Decision repair = new Decision(projected);
        reconcile(repair, projected::isUnfenced, NONE);
        if (!repair.isEmpty()) {
            LOGGER.info(
                    "{}reconciling {} partitions led by fenced or unknown nodes, or holding them in their ISR",
                    prefix,
                    repair.size());
            commitInternal(repair);
            lastProposal = null;
        }
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
                commit(Decision.of(projected, new MetadataRecord.DeleteTopic(topic.topicId())));
                return replyWhenCommitted(ControllerResponse::ok);
            } else if (request instanceof CreatePartitions r) {
                return createPartitions(r);
            } else if (request instanceof AlterConfigs r) {
                return alterConfigs(r);
            } else if (request instanceof PatchConfigs r) {
                TopicImage topic = projected.topic(r.name()).orElse(null);
                if (topic == null) {
                    return failed(Error.UNKNOWN_TOPIC, "unknown topic '" + r.name() + "'");
                }
                return alterConfigs(
                        new AlterConfigs(r.name(), ConfigPatch.apply(topic.configs(), r.base(), r.configs())));
            } else if (request instanceof AlterPartition r) {
                return alterPartition(r);
            } else if (request instanceof AllocateProducerIds r) {
                if (r.count() < 1) {
                    return failed(Error.INVALID_REQUEST, "count must be >= 1, got " + r.count());
                }
                long next = projected.image().nextProducerId();
                long first = next == 0 ? ProducerIdRange.firstOfCluster(topicIds.get()) : next;
                commit(Decision.of(projected, new ProducerIdBlock(r.nodeId(), first, r.count())));
                return replyWhenCommitted(offset -> ControllerResponse.ok(offset, first, false));
            } else if (request instanceof ControllerRequest.ElectUncleanLeaders r) {
                return electUncleanLeaders(r);
            } else if (request instanceof ElectPreferredLeaders r) {
                return electPreferredLeaders(r);
            } else if (request instanceof ControllerRequest.AlterSecurity r) {
                return alterSecurity(r);
            } else if (request instanceof ControllerRequest.AlterReassignment r) {
                return alterReassignment(r);
            }
            return failed(Error.INVALID_REQUEST, "unknown request " + request);
        } catch (IllegalArgumentException e) {
            return failed(Error.INVALID_REQUEST, messageOf(e));
        }
    }

    /**
     * ACL and SCRAM credential changes: idempotent records (set semantics), so the asking node may build them from
     * its own image; committed as one decision, so a CreateAcls or AlterUserScramCredentials request is all or
     * nothing on every node.
     */
    private CompletableFuture<ControllerResponse> alterSecurity(ControllerRequest.AlterSecurity r) {
        if (r.records().isEmpty()) {
            return failed(Error.INVALID_REQUEST, "no security records");
        }
        if (r.records().size() > MAX_RECORDS_PER_USER_OP) {
            return failed(
                    Error.INVALID_REQUEST,
                    "too many ACL or SCRAM credential changes in one request: "
                            + r.records().size() + " (at most " + MAX_RECORDS_PER_USER_OP + ")");
        }
        Decision decision = new Decision(projected);
        for (MetadataRecord record : r.records()) {
            if (!(record instanceof MetadataRecord.AddAcl
                    || record instanceof MetadataRecord.RemoveAcl
                    || record instanceof MetadataRecord.ScramCredential
                    || record instanceof MetadataRecord.RemoveScramCredential)) {
                return failed(Error.INVALID_REQUEST, "not a security record: " + record);
            }
            decision.add(record);
        }
        commit(decision);
        return replyWhenCommitted(ControllerResponse::ok);
    }

    /**
     * Fences nodes whose session expired, or whose connections closed and stayed closed (fast fencing). The
     * caller runs this only once every heartbeat that arrived before {@code nowMs} has been handled.
     */
    void tick(long nowMs) {
        for (NodeRegistration node : List.copyOf(projected.image().nodes().values())) {
            if (node.fenced()) {
                continue;
            }
            int id = node.nodeId();
            long last = lastHeartbeat(id);
            if (nowMs - last > sessionTimeoutMs) {
                fence(id, "no heartbeat for " + (nowMs - last) + " ms");
                continue;
            }
            OptionalLong gone = unreachableSince(id);
            if (gone.isPresent() && nowMs >= fastFenceDeadline(gone.getAsLong())) {
                fence(
                        id,
                        "its connections with this controller closed " + (nowMs - gone.getAsLong())
                                + " ms ago and it has not been back since");
            }
        }
    }

    long nextDeadlineMs() {
        long next = Long.MAX_VALUE;
        for (NodeRegistration node : projected.image().nodes().values()) {
            if (!node.fenced()) {
                next = Math.min(next, lastHeartbeat(node.nodeId()) + sessionTimeoutMs + 1);
                OptionalLong gone = unreachableSince(node.nodeId());
                if (gone.isPresent()) {
                    next = Math.min(next, fastFenceDeadline(gone.getAsLong()));
                }
            }
        }
        return next;
    }

    private long lastHeartbeat(int id) {
        return Math.max(lastHeartbeatMs.getOrDefault(id, activatedAtMs), activatedAtMs);
    }

    /** When the node went unreachable, if it did and has not heartbeaten since; never for this node itself. */
    private OptionalLong unreachableSince(int id) {
        if (id == nodeId) {
            return OptionalLong.empty();
        }
        OptionalLong since = liveness.unreachableSinceMs(id);
        Long heartbeat = lastHeartbeatMs.get(id);
        if (since.isPresent() && heartbeat != null && heartbeat > since.getAsLong()) {
            return OptionalLong.empty();
        }
        return since;
    }

    private long fastFenceDeadline(long unreachableSinceMs) {
        return Math.max(unreachableSinceMs + fastFenceGraceMs, activatedAtMs + activationGraceMs);
    }

    private CompletableFuture<ControllerResponse> register(RegisterBroker r, long nowMs) {
        NodeRegistration existing = projected.node(r.nodeId()).orElse(null);
        if (existing != null && existing.incarnationId().equals(r.incarnationId())) {
            // A retry of a registration that already went through.
            lastHeartbeatMs.put(r.nodeId(), nowMs);
            return CompletableFuture.completedFuture(
                    ControllerResponse.ok(existing.nodeEpoch(), existing.nodeEpoch(), existing.fenced()));
        }
        Decision decision = Decision.of(
                projected, new RegisterNode(r.nodeId(), r.incarnationId(), r.host(), r.port(), "", r.endpoints()));
        boolean clean = existing != null && r.previousNodeEpoch() == existing.nodeEpoch();
        if (existing != null) {
            // The new incarnation starts fenced: out of every ISR it is not the last member of; after an unclean
            // shutdown out of every ISR and ELR, as its log may have lost acknowledged records.
            reconcile(
                    decision,
                    id -> id != r.nodeId() && projected.isUnfenced(id),
                    clean ? NONE : id -> id == r.nodeId());
        }
        long epoch = commit(decision);
        lastHeartbeatMs.put(r.nodeId(), nowMs);
        if (existing != null) {
            LOGGER.info(
                    "{}node {} re-registered (epoch {}) after {}: out of every ISR {}",
                    prefix,
                    r.nodeId(),
                    epoch,
                    clean
                            ? "a clean shutdown"
                            : "an unclean shutdown (no clean-shutdown marker of epoch " + existing.nodeEpoch() + ")",
                    clean ? "it is not the last member of" : "and ELR");
        }
        return replyWhenCommitted(offset -> ControllerResponse.ok(offset, epoch, true));
    }

    private CompletableFuture<ControllerResponse> heartbeat(Heartbeat r, long nowMs) {
        NodeRegistration node = projected.node(r.nodeId()).orElse(null);
        if (node == null || node.nodeEpoch() != r.nodeEpoch()) {
            return failed(
                    Error.STALE_BROKER_EPOCH,
                    "node " + r.nodeId() + " epoch " + r.nodeEpoch() + " is not registered"
                            + (node == null ? "" : " (current epoch " + node.nodeEpoch() + ")"));
        }
        lastHeartbeatMs.put(r.nodeId(), nowMs);
        if (r.wantShutdown()) {
            if (node.fenced()) {
                return CompletableFuture.completedFuture(ControllerResponse.ok(projected.endOffset() - 1, 0, true));
            }
            LOGGER.info("{}controlled shutdown of node {}", prefix, r.nodeId());
            commitFencing(r.nodeId(), node.nodeEpoch());
            return replyWhenCommitted(offset -> ControllerResponse.ok(offset, 0, true));
        }
        if (node.fenced() && r.metadataOffset() > node.nodeEpoch()) {
            LOGGER.info("{}unfencing node {} (epoch {})", prefix, r.nodeId(), node.nodeEpoch());
            Decision decision = Decision.of(projected, new UnfenceNode(r.nodeId(), node.nodeEpoch()));
            reconcile(decision, id -> id == r.nodeId() || projected.isUnfenced(id), NONE);
            commit(decision);
            return replyWhenCommitted(offset -> ControllerResponse.ok(offset, 0, false));
        }
        // The offset of the last decision so far: the node trusts what it leads (ReadLease) only once its metadata
        // reached it.
        return CompletableFuture.completedFuture(ControllerResponse.ok(projected.endOffset() - 1, 0, node.fenced()));
    }

    /**
     * The least time, after a node's heartbeat reached the active controller, before any controller can fence it and
     * elect other leaders in its place: fast fencing waits {@link #fastFenceGraceMs} after the connections closed
     * (which, to count, happened after the last heartbeat), a newly active controller at least
     * {@link #activationGraceMs}, the session timeout is longer than both ({@link ReadLease}).
     */
    static long fencingLowerBoundMs(long sessionTimeoutMs) {
        return Math.min(
                Math.min(FAST_FENCE_GRACE_MS, sessionTimeoutMs / 3),
                Math.min(ACTIVATION_GRACE_MS, sessionTimeoutMs / 6));
    }

    private CompletableFuture<ControllerResponse> createTopic(CreateTopic r) {
        if (projected.topic(r.name()).isPresent()) {
            return failed(Error.TOPIC_EXISTS, "Topic '" + r.name() + "' already exists.");
        }
        if (r.partitions() < 1) {
            return failed(Error.INVALID_REQUEST, "partitions must be >= 1, got " + r.partitions());
        }
        if ((long) r.partitions() + r.configs().size() + 1 > MAX_RECORDS_PER_USER_OP) {
            return failed(
                    Error.INVALID_REQUEST,
                    "Excessively large number of partitions per request: "
                            + r.partitions() + " (one request creates at most " + (MAX_RECORDS_PER_USER_OP - 1)
                            + " partitions and configs); create the topic with fewer and add partitions in steps");
        }
        if (!r.assignments().isEmpty()) {
            return createTopicAsAssigned(r);
        }
        int factor = r.replicationFactor() == -1 ? defaultReplicationFactor : r.replicationFactor();
        List<Integer> brokers = unfencedNodes();
        if (factor < 1 || factor > brokers.size()) {
            return failed(
                    Error.INVALID_REPLICATION_FACTOR,
                    "Replication factor: " + factor + " larger than available brokers: " + brokers.size() + ".");
        }
        UUID topicId = topicIds.get();
        while (projected.topic(topicId).isPresent()) {
            topicId = topicIds.get();
        }
        Decision decision = Decision.of(projected, new MetadataRecord.CreateTopic(r.name(), topicId));
        for (Map.Entry<String, String> config : new TreeMap<>(r.configs()).entrySet()) {
            decision.add(new TopicConfig(topicId, config.getKey(), config.getValue()));
        }
        addPartitions(decision, topicId, 0, r.partitions(), factor, brokers);
        commit(decision);
        return replyWhenCommitted(ControllerResponse::ok);
    }

    /**
     * As Kafka's controller: the replicas must be registered brokers (fenced ones too), each partition's ISR is its
     * unfenced replicas and its leader the first of them; a partition without an unfenced replica is refused.
     */
    private CompletableFuture<ControllerResponse> createTopicAsAssigned(CreateTopic r) {
        if ((long) r.assignments().size() + r.configs().size() + 1 > MAX_RECORDS_PER_USER_OP) {
            return failed(
                    Error.INVALID_REQUEST,
                    "Excessively large number of partitions per request: "
                            + r.assignments().size());
        }
        try {
            ReplicaAssignments.check(
                    r.assignments(), id -> projected.image().nodes().containsKey(id));
        } catch (InvalidReplicaAssignmentException e) {
            return failed(Error.INVALID_REPLICA_ASSIGNMENT, messageOf(e));
        }
        List<List<Integer>> isrs = new ArrayList<>();
        try {
            for (int p = 0; p < r.assignments().size(); p++) {
                isrs.add(unfencedReplicas(r.assignments().get(p), p));
            }
        } catch (InvalidReplicaAssignmentException e) {
            return failed(Error.INVALID_REPLICA_ASSIGNMENT, messageOf(e));
        }
        UUID topicId = topicIds.get();
        while (projected.topic(topicId).isPresent()) {
            topicId = topicIds.get();
        }
        Decision decision = Decision.of(projected, new MetadataRecord.CreateTopic(r.name(), topicId));
        for (Map.Entry<String, String> config : new TreeMap<>(r.configs()).entrySet()) {
            decision.add(new TopicConfig(topicId, config.getKey(), config.getValue()));
        }
        for (int p = 0; p < r.assignments().size(); p++) {
            List<Integer> isr = isrs.get(p);
            decision.partition(topicId, p, r.assignments().get(p), isr, isr.get(0), 0, Eligible.NONE);
        }
        commit(decision);
        return replyWhenCommitted(ControllerResponse::ok);
    }

    private CompletableFuture<ControllerResponse> createPartitions(CreatePartitions r) {
        TopicImage topic = projected.topic(r.name()).orElse(null);
        if (topic == null) {
            return failed(Error.UNKNOWN_TOPIC, "unknown topic '" + r.name() + "'");
        }
        int current = topic.partitions().size();
        if (r.newCount() <= current) {
            return failed(
                    Error.INVALID_REQUEST,
                    "topic '" + r.name() + "' has " + current + " partitions; " + r.newCount()
                            + " would not be an increase");
        }
        if (r.newCount() - current > MAX_RECORDS_PER_USER_OP) {
            return failed(
                    Error.INVALID_REQUEST,
                    "Excessively large number of partitions per request: "
                            + (r.newCount() - current) + " new partitions (at most " + MAX_RECORDS_PER_USER_OP
                            + " per request); add them in steps");
        }
        // A partition being reassigned counts the replicas it moves to, not the union it has meanwhile.
        int factor = topic.partitions().isEmpty()
                ? defaultReplicationFactor
                : topic.partitions().values().iterator().next().targetReplicas().size();
        if (!r.assignments().isEmpty()) {
            return createPartitionsAsAssigned(r, topic, current, factor);
        }
        List<Integer> brokers = unfencedNodes();
        if (factor > brokers.size()) {
            return failed(
                    Error.INVALID_REPLICATION_FACTOR,
                    "Replication factor: " + factor + " larger than available brokers: " + brokers.size() + ".");
        }
        Decision decision = new Decision(projected);
        addPartitions(decision, topic.topicId(), current, r.newCount(), factor, brokers);
        commit(decision);
        return replyWhenCommitted(ControllerResponse::ok);
    }

    /**
     * As Kafka's controller: one replica list per added partition, each of the existing partitions' size, of
     * registered brokers (fenced ones too); ISR and leader as for {@link #createTopicAsAssigned}.
     */
    private CompletableFuture<ControllerResponse> createPartitionsAsAssigned(
            CreatePartitions r, TopicImage topic, int current, int factor) {
        List<List<Integer>> isrs = new ArrayList<>();
        try {
            ReplicaAssignments.checkCount(r.assignments(), r.newCount() - current);
            ReplicaAssignments.check(
                    r.assignments(), factor, id -> projected.image().nodes().containsKey(id));
            for (int i = 0; i < r.assignments().size(); i++) {
                isrs.add(unfencedReplicas(r.assignments().get(i), current + i));
            }
        } catch (InvalidReplicaAssignmentException e) {
            return failed(Error.INVALID_REPLICA_ASSIGNMENT, messageOf(e));
        }
        Decision decision = new Decision(projected);
        for (int i = 0; i < r.assignments().size(); i++) {
            List<Integer> isr = isrs.get(i);
            decision.partition(topic.topicId(), current + i, r.assignments().get(i), isr, isr.get(0), 0, Eligible.NONE);
        }
        commit(decision);
        return replyWhenCommitted(ControllerResponse::ok);
    }

    /** A placed partition's ISR: its unfenced replicas, in the order given; none is refused, as by Kafka. */
    private List<Integer> unfencedReplicas(List<Integer> replicas, int partition) {
        List<Integer> isr = replicas.stream().filter(projected::isUnfenced).toList();
        if (isr.isEmpty()) {
            throw new InvalidReplicaAssignmentException("All brokers specified in the manual partition assignment for"
                    + " partition " + partition + " are fenced or in controlled shutdown.");
        }
        return isr;
    }

    private void addPartitions(Decision decision, UUID topicId, int from, int to, int factor, List<Integer> brokers) {
        int start = Math.floorMod(placementCursor++, brokers.size());
        for (int p = from; p < to; p++) {
            List<Integer> replicas = new ArrayList<>();
            for (int j = 0; j < factor; j++) {
                replicas.add(brokers.get((start + p + j) % brokers.size()));
            }
            decision.partition(topicId, p, replicas, replicas, replicas.get(0), 0, Eligible.NONE);
        }
    }

    private CompletableFuture<ControllerResponse> alterConfigs(AlterConfigs r) {
        TopicImage topic = projected.topic(r.name()).orElse(null);
        if (topic == null) {
            return failed(Error.UNKNOWN_TOPIC, "unknown topic '" + r.name() + "'");
        }
        Decision decision = new Decision(projected);
        for (String key : List.copyOf(topic.configs().keySet())) {
            if (!r.configs().containsKey(key)) {
                decision.add(new TopicConfig(topic.topicId(), key, null));
            }
        }
        for (Map.Entry<String, String> config : new TreeMap<>(r.configs()).entrySet()) {
            if (!config.getValue().equals(topic.configs().get(config.getKey()))) {
                decision.add(new TopicConfig(topic.topicId(), config.getKey(), config.getValue()));
            }
        }
        newLeaderEpochsForFailbackCut(topic, r.configs(), decision);
        if (decision.size() > MAX_RECORDS_PER_USER_OP) {
            return failed(Error.INVALID_REQUEST, "too many config changes in one request: " + decision.size());
        }
        commit(decision);
        return replyWhenCommitted(ControllerResponse::ok);
    }

    /**
     * A failback's cut of a mirror topic (a new {@code strait.mirror.truncate.id}) starts a new leader epoch for each
     * partition it names, committed with the config: every replica cuts its log before it applies the new epoch, so
     * the leader never serves the old suffix in it, and a follower that kept a longer log finds the cut by asking
     * the leader about its epochs, as after any election.
     */
    private void newLeaderEpochsForFailbackCut(TopicImage topic, Map<String, String> configs, Decision decision) {
        String id = configs.getOrDefault(MirrorTruncation.ID_CONFIG, "");
        if (id.isEmpty() || id.equals(topic.configs().get(MirrorTruncation.ID_CONFIG))) {
            return;
        }
        Map<Integer, Long> offsets;
        try {
            offsets = MirrorTruncation.parseOffsets(configs.getOrDefault(MirrorTruncation.OFFSETS_CONFIG, ""));
        } catch (IllegalArgumentException e) {
            return; // the brokers ignore a cut they cannot read
        }
        for (int partition : offsets.keySet()) {
            PartitionState state = topic.partitions().get(partition);
            if (state == null) {
                continue;
            }
            decision.partition(
                    topic.topicId(),
                    partition,
                    state.replicas(),
                    state.isr(),
                    state.leader(),
                    state.leaderEpoch() + 1,
                    new Eligible(state.elr(), state.lastKnownElr()));
        }
    }

    private CompletableFuture<ControllerResponse> alterPartition(AlterPartition r) {
        TopicImage topic = projected.topic(r.topicId()).orElse(null);
        PartitionState state = topic == null ? null : topic.partitions().get(r.partition());
        if (topic == null || state == null) {
            return failed(Error.UNKNOWN_TOPIC, "unknown partition " + r.topicId() + "-" + r.partition());
        }
        int partitionEpoch = projected.partitionEpoch(r.topicId(), r.partition());
        if (r.leaderId() != state.leader()
                || r.leaderEpoch() != state.leaderEpoch()
                || r.partitionEpoch() != partitionEpoch) {
            return failed(
                    Error.STALE_EPOCH,
                    "AlterPartition from " + r.leaderId() + " with leader epoch "
                            + r.leaderEpoch() + " and partition epoch " + r.partitionEpoch() + " refused: leader "
                            + state.leader() + ", leader epoch " + state.leaderEpoch() + ", partition epoch "
                            + partitionEpoch);
        }
        Set<Integer> distinct = new HashSet<>(r.newIsr());
        if (distinct.size() != r.newIsr().size()
                || !state.replicas().containsAll(r.newIsr())
                || !r.newIsr().contains(state.leader())) {
            return failed(
                    Error.INVALID_REQUEST,
                    "ISR " + r.newIsr() + " must be distinct replicas of " + state.replicas() + " including the leader "
                            + state.leader());
        }
        for (int id : r.newIsr()) {
            if (!state.isr().contains(id) && !projected.isUnfenced(id)) {
                return failed(Error.INVALID_REQUEST, "replica " + id + " is fenced and cannot join the ISR");
            }
            Long fetchedWith = r.brokerEpochs().get(id);
            long registered =
                    projected.node(id).map(NodeRegistration::nodeEpoch).orElse(-1L);
            if (!state.isr().contains(id) && fetchedWith != null && fetchedWith != registered) {
                return failed(
                        Error.INVALID_REQUEST,
                        "replica " + id + " fetched with broker epoch " + fetchedWith + " but is registered with "
                                + registered + ": it restarted since and may have lost what it fetched, so it"
                                + " cannot join the ISR until it fetches again (KIP-903)");
            }
        }
        List<Integer> ordered = PartitionChanges.inReplicaOrder(state.replicas(), distinct);
        if (ordered.equals(PartitionChanges.inReplicaOrder(state.replicas(), new HashSet<>(state.isr())))) {
            return CompletableFuture.completedFuture(ControllerResponse.ok(projected.endOffset() - 1));
        }
        Decision decision = new Decision(projected);
        PartitionState next = PartitionChanges.alterIsr(state, ordered, minIsr(topic, state));
        next = new PartitionState(
                next.replicas(),
                next.isr(),
                next.leader(),
                next.leaderEpoch(),
                next.elr(),
                next.lastKnownElr(),
                state.addingReplicas(),
                state.removingReplicas());
        PartitionState completed = PartitionReassignments.maybeComplete(next, projected::isUnfenced)
                .orElse(null);
        if (completed != null) {
            LOGGER.info(
                    "{}{}-{}: reassignment to {} complete (ISR {}), leader {} in epoch {}",
                    prefix,
                    topic.name(),
                    r.partition(),
                    completed.replicas(),
                    next.isr(),
                    completed.leader(),
                    completed.leaderEpoch());
            next = completed;
        }
        decision.partition(r.topicId(), r.partition(), next);
        commit(decision);
        return replyWhenCommitted(ControllerResponse::ok);
    }

    /**
     * Starts, replaces or cancels one partition's reassignment (KIP-455), with Kafka's validation: an unknown
     * partition is UNKNOWN_TOPIC; an empty target, a broker twice or an unregistered broker is
     * INVALID_REPLICA_ASSIGNMENT; a cancel without a running reassignment is NO_REASSIGNMENT_IN_PROGRESS. A target
     * whose replicas are all in the ISR completes at once (a reorder, or a move to a subset).
     */
    private CompletableFuture<ControllerResponse> alterReassignment(ControllerRequest.AlterReassignment r) {
        TopicImage topic = projected.topic(r.topic()).orElse(null);
        PartitionState state = topic == null ? null : topic.partitions().get(r.partition());
        if (topic == null || state == null) {
            return failed(Error.UNKNOWN_TOPIC, "unknown partition " + r.topic() + "-" + r.partition());
        }
        PartitionState next;
        if (r.targetReplicas() == null) {
            if (!state.reassigning()) {
                return failed(
                        Error.NO_REASSIGNMENT_IN_PROGRESS,
                        "No ongoing reassignment for partition " + r.topic() + "-" + r.partition() + ".");
            }
            next = PartitionReassignments.revert(state, projected::isUnfenced).orElse(null);
            if (next == null) {
                return failed(
                        Error.INVALID_REPLICA_ASSIGNMENT,
                        "cannot cancel the reassignment of " + r.topic() + "-" + r.partition() + ": its ISR "
                                + state.isr() + " holds only replicas being added " + state.addingReplicas());
            }
            LOGGER.info(
                    "{}{}-{}: reassignment cancelled, back to {}", prefix, r.topic(), r.partition(), next.replicas());
        } else {
            try {
                ReplicaAssignments.check(
                        List.of(r.targetReplicas()),
                        r.targetReplicas().size(),
                        id -> projected.image().nodes().containsKey(id));
            } catch (InvalidReplicaAssignmentException e) {
                return failed(Error.INVALID_REPLICA_ASSIGNMENT, messageOf(e));
            }
            next = PartitionReassignments.start(state, r.targetReplicas());
            next = PartitionReassignments.maybeComplete(next, projected::isUnfenced)
                    .orElse(next);
            LOGGER.info(
                    "{}{}-{}: reassignment to {} from {}: replicas {}, adding {}, removing {}",
                    prefix,
                    r.topic(),
                    r.partition(),
                    r.targetReplicas(),
                    state.replicas(),
                    next.replicas(),
                    next.addingReplicas(),
                    next.removingReplicas());
        }
        if (next.equals(state)) {
            return CompletableFuture.completedFuture(ControllerResponse.ok(projected.endOffset() - 1));
        }
        Decision decision = new Decision(projected);
        decision.partition(topic.topicId(), r.partition(), next);
        commit(decision);
        return replyWhenCommitted(ControllerResponse::ok);
    }

    /**
     * An operator's unclean election: each leaderless partition of the named topics with no live ISR or ELR member
     * is led by a live replica, the last known ELR's first, else the first in replica order, which becomes the
     * ISR alone (Kafka's UNCLEAN election). It may lack acknowledged records; that is what the operator accepts.
     */
    private CompletableFuture<ControllerResponse> electUncleanLeaders(ControllerRequest.ElectUncleanLeaders r) {
        Decision decision = new Decision(projected);
        for (TopicImage topic : projected.image().topics().values()) {
            if (!r.topics().contains(topic.name())) {
                continue;
            }
            for (Map.Entry<Integer, PartitionState> e : topic.partitions().entrySet()) {
                PartitionState state = e.getValue();
                if (state.leader() != -1
                        || PartitionChanges.firstInReplicaOrder(state.replicas(), state.isr(), projected::isUnfenced)
                                != -1
                        || PartitionChanges.firstInReplicaOrder(state.replicas(), state.elr(), projected::isUnfenced)
                                != -1) {
                    continue;
                }
                int leader = -1;
                for (int candidate : state.lastKnownElr()) {
                    if (projected.isUnfenced(candidate)) {
                        leader = candidate;
                        break;
                    }
                }
                if (leader == -1) {
                    leader = PartitionChanges.firstInReplicaOrder(
                            state.replicas(), state.replicas(), projected::isUnfenced);
                }
                if (leader != -1) {
                    LOGGER.warn(
                            "{}{}-{}: unclean election of {} asked by an operator (ISR {}, ELR {}, last known ELR {}):"
                                    + " records acknowledged by other replicas may be lost",
                            prefix,
                            topic.name(),
                            e.getKey(),
                            leader,
                            state.isr(),
                            state.elr(),
                            state.lastKnownElr());
                    decision.partition(
                            topic.topicId(),
                            e.getKey(),
                            state.replicas(),
                            List.of(leader),
                            leader,
                            state.leaderEpoch() + 1,
                            Eligible.NONE);
                }
            }
        }
        if (decision.size() > MAX_RECORDS_PER_USER_OP) {
            return failed(Error.INVALID_REQUEST, "too many partitions in one unclean election: " + decision.size());
        }
        commit(decision);
        return replyWhenCommitted(ControllerResponse::ok);
    }

    private CompletableFuture<ControllerResponse> electPreferredLeaders(ElectPreferredLeaders r) {
        Decision decision = new Decision(projected);
        for (TopicImage topic : projected.image().topics().values()) {
            if (!r.topics().isEmpty() && !r.topics().contains(topic.name())) {
                continue;
            }
            for (Map.Entry<Integer, PartitionState> e : topic.partitions().entrySet()) {
                PartitionState state = e.getValue();
                int preferred = state.replicas().get(0);
                if (state.leader() != preferred && state.isr().contains(preferred) && projected.isUnfenced(preferred)) {
                    decision.partition(
                            topic.topicId(),
                            e.getKey(),
                            state.replicas(),
                            state.isr(),
                            preferred,
                            state.leaderEpoch() + 1,
                            new Eligible(state.elr(), state.lastKnownElr()));
                }
            }
        }
        commitInternal(decision);
        return replyWhenCommitted(ControllerResponse::ok);
    }

    // ---------------------------------------------------------------- fencing and reconciliation

    private void fence(int id, String why) {
        LOGGER.info("{}fencing node {}: {}", prefix, id, why);
        commitFencing(id, projected.node(id).orElseThrow().nodeEpoch());
        replyWhenCommitted(ControllerResponse::ok);
    }

    /** The node's {@link FenceNode} and the partition changes it implies, as one decision. */
    private void commitFencing(int id, long nodeEpoch) {
        Decision decision = Decision.of(projected, new FenceNode(id, nodeEpoch));
        reconcile(decision, other -> other != id && projected.isUnfenced(other), NONE);
        commitInternal(decision);
    }

    /**
     * Adds to {@code decision} the changes that bring every partition in line with the nodes {@code live} accepts
     * (those unfenced once the decision applies) and drop nodes {@code anyUncleanlyStopped} names from every ISR
     * and ELR, per {@link PartitionChanges#reconcile}.
     */
    private void reconcile(Decision decision, IntPredicate live, IntPredicate anyUncleanlyStopped) {
        for (TopicImage topic : projected.image().topics().values()) {
            for (Map.Entry<Integer, PartitionState> e : topic.partitions().entrySet()) {
                PartitionState state = e.getValue();
                // A topic in the fsync mode lost nothing it acknowledged to a power loss: its replicas stay
                // eligible through an unclean shutdown, or a power loss of every node would leave it leaderless.
                IntPredicate unclean = flushOnAck(topic) ? PartitionChanges.NONE : anyUncleanlyStopped;
                PartitionState next = PartitionChanges.reconcile(state, minIsr(topic, state), live, unclean);
                if (next == state) {
                    continue;
                }
                if (PartitionChanges.electedFromElr(state, next)) {
                    LOGGER.info(
                            "{}{}-{}: no live ISR member in {}; electing {} from the ELR {}",
                            prefix,
                            topic.name(),
                            e.getKey(),
                            state.isr(),
                            next.leader(),
                            state.elr());
                }
                decision.partition(
                        topic.topicId(),
                        e.getKey(),
                        next.replicas(),
                        next.isr(),
                        next.leader(),
                        next.leaderEpoch(),
                        new Eligible(next.elr(), next.lastKnownElr()));
            }
        }
    }

    /** The topic's min.insync.replicas, else this controller's default, at most the partition's replica count. */
    private boolean flushOnAck(TopicImage topic) {
        String value = topic.configs().get(FLUSH_ON_ACK);
        return value == null ? defaultFlushOnAck : Boolean.parseBoolean(value.trim());
    }

    private int minIsr(TopicImage topic, PartitionState state) {
        int configured = defaultMinInsyncReplicas;
        String value = topic.configs().get(MIN_INSYNC_REPLICAS);
        if (value != null) {
            try {
                configured = Integer.parseInt(value.trim());
            } catch (NumberFormatException e) {
                // Brokers validate the config before it is written; an unreadable one falls back to the default.
            }
        }
        return Math.max(1, Math.min(configured, state.replicas().size()));
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

    /**
     * The records of one decision. A partition changed twice within it gets one record, its final state, so
     * that its partition epoch moves by one per decision.
     */
    private static final class Decision {
        private final List<MetadataRecord> records = new ArrayList<>();
        private final Map<UUID, Map<Integer, Integer>> partitionIndex = new HashMap<>();

        /** The image the decision is taken on: a partition change keeps a running reassignment of it. */
        private final ClusterImage base;

        Decision(ClusterImage base) {
            this.base = base;
        }

        static Decision of(ClusterImage base, MetadataRecord first) {
            Decision decision = new Decision(base);
            decision.add(first);
            return decision;
        }

        void add(MetadataRecord record) {
            records.add(record);
        }

        void partition(
                UUID topicId,
                int partition,
                List<Integer> replicas,
                List<Integer> isr,
                int leader,
                int leaderEpoch,
                Eligible eligible) {
            PartitionState current =
                    base.topic(topicId).map(t -> t.partitions().get(partition)).orElse(null);
            List<Integer> adding = current == null ? List.of() : current.addingReplicas();
            List<Integer> removing = current == null ? List.of() : current.removingReplicas();
            if (!replicas.containsAll(adding) || !replicas.containsAll(removing)) {
                throw new IllegalStateException("a change of " + topicId + "-" + partition + " to replicas " + replicas
                        + " would drop its running reassignment (adding " + adding + ", removing " + removing + ")");
            }
            partition(
                    topicId,
                    partition,
                    new PartitionState(
                            replicas,
                            isr,
                            leader,
                            leaderEpoch,
                            eligible.elr(),
                            eligible.lastKnownElr(),
                            adding,
                            removing));
        }

        /** Records {@code state} as the partition's new state, its reassignment fields included. */
        void partition(UUID topicId, int partition, PartitionState state) {
            PartitionChange change = new PartitionChange(
                    topicId,
                    partition,
                    state.replicas(),
                    state.isr(),
                    state.leader(),
                    state.leaderEpoch(),
                    state.elr(),
                    state.lastKnownElr(),
                    state.addingReplicas(),
                    state.removingReplicas());
            Map<Integer, Integer> ofTopic = partitionIndex.computeIfAbsent(topicId, id -> new HashMap<>());
            Integer index = ofTopic.get(partition);
            if (index == null) {
                ofTopic.put(partition, records.size());
                records.add(change);
            } else {
                records.set(index, change);
            }
        }

        boolean isEmpty() {
            return records.isEmpty();
        }

        int size() {
            return records.size();
        }
    }

    /** Proposes the decision as one entry and applies it to {@link #projected}; returns its offset (-1: empty). */
    private long commit(Decision decision) {
        if (decision.isEmpty()) {
            return -1;
        }
        return propose(List.copyOf(decision.records));
    }

    /** As {@link #commit}, cut into entries of at most {@value #MAX_RECORDS_PER_BATCH} records. */
    private void commitInternal(Decision decision) {
        List<MetadataRecord> records = decision.records;
        for (int from = 0; from < records.size(); from += MAX_RECORDS_PER_BATCH) {
            propose(List.copyOf(records.subList(from, Math.min(records.size(), from + MAX_RECORDS_PER_BATCH))));
        }
    }

    private long propose(List<MetadataRecord> batch) {
        Proposal proposal = proposer.propose(batch);
        projected = projected.apply(proposal.offset(), batch);
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
        return last.handle(
                (offset, error) -> error == null ? reply.apply(offset) : ControllerResponse.notController(-1));
    }

    /** A refusal's message: the exception's, or its name when it has none (a response needs one). */
    private static String messageOf(Exception e) {
        String message = e.getMessage();
        return message != null ? message : e.toString();
    }

    private static CompletableFuture<ControllerResponse> failed(Error error, String message) {
        return CompletableFuture.completedFuture(ControllerResponse.error(error, Objects.requireNonNull(message)));
    }

    int nodeId() {
        return nodeId;
    }
}
