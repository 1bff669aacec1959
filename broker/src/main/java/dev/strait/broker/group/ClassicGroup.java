package dev.strait.broker.group;

import dev.strait.broker.group.GroupApi.JoinMember;
import dev.strait.broker.group.GroupApi.JoinResult;
import dev.strait.broker.group.GroupApi.LeaveMember;
import dev.strait.broker.group.GroupApi.Protocol;
import dev.strait.broker.group.GroupApi.SyncResult;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One classic-protocol group: its explicit state machine, its members, and the rules of JoinGroup, SyncGroup,
 * Heartbeat, LeaveGroup and session expiry, modelled on Kafka's. Each rule changes the group and puts what else it
 * produced into a {@link GroupResult}: the group metadata record to append (when a rebalance completes, and when
 * the group becomes Empty, as Kafka writes it) and the responses to send, which the coordinator sends only once
 * that record and every one before it are durable. Responses to members waiting in JoinGroup or SyncGroup are
 * callbacks kept on the member until a later call completes the phase.
 *
 * <p>Not thread-safe: owned by one coordinator shard and used only on its loop.
 */
public final class ClassicGroup {

    private static final Logger LOGGER = LoggerFactory.getLogger(ClassicGroup.class);

    /** The protocol type of the consumer's group protocol, whose member metadata is a topic subscription. */
    private static final String CONSUMER_PROTOCOL_TYPE = "consumer";

    /** One member. Mutable; owned by the group. */
    static final class Member {
        String memberId;
        /** The static member's {@code group.instance.id}; null for a dynamic member. */
        final @Nullable String instanceId;

        String clientId;
        String clientHost;
        int sessionTimeoutMs;
        int rebalanceTimeoutMs;

        @Nullable
        String protocolType;

        List<Protocol> protocols;
        byte[] assignment = new byte[0];
        long lastHeartbeatMs;
        /** The pending JoinGroup or SyncGroup answer of the member, if any. */
        @Nullable
        Consumer<JoinResult> awaitingJoin;

        @Nullable
        Consumer<SyncResult> awaitingSync;

        Member(
                String memberId,
                @Nullable String instanceId,
                String clientId,
                String clientHost,
                @Nullable String protocolType,
                List<Protocol> protocols) {
            this.memberId = memberId;
            this.instanceId = instanceId;
            this.clientId = clientId;
            this.clientHost = clientHost;
            this.protocolType = protocolType;
            this.protocols = protocols;
        }

        byte[] metadata(@Nullable String protocolName) {
            for (Protocol protocol : protocols) {
                if (protocol.name().equals(protocolName)) {
                    return protocol.metadata();
                }
            }
            throw new IllegalStateException("member " + memberId + " does not support " + protocolName);
        }
    }

    /** A JoinGroup as the rules need it. */
    record JoinRequest(
            String memberId,
            @Nullable String instanceId,
            String protocolType,
            List<Protocol> protocols,
            int sessionTimeoutMs,
            int rebalanceTimeoutMs,
            String clientId,
            String clientHost,
            boolean requireKnownMemberId) {}

    private final String groupId;
    /** {@code group.initial.rebalance.delay.ms}: how long the first rebalance of an Empty group waits for more. */
    private final int initialRebalanceDelayMs;

    private GroupState state = GroupState.EMPTY;
    int generation;
    // Null while the group has no generation (Empty, or Dead).
    @Nullable
    String protocolType;

    @Nullable
    String protocolName;

    @Nullable
    String leaderId;

    final LinkedHashMap<String, Member> members = new LinkedHashMap<>();
    final Map<String, String> staticMembers = new HashMap<>();
    /** Member ids handed out with MEMBER_ID_REQUIRED, to the deadline by which they must join. */
    final Map<String, Long> pendingMembers = new HashMap<>();
    /** Deadline of the current join phase (PreparingRebalance), or Long.MAX_VALUE. */
    long joinDeadlineMs = Long.MAX_VALUE;
    /** Whether the join phase may complete before its deadline once everyone joined. */
    boolean completeEarly = true;

    public ClassicGroup(String groupId) {
        this(groupId, 0);
    }

    ClassicGroup(String groupId, int initialRebalanceDelayMs) {
        this.groupId = groupId;
        this.initialRebalanceDelayMs = initialRebalanceDelayMs;
    }

