package dev.strait.broker.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic-protocol group coordinator with committed offsets, modelled on Kafka's.
 *
 * <p>Sharding: one shard per partition of the offsets topic ({@code __consumer_offsets}); a group lives in shard
 * {@code (groupId.hashCode() & 0x7fffffff) % numShards} and everything of a shard (groups, members, offsets,
 * writes in flight) is used only under that shard's lock. A shard is served by the leader of its offsets
 * partition only (see {@link #onBecomeLeader} and {@link #onResign}).
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
 *
 * <p>Delayed JoinGroup / SyncGroup responses are callbacks kept on the member and invoked later by another request
 * or by the coordinator's timer thread, which every {@code tickMs} expires members (session timeout), pending
 * member ids, and join phases. Time is the injected clock. No handler thread ever blocks.
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

    public record Protocol(String name, byte[] metadata) {}

    public record JoinMember(String memberId, String instanceId, byte[] metadata) {}

    public record JoinResult(
            GroupError error,
            int generation,
            String protocolType,
            String protocolName,
            String leaderId,
            String memberId,
            boolean skipAssignment,
            List<JoinMember> members) {
        static JoinResult error(GroupError error, String memberId) {
            return new JoinResult(error, -1, null, null, "", memberId, false, List.of());
        }
    }

    public record SyncResult(GroupError error, String protocolType, String protocolName, byte[] assignment) {
        static SyncResult error(GroupError error) {
            return new SyncResult(error, null, null, new byte[0]);
        }
    }

    /** A committed offset; a commit timestamp below 0 means "stamp it with the coordinator's clock". */
    public record OffsetAndMetadata(long offset, int leaderEpoch, String metadata, long commitTimestamp) {}

    public record TopicPartitionKey(String topic, int partition) {}

    public record LeaveMember(String memberId, String instanceId) {}

    /** The outcome of a LeaveGroup: an error for the whole request, or NONE and one error per member. */
    public record LeaveResult(GroupError error, List<GroupError> members) {}

    public record GroupListing(String groupId, String protocolType, GroupState state) {}

    public record MemberDescription(
            String memberId,
            String instanceId,
            String clientId,
            String clientHost,
            byte[] metadata,
            byte[] assignment) {}

    public record GroupDescription(
            GroupError error,
            String groupId,
            GroupState state,
            String protocolType,
            String protocolName,
            List<MemberDescription> members) {}

    /** Whether this node serves a shard now. */
    private enum ShardStatus {
        NOT_COORDINATOR,
        LOADING,
        ACTIVE
    }

    private static final class Shard {
        final int index;
        final Map<String, ClassicGroup> groups = new HashMap<>();
        final OffsetManager offsets = new OffsetManager();
        final PendingWrites writes = new PendingWrites();
        ShardStatus status = ShardStatus.NOT_COORDINATOR;

        Shard(int index) {
            this.index = index;
        }
    }

    private final Config config;
    private final OffsetsLog log;
    private final LongSupplier clock;
    private final Supplier<String> memberIds;
    private final Shard[] shards;
    private final ScheduledExecutorService timer;
    private volatile BiConsumer<String, Throwable> faults = (what, cause) -> {};

    public GroupCoordinator(Config config, OffsetsLog log, LongSupplier clockMs) {
        this(config, log, clockMs, () -> UUID.randomUUID().toString());
    }

    /** @param memberIds the unique suffix of each new member id (random; a simulation passes a seeded one) */
    public GroupCoordinator(Config config, OffsetsLog log, LongSupplier clockMs, Supplier<String> memberIds) {
        this.config = config;
        this.log = log;
        this.clock = clockMs;
        this.memberIds = memberIds;
        this.shards = new Shard[config.numShards()];
        for (int i = 0; i < shards.length; i++) {
            shards[i] = new Shard(i);
        }
        this.timer = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread thread = new Thread(r, "strait-group-coordinator");
            thread.setDaemon(true);
            return thread;
        });
    }

    /** Told (what failed, the error) when the timer fails: group sessions would no longer expire. */
    public void setFaultHandler(BiConsumer<String, Throwable> handler) {
        this.faults = handler;
    }

    /**
     * Loads the shards whose offsets partition this node leads (replaying their logs) and starts the timer. Later
     * leadership changes arrive through {@link #onBecomeLeader} and {@link #onResign}.
     */
    public void startup() {
        for (Shard shard : shards) {
            if (log.isLeader(shard.index)) {
                loadShard(shard.index);
            }
        }
        timer.scheduleWithFixedDelay(this::tick, config.tickMs(), config.tickMs(), TimeUnit.MILLISECONDS);
    }

    /** This node now leads offsets partition {@code partition}: its shard is loaded on the timer thread. */
    public void onBecomeLeader(int partition) {
        submit(() -> loadShard(partition));
    }

    /** This node no longer leads offsets partition {@code partition}: its shard is dropped (NOT_COORDINATOR). */
    public void onResign(int partition) {
        submit(() -> unloadShard(partition));
    }

    private void submit(Runnable task) {
        try {
            timer.execute(task);
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closing
        }
    }

    /** Whether this node serves the shard of offsets partition {@code partition} now. */
    public boolean isActive(int partition) {
        return status(partition) == ShardStatus.ACTIVE;
    }

    /** Whether this node is taking over the shard: it replayed its partition and waits for that to be durable. */
    public boolean isLoading(int partition) {
        return status(partition) == ShardStatus.LOADING;
    }

    private ShardStatus status(int partition) {
        if (partition < 0 || partition >= shards.length) {
            return ShardStatus.NOT_COORDINATOR;
        }
        Shard shard = shards[partition];
        synchronized (shard) {
            return shard.status;
        }
    }

    public int numShards() {
        return shards.length;
    }

    /** The offsets partition (= shard) of a group. */
    public int partitionFor(String groupId) {
        return (groupId.hashCode() & 0x7fffffff) % shards.length;
    }

    private Shard shard(String groupId) {
        return shards[partitionFor(groupId)];
    }

    // ------------------------------------------------------------------------------------------------ loading

    private void loadShard(int partition) {
        if (partition < 0 || partition >= shards.length) {
            return;
        }
        Shard shard = shards[partition];
        synchronized (shard) {
            reset(shard, GroupError.NOT_COORDINATOR);
            Optional<OffsetsLog.Position> position = log.position(partition);
            if (position.isEmpty()) {
                return;
            }
            long now = clock.getAsLong();
            long end = log.replay(partition, (offset, key, value) -> load(shard, key, value, now));
            shard.status = ShardStatus.LOADING;
            // Serve nothing of the replayed tail until it is durable: a new leader's high watermark trails until its
            // followers fetch, and what lies above it could still be lost with this leadership.
            GroupResult loaded = new GroupResult();
            loaded.onDurable(() -> {
                shard.status = ShardStatus.ACTIVE;
                LOGGER.info(
                        "group coordinator: serving offsets partition {} ({} groups)", partition, shard.groups.size());
            });
            loaded.onFailed((error, nowMs) -> shard.status = ShardStatus.NOT_COORDINATOR);
            enqueue(shard, new OffsetsLog.Appended(end, position.get().leaderEpoch()), loaded, true);
        }
    }

    private void load(Shard shard, byte[] keyBytes, byte[] value, long nowMs) {
        Object key = GroupRecords.readKey(keyBytes);
        if (key instanceof GroupRecords.OffsetKey offsetKey) {
            TopicPartitionKey tp = new TopicPartitionKey(offsetKey.topic(), offsetKey.partition());
            shard.offsets.load(offsetKey.group(), tp, value == null ? null : GroupRecords.readOffsetValue(value));
            if (value != null) {
                // A group with committed offsets exists (Empty) even if it never had members: it is listed and
                // can be deleted, as in Kafka.
                shard.groups.computeIfAbsent(offsetKey.group(), this::newGroup);
            }
        } else {
            String groupId = (String) key;
            if (value == null) {
                shard.groups.remove(groupId);
            } else {
                shard.groups.put(
                        groupId,
                        ClassicGroup.fromRecord(
                                groupId, GroupRecords.readGroupValue(value), config.initialRebalanceDelayMs(), nowMs));
            }
        }
    }

    private ClassicGroup newGroup(String groupId) {
        return new ClassicGroup(groupId, config.initialRebalanceDelayMs());
    }

    private void unloadShard(int partition) {
        if (partition < 0 || partition >= shards.length) {
            return;
        }
        Shard shard = shards[partition];
        synchronized (shard) {
            reset(shard, GroupError.NOT_COORDINATOR);
        }
    }

    /** Drops everything of the shard; whoever waits hears {@code error} now and finds the new coordinator. */
    private void reset(Shard shard, GroupError error) {
        shard.status = ShardStatus.NOT_COORDINATOR;
        for (ClassicGroup group : shard.groups.values()) {
            group.abandon(error);
        }
        shard.writes.failAll(error, clock.getAsLong());
        shard.groups.clear();
        shard.offsets.clear();
    }

    // ------------------------------------------------------------------------------------------------ writes

    /**
     * Carries out what an operation produced: appends its records and sends its responses once they (and all
     * earlier records) are durable; without records, once the earlier ones are.
     */
    private void complete(Shard shard, GroupResult result) {
        if (result.isEmpty()) {
            return;
        }
        if (!result.records().isEmpty()) {
            OffsetsLog.Appended appended;
            try {
                appended = log.append(shard.index, result.records());
            } catch (OffsetsLog.AppendFailedException e) {
                LOGGER.info("group coordinator: write to offsets partition {} failed: {}", shard.index, e.getMessage());
                result.failResponses(e.error());
                result.runFailureHandlers(e.error(), clock.getAsLong());
                return;
            }
            enqueue(shard, appended, result, false);
        } else if (shard.writes.isEmpty()) {
            result.completeDurable();
        } else {
            enqueue(shard, shard.writes.last().orElseThrow(), result, false);
        }
    }

    private void enqueue(Shard shard, OffsetsLog.Appended appended, GroupResult result, boolean untilDurable) {
        PendingWrites.Pending pending = shard.writes.add(appended, result, untilDurable);
        await(shard, pending);
        shard.writes.drain(log.position(shard.index), clock.getAsLong());
    }

    private void await(Shard shard, PendingWrites.Pending pending) {
        log.awaitReplication(shard.index, pending.appended, () -> onReplicationProgress(shard, pending));
    }

    /** The high watermark moved, leadership changed, or the commit timeout passed for {@code pending}. */
    private void onReplicationProgress(Shard shard, PendingWrites.Pending pending) {
        synchronized (shard) {
            if (!shard.writes.contains(pending)) {
                return;
            }
            Optional<OffsetsLog.Position> position = log.position(shard.index);
            long now = clock.getAsLong();
            boolean stillLeading =
                    position.isPresent() && position.get().leaderEpoch() == pending.appended.leaderEpoch();
            if (stillLeading && position.get().highWatermark() < pending.appended.endOffset()) {
                if (pending.untilDurable) {
                    await(shard, pending);
                } else {
                    shard.writes.timedOut(pending, now);
                    await(shard, pending); // it may still become durable; then it applies
                }
            }
            shard.writes.drain(position, now);
        }
    }

    // ------------------------------------------------------------------------------------------------ JoinGroup

    /**
     * Handles a JoinGroup; the callback is invoked now or later (from any thread) exactly once.
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
            Consumer<JoinResult> callback) {
        if (groupId == null || groupId.isEmpty()) {
            callback.accept(JoinResult.error(GroupError.INVALID_GROUP_ID, memberId));
            return;
        }
        if (sessionTimeoutMs < config.minSessionTimeoutMs() || sessionTimeoutMs > config.maxSessionTimeoutMs()) {
            callback.accept(JoinResult.error(GroupError.INVALID_SESSION_TIMEOUT, memberId));
            return;
        }
        Shard shard = shard(groupId);
        synchronized (shard) {
            ClassicGroup group = shard.groups.get(groupId);
            boolean unknownMember = memberId == null || memberId.isEmpty();
            if (group == null) {
                if (!unknownMember) {
                    callback.accept(JoinResult.error(GroupError.UNKNOWN_MEMBER_ID, memberId));
                    return;
                }
                group = newGroup(groupId);
                shard.groups.put(groupId, group);
            }
            GroupResult result = new GroupResult();
            group.join(
                    new ClassicGroup.JoinRequest(
                            memberId,
                            instanceId,
                            protocolType,
                            protocols,
                            sessionTimeoutMs,
                            rebalanceTimeoutMs,
                            clientId,
                            clientHost,
                            requireKnownMemberId),
                    clock.getAsLong(),
                    memberIds,
                    callback,
                    result);
            complete(shard, result);
        }
    }

    // ------------------------------------------------------------------------------------------------ SyncGroup

    public void syncGroup(
            String groupId,
            int generation,
            String memberId,
            String instanceId,
            String protocolType,
            String protocolName,
            Map<String, byte[]> assignments,
            Consumer<SyncResult> callback) {
        Shard shard = shard(groupId);
        synchronized (shard) {
            ClassicGroup group = shard.groups.get(groupId);
            if (group == null) {
                callback.accept(SyncResult.error(GroupError.UNKNOWN_MEMBER_ID));
                return;
            }
            GroupResult result = new GroupResult();
            group.sync(
                    memberId,
                    instanceId,
                    generation,
                    protocolType,
                    protocolName,
                    assignments,
                    clock.getAsLong(),
                    callback,
                    result);
            complete(shard, result);
        }
    }

    // ------------------------------------------------------------------------------------------------ Heartbeat

    public GroupError heartbeat(String groupId, String memberId, String instanceId, int generation) {
        Shard shard = shard(groupId);
        synchronized (shard) {
            ClassicGroup group = shard.groups.get(groupId);
            if (group == null) {
                return GroupError.UNKNOWN_MEMBER_ID;
            }
            return group.heartbeat(memberId, instanceId, generation, clock.getAsLong());
        }
    }

    // ------------------------------------------------------------------------------------------------ LeaveGroup

    /** The callback gets one error per member, in order, once what the departures wrote is durable. */
    public void leaveGroup(String groupId, List<LeaveMember> leaving, Consumer<LeaveResult> callback) {
        Shard shard = shard(groupId);
        synchronized (shard) {
            ClassicGroup group = shard.groups.get(groupId);
            GroupResult result = new GroupResult();
            List<GroupError> errors;
            if (group == null) {
                errors = new ArrayList<>();
                leaving.forEach(l -> errors.add(GroupError.UNKNOWN_MEMBER_ID));
            } else {
                errors = group.leave(leaving, clock.getAsLong(), result);
            }
            result.respond(
                    () -> callback.accept(new LeaveResult(GroupError.NONE, errors)),
                    error -> callback.accept(new LeaveResult(error, List.of())));
            complete(shard, result);
        }
    }

    // ------------------------------------------------------------------------------------------------ timer

    void tick() {
        try {
            long now = clock.getAsLong();
            for (Shard shard : shards) {
                synchronized (shard) {
                    if (shard.status != ShardStatus.ACTIVE) {
                        continue;
                    }
                    for (ClassicGroup group : new ArrayList<>(shard.groups.values())) {
                        GroupResult result = new GroupResult();
                        group.expire(now, result);
                        complete(shard, result);
                    }
                }
            }
        } catch (RuntimeException e) {
            LOGGER.error("group coordinator timer failed", e);
            faults.accept("group coordinator timer", e);
        }
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
            Consumer<GroupError> callback) {
        if (groupId == null || groupId.isEmpty()) {
            callback.accept(GroupError.INVALID_GROUP_ID);
            return;
        }
        Shard shard = shard(groupId);
        synchronized (shard) {
            long now = clock.getAsLong();
            ClassicGroup group = shard.groups.get(groupId);
            boolean simple = generation < 0 && (memberId == null || memberId.isEmpty());
            GroupError error;
            if (group == null) {
                error = simple ? GroupError.NONE : GroupError.ILLEGAL_GENERATION;
            } else {
                error = group.validateOffsetCommit(memberId, instanceId, generation, now);
            }
            GroupResult result = new GroupResult();
            if (error != GroupError.NONE || offsets.isEmpty()) {
                GroupError answer = error;
                result.respond(() -> callback.accept(answer), callback);
                complete(shard, result);
                return;
            }
            Map<TopicPartitionKey, OffsetAndMetadata> stamped = new LinkedHashMap<>();
            offsets.forEach((tp, offset) -> stamped.put(
                    tp,
                    offset.commitTimestamp() >= 0
                            ? offset
                            : new OffsetAndMetadata(offset.offset(), offset.leaderEpoch(), offset.metadata(), now)));
            OffsetManager.writeCommit(groupId, stamped, result);
            result.onDurable(() -> {
                shard.groups.computeIfAbsent(groupId, this::newGroup);
                shard.offsets.commit(groupId, stamped);
            });
            result.respond(() -> callback.accept(GroupError.NONE), callback);
            complete(shard, result);
        }
    }

    /**
     * Committed (durable) offsets of a group; {@code wanted} null means all. Partitions without a commit are
     * absent from the map.
     */
    public Map<TopicPartitionKey, OffsetAndMetadata> fetchOffsets(String groupId, List<TopicPartitionKey> wanted) {
        Shard shard = shard(groupId);
        synchronized (shard) {
            return shard.offsets.fetch(groupId, wanted);
        }
    }

    // ------------------------------------------------------------------------------------------------ admin

    /**
     * Deletes an Empty group and its offsets. The group is Dead at once (it takes no members), and disappears,
     * offsets and all, once the tombstones are durable; then the callback hears NONE.
     */
    public void deleteGroup(String groupId, Consumer<GroupError> callback) {
        Shard shard = shard(groupId);
        synchronized (shard) {
            ClassicGroup group = shard.groups.get(groupId);
            GroupResult result = new GroupResult();
            if (group == null || group.is(GroupState.DEAD)) {
                result.respond(() -> callback.accept(GroupError.GROUP_ID_NOT_FOUND), callback);
            } else if (!group.is(GroupState.EMPTY)) {
                result.respond(() -> callback.accept(GroupError.NON_EMPTY_GROUP), callback);
            } else {
                shard.offsets.writeDeletion(groupId, result);
                result.write(group.tombstone());
                group.transitionTo(GroupState.DEAD);
                result.onDurable(() -> {
                    ClassicGroup current = shard.groups.get(groupId);
                    if (current != null && current.members.isEmpty()) {
                        shard.groups.remove(groupId);
                    }
                    shard.offsets.delete(groupId);
                });
                result.onFailed((error, nowMs) -> {
                    // Not deleted (or not yet known to be): the group is Empty again and takes members.
                    if (shard.groups.get(groupId) == group) {
                        shard.groups.put(groupId, group.revived());
                    }
                });
                result.respond(() -> callback.accept(GroupError.NONE), callback);
            }
            complete(shard, result);
        }
    }

    public List<GroupListing> listGroups() {
        List<GroupListing> result = new ArrayList<>();
        for (Shard shard : shards) {
            synchronized (shard) {
                for (ClassicGroup group : shard.groups.values()) {
                    if (!group.is(GroupState.DEAD)) {
                        result.add(new GroupListing(
                                group.groupId(), group.protocolType == null ? "" : group.protocolType, group.state()));
                    }
                }
            }
        }
        return result;
    }

    public GroupDescription describeGroup(String groupId) {
        Shard shard = shard(groupId);
        synchronized (shard) {
            ClassicGroup group = shard.groups.get(groupId);
            if (group == null) {
                return new GroupDescription(GroupError.GROUP_ID_NOT_FOUND, groupId, GroupState.DEAD, "", "", List.of());
            }
            List<MemberDescription> members = new ArrayList<>();
            boolean stable = group.is(GroupState.STABLE);
            for (ClassicGroup.Member member : group.members.values()) {
                members.add(new MemberDescription(
                        member.memberId,
                        member.instanceId,
                        member.clientId,
                        member.clientHost,
                        stable ? member.metadata(group.protocolName) : new byte[0],
                        stable ? member.assignment : new byte[0]));
            }
            return new GroupDescription(
                    GroupError.NONE,
                    groupId,
                    group.state(),
                    group.protocolType == null ? "" : group.protocolType,
                    stable ? group.protocolName : "",
                    members);
        }
    }

    @Override
    public void close() {
        timer.shutdownNow();
        try {
            timer.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
