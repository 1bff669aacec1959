package dev.strait.broker.group;

import dev.strait.broker.group.ConsumerGroupApi.Heartbeat;
import dev.strait.broker.group.ConsumerGroupApi.HeartbeatResult;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.jspecify.annotations.Nullable;

/**
 * One consumer group of the KIP-848 protocol: members that heartbeat, a target assignment the coordinator computes,
 * and each member's reconciliation towards it. A pure state machine: time is passed in, topic metadata too; the
 * caller ({@code ConsumerGroupOperations}) persists {@link ConsumerGroupRecords#value} of the group after each change.
 *
 * <h2>Epochs</h2>
 * The <em>group epoch</em> advances whenever what the assignment depends on changes: a member joins or leaves,
 * changes its subscription or assignor, or the partition count of a subscribed topic changes (regex subscriptions
 * are resolved against the topics that exist, so a new matching topic counts). The <em>assignment epoch</em> is
 * the group epoch the target assignment was computed at; here the target is computed at once, in the heartbeat or
 * expiry that advanced the group epoch, so outside a call both are equal. Each member has a <em>member epoch</em>:
 * the assignment epoch it has reconciled to.
 *
 * <h2>Reconciliation (per member, in each of its heartbeats)</h2>
 * <pre>
 *   STABLE (epoch = assignment epoch)
 *     |  target changed
 *     v
 *   owned - target not empty?  --yes-->  UNREVOKED_PARTITIONS: told to keep owned &cap; target, epoch unchanged;
 *     | no                                  waits for a heartbeat whose owned partitions hold none revoked
 *     v                                     (or is fenced after its rebalance timeout)
 *   epoch := assignment epoch; gets the target's partitions that no other member still owns
 *     |--- all of them ---> STABLE
 *     '--- not all     ---> UNRELEASED_PARTITIONS (gets the rest in a later heartbeat, once released)
 * </pre>
 * A partition is owned by a member from the heartbeat that gives it until the heartbeat in which the member
 * acknowledges its revocation, so no partition is ever given to two members at once.
 *
 * <p>Fencing (as Kafka): a heartbeat with an epoch above the member's, or below it unless it is the member's
 * previous epoch and the partitions it owns are a subset of what it is given now (a lost response), is
 * FENCED_MEMBER_EPOCH; an unknown member with epoch &gt; 0 is UNKNOWN_MEMBER_ID. A member is removed when its
 * session times out (no heartbeat for {@code sessionTimeoutMs}) or when it does not revoke within its rebalance
 * timeout. A static member (with an instance id) that leaves with epoch -2 stays, partitions and all, until a
 * member with its instance id joins in its place (taking its epoch and partitions, with no new group epoch) or its
 * session times out; another member joining with a static member's instance id while it is active is
 * UNRELEASED_INSTANCE_ID.
 *
 * <p>Not thread-safe: used only on its shard's loop.
 */
final class ConsumerGroup {

    /** The group's state with Kafka's names (ConsumerGroupDescribe, ListGroups). */
    enum State {
        EMPTY("Empty"),
        ASSIGNING("Assigning"),
        RECONCILING("Reconciling"),
        STABLE("Stable");

        final String kafkaName;

        State(String kafkaName) {
            this.kafkaName = kafkaName;
        }
    }

    enum MemberState {
        STABLE,
        UNREVOKED_PARTITIONS,
        UNRELEASED_PARTITIONS
    }

    /** One member; its assignment maps a topic name to partition numbers. */
    static final class Member {
        final String memberId;

        @Nullable
        String instanceId;

        @Nullable
        String rackId;

        String clientId = "";
        String clientHost = "";
        List<String> topicNames = List.of();

        @Nullable
        String topicRegex;
        /** {@link #topicRegex} compiled: resolved on every heartbeat, compiled only when it changes. */
        private @Nullable Pattern compiled;

        private Pattern compiledRegex(String regex) {
            Pattern now = compiled;
            if (now == null || !now.pattern().equals(regex)) {
                now = Pattern.compile(regex);
                compiled = now;
            }
            return now;
        }

        @Nullable
        String serverAssignor;