    public String groupId() {
        return groupId;
    }

    public GroupState state() {
        return state;
    }

    public int generation() {
        return generation;
    }

    public boolean is(GroupState candidate) {
        return state == candidate;
    }

    /** Moves to the target state; throws IllegalStateException naming both states if the transition is illegal. */
    public void transitionTo(GroupState target) {
        if (!target.validPrevious().contains(state)) {
            throw new IllegalStateException(
                    "group " + groupId + ": illegal transition from " + state + " to " + target);
        }
        state = target;
    }

    // ------------------------------------------------------------------------------------------------ OffsetDelete

    /**
     * Whether OffsetDelete may delete offsets of this group, as Kafka decides: not if it is Dead (GROUP_ID_NOT_FOUND),
     * nor if it has members that do not use the consumer protocol (NON_EMPTY_GROUP, nothing tells which topics they
     * read); a consumer group with members is checked partition by partition ({@link #isSubscribedTo}).
     */
    GroupError validateOffsetDelete() {
        if (state == GroupState.DEAD) {
            return GroupError.GROUP_ID_NOT_FOUND;
        }
        if (state != GroupState.EMPTY && !usesConsumerProtocol()) {
            return GroupError.NON_EMPTY_GROUP;
        }
        return GroupError.NONE;
    }

    private boolean usesConsumerProtocol() {
        return CONSUMER_PROTOCOL_TYPE.equals(protocolType);
    }

    /**
     * Whether the members subscribe to {@code topic}, read from their metadata of the group's selected protocol.
     * A consumer group whose subscriptions cannot be known (no protocol selected yet, unreadable metadata) counts as
     * subscribed to everything, so that OffsetDelete never deletes what a member may be reading.
     */
    boolean isSubscribedTo(String topic, GroupApi.SubscriptionReader reader) {
        if (!usesConsumerProtocol() || members.isEmpty()) {
            return false;
        }
        if (protocolName == null) {
            return true;
        }
        for (Member member : members.values()) {
            Optional<Set<String>> topics = member.protocols.stream()
                    .filter(p -> p.name().equals(protocolName))
                    .findFirst()
                    .flatMap(p -> reader.topics(p.metadata()));
            if (topics.isEmpty() || topics.get().contains(topic)) {
                return true;
            }
        }
        return false;
    }

    // ------------------------------------------------------------------------------------------------ loading

    /**
     * The group as its latest metadata record describes it: Empty without members, else Stable (reached through
     * the legal transitions) with the members' selected-protocol subscriptions and assignments. Session timeouts
     * count from {@code nowMs}.
     */
    static ClassicGroup fromRecord(
            String groupId, GroupRecords.GroupValue value, int initialRebalanceDelayMs, long nowMs) {
        ClassicGroup group = new ClassicGroup(groupId, initialRebalanceDelayMs);
        group.protocolType = value.protocolType();
        group.generation = value.generation();
        String protocolName = value.protocolName();
        group.protocolName = protocolName;
        if (value.members().isEmpty() || protocolName == null) {
            return group;
        }
        for (GroupRecords.MemberValue stored : value.members()) {
            Member member = new Member(
                    stored.memberId(),
                    stored.instanceId(),
                    stored.clientId(),
                    stored.clientHost(),
                    value.protocolType(),
                    List.of(new Protocol(protocolName, stored.subscription())));
            member.rebalanceTimeoutMs = stored.rebalanceTimeoutMs();
            member.sessionTimeoutMs = stored.sessionTimeoutMs();
            member.assignment = stored.assignment();
            member.lastHeartbeatMs = nowMs;
            group.members.put(member.memberId, member);
            if (member.instanceId != null) {
                group.staticMembers.put(member.instanceId, member.memberId);
            }
        }
        group.leaderId = group.members.containsKey(value.leaderId())
                ? value.leaderId()
                : group.members.keySet().iterator().next();
        group.transitionTo(GroupState.PREPARING_REBALANCE);
        group.transitionTo(GroupState.COMPLETING_REBALANCE);
        group.transitionTo(GroupState.STABLE);
        return group;
    }

