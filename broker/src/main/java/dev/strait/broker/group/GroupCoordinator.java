package dev.strait.broker.group;

import dev.strait.broker.group.GroupApi.FetchResult;
import dev.strait.broker.group.GroupApi.GroupDescription;
import dev.strait.broker.group.GroupApi.GroupListing;
import dev.strait.broker.group.GroupApi.JoinResult;
import dev.strait.broker.group.GroupApi.LeaveMember;
import dev.strait.broker.group.GroupApi.LeaveResult;
import dev.strait.broker.group.GroupApi.OffsetAndMetadata;
import dev.strait.broker.group.GroupApi.OffsetDeleteResult;
import dev.strait.broker.group.GroupApi.Protocol;
import dev.strait.broker.group.GroupApi.SubscriptionReader;
import dev.strait.broker.group.GroupApi.SyncResult;
import dev.strait.broker.group.GroupApi.TopicPartitionKey;
import dev.strait.time.Time;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic-protocol group coordinator with committed offsets, modelled on Kafka's.
 *
 * <p>Sharding and threading: one shard per partition of the offsets topic ({@code __consumer_offsets}); a group
 * lives in shard {@code (groupId.hashCode() & 0x7fffffff) % numShards}. Each shard is owned by one single-threaded
 * event loop ({@link ShardLoops}): every operation on it (a request from a network handler thread, the expiry tick,
 * becoming leader or resigning, the high watermark's progress reported by the replica layer) is a task queued to
 * that loop, and everything of the shard (groups, members, offsets, writes in flight) is used only by its tasks, so
 * no lock guards it and the callers never wait for it. Results go back through the callbacks the caller passes,
 * invoked on the loop thread, now or later, exactly once. Only the shard's status (loading, active) is published to
 * other threads, for the protocol adapter's routing. A task that throws is a fatal fault (see
 * {@link #setFaultHandler}). A shard is served by the leader of its offsets partition only (see
 * {@link #onBecomeLeader} and {@link #onResign}).
 *
 * <p>Durability: every operation runs the group's rules ({@link ClassicGroup}), which change the in-memory group
 * and return a {@link GroupResult}: records to append to the shard's partition and responses to send. Responses
 * are sent only once those records, and every record appended before them, are on the partition's in-sync
 * replicas (its high watermark passed them, {@link PendingWrites}); committed offsets and deletions take effect in
 * what readers see only then, so OffsetFetch never serves an offset that a failover takes back (issue 11, defect
 * 6). A shard that becomes active replays its partition and serves requests only once everything it replayed is
 * durable (COORDINATOR_LOAD_IN_PROGRESS until then). Group metadata is written, with the members and their
 * assignments, when a rebalance completes and when the group becomes Empty, as Kafka does; after a restart a
 * Stable group is Stable again with the same generation and members, whose session timeouts start again.
 * Committed offsets are read only while the node holds its read lease (the controller answered a recent heartbeat;
 * {@code dev.strait.broker.controller.ReadLease}): a leader cut off from the controller may have been replaced by one
 * with later commits (issue 22); COORDINATOR_NOT_AVAILABLE until the lease is renewed.
 *
 * <p>Delayed JoinGroup / SyncGroup responses are callbacks kept on the member and invoked later by another task of
 * the shard: a request, or the tick, which every {@code tickMs} expires members (session timeout), pending member
 * ids, and join phases. Time is the injected clock, read on the loop.
 *
 * <p>This class routes: it checks what a request can be refused for on its face on the caller's thread, and queues
 * the rest to the shard's loop, where the operations run: {@link MembershipOperations} (JoinGroup, SyncGroup,
 * Heartbeat, LeaveGroup, expiry), {@link OffsetOperations} (OffsetCommit, OffsetFetch, OffsetDelete) and
 * {@link AdminOperations} (DeleteGroups, ListGroups, DescribeGroups); {@link ShardLoader} takes over a shard and
 * {@link DurableWrites} carries the records they produce to durability. Its requests and answers are {@link GroupApi}.
 */
public final class GroupCoordinator implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(GroupCoordinator.class);

    /** Settings. */
    public record Config(
            int numShards, int initialRebalanceDelayMs, int minSessionTimeoutMs, int maxSessionTimeoutMs, long tickMs) {
        public static Config defaults() {
            return new Config(5, 3000, 6000, 1_800_000, 100);
        }
    }

    private final Config config;
    private final OffsetsLog log;
    private final Time clock;
    private final GroupShard[] shards;
    private final ShardLoops loops;
    private final ShardLoader loader;
    private final MembershipOperations membership;
    private final OffsetOperations offsetOperations;
    private final TransactionalOffsetOperations transactionalOffsets;
    private final AdminOperations admin;
    private final ConsumerGroupOperations consumerGroups;
    private volatile BiConsumer<String, Throwable> faults = (what, cause) -> {};
    private volatile boolean closed;

    public GroupCoordinator(Config config, OffsetsLog log, Time clockMs) {
        this(config, log, clockMs, () -> true);
    }

    /**
     * @param readLease whether this node can still be sure that no other node leads its offsets partitions in its
     *                  place (the metadata source's {@code holdsReadLease}); committed offsets are served only then
     */
    public GroupCoordinator(Config config, OffsetsLog log, Time clockMs, BooleanSupplier readLease) {
        this(
                config,
                log,
                clockMs,
                () -> UUID.randomUUID().toString(),
                new ThreadShardLoops(Math.min(
                        config.numShards(), Math.max(1, Runtime.getRuntime().availableProcessors()))),
                readLease);
    }

    /**
     * @param memberIds the unique suffix of each new member id (random; a simulation passes a seeded one)
     * @param loops     where the shards run (the coordinator closes them); a simulation passes loops it drives
     */
    public GroupCoordinator(Config config, OffsetsLog log, Time clockMs, Supplier<String> memberIds, ShardLoops loops) {
        this(config, log, clockMs, memberIds, loops, () -> true);
    }

    /** As above, with the read lease of {@link #GroupCoordinator(Config, OffsetsLog, Time, BooleanSupplier)}. */
    public GroupCoordinator(
            Config config,
            OffsetsLog log,
            Time clockMs,
            Supplier<String> memberIds,
            ShardLoops loops,
            BooleanSupplier readLease) {
        this.config = config;
        this.log = log;
        this.clock = clockMs;
        this.loops = loops;
        this.shards = new GroupShard[config.numShards()];
        for (int i = 0; i < shards.length; i++) {
            shards[i] = new GroupShard(i, config.initialRebalanceDelayMs());
        }
        DurableWrites writes = new DurableWrites(log, clockMs, this::submit);
        this.loader = new ShardLoader(log, clockMs, writes);
        this.membership = new MembershipOperations(clockMs, memberIds, writes);
        this.offsetOperations = new OffsetOperations(clockMs, readLease, writes);
        this.transactionalOffsets = new TransactionalOffsetOperations(clockMs, writes);
        this.admin = new AdminOperations(writes);
        this.consumerGroups = new ConsumerGroupOperations(clockMs, writes);
    }

    /**
     * The consumer group protocol's timeouts ({@code group.consumer.session.timeout.ms}, default 45000, and
     * {@code group.consumer.heartbeat.interval.ms}, default 5000); set before {@link #startup}.
     */
    public void setConsumerGroupTimeouts(int sessionTimeoutMs, int heartbeatIntervalMs) {
        for (GroupShard shard : shards) {
            shard.consumerSessionTimeoutMs = sessionTimeoutMs;
            shard.consumerHeartbeatIntervalMs = heartbeatIntervalMs;
        }
    }

    /**
     * Told (what failed, the error) when a task of a shard's loop throws: the shard's state may be half changed and
     * its groups' sessions might no longer expire, so the broker stops rather than serve from it.
     */
    public void setFaultHandler(BiConsumer<String, Throwable> handler) {
        this.faults = handler;
    }

    /**
     * Loads, on their loops, the shards whose offsets partition this node leads (replaying their logs) and starts
     * the ticks. Later leadership changes arrive through {@link #onBecomeLeader} and {@link #onResign}.
     */
    public void startup() {
        for (GroupShard shard : shards) {
            submit(shard, () -> {
                if (log.isLeader(shard.index)) {
                    loader.load(shard);
                }
            });
            loops.scheduleEvery(shard.index, config.tickMs(), () -> run(shard, () -> expire(shard)));
        }
    }

    /** This node now leads offsets partition {@code partition}: its shard is loaded on its loop. */
    public void onBecomeLeader(int partition) {
        if (partition >= 0 && partition < shards.length) {
            GroupShard shard = shards[partition];
            submit(shard, () -> loader.load(shard));
        }
    }

    /** This node no longer leads offsets partition {@code partition}: its shard is dropped (NOT_COORDINATOR). */
    public void onResign(int partition) {
        if (partition >= 0 && partition < shards.length) {
            GroupShard shard = shards[partition];
            submit(shard, () -> shard.reset(GroupError.NOT_COORDINATOR, clock.milliseconds()));
        }
    }

    /**
     * The caller's callback, so that what it throws (building or sending one answer) fails that answer alone: it runs
     * on the shard's loop, where anything else thrown is a fatal fault of the coordinator.
     */
    private static <T> Consumer<T> answeredSafely(String api, Consumer<T> callback) {
        return answer -> {
            try {
                callback.accept(answer);
            } catch (RuntimeException e) {
                LOGGER.error("group coordinator: answering a {} request failed; that request gets no answer", api, e);
            }
        };
    }

    /** Queues {@code task} to the shard's loop; dropped if the coordinator is closing. */
    private void submit(GroupShard shard, Runnable task) {
        submit(shard, task, () -> {});
    }

    /** Queues {@code task} to the shard's loop; {@code rejected} runs (here) instead if the coordinator is closing. */
    private void submit(GroupShard shard, Runnable task, Runnable rejected) {
        if (closed) {
            rejected.run();
            return;
        }
        try {
            loops.execute(shard.index, () -> run(shard, task));
        } catch (RejectedExecutionException e) {
            rejected.run();
        }
    }

    /** Runs a task of the shard's loop; what it throws is a fatal fault. */
    private void run(GroupShard shard, Runnable task) {
        if (closed) {
            return;
        }
        try {
            task.run();
        } catch (Throwable e) {
            LOGGER.error("group coordinator: a task of offsets partition {}'s shard failed", shard.index, e);
            faults.accept("group coordinator loop of offsets partition " + shard.index, e);
        }
    }

    /** Whether this node serves the shard of offsets partition {@code partition} now. */
    public boolean isActive(int partition) {
        return status(partition) == GroupShard.Status.ACTIVE;
    }

    /** Whether this node is taking over the shard: it replayed its partition and waits for that to be durable. */
    public boolean isLoading(int partition) {
        return status(partition) == GroupShard.Status.LOADING;
    }

    private GroupShard.Status status(int partition) {
        if (partition < 0 || partition >= shards.length) {
            return GroupShard.Status.NOT_COORDINATOR;
        }
        return shards[partition].status;
    }

    public int numShards() {
        return shards.length;
    }

    /** The offsets partition (= shard) of a group. */
    public int partitionFor(String groupId) {
        return (groupId.hashCode() & 0x7fffffff) % shards.length;
    }

    private GroupShard shard(String groupId) {
        return shards[partitionFor(groupId)];
    }

    // ------------------------------------------------------------------------------------------------ membership

    /**
     * Handles a JoinGroup; the callback is invoked exactly once, on the shard's loop (at once on this thread for a
     * request invalid on its face), now or later.
     *
     * @param requireKnownMemberId JoinGroup v4+: a dynamic member without id first gets MEMBER_ID_REQUIRED
     */
    public void joinGroup(
            String groupId,
            String memberId,
            String instanceId,
            String protocolType,
            List<Protocol> protocols,
            int sessionTimeoutMs,
            int rebalanceTimeoutMs,
            String clientId,
            String clientHost,
            boolean requireKnownMemberId,
            Consumer<JoinResult> callerCallback) {
        Consumer<JoinResult> callback = answeredSafely("JoinGroup", callerCallback);
        if (groupId == null || groupId.isEmpty()) {
            callback.accept(JoinResult.error(GroupError.INVALID_GROUP_ID, memberId));
            return;
        }
        if (sessionTimeoutMs < config.minSessionTimeoutMs() || sessionTimeoutMs > config.maxSessionTimeoutMs()) {
            callback.accept(JoinResult.error(GroupError.INVALID_SESSION_TIMEOUT, memberId));
            return;
        }
        ClassicGroup.JoinRequest request = new ClassicGroup.JoinRequest(
                memberId,
                instanceId,
                protocolType,
                protocols,
                sessionTimeoutMs,
                rebalanceTimeoutMs,
                clientId,
                clientHost,
                requireKnownMemberId);
        GroupShard shard = shard(groupId);
        submit(
                shard,
                () -> membership.join(shard, groupId, request, callback),
                () -> callback.accept(JoinResult.error(GroupError.NOT_COORDINATOR, memberId)));
    }

    /** Handles a SyncGroup; the callback is invoked exactly once, on the shard's loop, now or later. */
    public void syncGroup(
            String groupId,
            int generation,
            String memberId,
            String instanceId,
            String protocolType,
            String protocolName,
            Map<String, byte[]> assignments,
            Consumer<SyncResult> callerCallback) {
        Consumer<SyncResult> callback = answeredSafely("SyncGroup", callerCallback);
        GroupShard shard = shard(groupId);
        submit(
                shard,
                () -> membership.sync(
                        shard,
                        groupId,
                        generation,
                        memberId,
                        instanceId,
                        protocolType,
                        protocolName,
                        assignments,
                        callback),
                () -> callback.accept(SyncResult.error(GroupError.NOT_COORDINATOR)));
    }

    /** Handles a Heartbeat; the callback hears its error on the shard's loop. */
    public void heartbeat(
            String groupId, String memberId, String instanceId, int generation, Consumer<GroupError> callerCallback) {
        Consumer<GroupError> callback = answeredSafely("Heartbeat", callerCallback);
        GroupShard shard = shard(groupId);
        submit(
                shard,
                () -> membership.heartbeat(shard, groupId, memberId, instanceId, generation, callback),
                () -> callback.accept(GroupError.NOT_COORDINATOR));
    }

    /** The callback gets one error per member, in order, once what the departures wrote is durable. */
    public void leaveGroup(String groupId, List<LeaveMember> leaving, Consumer<LeaveResult> callerCallback) {
        Consumer<LeaveResult> callback = answeredSafely("LeaveGroup", callerCallback);
        GroupShard shard = shard(groupId);
        submit(
                shard,
                () -> membership.leave(shard, groupId, leaving, callback),
                () -> callback.accept(new LeaveResult(GroupError.NOT_COORDINATOR, List.of())));
    }

    /** Queues an expiry pass to every shard's loop now (the loops also run one every {@code tickMs}). */
    void tick() {
        for (GroupShard shard : shards) {
            submit(shard, () -> expire(shard));
        }
    }

    private void expire(GroupShard shard) {
        membership.expire(shard);
        consumerGroups.expire(shard);
    }

    // ------------------------------------------------------------------------------------------------ consumer groups

    /**
     * Handles a ConsumerGroupHeartbeat (KIP-848); the callback hears the answer on the shard's loop once what the
     * heartbeat changed is durable.
     *
     * @param topics every topic that exists with its partition count, as the caller's metadata shows it now
     */
    public void consumerGroupHeartbeat(
            String groupId,
            ConsumerGroupApi.Heartbeat request,
            Map<String, Integer> topics,
            Consumer<ConsumerGroupApi.HeartbeatResult> callerCallback) {
        Consumer<ConsumerGroupApi.HeartbeatResult> callback = answeredSafely("ConsumerGroupHeartbeat", callerCallback);
        if (groupId == null || groupId.isEmpty()) {
            callback.accept(ConsumerGroupApi.HeartbeatResult.error(
                    GroupError.INVALID_GROUP_ID, "GroupId can't be empty.", request.memberId()));
            return;
        }
        GroupShard shard = shard(groupId);
        submit(
                shard,
                () -> consumerGroups.heartbeat(shard, groupId, request, topics, callback),
                () -> callback.accept(
                        ConsumerGroupApi.HeartbeatResult.error(GroupError.NOT_COORDINATOR, null, request.memberId())));
    }

    /** The consumer group as ConsumerGroupDescribe shows it, to the callback on the shard's loop. */
    public void describeConsumerGroup(String groupId, Consumer<ConsumerGroupApi.GroupDescription> callerCallback) {
        Consumer<ConsumerGroupApi.GroupDescription> callback = answeredSafely("ConsumerGroupDescribe", callerCallback);
        GroupShard shard = shard(groupId);
        submit(
                shard,
                () -> callback.accept(ConsumerGroupOperations.describe(shard, groupId)),
                () -> callback.accept(ConsumerGroupOperations.notDescribed(GroupError.NOT_COORDINATOR, null, groupId)));
    }

    // ------------------------------------------------------------------------------------------------ offsets

    /**
     * Commits offsets; the callback hears NONE once they are durable, and only then does OffsetFetch serve them.
     * generation &lt; 0 with an empty member id is a simple commit (standalone consumer, Admin), allowed only when
     * the group has no members. A commit timestamp below 0 is stamped with the coordinator's clock.
     */
    public void commitOffsets(
            String groupId,
            String memberId,
            String instanceId,
            int generation,
            Map<TopicPartitionKey, OffsetAndMetadata> offsets,
            Consumer<GroupError> callerCallback) {
        Consumer<GroupError> callback = answeredSafely("OffsetCommit", callerCallback);
        if (groupId == null || groupId.isEmpty()) {
            callback.accept(GroupError.INVALID_GROUP_ID);
            return;
        }
        GroupShard shard = shard(groupId);
        submit(
                shard,
                () -> offsetOperations.commit(shard, groupId, memberId, instanceId, generation, offsets, callback),
                () -> callback.accept(GroupError.NOT_COORDINATOR));
    }

    /**
     * Committed (durable) offsets of a group, to the callback on the shard's loop; {@code wanted} null means all.
     * Partitions without a commit are absent from the map. A shard this node does not serve (yet) answers its
     * error and no offsets, never an empty map that a consumer would take for "no commit". Served only while the
     * node holds its read lease (COORDINATOR_NOT_AVAILABLE otherwise). OffsetFetch v9+ names the member and its
     * epoch: for a consumer group (KIP-848) they are validated (UNKNOWN_MEMBER_ID, STALE_MEMBER_EPOCH) unless both
     * are absent (null and -1: the admin client, older versions). With {@code requireStable} (v7+) a partition that
     * an open transaction holds an offset for is in {@link FetchResult#unstable()} instead of
     * {@link FetchResult#offsets()}.
     */
    public void fetchOffsets(
            String groupId,
            @Nullable String memberId,
            int memberEpoch,
            @Nullable List<TopicPartitionKey> wanted,
            boolean requireStable,
            Consumer<FetchResult> callerCallback) {
        Consumer<FetchResult> callback = answeredSafely("OffsetFetch", callerCallback);
        GroupShard shard = shard(groupId);
        submit(
                shard,
                () -> offsetOperations.fetch(shard, groupId, memberId, memberEpoch, wanted, requireStable, callback),
                () -> callback.accept(new FetchResult(GroupError.NOT_COORDINATOR, Map.of())));
    }

    /**
     * Commits offsets inside the producer's transaction (TxnOffsetCommit): written as a transactional batch of the
     * producer, so that the offsets partition's producer state fences an old epoch (INVALID_PRODUCER_EPOCH); the
     * callback hears NONE once it is durable. The offsets are then pending: OffsetFetch serves the group's previous
     * committed offsets (requireStable: the partitions are unstable) until {@link #completeTransaction} commits or
     * drops them. {@code memberId}, {@code instanceId} and {@code generation} (TxnOffsetCommit v3+; "", null and -1
     * before) are validated against the group as Kafka does: a classic group's member and generation, a consumer
     * group's member and epoch (ILLEGAL_GENERATION if stale). A commit timestamp below 0 is stamped with the
     * coordinator's clock.
     */
    public void commitTransactionalOffsets(
            String groupId,
            long producerId,
            short producerEpoch,
            String memberId,
            String instanceId,
            int generation,
            Map<TopicPartitionKey, OffsetAndMetadata> offsets,
            Consumer<GroupError> callerCallback) {
        Consumer<GroupError> callback = answeredSafely("TxnOffsetCommit", callerCallback);
        if (groupId == null || groupId.isEmpty()) {
            callback.accept(GroupError.INVALID_GROUP_ID);
            return;
        }
        GroupShard shard = shard(groupId);
        submit(
                shard,
                () -> transactionalOffsets.commit(
                        shard,
                        groupId,
                        producerId,
                        producerEpoch,
                        memberId == null ? "" : memberId,
                        instanceId,
                        generation,
                        offsets,
                        callback),
                () -> callback.accept(GroupError.NOT_COORDINATOR));
    }

    /**
     * The producer's transaction ended: its commit ({@code commit}) or abort marker is durable at {@code markerOffset}
     * in offsets partition {@code offsetsPartition}. Called on any thread by the writer of the markers; handled on the
     * shard's loop. What the transaction committed there before the marker becomes the groups' committed offsets,
     * except where an ordinary commit was written after it (the later record wins, as Kafka), or is dropped on abort.
     * Records of the producer after the marker (its next transaction) stay pending. Idempotent; a shard this node
     * does not serve ignores it (its next coordinator replays the marker).
     *
     * <p>Contract: for one producer and partition, call in marker order, e.g. from the durable-write callback of the
     * marker before the transaction is completed: a marker ends every earlier record of its producer that no
     * reported marker ended, so a commit reported before the abort that preceded it would commit the aborted offsets.
     */
    public void completeTransaction(int offsetsPartition, long producerId, boolean commit, long markerOffset) {
        if (offsetsPartition < 0 || offsetsPartition >= shards.length) {
            return;
        }
        GroupShard shard = shards[offsetsPartition];
        submit(shard, () -> transactionalOffsets.complete(shard, producerId, commit, markerOffset));
    }

    /**
     * Deletes some committed offsets of a group, as Kafka's OffsetDelete: partitions of topics its members subscribe
     * to are refused (GROUP_SUBSCRIBED_TO_TOPIC), the others are tombstoned, and the callback hears the outcome once
     * the tombstones are durable. An unknown group is GROUP_ID_NOT_FOUND.
     */
    public void deleteOffsets(
            String groupId,
            List<TopicPartitionKey> partitions,
            SubscriptionReader subscriptions,
            Consumer<OffsetDeleteResult> callerCallback) {
        Consumer<OffsetDeleteResult> callback = answeredSafely("OffsetDelete", callerCallback);
        if (groupId == null || groupId.isEmpty()) {
            callback.accept(new OffsetDeleteResult(GroupError.INVALID_GROUP_ID, Map.of()));
            return;
        }
        GroupShard shard = shard(groupId);
        submit(
                shard,
                () -> offsetOperations.delete(shard, groupId, partitions, subscriptions, callback),
                () -> callback.accept(new OffsetDeleteResult(GroupError.NOT_COORDINATOR, Map.of())));
    }

    // ------------------------------------------------------------------------------------------------ admin

    /**
     * Deletes an Empty group and its offsets. The group is Dead at once (it takes no members), and disappears,
     * offsets and all, once the tombstones are durable; then the callback hears NONE.
     */
    public void deleteGroup(String groupId, Consumer<GroupError> callerCallback) {
        Consumer<GroupError> callback = answeredSafely("DeleteGroups", callerCallback);
        GroupShard shard = shard(groupId);
        submit(
                shard,
                () -> admin.deleteGroup(shard, groupId, callback),
                () -> callback.accept(GroupError.NOT_COORDINATOR));
    }

    /**
     * The groups of every shard, to the callback once each shard's loop listed its own (on the loop that listed
     * last); shards are listed in order. A closing coordinator leaves its shards' groups out.
     */
    public void listGroups(Consumer<List<GroupListing>> callerCallback) {
        Consumer<List<GroupListing>> callback = answeredSafely("ListGroups", callerCallback);
        ShardFanOut.collect(shards, this::submit, AdminOperations::list, callback);
    }

    /**
     * The group as DescribeGroups shows it, to the callback on the shard's loop; GROUP_ID_NOT_FOUND if it does not
     * exist, NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS if this node does not serve its shard now.
     */
    public void describeGroup(String groupId, Consumer<GroupDescription> callerCallback) {
        Consumer<GroupDescription> callback = answeredSafely("DescribeGroups", callerCallback);
        GroupShard shard = shard(groupId);
        submit(
                shard,
                () -> callback.accept(AdminOperations.describe(shard, groupId)),
                () -> callback.accept(AdminOperations.notServed(GroupError.NOT_COORDINATOR, groupId)));
    }

    /** Stops the loops; tasks not yet run are dropped (their callers' connections close with the broker). */
    @Override
    public void close() {
        closed = true;
        loops.close();
    }
}
