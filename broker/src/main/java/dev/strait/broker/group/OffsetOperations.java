package dev.strait.broker.group;

import dev.strait.broker.group.GroupApi.FetchResult;
import dev.strait.broker.group.GroupApi.OffsetAndMetadata;
import dev.strait.broker.group.GroupApi.OffsetDeleteResult;
import dev.strait.broker.group.GroupApi.SubscriptionReader;
import dev.strait.broker.group.GroupApi.TopicPartitionKey;
import dev.strait.time.Time;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;
import java.util.function.Predicate;
import org.jspecify.annotations.Nullable;

/**
 * The committed-offsets APIs on a shard (OffsetCommit, OffsetFetch, OffsetDelete). Commits and deletions change
 * what OffsetFetch serves only once their records are durable ({@link DurableWrites}). Every method runs on the
 * shard's loop; {@link GroupCoordinator} queues it there.
 */
final class OffsetOperations {

    private final Time clock;
    private final BooleanSupplier readLease;
    private final DurableWrites writes;

    OffsetOperations(Time clock, BooleanSupplier readLease, DurableWrites writes) {
        this.clock = clock;
        this.readLease = readLease;
        this.writes = writes;
    }

    void commit(
            GroupShard shard,
            String groupId,
            String memberId,
            String instanceId,
            int generation,
            Map<TopicPartitionKey, OffsetAndMetadata> offsets,
            Consumer<GroupError> callback) {
        GroupError unavailable = shard.unavailable();
        if (unavailable != GroupError.NONE) {
            callback.accept(unavailable);
            return;
        }
        long now = clock.milliseconds();
        ClassicGroup group = shard.groups.get(groupId);
        boolean simple = generation < 0 && (memberId == null || memberId.isEmpty());
        ConsumerGroup consumerGroup = shard.consumerGroups.get(groupId);
        GroupError error;
        if (consumerGroup != null) {
            error = consumerGroup.validateOffsetCommit(memberId, generation);
        } else if (group == null) {
            error = simple ? GroupError.NONE : GroupError.ILLEGAL_GENERATION;
        } else {
            error = group.validateOffsetCommit(memberId, instanceId, generation, now);
        }
        GroupResult result = new GroupResult();
        if (error != GroupError.NONE || offsets.isEmpty()) {
            GroupError answer = error;
            result.respond(() -> callback.accept(answer), callback);
            writes.complete(shard, result);
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
            if (!shard.consumerGroups.containsKey(groupId)) {
                shard.groups.computeIfAbsent(groupId, shard::newGroup);
            }
            shard.offsets.commit(groupId, stamped, result.firstOffset());
        });
        result.respond(() -> callback.accept(GroupError.NONE), callback);
        writes.complete(shard, result);
    }

    void fetch(
            GroupShard shard,
            String groupId,
            @Nullable List<TopicPartitionKey> wanted,
            Consumer<FetchResult> callback) {
        fetch(shard, groupId, null, -1, wanted, false, callback);
    }

    /**
     * OffsetFetch v9+ names the member and its epoch; a consumer group's member is validated (Kafka 4.1.1). With
     * {@code requireStable} (v7+) a partition that an open transaction holds an offset for is answered unstable
     * instead of with its committed offset; without it the committed offset is served, as Kafka.
     */
    void fetch(
            GroupShard shard,
            String groupId,
            @Nullable String memberId,
            int memberEpoch,
            @Nullable List<TopicPartitionKey> wanted,
            boolean requireStable,
            Consumer<FetchResult> callback) {
        GroupError unavailable = shard.unavailable();
        ConsumerGroup consumerGroup = shard.consumerGroups.get(groupId);
        if (unavailable == GroupError.NONE && consumerGroup != null) {
            unavailable = consumerGroup.validateOffsetFetch(memberId, memberEpoch);
        }
        if (unavailable == GroupError.NONE && !readLease.getAsBoolean()) {
            // Cut off from the controller for a while: another node may lead the partition by now and have
            // acknowledged later commits (issue 22). The client finds the coordinator again.
            unavailable = GroupError.COORDINATOR_NOT_AVAILABLE;
        }
        if (unavailable != GroupError.NONE) {
            callback.accept(new FetchResult(unavailable, Map.of()));
            return;
        }
        Map<TopicPartitionKey, OffsetAndMetadata> offsets = shard.offsets.fetch(groupId, wanted);
        if (!requireStable) {
            callback.accept(new FetchResult(GroupError.NONE, offsets));
            return;
        }
        // As Kafka: asked for all, only partitions with a committed offset are answered, unstable ones among them.
        Set<TopicPartitionKey> unstable = new LinkedHashSet<>();
        for (TopicPartitionKey tp : wanted == null ? List.copyOf(offsets.keySet()) : wanted) {
            if (shard.transactionalOffsets.isPending(groupId, tp)) {
                unstable.add(tp);
                offsets.remove(tp);
            }
        }
        callback.accept(new FetchResult(GroupError.NONE, offsets, unstable));
    }

    void delete(
            GroupShard shard,
            String groupId,
            List<TopicPartitionKey> partitions,
            SubscriptionReader subscriptions,
            Consumer<OffsetDeleteResult> callback) {
        GroupError unavailable = shard.unavailable();
        if (unavailable != GroupError.NONE) {
            callback.accept(new OffsetDeleteResult(unavailable, Map.of()));
            return;
        }
        // A classic group, or else a consumer group (KIP-848): either may hold committed offsets
        ClassicGroup group = shard.groups.get(groupId);
        ConsumerGroup consumerGroup = group == null ? shard.consumerGroups.get(groupId) : null;
        Predicate<String> subscribed = group != null
                ? topic -> group.isSubscribedTo(topic, subscriptions)
                : consumerGroup != null ? consumerGroup::isSubscribedTo : topic -> false;
        GroupError refused = group != null
                ? group.validateOffsetDelete()
                : consumerGroup != null ? GroupError.NONE : GroupError.GROUP_ID_NOT_FOUND;
        GroupResult result = new GroupResult();
        if (refused != GroupError.NONE) {
            result.respond(
                    () -> callback.accept(new OffsetDeleteResult(refused, Map.of())),
                    error -> callback.accept(new OffsetDeleteResult(error, Map.of())));
            writes.complete(shard, result);
            return;
        }
        Map<TopicPartitionKey, GroupError> outcome = new LinkedHashMap<>();
        List<TopicPartitionKey> deleted = new ArrayList<>();
        for (TopicPartitionKey tp : partitions) {
            if (subscribed.test(tp.topic())) {
                outcome.put(tp, GroupError.GROUP_SUBSCRIBED_TO_TOPIC);
            } else {
                outcome.put(tp, GroupError.NONE);
                deleted.add(tp);
            }
        }
        OffsetManager.writeDeletion(groupId, deleted, result);
        result.onDurable(() -> {
            shard.offsets.delete(groupId, deleted);
            // As Kafka's replay of a tombstone: an open transaction's offset for the partition goes too.
            deleted.forEach(tp -> shard.transactionalOffsets.remove(groupId, tp));
        });
        result.respond(
                () -> callback.accept(new OffsetDeleteResult(GroupError.NONE, outcome)),
                error -> callback.accept(new OffsetDeleteResult(error, Map.of())));
        writes.complete(shard, result);
    }
}