        int rebalanceTimeoutMs;
        int memberEpoch;
        int previousMemberEpoch = -1;
        MemberState state = MemberState.STABLE;
        SortedMap<String, SortedSet<Integer>> assigned = new TreeMap<>();
        SortedMap<String, SortedSet<Integer>> pendingRevocation = new TreeMap<>();
        long sessionDeadlineMs;
        long revocationDeadlineMs = Long.MAX_VALUE;
        /** A static member that left with epoch -2: it keeps its assignment until it is replaced or times out. */
        boolean staticLeft;

        Member(String memberId) {
            this.memberId = memberId;
        }
    }

    final String groupId;
    final SortedMap<String, Member> members = new TreeMap<>();
    int groupEpoch;
    int assignmentEpoch;
    /** The partition count of each topic some member subscribes to, as of the last group epoch. */
    SortedMap<String, Integer> subscribedPartitions = new TreeMap<>();
    /** Each member's target assignment, computed at {@link #assignmentEpoch}. */
    SortedMap<String, SortedMap<String, SortedSet<Integer>>> target = new TreeMap<>();

    /** The last record value written for the group (a change writes a new one). */
    byte[] written = new byte[0];

    private final int sessionTimeoutMs;
    private final int heartbeatIntervalMs;

    ConsumerGroup(String groupId, int sessionTimeoutMs, int heartbeatIntervalMs) {
        this.groupId = groupId;
        this.sessionTimeoutMs = sessionTimeoutMs;
        this.heartbeatIntervalMs = heartbeatIntervalMs;
    }

    State state() {
        if (members.isEmpty()) {
            return State.EMPTY;
        }
        if (assignmentEpoch < groupEpoch) {
            return State.ASSIGNING;
        }
        for (Member member : members.values()) {
            if (member.memberEpoch != assignmentEpoch || member.state != MemberState.STABLE) {
                return State.RECONCILING;
            }
        }
        return State.STABLE;
    }

    boolean isEmpty() {
        return members.isEmpty();
    }

    /** The assignor the group uses: the one most members ask for (ties: by name), else {@code uniform}. */
    String assignor() {
        Map<String, Integer> votes = new TreeMap<>();
        for (Member member : members.values()) {
            if (member.serverAssignor != null) {
                votes.merge(member.serverAssignor, 1, Integer::sum);
            }
        }
        String best = ConsumerAssignors.UNIFORM;
        int most = 0;
        for (Map.Entry<String, Integer> vote : votes.entrySet()) {
            if (vote.getValue() > most) {
                best = vote.getKey();
                most = vote.getValue();
            }
        }
        return best;
    }

    // ------------------------------------------------------------------------------------------------ heartbeat

    /**
     * Handles one ConsumerGroupHeartbeat.
     *
     * @param topics every topic that exists with its partition count (for regex subscriptions and partition counts)
     */
    HeartbeatResult heartbeat(Heartbeat request, Map<String, Integer> topics, long nowMs) {
        String memberId = request.memberId();
        if (request.memberEpoch() == ConsumerGroupApi.LEAVE_EPOCH
                || request.memberEpoch() == ConsumerGroupApi.LEAVE_STATIC_EPOCH) {
            return leave(request, nowMs);
        }
        GroupError invalid = validate(request);
        if (invalid != GroupError.NONE) {
            return HeartbeatResult.error(invalid, invalidMessage(invalid, request), memberId);
        }
        Resolved resolved = resolve(request);
        Member member = resolved.member();
        if (resolved.refused() != null || member == null) {
            HeartbeatResult refused = resolved.refused();
            return refused != null ? refused : HeartbeatResult.error(GroupError.UNKNOWN_MEMBER_ID, null, memberId);
        }
        boolean bump = resolved.joined();
        bump |= update(member, request);
        member.sessionDeadlineMs = nowMs + sessionTimeoutMs;
        bump |= refreshSubscribedPartitions(topics);
        if (bump) {
            groupEpoch++;
        }
        if (assignmentEpoch < groupEpoch) {
            computeTarget();
        }
        SortedMap<String, SortedSet<Integer>> before = copy(member.assigned);
        Map<String, SortedSet<Integer>> owned = request.ownedPartitions();
        reconcile(member, owned, nowMs);
        boolean sendAssignment = mustSendAssignment(request.memberEpoch(), before, owned, member.assigned);
        return new HeartbeatResult(
                GroupError.NONE,
                null,
                memberId,
                member.memberEpoch,
                heartbeatIntervalMs,
                sendAssignment ? copy(member.assigned) : null);
    }

