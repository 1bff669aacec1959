package dev.strait.broker.group;

import dev.strait.broker.group.ConsumerGroupApi.GroupDescription;
import dev.strait.broker.group.ConsumerGroupApi.Heartbeat;
import dev.strait.broker.group.ConsumerGroupApi.HeartbeatResult;
import dev.strait.broker.group.ConsumerGroupApi.MemberDescription;
import dev.strait.time.Time;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.jspecify.annotations.Nullable;

/**
 * The consumer group protocol (KIP-848) on a shard: ConsumerGroupHeartbeat, ConsumerGroupDescribe, session expiry,
 * and the replay of consumer group records. Each change of a group writes the group's record
 * ({@link ConsumerGroupRecords}) through the shard's durable writes, and the heartbeat's answer is sent only once
 * it (and every earlier write) is durable, as for classic groups. Every method runs on the shard's loop.
 *
 * <p>A group id names a classic group or a consumer group. As Kafka 4.1.1 with
 * {@code group.consumer.migration.policy=disabled} (Strait converts no groups between the protocols): a
 * consumer-protocol member cannot join a classic group that has members (GROUP_ID_NOT_FOUND), and a classic member
 * cannot join a consumer group that has members (INCONSISTENT_GROUP_PROTOCOL, in {@code MembershipOperations}).
 * An Empty classic group (committed offsets only) becomes a consumer group when a consumer-protocol member joins.
 */
final class ConsumerGroupOperations {

    private final Time clock;
    private final DurableWrites writes;

    ConsumerGroupOperations(Time clock, DurableWrites writes) {
        this.clock = clock;
        this.writes = writes;
    }

    void heartbeat(
            GroupShard shard,
            String groupId,
            Heartbeat request,
            Map<String, Integer> topics,
            Consumer<HeartbeatResult> callback) {
        GroupError unavailable = shard.unavailable();
        if (unavailable != GroupError.NONE) {
            callback.accept(HeartbeatResult.error(unavailable, null, request.memberId()));
            return;
        }
        ConsumerGroup group = shard.consumerGroups.get(groupId);
        boolean created = group == null;
        if (group == null) {
            ClassicGroup classic = shard.groups.get(groupId);
            if (classic != null && !classic.members.isEmpty()) {
                callback.accept(HeartbeatResult.error(
                        GroupError.GROUP_ID_NOT_FOUND,
                        "Cannot upgrade classic group " + groupId
                                + " to consumer group because online upgrade is disabled.",
                        request.memberId()));
                return;
            }
            if (request.memberEpoch() != 0) {
                callback.accept(HeartbeatResult.error(
                        GroupError.GROUP_ID_NOT_FOUND,
                        "Consumer group " + groupId + " not found.",
                        request.memberId()));
                return;
            }
            group = shard.newConsumerGroup(groupId);
        }
        HeartbeatResult answer = group.heartbeat(request, topics, clock.milliseconds());
        GroupResult result = new GroupResult();
        if (created && !group.isEmpty()) {
            // A refused first member leaves no group behind; an Empty classic group (offsets only) becomes this one.
            shard.groups.remove(groupId);
            shard.consumerGroups.put(groupId, group);
        }
        if (!created || !group.isEmpty()) {
            maybeWrite(group, result);
        }
        result.respond(
                () -> callback.accept(answer),
                error -> callback.accept(HeartbeatResult.error(error, null, request.memberId())));
        writes.complete(shard, result);
    }

    /** Writes the group's record if it differs from the last one written. */
    private static void maybeWrite(ConsumerGroup group, GroupResult result) {
        byte[] value = ConsumerGroupRecords.value(group);
        if (!Arrays.equals(value, group.written)) {
            group.written = value;
            result.write(new OffsetsLog.Entry(ConsumerGroupRecords.key(group.groupId), value));
        }
    }

    /** Removes the members whose session or revocation timed out, in every consumer group of the shard. */
    void expire(GroupShard shard) {
        if (shard.status != GroupShard.Status.ACTIVE) {
            return;
        }
        long now = clock.milliseconds();
        for (ConsumerGroup group : new ArrayList<>(shard.consumerGroups.values())) {
            if (group.expire(now)) {
                GroupResult result = new GroupResult();
                maybeWrite(group, result);
                writes.complete(shard, result);
            }
        }
    }

    static GroupDescription describe(GroupShard shard, String groupId) {
        GroupError unavailable = shard.unavailable();
        if (unavailable != GroupError.NONE) {
            return notDescribed(unavailable, null, groupId);
        }
        ConsumerGroup group = shard.consumerGroups.get(groupId);
        if (group == null) {
            String message = shard.groups.containsKey(groupId)
                    ? "Group " + groupId + " is not a consumer group."
                    : "Group " + groupId + " not found.";
            return notDescribed(GroupError.GROUP_ID_NOT_FOUND, message, groupId);
        }
        List<MemberDescription> members = new ArrayList<>();
        for (ConsumerGroup.Member member : group.members.values()) {
            members.add(new MemberDescription(
                    member.memberId,
                    member.instanceId,
                    member.rackId,
                    member.memberEpoch,
                    member.clientId,
                    member.clientHost,
                    member.topicNames,
                    member.topicRegex,
                    ConsumerGroup.copy(member.assigned),
                    ConsumerGroup.copy(group.target.getOrDefault(member.memberId, new TreeMap<>()))));
        }
        return new GroupDescription(
                GroupError.NONE,
                null,
                groupId,
                group.state().kafkaName,
                group.groupEpoch,
                group.assignmentEpoch,
                group.assignor(),
                members);
    }

    static GroupDescription notDescribed(GroupError error, @Nullable String message, String groupId) {
        return new GroupDescription(error, message, groupId, "Dead", -1, -1, "", List.of());
    }

    /**
     * Applies a replayed record if it is a consumer group's.
     *
     * @return false if the record is of another type (the caller applies it)
     */
    static boolean replay(GroupShard shard, byte[] key, byte @Nullable [] value, long nowMs) {
        String groupId = ConsumerGroupRecords.groupIdOf(key);
        if (groupId == null) {
            return false;
        }
        if (value == null) {
            shard.consumerGroups.remove(groupId);
            return true;
        }
        ConsumerGroup group = ConsumerGroupRecords.read(
                groupId, value, shard.consumerSessionTimeoutMs, shard.consumerHeartbeatIntervalMs, nowMs);
        group.written = value;
        shard.groups.remove(groupId);
        shard.consumerGroups.put(groupId, group);
        return true;
    }

    /** The shard's consumer groups as ListGroups shows them. */
    static List<GroupApi.GroupListing> list(GroupShard shard) {
        List<GroupApi.GroupListing> listed = new ArrayList<>();
        for (ConsumerGroup group : shard.consumerGroups.values()) {
            listed.add(new GroupApi.GroupListing(group.groupId, "consumer", null, "consumer", group.state().kafkaName));
        }
        return listed;
    }
}