    /** The group metadata record: generation, protocol and members with these assignments. */
    private OffsetsLog.Entry record(Map<String, byte[]> assignments) {
        List<GroupRecords.MemberValue> stored = new ArrayList<>();
        for (Member member : members.values()) {
            stored.add(new GroupRecords.MemberValue(
                    member.memberId,
                    member.instanceId,
                    member.clientId,
                    member.clientHost,
                    member.rebalanceTimeoutMs,
                    member.sessionTimeoutMs,
                    member.metadata(protocolName),
                    Objects.requireNonNull(assignments.get(member.memberId), "an assignment per member")));
        }
        return new OffsetsLog.Entry(
                GroupRecords.groupKey(groupId),
                GroupRecords.groupValue(
                        new GroupRecords.GroupValue(protocolType, generation, protocolName, leaderId, stored)));
    }

    /** The leader of the current generation (a group with members has one). */
    private String leader() {
        return Objects.requireNonNull(leaderId, "a group with a generation has a leader");
    }

    /** The protocol of the current generation (a group with members has one). */
    private String protocol() {
        return Objects.requireNonNull(protocolName, "a group with a generation has a protocol");
    }

    /** A member the caller checked is one (a known member id, or a static member's current id). */
    private Member member(@Nullable String memberId) {
        Member member = memberId == null ? null : members.get(memberId);
        if (member == null) {
            throw new IllegalStateException("group " + groupId + " has no member " + memberId);
        }
        return member;
    }

    private OffsetsLog.Entry record() {
        Map<String, byte[]> assignments = new HashMap<>();
        for (Member member : members.values()) {
            assignments.put(member.memberId, member.assignment);
        }
        return record(assignments);
    }

    // ------------------------------------------------------------------------------------------------ JoinGroup

    /** A JoinGroup; its response (now or from a later call) goes through {@code out}. */
    void join(
            JoinRequest request,
            long nowMs,
            Supplier<String> newMemberId,
            Consumer<JoinResult> callback,
            GroupResult out) {
        if (is(GroupState.DEAD)) {
            out.join(callback, JoinResult.error(GroupError.COORDINATOR_NOT_AVAILABLE, request.memberId()));
            return;
        }
        boolean unknownMember = request.memberId() == null || request.memberId().isEmpty();
        if (unknownMember) {
            joinUnknown(request, nowMs, newMemberId, callback, out);
        } else {
            joinKnown(request, request.memberId(), nowMs, callback, out);
        }
    }

    private void joinUnknown(
            JoinRequest request,
            long nowMs,
            Supplier<String> newMemberId,
            Consumer<JoinResult> callback,
            GroupResult out) {
        String instanceId = request.instanceId();
        String newId = (instanceId != null ? instanceId : request.clientId()) + "-" + newMemberId.get();
        if (instanceId != null && staticMembers.containsKey(instanceId)) {
            Member old = member(staticMembers.get(instanceId));
            if (!supportsProtocolsExcept(old, request.protocolType(), request.protocols())) {
                out.join(callback, JoinResult.error(GroupError.INCONSISTENT_GROUP_PROTOCOL, ""));
                return;
            }
            replaceStaticMember(old, newId, out);
            List<Protocol> previous = old.protocols;
            old.protocols = List.copyOf(request.protocols());
            if (is(GroupState.STABLE) && selectProtocol().equals(protocolName)) {
                // As Kafka: a static member came back and the group's protocol stays the same, so no rebalance;
                // hand back the current generation (the leader skips assignment, SyncGroup returns the old one).
                old.lastHeartbeatMs = nowMs;
                old.sessionTimeoutMs = request.sessionTimeoutMs();
                old.rebalanceTimeoutMs = request.rebalanceTimeoutMs();
                boolean leader = newId.equals(leaderId);
                out.join(
                        callback,
                        new JoinResult(
                                GroupError.NONE,
                                generation,
                                protocolType,
                                protocolName,
                                leader(),
                                newId,
                                leader,
                                leader ? joinMembers() : List.of()));
                return;
            }
            old.protocols = previous;
            joinKnown(request, newId, nowMs, callback, out);
            return;
        }
        if (!supportsProtocols(request.protocolType(), request.protocols())) {
            out.join(callback, JoinResult.error(GroupError.INCONSISTENT_GROUP_PROTOCOL, ""));
            return;
        }
        if (instanceId == null && request.requireKnownMemberId()) {
            pendingMembers.put(newId, nowMs + request.sessionTimeoutMs());
            out.join(callback, JoinResult.error(GroupError.MEMBER_ID_REQUIRED, newId));
            return;
        }
        addMemberAndRebalance(request, newId, nowMs, callback, out);
    }