    /** The member a heartbeat is from (a new one if it joins), or why it is refused. */
    private record Resolved(
            @Nullable Member member,
            boolean joined,
            @Nullable HeartbeatResult refused) {}

    private Resolved resolve(Heartbeat request) {
        String memberId = request.memberId();
        Member member = members.get(memberId);
        if (request.memberEpoch() != 0) {
            return new Resolved(member, false, refuse(member, request));
        }
        boolean joined = false;
        if (member == null) {
            Member holder = byInstanceId(request.instanceId());
            if (holder != null && !holder.staticLeft) {
                return new Resolved(
                        null,
                        false,
                        HeartbeatResult.error(
                                GroupError.UNRELEASED_INSTANCE_ID,
                                "Static member " + request.instanceId() + " is still in use by member "
                                        + holder.memberId,
                                memberId));
            }
            joined = holder == null;
            member = holder != null ? replaceStaticMember(holder, memberId) : addMember(memberId);
        }
        member.staticLeft = false;
        return new Resolved(member, joined, null);
    }

    /** The assignment goes out when a member joins, when it changed, or when the member owns something else. */
    private static boolean mustSendAssignment(
            int requestEpoch,
            Map<String, SortedSet<Integer>> before,
            @Nullable Map<String, SortedSet<Integer>> owned,
            Map<String, SortedSet<Integer>> assigned) {
        if (requestEpoch == 0 || !before.equals(assigned)) {
            return true;
        }
        return owned != null && !owned.equals(assigned);
    }

    private Member addMember(String memberId) {
        Member member = new Member(memberId);
        members.put(memberId, member);
        return member;
    }

    /** Why a heartbeat of a member already in the group (epoch &gt; 0) is refused, or null if it is not. */
    private @Nullable HeartbeatResult refuse(@Nullable Member member, Heartbeat request) {
        String memberId = request.memberId();
        if (member == null) {
            return HeartbeatResult.error(
                    GroupError.UNKNOWN_MEMBER_ID,
                    "Member " + memberId + " is not a member of group " + groupId + ".",
                    memberId);
        }
        GroupError fenced = checkEpoch(member, request);
        if (fenced != GroupError.NONE) {
            return HeartbeatResult.error(
                    fenced,
                    "The consumer group member has a greater member epoch (" + request.memberEpoch()
                            + ") than the one known by the group coordinator (" + member.memberEpoch
                            + ") or an older epoch that is not its previous one.",
                    memberId);
        }
        return null;
    }

    private HeartbeatResult leave(Heartbeat request, long nowMs) {
        Member member = members.get(request.memberId());
        if (member == null) {
            member = byInstanceId(request.instanceId());
        }
        if (member == null) {
            return HeartbeatResult.error(
                    GroupError.UNKNOWN_MEMBER_ID,
                    "Member " + request.memberId() + " is not a member of group " + groupId + ".",
                    request.memberId());
        }
        if (request.memberEpoch() == ConsumerGroupApi.LEAVE_STATIC_EPOCH && member.instanceId != null) {
            // A static member away for a while (a restart): it keeps its partitions, nobody else gets them, until
            // a member with its instance id takes its place or its session times out.
            member.staticLeft = true;
        } else {
            remove(member.memberId);
        }
        return new HeartbeatResult(GroupError.NONE, null, request.memberId(), request.memberEpoch(), 0, null);
    }

    /** A static member comes back under a new member id: it takes over the old one's epoch and partitions. */
    private Member replaceStaticMember(Member old, String memberId) {
        Member member = new Member(memberId);
        member.instanceId = old.instanceId;
        member.rackId = old.rackId;
        member.topicNames = old.topicNames;
        member.topicRegex = old.topicRegex;
        member.serverAssignor = old.serverAssignor;
        member.rebalanceTimeoutMs = old.rebalanceTimeoutMs;
        member.memberEpoch = old.memberEpoch;
        member.previousMemberEpoch = old.previousMemberEpoch;
        member.state = old.state;
        member.assigned = old.assigned;
        member.pendingRevocation = old.pendingRevocation;
        member.revocationDeadlineMs = old.revocationDeadlineMs;
        members.remove(old.memberId);
        members.put(memberId, member);
        SortedMap<String, SortedSet<Integer>> goal = target.remove(old.memberId);
        if (goal != null) {
            target.put(memberId, goal);
        }
        return member;
    }

