package dev.strait.broker.group;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * One classic-protocol group: explicit state machine plus members. Not thread-safe: owned by one coordinator shard
 * and used only under its lock.
 */
public final class ClassicGroup {

    /** One member. Mutable; owned by the group. */
    static final class Member {
        String memberId;
        final String instanceId;
        String clientId;
        String clientHost;
        int sessionTimeoutMs;
        int rebalanceTimeoutMs;
        String protocolType;
        List<GroupCoordinator.Protocol> protocols;
        byte[] assignment = new byte[0];
        long lastHeartbeatMs;
        Consumer<GroupCoordinator.JoinResult> awaitingJoin;
        Consumer<GroupCoordinator.SyncResult> awaitingSync;

        Member(String memberId, String instanceId) {
            this.memberId = memberId;
            this.instanceId = instanceId;
        }

        byte[] metadata(String protocolName) {
            for (GroupCoordinator.Protocol protocol : protocols) {
                if (protocol.name().equals(protocolName)) {
                    return protocol.metadata();
                }
            }
            throw new IllegalStateException("member " + memberId + " does not support " + protocolName);
        }
    }

    private final String groupId;
    private GroupState state = GroupState.EMPTY;
    int generation;
    String protocolType;
    String protocolName;
    String leaderId;
    final LinkedHashMap<String, Member> members = new LinkedHashMap<>();
    final Map<String, String> staticMembers = new HashMap<>();
    /** Member ids handed out with MEMBER_ID_REQUIRED, to the deadline by which they must join. */
    final Map<String, Long> pendingMembers = new HashMap<>();
    final Map<GroupCoordinator.TopicPartitionKey, GroupCoordinator.OffsetAndMetadata> offsets =
            new LinkedHashMap<>();
    /** Deadline of the current join phase (PreparingRebalance), or Long.MAX_VALUE. */
    long joinDeadlineMs = Long.MAX_VALUE;
    /** Whether the join phase may complete before its deadline once everyone joined. */
    boolean completeEarly = true;

    public ClassicGroup(String groupId) {
        this.groupId = groupId;
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
            throw new IllegalStateException("group " + groupId + ": illegal transition from " + state + " to "
                    + target);
        }
        state = target;
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
        for (GroupCoordinator.Protocol candidate : ordered.get(0).protocols) {
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
    boolean supportsProtocols(String type, List<GroupCoordinator.Protocol> protocols) {
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
    boolean supportsProtocolsExcept(Member except, String type, List<GroupCoordinator.Protocol> protocols) {
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