    private void replaceStaticMember(Member old, String newId, GroupResult out) {
        String oldId = old.memberId;
        if (old.awaitingJoin != null) {
            out.join(old.awaitingJoin, JoinResult.error(GroupError.FENCED_INSTANCE_ID, oldId));
            old.awaitingJoin = null;
        }
        if (old.awaitingSync != null) {
            out.sync(old.awaitingSync, SyncResult.error(GroupError.FENCED_INSTANCE_ID));
            old.awaitingSync = null;
        }
        LinkedHashMap<String, Member> reordered = new LinkedHashMap<>();
        for (Map.Entry<String, Member> entry : members.entrySet()) {
            reordered.put(entry.getKey().equals(oldId) ? newId : entry.getKey(), entry.getValue());
        }
        members.clear();
        members.putAll(reordered);
        old.memberId = newId;
        staticMembers.put(old.instanceId, newId);
        if (oldId.equals(leaderId)) {
            leaderId = newId;
        }
    }

    private void addMemberAndRebalance(
            JoinRequest request, String memberId, long nowMs, Consumer<JoinResult> callback, GroupResult out) {
        Member member = new Member(
                memberId,
                request.instanceId(),
                request.clientId(),
                request.clientHost(),
                request.protocolType(),
                List.copyOf(request.protocols()));
        member.sessionTimeoutMs = request.sessionTimeoutMs();
        member.rebalanceTimeoutMs = request.rebalanceTimeoutMs();
        member.lastHeartbeatMs = nowMs;
        member.awaitingJoin = callback;
        if (members.isEmpty()) {
            protocolType = request.protocolType();
        }
        members.put(memberId, member);
        if (request.instanceId() != null) {
            staticMembers.put(request.instanceId(), memberId);
        }
        if (leaderId == null || !members.containsKey(leaderId)) {
            leaderId = memberId;
        }
        pendingMembers.remove(memberId);
        maybePrepareRebalance(nowMs, out);
        tryCompleteJoin(nowMs, false, out);
    }

    private void joinKnown(
            JoinRequest request, String memberId, long nowMs, Consumer<JoinResult> callback, GroupResult out) {
        if (pendingMembers.containsKey(memberId)) {
            if (!supportsProtocols(request.protocolType(), request.protocols())) {
                pendingMembers.remove(memberId);
                out.join(callback, JoinResult.error(GroupError.INCONSISTENT_GROUP_PROTOCOL, memberId));
                return;
            }
            addMemberAndRebalance(request, memberId, nowMs, callback, out);
            return;
        }
        Member member = members.get(memberId);
        String instanceId = request.instanceId();
        if (instanceId != null
                && staticMembers.containsKey(instanceId)
                && !staticMembers.get(instanceId).equals(memberId)) {
            out.join(callback, JoinResult.error(GroupError.FENCED_INSTANCE_ID, memberId));
            return;
        }
        if (member == null || is(GroupState.EMPTY)) {
            out.join(callback, JoinResult.error(GroupError.UNKNOWN_MEMBER_ID, memberId));
            return;
        }
        if (!supportsProtocolsExcept(member, request.protocolType(), request.protocols())) {
            out.join(callback, JoinResult.error(GroupError.INCONSISTENT_GROUP_PROTOCOL, memberId));
            return;
        }
        member.lastHeartbeatMs = nowMs;
        member.sessionTimeoutMs = request.sessionTimeoutMs();
        member.rebalanceTimeoutMs = request.rebalanceTimeoutMs();
        member.clientId = request.clientId();
        member.clientHost = request.clientHost();
        boolean changed = !sameProtocols(member.protocols, request.protocols());
        switch (state) {
            case PREPARING_REBALANCE:
                member.protocols = List.copyOf(request.protocols());
                if (member.awaitingJoin != null) {
                    out.join(member.awaitingJoin, JoinResult.error(GroupError.REBALANCE_IN_PROGRESS, memberId));
                }
                member.awaitingJoin = callback;
                tryCompleteJoin(nowMs, false, out);
                return;
            case COMPLETING_REBALANCE:
            case STABLE:
                if (!changed && (is(GroupState.COMPLETING_REBALANCE) || !memberId.equals(leaderId))) {
                    boolean leader = memberId.equals(leaderId);
                    out.join(
                            callback,
                            new JoinResult(
                                    GroupError.NONE,
                                    generation,
                                    protocolType,
                                    protocolName,
                                    leader(),
                                    memberId,
                                    false,
                                    leader ? joinMembers() : List.of()));
                    return;
                }
                member.protocols = List.copyOf(request.protocols());
                member.awaitingJoin = callback;
                maybePrepareRebalance(nowMs, out);
                tryCompleteJoin(nowMs, false, out);
                return;
            default:
                out.join(callback, JoinResult.error(GroupError.UNKNOWN_MEMBER_ID, memberId));
        }
    }