    private static GroupError validate(Heartbeat request) {
        if (request.memberId().isEmpty() || request.memberEpoch() < 0) {
            return GroupError.INVALID_REQUEST;
        }
        if (request.memberEpoch() == 0) {
            if (request.subscribedTopicNames() == null && request.subscribedTopicRegex() == null) {
                return GroupError.INVALID_REQUEST;
            }
            if (request.rebalanceTimeoutMs() <= 0) {
                return GroupError.INVALID_REQUEST;
            }
        }
        String assignor = request.serverAssignor();
        if (assignor != null && !ConsumerAssignors.isKnown(assignor)) {
            return GroupError.UNSUPPORTED_ASSIGNOR;
        }
        String regex = request.subscribedTopicRegex();
        if (regex != null && !regex.isEmpty()) {
            try {
                Pattern.compile(regex);
            } catch (PatternSyntaxException e) {
                return GroupError.INVALID_REGULAR_EXPRESSION;
            }
        }
        return GroupError.NONE;
    }

    private static String invalidMessage(GroupError error, Heartbeat request) {
        return switch (error) {
            case UNSUPPORTED_ASSIGNOR ->
                "ServerAssignor " + request.serverAssignor() + " is not supported. " + "Supported assignors: "
                        + ConsumerAssignors.UNIFORM + ", " + ConsumerAssignors.RANGE + ".";
            case INVALID_REGULAR_EXPRESSION ->
                "SubscribedTopicRegex " + request.subscribedTopicRegex() + " is not a valid regular expression.";
            default ->
                "Invalid ConsumerGroupHeartbeat: a member id is required; a joining member (epoch 0) must "
                        + "give its subscription and a positive rebalance timeout.";
        };
    }

    private static GroupError checkEpoch(Member member, Heartbeat request) {
        int received = request.memberEpoch();
        if (member.staticLeft) {
            return GroupError.FENCED_MEMBER_EPOCH;
        }
        if (received > member.memberEpoch) {
            return GroupError.FENCED_MEMBER_EPOCH;
        }
        if (received < member.memberEpoch) {
            // Tolerated only for a member that missed the answer that moved it to its current epoch.
            Map<String, SortedSet<Integer>> owned = request.ownedPartitions();
            boolean lostResponse =
                    received == member.previousMemberEpoch && owned != null && isSubset(owned, member.assigned);
            if (!lostResponse) {
                return GroupError.FENCED_MEMBER_EPOCH;
            }
        }
        return GroupError.NONE;
    }

    /** Applies the request's fields; true if what the assignment depends on changed. */
    private static boolean update(Member member, Heartbeat request) {
        boolean changed = false;
        String instanceId = request.instanceId();
        String rackId = request.rackId();
        member.instanceId = instanceId != null ? instanceId : member.instanceId;
        member.rackId = rackId != null ? rackId : member.rackId;
        member.clientId = request.clientId();
        member.clientHost = request.clientHost();
        if (request.rebalanceTimeoutMs() > 0) {
            member.rebalanceTimeoutMs = request.rebalanceTimeoutMs();
        }
        List<String> names = request.subscribedTopicNames();
        if (names != null) {
            List<String> sorted = List.copyOf(new TreeSet<>(names));
            if (!sorted.equals(member.topicNames)) {
                member.topicNames = sorted;
                changed = true;
            }
        }
        String requestedRegex = request.subscribedTopicRegex();
        if (requestedRegex != null) {
            String regex = requestedRegex.isEmpty() ? null : requestedRegex;
            if (!Objects.equals(regex, member.topicRegex)) {
                member.topicRegex = regex;
                changed = true;
            }
        }
        String assignor = request.serverAssignor();
        if (assignor != null && !assignor.equals(member.serverAssignor)) {
            member.serverAssignor = assignor;
            changed = true;
        }
        return changed;
    }

    // ------------------------------------------------------------------------------------------------ assignment

    /** The topics a member subscribes to among {@code existing}: its names, and the regex's matches. */
    static Set<String> resolve(Member member, Set<String> existing) {
        Set<String> resolved = new TreeSet<>();
        for (String name : member.topicNames) {
            if (existing.contains(name)) {
                resolved.add(name);
            }
        }
        String regex = member.topicRegex;
        if (regex != null) {
            Pattern pattern = member.compiledRegex(regex);
            for (String topic : existing) {
                // Internal topics are never matched by a pattern subscription.
                if (!topic.startsWith("__") && pattern.matcher(topic).matches()) {
                    resolved.add(topic);
                }
            }
        }
        return resolved;
    }

