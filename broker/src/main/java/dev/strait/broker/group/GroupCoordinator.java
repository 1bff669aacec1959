package dev.strait.broker.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.function.BiConsumer;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import java.util.function.Supplier;
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

    /** An OffsetDelete's answer: an error for the whole group, or NONE and one error per partition asked for. */
    public record OffsetDeleteResult(GroupError error, Map<TopicPartitionKey, GroupError> partitions) {}

    /**
     * The topics a member's metadata of the consumer protocol subscribes to, or empty if it cannot be read; the
     * protocol adapter knows the format.
     */
    @FunctionalInterface
    public interface SubscriptionReader {
        Optional<java.util.Set<String>> topics(byte[] metadata);
    }

    public record GroupListing(String groupId, String protocolType, GroupState state) {}

    /** An OffsetFetch's answer: NONE and the committed offsets, or why this node cannot serve them now. */
    public record FetchResult(GroupError error, Map<TopicPartitionKey, OffsetAndMetadata> offsets) {}

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

    /** One shard's state: used only by tasks on its loop, except {@link #status}, which other threads read. */
    private static final class Shard {
        final int index;
        final Map<String, ClassicGroup> groups = new HashMap<>();
        final OffsetManager offsets = new OffsetManager();
        final PendingWrites writes = new PendingWrites();
        volatile ShardStatus status = ShardStatus.NOT_COORDINATOR;

        Shard(int index) {
            this.index = index;
        }
    }

    private final Config config;
    private final OffsetsLog log;
    private final LongSupplier clock;
    private final Supplier<String> memberIds;
    private final Shard[] shards;
    private final ShardLoops loops;
    private final BooleanSupplier readLease;
    private volatile BiConsumer<String, Throwable> faults = (what, cause) -> {};
    private volatile boolean closed;

    public GroupCoordinator(Config config, OffsetsLog log, LongSupplier clockMs) {
        this(config, log, clockMs, () -> true);
    }

    /**
     * @param readLease whether this node can still be sure that no other node leads its offsets partitions in its
     *                  place (the metadata source's {@code holdsReadLease}); committed offsets are served only then
     */
    public GroupCoordinator(Config config, OffsetsLog log, LongSupplier clockMs, BooleanSupplier readLease) {
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
    public GroupCoordinator(
            Config config, OffsetsLog log, LongSupplier clockMs, Supplier<String> memberIds, ShardLoops loops) {
        this(config, log, clockMs, memberIds, loops, () -> true);
    }

    /** As above, with the read lease of {@link #GroupCoordinator(Config, OffsetsLog, LongSupplier, BooleanSupplier)}. */
    public GroupCoordinator(
            Config config,
            OffsetsLog log,
            LongSupplier clockMs,
            Supplier<String> memberIds,
            ShardLoops loops,
            BooleanSupplier readLease) {
        this.readLease = readLease;
        this.config = config;
        this.log = log;
        this.clock = clockMs;
        this.memberIds = memberIds;
        this.loops = loops;
        this.shards = new Shard[config.numShards()];
        for (int i = 0; i < shards.length; i++) {
            shards[i] = new Shard(i);
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
        for (Shard shard : shards) {
            submit(shard, () -> {
                if (log.isLeader(shard.index)) {
                    loadShard(shard);
                }
            });
            loops.scheduleEvery(shard.index, config.tickMs(), () -> run(shard, () -> expire(shard)));
        }
    }

    /** This node now leads offsets partition {@code partition}: its shard is loaded on its loop. */
    public void onBecomeLeader(int partition) {
        if (partition >= 0 && partition < shards.length) {
            Shard shard = shards[partition];
            submit(shard, () -> loadShard(shard));
        }
    }

    /** This node no longer leads offsets partition {@code partition}: its shard is dropped (NOT_COORDINATOR). */
    public void onResign(int partition) {
        if (partition >= 0 && partition < shards.length) {
            Shard shard = shards[partition];
            submit(shard, () -> reset(shard, GroupError.NOT_COORDINATOR));
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
    private void submit(Shard shard, Runnable task) {
        submit(shard, task, () -> {});
    }

    /** Queues {@code task} to the shard's loop; {@code rejected} runs (here) instead if the coordinator is closing. */
    private void submit(Shard shard, Runnable task, Runnable rejected) {
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
    private void run(Shard shard, Runnable task) {
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
        return shards[partition].status;
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

    /**
     * NONE if the shard serves now, else what a request for it is told. Checked by each task on the loop: the
     * protocol adapter's check on the handler thread can be overtaken by a leadership change queued before it.
     */
    private static GroupError unavailable(Shard shard) {
        return switch (shard.status) {
            case ACTIVE -> GroupError.NONE;
            case LOADING -> GroupError.COORDINATOR_LOAD_IN_PROGRESS;
            case NOT_COORDINATOR -> GroupError.NOT_COORDINATOR;
        };
    }

    // ------------------------------------------------------------------------------------------------ loading

    private void loadShard(Shard shard) {
        int partition = shard.index;
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
            LOGGER.info("group coordinator: serving offsets partition {} ({} groups)", partition, shard.groups.size());
        });
        loaded.onFailed((error, nowMs) -> shard.status = ShardStatus.NOT_COORDINATOR);
        enqueue(shard, new OffsetsLog.Appended(end, position.get().leaderEpoch()), loaded, true);
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

    /** The replica layer calls back on its own thread; the progress is handled on the shard's loop. */
    private void await(Shard shard, PendingWrites.Pending pending) {
        log.awaitReplication(
                shard.index, pending.appended, () -> submit(shard, () -> onReplicationProgress(shard, pending)));
    }

    /** The high watermark moved, leadership changed, or the commit timeout passed for {@code pending}. */
    private void onReplicationProgress(Shard shard, PendingWrites.Pending pending) {
        if (!shard.writes.contains(pending)) {
            return;
        }
        Optional<OffsetsLog.Position> position = log.position(shard.index);
        long now = clock.getAsLong();
        boolean stillLeading = position.isPresent() && position.get().leaderEpoch() == pending.appended.leaderEpoch();
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

    // ------------------------------------------------------------------------------------------------ JoinGroup

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
        Shard shard = shard(groupId);
        submit(
                shard,
                () -> {
                    GroupError unavailable = unavailable(shard);
                    if (unavailable != GroupError.NONE) {
                        callback.accept(JoinResult.error(unavailable, memberId));
                        return;
                    }
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
                    group.join(request, clock.getAsLong(), memberIds, callback, result);
                    complete(shard, result);
                },
                () -> callback.accept(JoinResult.error(GroupError.NOT_COORDINATOR, memberId)));
    }

    // ------------------------------------------------------------------------------------------------ SyncGroup

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
        Shard shard = shard(groupId);
        submit(
                shard,
                () -> {
                    GroupError unavailable = unavailable(shard);
                    if (unavailable != GroupError.NONE) {
                        callback.accept(SyncResult.error(unavailable));
                        return;
                    }
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
                },
                () -> callback.accept(SyncResult.error(GroupError.NOT_COORDINATOR)));
    }

    // ------------------------------------------------------------------------------------------------ Heartbeat

    /** Handles a Heartbeat; the callback hears its error on the shard's loop. */
    public void heartbeat(
            String groupId, String memberId, String instanceId, int generation, Consumer<GroupError> callerCallback) {
        Consumer<GroupError> callback = answeredSafely("Heartbeat", callerCallback);
        Shard shard = shard(groupId);
        submit(
                shard,
                () -> {
                    ClassicGroup group = shard.groups.get(groupId);
                    GroupError unavailable = unavailable(shard);
                    callback.accept(
                            unavailable != GroupError.NONE
                                    ? unavailable
                                    : group == null
                                            ? GroupError.UNKNOWN_MEMBER_ID
                                            : group.heartbeat(memberId, instanceId, generation, clock.getAsLong()));
                },
                () -> callback.accept(GroupError.NOT_COORDINATOR));
    }

    // ------------------------------------------------------------------------------------------------ LeaveGroup

    /** The callback gets one error per member, in order, once what the departures wrote is durable. */
    public void leaveGroup(String groupId, List<LeaveMember> leaving, Consumer<LeaveResult> callerCallback) {
        Consumer<LeaveResult> callback = answeredSafely("LeaveGroup", callerCallback);
        Shard shard = shard(groupId);
        submit(
                shard,
                () -> {
                    GroupError unavailable = unavailable(shard);
                    if (unavailable != GroupError.NONE) {
                        callback.accept(new LeaveResult(unavailable, List.of()));
                        return;
                    }
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
                },
                () -> callback.accept(new LeaveResult(GroupError.NOT_COORDINATOR, List.of())));
    }

    // ------------------------------------------------------------------------------------------------ tick

    /** Queues an expiry pass to every shard's loop now (the loops also run one every {@code tickMs}). */
    void tick() {
        for (Shard shard : shards) {
            submit(shard, () -> expire(shard));
        }
    }

    /** Expires the shard's members (session timeout), pending member ids and join phases. */
    private void expire(Shard shard) {
        if (shard.status != ShardStatus.ACTIVE) {
            return;
        }
        long now = clock.getAsLong();
        for (ClassicGroup group : new ArrayList<>(shard.groups.values())) {
            GroupResult result = new GroupResult();
            group.expire(now, result);
            complete(shard, result);
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
            Consumer<GroupError> callerCallback) {
        Consumer<GroupError> callback = answeredSafely("OffsetCommit", callerCallback);
        if (groupId == null || groupId.isEmpty()) {
            callback.accept(GroupError.INVALID_GROUP_ID);
            return;
        }
        Shard shard = shard(groupId);
        submit(
                shard,
                () -> commitOffsets(shard, groupId, memberId, instanceId, generation, offsets, callback),
                () -> callback.accept(GroupError.NOT_COORDINATOR));
    }

    private void commitOffsets(
            Shard shard,
            String groupId,
            String memberId,
            String instanceId,
            int generation,
            Map<TopicPartitionKey, OffsetAndMetadata> offsets,
            Consumer<GroupError> callback) {
        GroupError unavailable = unavailable(shard);
        if (unavailable != GroupError.NONE) {
            callback.accept(unavailable);
            return;
        }
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

    /**
     * Committed (durable) offsets of a group, to the callback on the shard's loop; {@code wanted} null means all.
     * Partitions without a commit are absent from the map. A shard this node does not serve (yet) answers its
     * error and no offsets, never an empty map that a consumer would take for "no commit".
     */
    public void fetchOffsets(String groupId, List<TopicPartitionKey> wanted, Consumer<FetchResult> callerCallback) {
        Consumer<FetchResult> callback = answeredSafely("OffsetFetch", callerCallback);
        Shard shard = shard(groupId);
        submit(
                shard,
                () -> {
                    GroupError unavailable = unavailable(shard);
                    if (unavailable == GroupError.NONE && !readLease.getAsBoolean()) {
                        // Cut off from the controller for a while: another node may lead the partition by now and
                        // have acknowledged later commits (issue 22). The client finds the coordinator again.
                        unavailable = GroupError.COORDINATOR_NOT_AVAILABLE;
                    }
                    callback.accept(
                            unavailable != GroupError.NONE
                                    ? new FetchResult(unavailable, Map.of())
                                    : new FetchResult(GroupError.NONE, shard.offsets.fetch(groupId, wanted)));
                },
                () -> callback.accept(new FetchResult(GroupError.NOT_COORDINATOR, Map.of())));
    }

    // ------------------------------------------------------------------------------------------------ admin

    /**
     * Deletes an Empty group and its offsets. The group is Dead at once (it takes no members), and disappears,
     * offsets and all, once the tombstones are durable; then the callback hears NONE.
     */
    public void deleteGroup(String groupId, Consumer<GroupError> callerCallback) {
        Consumer<GroupError> callback = answeredSafely("DeleteGroups", callerCallback);
        Shard shard = shard(groupId);
        submit(shard, () -> deleteGroup(shard, groupId, callback), () -> callback.accept(GroupError.NOT_COORDINATOR));
    }

    private void deleteGroup(Shard shard, String groupId, Consumer<GroupError> callback) {
        GroupError unavailable = unavailable(shard);
        if (unavailable != GroupError.NONE) {
            callback.accept(unavailable);
            return;
        }
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
        Shard shard = shard(groupId);
        submit(
                shard,
                () -> deleteOffsets(shard, groupId, partitions, subscriptions, callback),
                () -> callback.accept(new OffsetDeleteResult(GroupError.NOT_COORDINATOR, Map.of())));
    }

    private void deleteOffsets(
            Shard shard,
            String groupId,
            List<TopicPartitionKey> partitions,
            SubscriptionReader subscriptions,
            Consumer<OffsetDeleteResult> callback) {
        GroupError unavailable = unavailable(shard);
        if (unavailable != GroupError.NONE) {
            callback.accept(new OffsetDeleteResult(unavailable, Map.of()));
            return;
        }
        ClassicGroup group = shard.groups.get(groupId);
        GroupError refused = group == null ? GroupError.GROUP_ID_NOT_FOUND : group.validateOffsetDelete();
        GroupResult result = new GroupResult();
        if (refused != GroupError.NONE) {
            result.respond(
                    () -> callback.accept(new OffsetDeleteResult(refused, Map.of())),
                    error -> callback.accept(new OffsetDeleteResult(error, Map.of())));
            complete(shard, result);
            return;
        }
        Map<TopicPartitionKey, GroupError> outcome = new LinkedHashMap<>();
        List<TopicPartitionKey> deleted = new ArrayList<>();
        for (TopicPartitionKey tp : partitions) {
            if (group.isSubscribedTo(tp.topic(), subscriptions)) {
                outcome.put(tp, GroupError.GROUP_SUBSCRIBED_TO_TOPIC);
            } else {
                outcome.put(tp, GroupError.NONE);
                deleted.add(tp);
            }
        }
        OffsetManager.writeDeletion(groupId, deleted, result);
        result.onDurable(() -> shard.offsets.delete(groupId, deleted));
        result.respond(
                () -> callback.accept(new OffsetDeleteResult(GroupError.NONE, outcome)),
                error -> callback.accept(new OffsetDeleteResult(error, Map.of())));
        complete(shard, result);
    }

    /**
     * The groups of every shard, to the callback once each shard's loop listed its own (on the loop that listed
     * last); shards are listed in order. A closing coordinator leaves its shards' groups out.
     */
    public void listGroups(Consumer<List<GroupListing>> callerCallback) {
        Consumer<List<GroupListing>> callback = answeredSafely("ListGroups", callerCallback);
        // Each slot is filled on its shard's loop; the last loop to finish reads them all (the counter orders it).
        AtomicReferenceArray<List<GroupListing>> perShard = new AtomicReferenceArray<>(shards.length);
        AtomicInteger remaining = new AtomicInteger(shards.length);
        Runnable oneDone = () -> {
            if (remaining.decrementAndGet() == 0) {
                List<GroupListing> all = new ArrayList<>();
                for (int i = 0; i < perShard.length(); i++) {
                    List<GroupListing> listed = perShard.get(i);
                    if (listed != null) {
                        all.addAll(listed);
                    }
                }
                callback.accept(all);
            }
        };
        for (Shard shard : shards) {
            submit(
                    shard,
                    () -> {
                        List<GroupListing> listed = new ArrayList<>();
                        for (ClassicGroup group : shard.groups.values()) {
                            if (!group.is(GroupState.DEAD)) {
                                listed.add(new GroupListing(
                                        group.groupId(),
                                        group.protocolType == null ? "" : group.protocolType,
                                        group.state()));
                            }
                        }
                        perShard.set(shard.index, listed);
                        oneDone.run();
                    },
                    oneDone);
        }
    }

    /**
     * The group as DescribeGroups shows it, to the callback on the shard's loop; GROUP_ID_NOT_FOUND if it does not
     * exist, NOT_COORDINATOR or COORDINATOR_LOAD_IN_PROGRESS if this node does not serve its shard now.
     */
    public void describeGroup(String groupId, Consumer<GroupDescription> callerCallback) {
        Consumer<GroupDescription> callback = answeredSafely("DescribeGroups", callerCallback);
        Shard shard = shard(groupId);
        submit(
                shard,
                () -> callback.accept(describe(shard, groupId)),
                () -> callback.accept(notServed(GroupError.NOT_COORDINATOR, groupId)));
    }

    private static GroupDescription notServed(GroupError error, String groupId) {
        return new GroupDescription(error, groupId, GroupState.DEAD, "", "", List.of());
    }

    private static GroupDescription describe(Shard shard, String groupId) {
        GroupError unavailable = unavailable(shard);
        if (unavailable != GroupError.NONE) {
            return notServed(unavailable, groupId);
        }
        ClassicGroup group = shard.groups.get(groupId);
        if (group == null) {
            return notServed(GroupError.GROUP_ID_NOT_FOUND, groupId);
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

    /** Stops the loops; tasks not yet run are dropped (their callers' connections close with the broker). */
    @Override
    public void close() {
        closed = true;
        loops.close();
    }
}