    private void maybePrepareRebalance(long nowMs, GroupResult out) {
        if (is(GroupState.PREPARING_REBALANCE)) {
            return;
        }
        if (is(GroupState.COMPLETING_REBALANCE)) {
            for (Member member : members.values()) {
                if (member.awaitingSync != null) {
                    out.sync(member.awaitingSync, SyncResult.error(GroupError.REBALANCE_IN_PROGRESS));
                    member.awaitingSync = null;
                }
            }
        }
        boolean wasEmpty = is(GroupState.EMPTY);
        transitionTo(GroupState.PREPARING_REBALANCE);
        if (wasEmpty && initialRebalanceDelayMs > 0) {
            joinDeadlineMs = nowMs + Math.min(initialRebalanceDelayMs, Math.max(maxRebalanceTimeoutMs(), 1));
            completeEarly = false;
        } else {
            joinDeadlineMs = nowMs + maxRebalanceTimeoutMs();
            completeEarly = true;
        }
    }

    /** Completes the join phase if everyone joined (or, when forced, drops those who did not). */
    private void tryCompleteJoin(long nowMs, boolean force, GroupResult out) {
        if (!is(GroupState.PREPARING_REBALANCE)) {
            return;
        }
        if (!force && !(completeEarly && hasAllMembersJoined())) {
            return;
        }
        for (Iterator<Member> it = members.values().iterator(); it.hasNext(); ) {
            Member member = it.next();
            if (member.awaitingJoin == null) {
                it.remove();
                if (member.instanceId != null) {
                    staticMembers.remove(member.instanceId);
                }
            }
        }
        pendingMembers.clear();
        joinDeadlineMs = Long.MAX_VALUE;
        generation++;
        if (members.isEmpty()) {
            transitionTo(GroupState.EMPTY);
            protocolName = null;
            leaderId = null;
            out.write(record());
            return;
        }
        if (!members.containsKey(leaderId)) {
            leaderId = members.keySet().iterator().next();
        }
        protocolName = selectProtocol();
        transitionTo(GroupState.COMPLETING_REBALANCE);
        List<JoinMember> all = joinMembers();
        for (Member member : members.values()) {
            boolean leader = member.memberId.equals(leaderId);
            // The members that did not join again were removed above.
            Consumer<JoinResult> callback = Objects.requireNonNull(member.awaitingJoin, "a member that joined");
            member.awaitingJoin = null;
            member.lastHeartbeatMs = nowMs;
            member.assignment = new byte[0];
            out.join(
                    callback,
                    new JoinResult(
                            GroupError.NONE,
                            generation,
                            protocolType,
                            protocolName,
                            leader(),
                            member.memberId,
                            false,
                            leader ? all : List.of()));
        }
    }

    private List<JoinMember> joinMembers() {
        List<JoinMember> result = new ArrayList<>();
        for (Member member : members.values()) {
            result.add(new JoinMember(member.memberId, member.instanceId, member.metadata(protocol())));
        }
        return result;
    }

    // ------------------------------------------------------------------------------------------------ SyncGroup