    /** Re-reads the subscribed topics' partition counts; true if they changed (a new epoch). */
    private boolean refreshSubscribedPartitions(Map<String, Integer> topics) {
        SortedMap<String, Integer> now = new TreeMap<>();
        for (Member member : members.values()) {
            for (String topic : resolve(member, topics.keySet())) {
                now.put(topic, topics.get(topic));
            }
        }
        if (now.equals(subscribedPartitions)) {
            return false;
        }
        subscribedPartitions = now;
        return true;
    }

    /** Computes the target assignment at the group epoch. */
    void computeTarget() {
        SortedMap<String, ConsumerAssignors.AssignmentMember> input = new TreeMap<>();
        for (Member member : members.values()) {
            input.put(
                    member.memberId,
                    new ConsumerAssignors.AssignmentMember(
                            resolve(member, subscribedPartitions.keySet()),
                            target.getOrDefault(member.memberId, new TreeMap<>())));
        }
        target = ConsumerAssignors.assign(assignor(), input, subscribedPartitions);
        assignmentEpoch = groupEpoch;
    }

    /** Moves the member towards its target (see the class comment). */
    void reconcile(Member member, @Nullable Map<String, SortedSet<Integer>> owned, long nowMs) {
        if (member.state == MemberState.UNREVOKED_PARTITIONS) {
            if (owned == null || intersects(owned, member.pendingRevocation)) {
                return; // still waiting for the member to give them up
            }
            member.pendingRevocation = new TreeMap<>();
            member.revocationDeadlineMs = Long.MAX_VALUE;
            member.state = MemberState.STABLE;
        }
        if (member.memberEpoch == assignmentEpoch && member.state == MemberState.STABLE) {
            return;
        }
        SortedMap<String, SortedSet<Integer>> goal = target.getOrDefault(member.memberId, new TreeMap<>());
        SortedMap<String, SortedSet<Integer>> kept = intersection(member.assigned, goal);
        SortedMap<String, SortedSet<Integer>> revoke = minus(member.assigned, goal);
        if (!revoke.isEmpty()) {
            member.assigned = kept;
            member.pendingRevocation = revoke;
            member.state = MemberState.UNREVOKED_PARTITIONS;
            member.revocationDeadlineMs = nowMs + member.rebalanceTimeoutMs;
            return;
        }
        Set<TopicPartitionKey> taken = ownedByOthers(member.memberId);
        SortedMap<String, SortedSet<Integer>> next = copy(kept);
        goal.forEach((topic, partitions) -> partitions.forEach(p -> {
            if (!taken.contains(new TopicPartitionKey(topic, p))) {
                next.computeIfAbsent(topic, t -> new TreeSet<>()).add(p);
            }
        }));
        if (member.memberEpoch != assignmentEpoch) {
            member.previousMemberEpoch = member.memberEpoch;
            member.memberEpoch = assignmentEpoch;
        }
        member.assigned = next;
        member.state = next.equals(goal) ? MemberState.STABLE : MemberState.UNRELEASED_PARTITIONS;
    }

    private record TopicPartitionKey(String topic, int partition) {}

    private Set<TopicPartitionKey> ownedByOthers(String memberId) {
        Set<TopicPartitionKey> owned = new HashSet<>();
        for (Member other : members.values()) {
            if (!other.memberId.equals(memberId)) {
                other.assigned.forEach((t, ps) -> ps.forEach(p -> owned.add(new TopicPartitionKey(t, p))));
                other.pendingRevocation.forEach((t, ps) -> ps.forEach(p -> owned.add(new TopicPartitionKey(t, p))));
            }
        }
        return owned;
    }

    // ------------------------------------------------------------------------------------------------ departures

    /** Removes a member; the group moves to a new epoch with a new target. */
    void remove(String memberId) {
        members.remove(memberId);
        target.remove(memberId);
        groupEpoch++;
        computeTarget();
    }

