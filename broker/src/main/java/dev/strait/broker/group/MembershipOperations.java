package dev.strait.broker.group;

import dev.strait.broker.group.GroupApi.JoinResult;
import dev.strait.broker.group.GroupApi.LeaveMember;
import dev.strait.broker.group.GroupApi.LeaveResult;
import dev.strait.broker.group.GroupApi.SyncResult;
import dev.strait.time.Time;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The membership APIs on a shard (JoinGroup, SyncGroup, Heartbeat, LeaveGroup) and session expiry: each finds the
 * group, runs its rules ({@link ClassicGroup}) and hands what they produced to the write pipeline. Every method
 * runs on the shard's loop; {@link GroupCoordinator} queues it there.
 */
final class MembershipOperations {

    private final Time clock;
    private final Supplier<String> memberIds;
    private final DurableWrites writes;

    MembershipOperations(Time clock, Supplier<String> memberIds, DurableWrites writes) {
        this.clock = clock;
        this.memberIds = memberIds;
        this.writes = writes;
    }

    void join(GroupShard shard, String groupId, ClassicGroup.JoinRequest request, Consumer<JoinResult> callback) {
        String memberId = request.memberId();
        GroupError unavailable = shard.unavailable();
        if (unavailable != GroupError.NONE) {
            callback.accept(JoinResult.error(unavailable, memberId));
            return;
        }
        ConsumerGroup consumerGroup = shard.consumerGroups.get(groupId);
        if (consumerGroup != null) {
            if (!consumerGroup.isEmpty()) {
                // Kafka 4.1.1 with group.consumer.migration.policy=disabled: a classic member is refused.
                callback.accept(JoinResult.error(GroupError.INCONSISTENT_GROUP_PROTOCOL, memberId));
                return;
            }
            // An Empty consumer group becomes a classic group (its committed offsets stay).
            shard.consumerGroups.remove(groupId);
            GroupResult tombstone = new GroupResult();
            tombstone.write(new OffsetsLog.Entry(ConsumerGroupRecords.key(groupId), null));
            writes.complete(shard, tombstone);
        }
        ClassicGroup group = shard.groups.get(groupId);
        boolean unknownMember = memberId == null || memberId.isEmpty();
        if (group == null) {
            if (!unknownMember) {
                callback.accept(JoinResult.error(GroupError.UNKNOWN_MEMBER_ID, memberId));
                return;
            }
            group = shard.newGroup(groupId);
            shard.groups.put(groupId, group);
        }
        GroupResult result = new GroupResult();
        group.join(request, clock.milliseconds(), memberIds, callback, result);
        writes.complete(shard, result);
    }

    void sync(
            GroupShard shard,
            String groupId,
            int generation,
            String memberId,
            String instanceId,
            String protocolType,
            String protocolName,
            Map<String, byte[]> assignments,
            Consumer<SyncResult> callback) {
        GroupError unavailable = shard.unavailable();
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
                clock.milliseconds(),
                callback,
                result);
        writes.complete(shard, result);
    }

    /** A heartbeat writes nothing: it is answered at once. */
    void heartbeat(
            GroupShard shard,
            String groupId,
            String memberId,
            String instanceId,
            int generation,
            Consumer<GroupError> callback) {
        ClassicGroup group = shard.groups.get(groupId);
        GroupError unavailable = shard.unavailable();
        callback.accept(
                unavailable != GroupError.NONE
                        ? unavailable
                        : group == null
                                ? GroupError.UNKNOWN_MEMBER_ID
                                : group.heartbeat(memberId, instanceId, generation, clock.milliseconds()));
    }

    void leave(GroupShard shard, String groupId, List<LeaveMember> leaving, Consumer<LeaveResult> callback) {
        GroupError unavailable = shard.unavailable();
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
            errors = group.leave(leaving, clock.milliseconds(), result);
        }
        result.respond(
                () -> callback.accept(new LeaveResult(GroupError.NONE, errors)),
                error -> callback.accept(new LeaveResult(error, List.of())));
        writes.complete(shard, result);
    }

    /** Expires the shard's members (session timeout), pending member ids and join phases. */
    void expire(GroupShard shard) {
        if (shard.status != GroupShard.Status.ACTIVE) {
            return;
        }
        long now = clock.milliseconds();
        for (ClassicGroup group : new ArrayList<>(shard.groups.values())) {
            GroupResult result = new GroupResult();
            group.expire(now, result);
            writes.complete(shard, result);
        }
    }
}