    /**
     * A SyncGroup. The leader's completes the rebalance: the group is Stable at once, with the assignments in the
     * group record it writes, and every member's SyncGroup response waits for that record to be durable. If it
     * does not become durable in time the members hear an error and the group rebalances again, as in Kafka.
     */
    void sync(
            String memberId,
            String instanceId,
            int generationId,
            String requestProtocolType,
            String requestProtocolName,
            Map<String, byte[]> assignments,
            long nowMs,
            Consumer<SyncResult> callback,
            GroupResult out) {
        GroupError error = validateMember(memberId, instanceId);
        if (error == GroupError.NONE && generationId != generation) {
            error = GroupError.ILLEGAL_GENERATION;
        }
        if (error == GroupError.NONE
                && ((requestProtocolType != null && !requestProtocolType.equals(protocolType))
                        || (requestProtocolName != null && !requestProtocolName.equals(protocolName)))) {
            error = GroupError.INCONSISTENT_GROUP_PROTOCOL;
        }
        if (error != GroupError.NONE) {
            out.sync(callback, SyncResult.error(error));
            return;
        }
        Member member = member(memberId);
        member.lastHeartbeatMs = nowMs;
        switch (state) {
            case PREPARING_REBALANCE:
                out.sync(callback, SyncResult.error(GroupError.REBALANCE_IN_PROGRESS));
                return;
            case COMPLETING_REBALANCE:
                member.awaitingSync = callback;
                if (memberId.equals(leaderId)) {
                    Map<String, byte[]> complete = new HashMap<>();
                    for (Member m : members.values()) {
                        byte[] assignment = assignments.get(m.memberId);
                        complete.put(m.memberId, assignment == null ? new byte[0] : assignment);
                    }
                    out.write(record(complete));
                    for (Member m : members.values()) {
                        m.assignment = Objects.requireNonNull(complete.get(m.memberId), "complete has every member");
                    }
                    transitionTo(GroupState.STABLE);
                    for (Member m : members.values()) {
                        if (m.awaitingSync != null) {
                            out.sync(
                                    m.awaitingSync,
                                    new SyncResult(GroupError.NONE, protocolType, protocolName, m.assignment));
                            m.awaitingSync = null;
                        }
                    }
                    int completed = generation;
                    out.onFailed((failure, failedAtMs) -> onAssignmentNotDurable(completed, failedAtMs));
                }
                return;
            case STABLE:
                out.sync(callback, new SyncResult(GroupError.NONE, protocolType, protocolName, member.assignment));
                return;
            default:
                out.sync(callback, SyncResult.error(GroupError.UNKNOWN_MEMBER_ID));
        }
    }

    /** The record of a completed rebalance did not become durable: its members start over (Kafka's rule). */
    private void onAssignmentNotDurable(int completedGeneration, long nowMs) {
        if (generation != completedGeneration || !is(GroupState.STABLE)) {
            return;
        }
        for (Member member : members.values()) {
            member.assignment = new byte[0];
        }
        maybePrepareRebalance(nowMs, new GroupResult());
    }

    GroupError validateMember(String memberId, String instanceId) {
        if (is(GroupState.DEAD)) {
            return GroupError.UNKNOWN_MEMBER_ID;
        }
        if (instanceId != null) {
            String current = staticMembers.get(instanceId);
            if (current != null && !current.equals(memberId)) {
                return GroupError.FENCED_INSTANCE_ID;
            }
        }
        if (!members.containsKey(memberId)) {
            return GroupError.UNKNOWN_MEMBER_ID;
        }
        return GroupError.NONE;
    }

    // ------------------------------------------------------------------------------------------------ Heartbeat

    GroupError heartbeat(String memberId, String instanceId, int generationId, long nowMs) {
        GroupError error = validateMember(memberId, instanceId);
        if (error != GroupError.NONE) {
            return error;
        }
        if (is(GroupState.EMPTY)) {
            return GroupError.UNKNOWN_MEMBER_ID;
        }
        if (generationId != generation) {
            return GroupError.ILLEGAL_GENERATION;
        }
        member(memberId).lastHeartbeatMs = nowMs;
        return is(GroupState.PREPARING_REBALANCE) ? GroupError.REBALANCE_IN_PROGRESS : GroupError.NONE;
    }

    // ------------------------------------------------------------------------------------------------ LeaveGroup