    /**
     * Removes the members whose session timed out or who did not revoke partitions within their rebalance timeout.
     *
     * @return whether any was removed
     */
    boolean expire(long nowMs) {
        List<String> expired = new ArrayList<>();
        for (Member member : members.values()) {
            if (nowMs > member.sessionDeadlineMs || nowMs > member.revocationDeadlineMs) {
                expired.add(member.memberId);
            }
        }
        expired.forEach(this::remove);
        return !expired.isEmpty();
    }

    /** After a load: every member's session starts again now. */
    void restartSessions(long nowMs) {
        for (Member member : members.values()) {
            member.sessionDeadlineMs = nowMs + sessionTimeoutMs;
            if (member.state == MemberState.UNREVOKED_PARTITIONS) {
                member.revocationDeadlineMs = nowMs + member.rebalanceTimeoutMs;
            }
        }
    }

    // ------------------------------------------------------------------------------------------------ offsets

    /** OffsetCommit of a consumer group (Kafka 4.1.1's rules for clients of the consumer protocol). */
    GroupError validateOffsetCommit(@Nullable String memberId, int memberEpoch) {
        if (memberEpoch < 0 && members.isEmpty()) {
            return GroupError.NONE;
        }
        Member member = memberId == null ? null : members.get(memberId);
        if (member == null) {
            return GroupError.UNKNOWN_MEMBER_ID;
        }
        return memberEpoch == member.memberEpoch ? GroupError.NONE : GroupError.STALE_MEMBER_EPOCH;
    }

    /** OffsetFetch with a member id and epoch (v9+); the admin client's fetch (no member, epoch -1) is served. */
    GroupError validateOffsetFetch(@Nullable String memberId, int memberEpoch) {
        if ((memberId == null || memberId.isEmpty()) && memberEpoch < 0) {
            return GroupError.NONE;
        }
        Member member = memberId == null ? null : members.get(memberId);
        if (member == null) {
            return GroupError.UNKNOWN_MEMBER_ID;
        }
        return memberEpoch == member.memberEpoch ? GroupError.NONE : GroupError.STALE_MEMBER_EPOCH;
    }

    /** Whether a member's subscription covers the topic (OffsetDelete's GROUP_SUBSCRIBED_TO_TOPIC). */
    boolean isSubscribedTo(String topic) {
        return subscribedPartitions.containsKey(topic);
    }

    // ------------------------------------------------------------------------------------------------ helpers

    private @Nullable Member byInstanceId(@Nullable String instanceId) {
        if (instanceId == null) {
            return null;
        }
        for (Member member : members.values()) {
            if (instanceId.equals(member.instanceId)) {
                return member;
            }
        }
        return null;
    }

    static SortedMap<String, SortedSet<Integer>> copy(Map<String, SortedSet<Integer>> assignment) {
        SortedMap<String, SortedSet<Integer>> copy = new TreeMap<>();
        assignment.forEach((t, ps) -> {
            if (!ps.isEmpty()) {
                copy.put(t, new TreeSet<>(ps));
            }
        });
        return copy;
    }

    private static SortedMap<String, SortedSet<Integer>> intersection(
            Map<String, SortedSet<Integer>> a, Map<String, SortedSet<Integer>> b) {
        SortedMap<String, SortedSet<Integer>> result = new TreeMap<>();
        a.forEach((t, ps) -> {
            SortedSet<Integer> both = new TreeSet<>(ps);
            both.retainAll(b.getOrDefault(t, new TreeSet<>()));
            if (!both.isEmpty()) {
                result.put(t, both);
            }
        });
        return result;
    }

    private static SortedMap<String, SortedSet<Integer>> minus(
            Map<String, SortedSet<Integer>> a, Map<String, SortedSet<Integer>> b) {
        SortedMap<String, SortedSet<Integer>> result = new TreeMap<>();
        a.forEach((t, ps) -> {
            SortedSet<Integer> rest = new TreeSet<>(ps);
            rest.removeAll(b.getOrDefault(t, new TreeSet<>()));
            if (!rest.isEmpty()) {
                result.put(t, rest);
            }
        });
        return result;
    }

    private static boolean intersects(Map<String, SortedSet<Integer>> a, Map<String, SortedSet<Integer>> b) {
        return !intersection(a, b).isEmpty();
    }

    private static boolean isSubset(Map<String, SortedSet<Integer>> a, Map<String, SortedSet<Integer>> b) {
        return minus(a, b).isEmpty();
    }
}
