package dev.strait.broker.group;

import dev.strait.broker.group.ClassicGroup.Member;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.BiConsumer;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The classic-protocol group coordinator with committed offsets, modelled on Kafka's.
 *
 * <p>Sharding: one shard per partition of the offsets topic ({@code __consumer_offsets}); a group lives in shard
 * {@code (groupId.hashCode() & 0x7fffffff) % numShards} and everything of a shard (groups, members, offsets) is
 * used only under that shard's lock. In a replicated cluster a shard is served by the leader of its offsets
 * partition only (see {@link #onBecomeLeader} and {@link #onResign}). Every change of offsets or group metadata
 * is appended to the shard's partition (see {@link GroupRecords}) before it takes effect in memory;
 * {@link #startup} replays the partitions this node leads. Group metadata
 * is written, with the members and their assignments, when a rebalance completes (the leader's SyncGroup) and when
 * the group becomes Empty, as Kafka does; after a restart a group that was Stable is loaded Stable with the same
 * generation and members, whose session timeouts start again, so its consumers carry on heartbeating without a
 * rebalance. A group caught mid-rebalance is loaded as of its last completed rebalance, and its members' next
 * JoinGroup or heartbeat sorts it out as after any lost response.
 *
 * <p>Delayed JoinGroup / SyncGroup responses are callbacks kept on the member and invoked later by another request
 * or by the coordinator's timer thread, which every {@code tickMs} expires members (session timeout), pending
 * member ids, and join phases (rebalance timeout / initial delay). No handler thread ever blocks.
 */
public final class GroupCoordinator implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(GroupCoordinator.class);

    /** Settings. */
    public record Config(int numShards, int initialRebalanceDelayMs, int minSessionTimeoutMs,
            int maxSessionTimeoutMs, long tickMs) {
        public static Config defaults() {
            return new Config(5, 3000, 6000, 1_800_000, 100);
        }
    }

    public record Protocol(String name, byte[] metadata) {
    }

    public record JoinMember(String memberId, String instanceId, byte[] metadata) {
    }

    public record JoinResult(GroupError error, int generation, String protocolType, String protocolName,
            String leaderId, String memberId, boolean skipAssignment, List<JoinMember> members) {
        static JoinResult error(GroupError error, String memberId) {
            return new JoinResult(error, -1, null, null, "", memberId, false, List.of());
        }
    }

    public record SyncResult(GroupError error, String protocolType, String protocolName, byte[] assignment) {
        static SyncResult error(GroupError error) {
            return new SyncResult(error, null, null, new byte[0]);
        }
    }

    public record OffsetAndMetadata(long offset, int leaderEpoch, String metadata, long commitTimestamp) {
    }

    public record TopicPartitionKey(String topic, int partition) {
    }

    public record LeaveMember(String memberId, String instanceId) {
    }

    public record GroupListing(String groupId, String protocolType, GroupState state) {
    }

    public record MemberDescription(String memberId, String instanceId, String clientId, String clientHost,
            byte[] metadata, byte[] assignment) {
    }

    public record GroupDescription(GroupError error, String groupId, GroupState state, String protocolType,
            String protocolName, List<MemberDescription> members) {
    }

    private static final class Shard {
        final int index;
        final Map<String, ClassicGroup> groups = new HashMap<>();
        /** Whether this node leads the shard's offsets partition and has loaded it. */
        boolean active;

        Shard(int index) {
            this.index = index;
        }
    }

    private final Config config;
    private final OffsetsLog log;
    private final LongSupplier clock;
    private final Shard[] shards;
    private final ScheduledExecutorService timer;
    private volatile BiConsumer<String, Throwable> faults = (what, cause) -> { };

    public GroupCoordinator(Config config, OffsetsLog log, LongSupplier clockMs) {
        this.config = config;
        this.log = log;
        this.clock = clockMs;
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

    private void load(Shard shard, byte[] keyBytes, byte[] value) {
        Object key = GroupRecords.readKey(keyBytes);
        if (key instanceof GroupRecords.OffsetKey offsetKey) {
            TopicPartitionKey tp = new TopicPartitionKey(offsetKey.topic(), offsetKey.partition());
            if (value == null) {
                ClassicGroup group = shard.groups.get(offsetKey.group());
                if (group != null) {
                    group.offsets.remove(tp);
                }
            } else {
                shard.groups.computeIfAbsent(offsetKey.group(), ClassicGroup::new).offsets.put(tp,
                        GroupRecords.readOffsetValue(value));
            }
        } else {
            String groupId = (String) key;
            if (value == null) {
                shard.groups.remove(groupId);
            } else {
                ClassicGroup previous = shard.groups.get(groupId);
                ClassicGroup loaded = loadGroup(groupId, GroupRecords.readGroupValue(value));
                if (previous != null) {
                    loaded.offsets.putAll(previous.offsets);
                }
                shard.groups.put(groupId, loaded);
            }
        }
    }

    /**
     * A group as its latest metadata record describes it: Empty without members, else Stable (reached through the
     * legal transitions) with the members' selected-protocol subscriptions and assignments. Session timeouts count
     * from now.
     */
    private ClassicGroup loadGroup(String groupId, GroupRecords.GroupValue value) {
        ClassicGroup group = new ClassicGroup(groupId);
        group.protocolType = value.protocolType();
        group.generation = value.generation();
        group.protocolName = value.protocolName();
        if (value.members().isEmpty() || value.protocolName() == null) {
            return group;
        }
        long now = clock.getAsLong();
        for (GroupRecords.MemberValue stored : value.members()) {
            Member member = new Member(stored.memberId(), stored.instanceId());
            member.clientId = stored.clientId();
            member.clientHost = stored.clientHost();
            member.rebalanceTimeoutMs = stored.rebalanceTimeoutMs();
            member.sessionTimeoutMs = stored.sessionTimeoutMs();
            member.protocolType = value.protocolType();
            member.protocols = List.of(new Protocol(value.protocolName(), stored.subscription()));
            member.assignment = stored.assignment();
            member.lastHeartbeatMs = now;
            group.members.put(member.memberId, member);
            if (member.instanceId != null) {
                group.staticMembers.put(member.instanceId, member.memberId);
            }
        }
        group.leaderId = group.members.containsKey(value.leaderId()) ? value.leaderId()
                : group.members.keySet().iterator().next();
        group.transitionTo(GroupState.PREPARING_REBALANCE);
        group.transitionTo(GroupState.COMPLETING_REBALANCE);
        group.transitionTo(GroupState.STABLE);
        return group;
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
        if (partition < 0 || partition >= shards.length) {
            return false;
        }
        Shard shard = shards[partition];
        synchronized (shard) {
            return shard.active;
        }
    }

    private void loadShard(int partition) {
        if (partition < 0 || partition >= shards.length) {
            return;
        }
        Shard shard = shards[partition];
        synchronized (shard) {
            shard.groups.clear();
            log.replay(shard.index, (key, value) -> load(shard, key, value));
            shard.active = true;
        }
    }

    private void unloadShard(int partition) {
        if (partition < 0 || partition >= shards.length) {
            return;
        }
        Shard shard = shards[partition];
        synchronized (shard) {
            shard.active = false;
            // Members waiting in JoinGroup or SyncGroup are answered now; they find the new coordinator.
            for (ClassicGroup group : shard.groups.values()) {
                for (ClassicGroup.Member member : group.members.values()) {
                    if (member.awaitingJoin != null) {
                        Consumer<JoinResult> callback = member.awaitingJoin;
                        member.awaitingJoin = null;
                        callback.accept(JoinResult.error(GroupError.NOT_COORDINATOR, member.memberId));
                    }
                    if (member.awaitingSync != null) {
                        Consumer<SyncResult> callback = member.awaitingSync;
                        member.awaitingSync = null;
                        callback.accept(SyncResult.error(GroupError.NOT_COORDINATOR));
                    }
                }
            }
            shard.groups.clear();
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

    // ------------------------------------------------------------------------------------------------ JoinGroup

    /**
     * Handles a JoinGroup; the callback is invoked now or later (from any thread) exactly once.
     *
     * @param requireKnownMemberId JoinGroup v4+: a dynamic member without id first gets MEMBER_ID_REQUIRED
     */
    public void joinGroup(String groupId, String memberId, String instanceId, String protocolType,
            List<Protocol> protocols, int sessionTimeoutMs, int rebalanceTimeoutMs, String clientId,
            String clientHost, boolean requireKnownMemberId, Consumer<JoinResult> callback) {
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
                group = new ClassicGroup(groupId);
                shard.groups.put(groupId, group);
            }
            if (group.is(GroupState.DEAD)) {
                callback.accept(JoinResult.error(GroupError.COORDINATOR_NOT_AVAILABLE, memberId));
                return;
            }
            long now = clock.getAsLong();
            if (unknownMember) {
                joinUnknown(shard, group, instanceId, protocolType, protocols, sessionTimeoutMs, rebalanceTimeoutMs,
                        clientId, clientHost, requireKnownMemberId, now, callback);
            } else {
                joinKnown(shard, group, memberId, instanceId, protocolType, protocols, sessionTimeoutMs,
                        rebalanceTimeoutMs, clientId, clientHost, now, callback);
            }
        }
    }

    private void joinUnknown(Shard shard, ClassicGroup group, String instanceId, String protocolType,
            List<Protocol> protocols, int sessionTimeoutMs, int rebalanceTimeoutMs, String clientId,
            String clientHost, boolean requireKnownMemberId, long now, Consumer<JoinResult> callback) {
        String newId = (instanceId != null ? instanceId : clientId) + "-" + UUID.randomUUID();
        if (instanceId != null && group.staticMembers.containsKey(instanceId)) {
            Member old = group.members.get(group.staticMembers.get(instanceId));
            if (!group.supportsProtocolsExcept(old, protocolType, protocols)) {
                callback.accept(JoinResult.error(GroupError.INCONSISTENT_GROUP_PROTOCOL, ""));
                return;
            }
            replaceStaticMember(group, old, newId);
            List<Protocol> previous = old.protocols;
            old.protocols = List.copyOf(protocols);
            if (group.is(GroupState.STABLE) && group.selectProtocol().equals(group.protocolName)) {
                // As Kafka: a static member came back and the group's protocol stays the same, so no rebalance;
                // hand back the current generation (the leader skips assignment, SyncGroup returns the old one).
                old.lastHeartbeatMs = now;
                old.sessionTimeoutMs = sessionTimeoutMs;
                old.rebalanceTimeoutMs = rebalanceTimeoutMs;
                boolean leader = newId.equals(group.leaderId);
                callback.accept(new JoinResult(GroupError.NONE, group.generation, group.protocolType,
                        group.protocolName, group.leaderId, newId, leader,
                        leader ? joinMembers(group) : List.of()));
                return;
            }
            old.protocols = previous;
            joinKnown(shard, group, newId, instanceId, protocolType, protocols, sessionTimeoutMs,
                    rebalanceTimeoutMs, clientId, clientHost, now, callback);
            return;
        }
        if (!group.supportsProtocols(protocolType, protocols)) {
            callback.accept(JoinResult.error(GroupError.INCONSISTENT_GROUP_PROTOCOL, ""));
            return;
        }
        if (instanceId == null && requireKnownMemberId) {
            group.pendingMembers.put(newId, now + sessionTimeoutMs);
            callback.accept(JoinResult.error(GroupError.MEMBER_ID_REQUIRED, newId));
            return;
        }
        addMemberAndRebalance(shard, group, newId, instanceId, protocolType, protocols, sessionTimeoutMs,
                rebalanceTimeoutMs, clientId, clientHost, now, callback);
    }

    private static boolean sameProtocols(List<Protocol> a, List<Protocol> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!a.get(i).name().equals(b.get(i).name()) || !Arrays.equals(a.get(i).metadata(), b.get(i).metadata())) {
                return false;
            }
        }
        return true;
    }

    private static void replaceStaticMember(ClassicGroup group, Member old, String newId) {
        String oldId = old.memberId;
        if (old.awaitingJoin != null) {
            old.awaitingJoin.accept(JoinResult.error(GroupError.FENCED_INSTANCE_ID, oldId));
            old.awaitingJoin = null;
        }
        if (old.awaitingSync != null) {
            old.awaitingSync.accept(SyncResult.error(GroupError.FENCED_INSTANCE_ID));
            old.awaitingSync = null;
        }
        LinkedHashMap<String, Member> reordered = new LinkedHashMap<>();
        for (Map.Entry<String, Member> entry : group.members.entrySet()) {
            reordered.put(entry.getKey().equals(oldId) ? newId : entry.getKey(), entry.getValue());
        }
        group.members.clear();
        group.members.putAll(reordered);
        old.memberId = newId;
        group.staticMembers.put(old.instanceId, newId);
        if (oldId.equals(group.leaderId)) {
            group.leaderId = newId;
        }
    }

    private void addMemberAndRebalance(Shard shard, ClassicGroup group, String memberId, String instanceId,
            String protocolType, List<Protocol> protocols, int sessionTimeoutMs, int rebalanceTimeoutMs,
            String clientId, String clientHost, long now, Consumer<JoinResult> callback) {
        Member member = new Member(memberId, instanceId);
        member.clientId = clientId;
        member.clientHost = clientHost;
        member.sessionTimeoutMs = sessionTimeoutMs;
        member.rebalanceTimeoutMs = rebalanceTimeoutMs;
        member.protocolType = protocolType;
        member.protocols = List.copyOf(protocols);
        member.lastHeartbeatMs = now;
        member.awaitingJoin = callback;
        if (group.members.isEmpty()) {
            group.protocolType = protocolType;
        }
        group.members.put(memberId, member);
        if (instanceId != null) {
            group.staticMembers.put(instanceId, memberId);
        }
        if (group.leaderId == null || !group.members.containsKey(group.leaderId)) {
            group.leaderId = memberId;
        }
        group.pendingMembers.remove(memberId);
        maybePrepareRebalance(group, now);
        tryCompleteJoin(shard, group, now, false);
    }

    private void joinKnown(Shard shard, ClassicGroup group, String memberId, String instanceId,
            String protocolType, List<Protocol> protocols, int sessionTimeoutMs, int rebalanceTimeoutMs,
            String clientId, String clientHost, long now, Consumer<JoinResult> callback) {
        if (group.pendingMembers.containsKey(memberId)) {
            if (!group.supportsProtocols(protocolType, protocols)) {
                group.pendingMembers.remove(memberId);
                callback.accept(JoinResult.error(GroupError.INCONSISTENT_GROUP_PROTOCOL, memberId));
                return;
            }
            addMemberAndRebalance(shard, group, memberId, instanceId, protocolType, protocols, sessionTimeoutMs,
                    rebalanceTimeoutMs, clientId, clientHost, now, callback);
            return;
        }
        Member member = group.members.get(memberId);
        if (instanceId != null && group.staticMembers.containsKey(instanceId)
                && !group.staticMembers.get(instanceId).equals(memberId)) {
            callback.accept(JoinResult.error(GroupError.FENCED_INSTANCE_ID, memberId));
            return;
        }
        if (member == null || group.is(GroupState.EMPTY)) {
            callback.accept(JoinResult.error(GroupError.UNKNOWN_MEMBER_ID, memberId));
            return;
        }
        if (!group.supportsProtocolsExcept(member, protocolType, protocols)) {
            callback.accept(JoinResult.error(GroupError.INCONSISTENT_GROUP_PROTOCOL, memberId));
            return;
        }
        member.lastHeartbeatMs = now;
        member.sessionTimeoutMs = sessionTimeoutMs;
        member.rebalanceTimeoutMs = rebalanceTimeoutMs;
        member.clientId = clientId;
        member.clientHost = clientHost;
        boolean changed = !sameProtocols(member.protocols, protocols);
        switch (group.state()) {
            case PREPARING_REBALANCE:
                member.protocols = List.copyOf(protocols);
                if (member.awaitingJoin != null) {
                    member.awaitingJoin.accept(JoinResult.error(GroupError.REBALANCE_IN_PROGRESS, memberId));
                }
                member.awaitingJoin = callback;
                tryCompleteJoin(shard, group, now, false);
                return;
            case COMPLETING_REBALANCE:
            case STABLE:
                if (!changed && (group.is(GroupState.COMPLETING_REBALANCE) || !memberId.equals(group.leaderId))) {
                    boolean leader = memberId.equals(group.leaderId);
                    callback.accept(new JoinResult(GroupError.NONE, group.generation, group.protocolType,
                            group.protocolName, group.leaderId, memberId, false,
                            leader ? joinMembers(group) : List.of()));
                    return;
                }
                member.protocols = List.copyOf(protocols);
                member.awaitingJoin = callback;
                maybePrepareRebalance(group, now);
                tryCompleteJoin(shard, group, now, false);
                return;
            default:
                callback.accept(JoinResult.error(GroupError.UNKNOWN_MEMBER_ID, memberId));
        }
    }

    private void maybePrepareRebalance(ClassicGroup group, long now) {
        if (group.is(GroupState.PREPARING_REBALANCE)) {
            return;
        }
        if (group.is(GroupState.COMPLETING_REBALANCE)) {
            for (Member member : group.members.values()) {
                if (member.awaitingSync != null) {
                    member.awaitingSync.accept(SyncResult.error(GroupError.REBALANCE_IN_PROGRESS));
                    member.awaitingSync = null;
                }
            }
        }
        boolean wasEmpty = group.is(GroupState.EMPTY);
        group.transitionTo(GroupState.PREPARING_REBALANCE);
        if (wasEmpty && config.initialRebalanceDelayMs() > 0) {
            group.joinDeadlineMs = now + Math.min(config.initialRebalanceDelayMs(),
                    Math.max(group.maxRebalanceTimeoutMs(), 1));
            group.completeEarly = false;
        } else {
            group.joinDeadlineMs = now + group.maxRebalanceTimeoutMs();
            group.completeEarly = true;
        }
    }

    /** Completes the join phase if everyone joined (or, when forced, drops those who did not). */
    private void tryCompleteJoin(Shard shard, ClassicGroup group, long now, boolean force) {
        if (!group.is(GroupState.PREPARING_REBALANCE)) {
            return;
        }
        if (!force && !(group.completeEarly && group.hasAllMembersJoined())) {
            return;
        }
        for (Iterator<Member> it = group.members.values().iterator(); it.hasNext();) {
            Member member = it.next();
            if (member.awaitingJoin == null) {
                it.remove();
                if (member.instanceId != null) {
                    group.staticMembers.remove(member.instanceId);
                }
            }
        }
        group.pendingMembers.clear();
        group.joinDeadlineMs = Long.MAX_VALUE;
        group.generation++;
        if (group.members.isEmpty()) {
            group.transitionTo(GroupState.EMPTY);
            group.protocolName = null;
            group.leaderId = null;
            persistGroup(shard, group);
            return;
        }
        if (!group.members.containsKey(group.leaderId)) {
            group.leaderId = group.members.keySet().iterator().next();
        }
        group.protocolName = group.selectProtocol();
        group.transitionTo(GroupState.COMPLETING_REBALANCE);
        List<JoinMember> all = joinMembers(group);
        for (Member member : group.members.values()) {
            boolean leader = member.memberId.equals(group.leaderId);
            Consumer<JoinResult> callback = member.awaitingJoin;
            member.awaitingJoin = null;
            member.lastHeartbeatMs = now;
            member.assignment = new byte[0];
            callback.accept(new JoinResult(GroupError.NONE, group.generation, group.protocolType,
                    group.protocolName, group.leaderId, member.memberId, false, leader ? all : List.of()));
        }
    }

    private static List<JoinMember> joinMembers(ClassicGroup group) {
        List<JoinMember> result = new ArrayList<>();
        for (Member member : group.members.values()) {
            result.add(new JoinMember(member.memberId, member.instanceId, member.metadata(group.protocolName)));
        }
        return result;
    }

    // ------------------------------------------------------------------------------------------------ SyncGroup

    public void syncGroup(String groupId, int generation, String memberId, String instanceId, String protocolType,
            String protocolName, Map<String, byte[]> assignments, Consumer<SyncResult> callback) {
        Shard shard = shard(groupId);
        synchronized (shard) {
            ClassicGroup group = shard.groups.get(groupId);
            GroupError error = validateMember(group, memberId, instanceId);
            if (error == GroupError.NONE && generation != group.generation) {
                error = GroupError.ILLEGAL_GENERATION;
            }
            if (error == GroupError.NONE && ((protocolType != null && !protocolType.equals(group.protocolType))
                    || (protocolName != null && !protocolName.equals(group.protocolName)))) {
                error = GroupError.INCONSISTENT_GROUP_PROTOCOL;
            }
            if (error != GroupError.NONE) {
                callback.accept(SyncResult.error(error));
                return;
            }
            Member member = group.members.get(memberId);
            member.lastHeartbeatMs = clock.getAsLong();
            switch (group.state()) {
                case PREPARING_REBALANCE:
                    callback.accept(SyncResult.error(GroupError.REBALANCE_IN_PROGRESS));
                    return;
                case COMPLETING_REBALANCE:
                    member.awaitingSync = callback;
                    if (memberId.equals(group.leaderId)) {
                        Map<String, byte[]> complete = new HashMap<>();
                        for (Member m : group.members.values()) {
                            byte[] assignment = assignments.get(m.memberId);
                            complete.put(m.memberId, assignment == null ? new byte[0] : assignment);
                        }
                        // Durable before anyone sees the assignment, so that a restart restores what they got.
                        persistGroup(shard, group, complete);
                        for (Member m : group.members.values()) {
                            m.assignment = complete.get(m.memberId);
                        }
                        group.transitionTo(GroupState.STABLE);
                        for (Member m : group.members.values()) {
                            if (m.awaitingSync != null) {
                                m.awaitingSync.accept(new SyncResult(GroupError.NONE, group.protocolType,
                                        group.protocolName, m.assignment));
                                m.awaitingSync = null;
                            }
                        }
                    }
                    return;
                case STABLE:
                    callback.accept(new SyncResult(GroupError.NONE, group.protocolType, group.protocolName,
                            member.assignment));
                    return;
                default:
                    callback.accept(SyncResult.error(GroupError.UNKNOWN_MEMBER_ID));
            }
        }
    }

    private static GroupError validateMember(ClassicGroup group, String memberId, String instanceId) {
        if (group == null || group.is(GroupState.DEAD)) {
            return GroupError.UNKNOWN_MEMBER_ID;
        }
        if (instanceId != null) {
            String current = group.staticMembers.get(instanceId);
            if (current != null && !current.equals(memberId)) {
                return GroupError.FENCED_INSTANCE_ID;
            }
        }
        if (!group.members.containsKey(memberId)) {
            return GroupError.UNKNOWN_MEMBER_ID;
        }
        return GroupError.NONE;
    }

    // ------------------------------------------------------------------------------------------------ Heartbeat

    public GroupError heartbeat(String groupId, String memberId, String instanceId, int generation) {
        Shard shard = shard(groupId);
        synchronized (shard) {
            ClassicGroup group = shard.groups.get(groupId);
            GroupError error = validateMember(group, memberId, instanceId);
            if (error != GroupError.NONE) {
                return error;
            }
            if (group.is(GroupState.EMPTY)) {
                return GroupError.UNKNOWN_MEMBER_ID;
            }
            if (generation != group.generation) {
                return GroupError.ILLEGAL_GENERATION;
            }
            group.members.get(memberId).lastHeartbeatMs = clock.getAsLong();
            return group.is(GroupState.PREPARING_REBALANCE) ? GroupError.REBALANCE_IN_PROGRESS : GroupError.NONE;
        }
    }

    // ------------------------------------------------------------------------------------------------ LeaveGroup

    /** @return one error per member, in order */
    public List<GroupError> leaveGroup(String groupId, List<LeaveMember> leaving) {
        Shard shard = shard(groupId);
        List<GroupError> errors = new ArrayList<>();
        synchronized (shard) {
            ClassicGroup group = shard.groups.get(groupId);
            long now = clock.getAsLong();
            for (LeaveMember leave : leaving) {
                if (group == null || group.is(GroupState.DEAD)) {
                    errors.add(GroupError.UNKNOWN_MEMBER_ID);
                    continue;
                }
                String memberId = leave.memberId();
                if (leave.instanceId() != null) {
                    String current = group.staticMembers.get(leave.instanceId());
                    if (current == null) {
                        errors.add(GroupError.UNKNOWN_MEMBER_ID);
                        continue;
                    }
                    if (memberId != null && !memberId.isEmpty() && !memberId.equals(current)) {
                        errors.add(GroupError.FENCED_INSTANCE_ID);
                        continue;
                    }
                    memberId = current;
                }
                if (group.pendingMembers.remove(memberId) != null) {
                    errors.add(GroupError.NONE);
                    tryCompleteJoin(shard, group, now, false);
                    continue;
                }
                Member member = group.members.get(memberId);
                if (member == null) {
                    errors.add(GroupError.UNKNOWN_MEMBER_ID);
                    continue;
                }
                removeMember(shard, group, member, now);
                errors.add(GroupError.NONE);
            }
        }
        return errors;
    }

    private void removeMember(Shard shard, ClassicGroup group, Member member, long now) {
        if (member.awaitingJoin != null) {
            member.awaitingJoin.accept(JoinResult.error(GroupError.UNKNOWN_MEMBER_ID, member.memberId));
            member.awaitingJoin = null;
        }
        if (member.awaitingSync != null) {
            member.awaitingSync.accept(SyncResult.error(GroupError.UNKNOWN_MEMBER_ID));
            member.awaitingSync = null;
        }
        group.members.remove(member.memberId);
        if (member.instanceId != null) {
            group.staticMembers.remove(member.instanceId);
        }
        switch (group.state()) {
            case STABLE:
            case COMPLETING_REBALANCE:
                maybePrepareRebalance(group, now);
                tryCompleteJoin(shard, group, now, false);
                break;
            case PREPARING_REBALANCE:
                tryCompleteJoin(shard, group, now, false);
                break;
            default:
                break;
        }
    }

    // ------------------------------------------------------------------------------------------------ timer

    void tick() {
        try {
            long now = clock.getAsLong();
            for (Shard shard : shards) {
                synchronized (shard) {
                    for (ClassicGroup group : new ArrayList<>(shard.groups.values())) {
                        group.pendingMembers.values().removeIf(deadline -> deadline <= now);
                        for (Member member : new ArrayList<>(group.members.values())) {
                            if (member.awaitingJoin == null
                                    && member.lastHeartbeatMs + member.sessionTimeoutMs <= now) {
                                LOGGER.info("group {}: member {} expired (session timeout)", group.groupId(),
                                        member.memberId);
                                removeMember(shard, group, member, now);
                            }
                        }
                        if (group.is(GroupState.PREPARING_REBALANCE)) {
                            tryCompleteJoin(shard, group, now, group.joinDeadlineMs <= now);
                        }
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
     * Commits offsets. generation &lt; 0 with an empty member id is a simple commit (standalone consumer, Admin),
     * allowed only when the group has no members.
     */
    public GroupError commitOffsets(String groupId, String memberId, String instanceId, int generation,
            Map<TopicPartitionKey, OffsetAndMetadata> offsets) {
        if (groupId == null || groupId.isEmpty()) {
            return GroupError.INVALID_GROUP_ID;
        }
        Shard shard = shard(groupId);
        synchronized (shard) {
            ClassicGroup group = shard.groups.get(groupId);
            if (generation < 0 && (memberId == null || memberId.isEmpty())) {
                if (group != null && !group.is(GroupState.EMPTY)) {
                    return group.is(GroupState.DEAD) ? GroupError.COORDINATOR_NOT_AVAILABLE
                            : GroupError.UNKNOWN_MEMBER_ID;
                }
                if (group == null) {
                    group = new ClassicGroup(groupId);
                    shard.groups.put(groupId, group);
                }
            } else {
                if (group == null) {
                    return GroupError.ILLEGAL_GENERATION;
                }
                GroupError error = validateMember(group, memberId, instanceId);
                if (error != GroupError.NONE) {
                    return error;
                }
                if (generation != group.generation) {
                    return GroupError.ILLEGAL_GENERATION;
                }
                if (group.is(GroupState.COMPLETING_REBALANCE)) {
                    return GroupError.REBALANCE_IN_PROGRESS;
                }
                group.members.get(memberId).lastHeartbeatMs = clock.getAsLong();
            }
            List<OffsetsLog.Entry> records = new ArrayList<>();
            for (Map.Entry<TopicPartitionKey, OffsetAndMetadata> entry : offsets.entrySet()) {
                records.add(new OffsetsLog.Entry(GroupRecords.offsetKey(groupId, entry.getKey().topic(),
                        entry.getKey().partition()), GroupRecords.offsetValue(entry.getValue())));
            }
            if (!records.isEmpty()) {
                log.append(shard.index, records);
            }
            group.offsets.putAll(offsets);
            return GroupError.NONE;
        }
    }

    /**
     * Committed offsets of a group; topics null means all. Partitions without a commit are absent from the map.
     */
    public Map<TopicPartitionKey, OffsetAndMetadata> fetchOffsets(String groupId, List<TopicPartitionKey> wanted) {
        Shard shard = shard(groupId);
        synchronized (shard) {
            ClassicGroup group = shard.groups.get(groupId);
            Map<TopicPartitionKey, OffsetAndMetadata> result = new LinkedHashMap<>();
            if (group == null) {
                return result;
            }
            if (wanted == null) {
                result.putAll(group.offsets);
            } else {
                for (TopicPartitionKey tp : wanted) {
                    OffsetAndMetadata offset = group.offsets.get(tp);
                    if (offset != null) {
                        result.put(tp, offset);
                    }
                }
            }
            return result;
        }
    }

    // ------------------------------------------------------------------------------------------------ admin

    public GroupError deleteGroup(String groupId) {
        Shard shard = shard(groupId);
        synchronized (shard) {
            ClassicGroup group = shard.groups.get(groupId);
            if (group == null || group.is(GroupState.DEAD)) {
                return GroupError.GROUP_ID_NOT_FOUND;
            }
            if (!group.is(GroupState.EMPTY)) {
                return GroupError.NON_EMPTY_GROUP;
            }
            List<OffsetsLog.Entry> records = new ArrayList<>();
            for (TopicPartitionKey tp : group.offsets.keySet()) {
                records.add(new OffsetsLog.Entry(GroupRecords.offsetKey(groupId, tp.topic(), tp.partition()), null));
            }
            records.add(new OffsetsLog.Entry(GroupRecords.groupKey(groupId), null));
            log.append(shard.index, records);
            group.transitionTo(GroupState.DEAD);
            shard.groups.remove(groupId);
            return GroupError.NONE;
        }
    }

    public List<GroupListing> listGroups() {
        List<GroupListing> result = new ArrayList<>();
        for (Shard shard : shards) {
            synchronized (shard) {
                for (ClassicGroup group : shard.groups.values()) {
                    result.add(new GroupListing(group.groupId(), group.protocolType == null ? ""
                            : group.protocolType, group.state()));
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
                return new GroupDescription(GroupError.GROUP_ID_NOT_FOUND, groupId, GroupState.DEAD, "", "",
                        List.of());
            }
            List<MemberDescription> members = new ArrayList<>();
            boolean stable = group.is(GroupState.STABLE);
            for (Member member : group.members.values()) {
                members.add(new MemberDescription(member.memberId, member.instanceId, member.clientId,
                        member.clientHost, stable ? member.metadata(group.protocolName) : new byte[0],
                        stable ? member.assignment : new byte[0]));
            }
            return new GroupDescription(GroupError.NONE, groupId, group.state(),
                    group.protocolType == null ? "" : group.protocolType,
                    stable ? group.protocolName : "", members);
        }
    }

    private void persistGroup(Shard shard, ClassicGroup group) {
        Map<String, byte[]> assignments = new HashMap<>();
        for (Member member : group.members.values()) {
            assignments.put(member.memberId, member.assignment);
        }
        persistGroup(shard, group, assignments);
    }

    private void persistGroup(Shard shard, ClassicGroup group, Map<String, byte[]> assignments) {
        List<GroupRecords.MemberValue> members = new ArrayList<>();
        for (Member member : group.members.values()) {
            members.add(new GroupRecords.MemberValue(member.memberId, member.instanceId, member.clientId,
                    member.clientHost, member.rebalanceTimeoutMs, member.sessionTimeoutMs,
                    member.metadata(group.protocolName), assignments.get(member.memberId)));
        }
        log.append(shard.index, List.of(new OffsetsLog.Entry(GroupRecords.groupKey(group.groupId()),
                GroupRecords.groupValue(new GroupRecords.GroupValue(group.protocolType, group.generation,
                        group.protocolName, group.leaderId, members)))));
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
