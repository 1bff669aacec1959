package dev.strait.broker.group;

import dev.strait.broker.group.GroupApi.GroupDescription;
import dev.strait.broker.group.GroupApi.GroupListing;
import dev.strait.broker.group.GroupApi.MemberDescription;
import dev.strait.broker.group.GroupApi.TopicPartitionKey;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The group admin APIs on a shard (DeleteGroups, ListGroups, DescribeGroups). Every method runs on the shard's
 * loop; {@link GroupCoordinator} queues it there (ListGroups to every shard, and combines their answers).
 */
final class AdminOperations {

    private final DurableWrites writes;

    AdminOperations(DurableWrites writes) {
        this.writes = writes;
    }

    void deleteGroup(GroupShard shard, String groupId, Consumer<GroupError> callback) {
        GroupError unavailable = shard.unavailable();
        if (unavailable != GroupError.NONE) {
            callback.accept(unavailable);
            return;
        }
        ConsumerGroup consumerGroup = shard.consumerGroups.get(groupId);
        if (consumerGroup != null) {
            deleteConsumerGroup(shard, consumerGroup, callback);
            return;
        }
        ClassicGroup group = shard.groups.get(groupId);
        GroupResult result = new GroupResult();
        if (group == null || group.is(GroupState.DEAD)) {
            result.respond(() -> callback.accept(GroupError.GROUP_ID_NOT_FOUND), callback);
        } else if (!group.is(GroupState.EMPTY)) {
            result.respond(() -> callback.accept(GroupError.NON_EMPTY_GROUP), callback);
        } else {
            List<TopicPartitionKey> tombstoned = writeOffsetDeletion(shard, groupId, result);
            result.write(group.tombstone());
            group.transitionTo(GroupState.DEAD);
            result.onDurable(() -> {
                ClassicGroup current = shard.groups.get(groupId);
                if (current != null && current.members.isEmpty()) {
                    shard.groups.remove(groupId);
                }
                deleteOffsets(shard, groupId, tombstoned);
            });
            result.onFailed((error, nowMs) -> {
                // Not deleted (or not yet known to be): the group is Empty again and takes members.
                if (shard.groups.get(groupId) == group) {
                    shard.groups.put(groupId, group.revived());
                }
            });
            result.respond(() -> callback.accept(GroupError.NONE), callback);
        }
        writes.complete(shard, result);
    }

    /** A consumer group is deleted, offsets and all, if it has no members (NON_EMPTY_GROUP otherwise), as Kafka. */
    private void deleteConsumerGroup(GroupShard shard, ConsumerGroup group, Consumer<GroupError> callback) {
        String groupId = group.groupId;
        GroupResult result = new GroupResult();
        if (!group.isEmpty()) {
            result.respond(() -> callback.accept(GroupError.NON_EMPTY_GROUP), callback);
        } else {
            List<TopicPartitionKey> tombstoned = writeOffsetDeletion(shard, groupId, result);
            result.write(new OffsetsLog.Entry(ConsumerGroupRecords.key(groupId), null));
            shard.consumerGroups.remove(groupId);
            result.onDurable(() -> deleteOffsets(shard, groupId, tombstoned));
            result.respond(() -> callback.accept(GroupError.NONE), callback);
        }
        writes.complete(shard, result);
    }

    /**
     * Tombstones for the group's committed offsets and for the partitions that only an open transaction holds an
     * offset for: Kafka 4.1 deletes a group with pending transactional offsets so, and a reload then drops those
     * offsets as this node does, even if their transaction commits later.
     *
     * @return the partitions tombstoned
     */
    private static List<TopicPartitionKey> writeOffsetDeletion(GroupShard shard, String groupId, GroupResult result) {
        Set<TopicPartitionKey> partitions =
                new LinkedHashSet<>(shard.offsets.fetch(groupId, null).keySet());
        partitions.addAll(shard.transactionalOffsets.partitions(groupId));
        List<TopicPartitionKey> tombstoned = List.copyOf(partitions);
        OffsetManager.writeDeletion(groupId, tombstoned, result);
        return tombstoned;
    }

    /**
     * The deletion is durable: the tombstoned partitions lose their committed offsets and what transactions held for
     * them, as a replay of the tombstones does. A commit that was appended before the deletion but not durable when
     * it was asked for has no tombstone and stays, as it does in the log.
     */
    private static void deleteOffsets(GroupShard shard, String groupId, List<TopicPartitionKey> tombstoned) {
        shard.offsets.delete(groupId, tombstoned);
        tombstoned.forEach(tp -> shard.transactionalOffsets.remove(groupId, tp));
    }

    /** The shard's groups but the Dead ones. */
    static List<GroupListing> list(GroupShard shard) {
        List<GroupListing> listed = new ArrayList<>();
        for (ClassicGroup group : shard.groups.values()) {
            if (!group.is(GroupState.DEAD) && !shard.consumerGroups.containsKey(group.groupId())) {
                listed.add(new GroupListing(
                        group.groupId(), group.protocolType == null ? "" : group.protocolType, group.state()));
            }
        }
        listed.addAll(ConsumerGroupOperations.list(shard));
        return listed;
    }

    static GroupDescription notServed(GroupError error, String groupId) {
        return new GroupDescription(error, groupId, GroupState.DEAD, "", "", List.of());
    }

    static GroupDescription describe(GroupShard shard, String groupId) {
        GroupError unavailable = shard.unavailable();
        if (unavailable != GroupError.NONE) {
            return notServed(unavailable, groupId);
        }
        ClassicGroup group = shard.groups.get(groupId);
        if (group == null || shard.consumerGroups.containsKey(groupId)) {
            // As Kafka 4.1.1: DescribeGroups describes classic groups only ("Group ... is not a classic group.").
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
                stable && group.protocolName != null ? group.protocolName : "",
                members);
    }
}