    /** @return one error per member, in order */
    List<GroupError> leave(List<LeaveMember> leaving, long nowMs, GroupResult out) {
        List<GroupError> errors = new ArrayList<>();
        for (LeaveMember leave : leaving) {
            if (is(GroupState.DEAD)) {
                errors.add(GroupError.UNKNOWN_MEMBER_ID);
                continue;
            }
            String memberId = leave.memberId();
            if (leave.instanceId() != null) {
                String current = staticMembers.get(leave.instanceId());
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
            if (pendingMembers.remove(memberId) != null) {
                errors.add(GroupError.NONE);
                tryCompleteJoin(nowMs, false, out);
                continue;
            }
            Member member = members.get(memberId);
            if (member == null) {
                errors.add(GroupError.UNKNOWN_MEMBER_ID);
                continue;
            }
            removeMember(member, nowMs, out);
            errors.add(GroupError.NONE);
        }
        return errors;
    }

    private void removeMember(Member member, long nowMs, GroupResult out) {
        if (member.awaitingJoin != null) {
            out.join(member.awaitingJoin, JoinResult.error(GroupError.UNKNOWN_MEMBER_ID, member.memberId));
            member.awaitingJoin = null;
        }
        if (member.awaitingSync != null) {
            out.sync(member.awaitingSync, SyncResult.error(GroupError.UNKNOWN_MEMBER_ID));
            member.awaitingSync = null;
        }
        members.remove(member.memberId);
        if (member.instanceId != null) {
            staticMembers.remove(member.instanceId);
        }
        switch (state) {
            case STABLE:
            case COMPLETING_REBALANCE:
                maybePrepareRebalance(nowMs, out);
                tryCompleteJoin(nowMs, false, out);
                break;
            case PREPARING_REBALANCE:
                tryCompleteJoin(nowMs, false, out);
                break;
            default:
                break;
        }
    }

    // ------------------------------------------------------------------------------------------------ expiry

    /** Time passed: expires pending member ids and members past their session timeout, and ends a join phase. */
    void expire(long nowMs, GroupResult out) {
        pendingMembers.values().removeIf(deadline -> deadline <= nowMs);
        for (Member member : new ArrayList<>(members.values())) {
            if (member.awaitingJoin == null && member.lastHeartbeatMs + member.sessionTimeoutMs <= nowMs) {
                LOGGER.info("group {}: member {} expired (session timeout)", groupId, member.memberId);
                removeMember(member, nowMs, out);
            }
        }
        if (is(GroupState.PREPARING_REBALANCE)) {
            tryCompleteJoin(nowMs, joinDeadlineMs <= nowMs, out);
        }
    }

    /** This node stops coordinating the group: members waiting in JoinGroup or SyncGroup hear so now. */
    void abandon(GroupError error) {
        for (Member member : members.values()) {
            if (member.awaitingJoin != null) {
                Consumer<JoinResult> callback = member.awaitingJoin;
                member.awaitingJoin = null;
                callback.accept(JoinResult.error(error, member.memberId));
            }
            if (member.awaitingSync != null) {
                Consumer<SyncResult> callback = member.awaitingSync;
                member.awaitingSync = null;
                callback.accept(SyncResult.error(error));
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ offsets

    /**
     * Whether a member may commit offsets. A generation below 0 with an empty member id is a simple commit
     * (standalone consumer, Admin), allowed only while the group has no members.
     */
    GroupError validateOffsetCommit(String memberId, String instanceId, int generationId, long nowMs) {
        if (generationId < 0 && (memberId == null || memberId.isEmpty())) {
            if (is(GroupState.DEAD)) {
                return GroupError.COORDINATOR_NOT_AVAILABLE;
            }
            return is(GroupState.EMPTY) ? GroupError.NONE : GroupError.UNKNOWN_MEMBER_ID;
        }
        GroupError error = validateMember(memberId, instanceId);
        if (error != GroupError.NONE) {
            return error;
        }
        if (generationId != generation) {
            return GroupError.ILLEGAL_GENERATION;
        }
        if (is(GroupState.COMPLETING_REBALANCE)) {
            return GroupError.REBALANCE_IN_PROGRESS;
        }
        member(memberId).lastHeartbeatMs = nowMs;
        return GroupError.NONE;
    }

    /**
     * TxnOffsetCommit, as Kafka validates it: a request that names its member or generation (v3+) must match them; one
     * that names neither (v0-2, or a producer outside group management) is accepted whatever the group's state,
     * since those versions carry no identity. No REBALANCE_IN_PROGRESS: the transaction may commit mid-rebalance.
     */
    GroupError validateTxnOffsetCommit(String memberId, String instanceId, int generationId) {
        if (is(GroupState.DEAD)) {
            return GroupError.COORDINATOR_NOT_AVAILABLE;
        }
        boolean anonymous = generationId < 0 && memberId.isEmpty() && instanceId == null;
        if (anonymous || generationId < 0 && is(GroupState.EMPTY)) {
            return GroupError.NONE;
        }
        GroupError error = validateMember(memberId, instanceId);
        if (error != GroupError.NONE) {
            return error;
        }
        return generationId == generation ? GroupError.NONE : GroupError.ILLEGAL_GENERATION;
    }

    /** A Dead group whose deletion did not become durable, Empty again with its generation and protocol type. */
    ClassicGroup revived() {
        ClassicGroup group = new ClassicGroup(groupId, initialRebalanceDelayMs);
        group.generation = generation;
        group.protocolType = protocolType;
        return group;
    }

    /** The group metadata tombstone, written when the group is deleted. */
    OffsetsLog.Entry tombstone() {
        return new OffsetsLog.Entry(GroupRecords.groupKey(groupId), null);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private static boolean sameProtocols(List<Protocol> a, List<Protocol> b) {
        if (a.size() != b.size()) {
            return false;
        }
        for (int i = 0; i < a.size(); i++) {
            if (!a.get(i).name().equals(b.get(i).name())
                    || !Arrays.equals(a.get(i).metadata(), b.get(i).metadata())) {
                return false;
            }
        }
        return true;
    }

    boolean hasAllMembersJoined() {
        for (Member member : members.values()) {
            if (member.awaitingJoin == null) {
                return false;
            }
        }
        return pendingMembers.isEmpty();
    }

    /** Protocols every member supports, in the leader's (else first member's) preference order. */
    String selectProtocol() {
        List<Member> ordered = new ArrayList<>(members.values());
        Member leader = members.get(leaderId);
        if (leader != null) {
            ordered.remove(leader);
            ordered.add(0, leader);
        }
        for (Protocol candidate : ordered.get(0).protocols) {
            boolean all = true;
            for (Member member : ordered) {
                all &= member.protocols.stream().anyMatch(p -> p.name().equals(candidate.name()));
            }
            if (all) {
                return candidate.name();
            }
        }
        throw new IllegalStateException("no common protocol in group " + groupId);
    }

    /** Whether a joining member's protocols share one with every current member. */
    boolean supportsProtocols(String type, List<Protocol> protocols) {
        if (members.isEmpty()) {
            return type != null && !type.isEmpty() && !protocols.isEmpty();
        }
        if (!type.equals(protocolType)) {
            return false;
        }
        Set<String> common = new LinkedHashSet<>();
        protocols.forEach(p -> common.add(p.name()));
        for (Member member : members.values()) {
            Set<String> names = new LinkedHashSet<>();
            member.protocols.forEach(p -> names.add(p.name()));
            common.retainAll(names);
        }
        return !common.isEmpty();
    }

    /** Like {@link #supportsProtocols} but ignoring one (rejoining) member. */
    boolean supportsProtocolsExcept(Member except, String type, List<Protocol> protocols) {
        if (members.size() <= 1 && members.containsValue(except)) {
            return type != null && !type.isEmpty() && !protocols.isEmpty();
        }
        if (!type.equals(protocolType)) {
            return false;
        }
        Set<String> common = new LinkedHashSet<>();
        protocols.forEach(p -> common.add(p.name()));
        for (Member member : members.values()) {
            if (member == except) {
                continue;
            }
            Set<String> names = new LinkedHashSet<>();
            member.protocols.forEach(p -> names.add(p.name()));
            common.retainAll(names);
        }
        return !common.isEmpty();
    }

    int maxRebalanceTimeoutMs() {
        int max = 0;
        for (Member member : members.values()) {
            max = Math.max(max, member.rebalanceTimeoutMs);
        }
        return max;
    }
}
