package dev.strait.broker.group;

import dev.strait.broker.group.GroupApi.OffsetAndMetadata;
import dev.strait.broker.group.GroupApi.TopicPartitionKey;
import dev.strait.time.Time;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.function.Consumer;

/**
 * Offsets committed inside a transaction (TxnOffsetCommit) on a shard, and the end of that transaction. A
 * transactional commit is written as one transactional batch of the producer (the partition's producer state fences
 * an old epoch) and, once durable, is held in {@link TransactionalOffsets}: not served by OffsetFetch. When the
 * producer's commit or abort marker is durable in the partition, the transaction's offsets become committed offsets
 * or are dropped. Every method runs on the shard's loop; {@link GroupCoordinator} queues it there.
 */
final class TransactionalOffsetOperations {

    private final Time clock;
    private final DurableWrites writes;

    TransactionalOffsetOperations(Time clock, DurableWrites writes) {
        this.clock = clock;
        this.writes = writes;
    }

    void commit(
            GroupShard shard,
            String groupId,
            long producerId,
            short producerEpoch,
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
        GroupError error = validate(shard, groupId, memberId, instanceId, generation);
        GroupResult result = new GroupResult();
        if (error != GroupError.NONE || offsets.isEmpty()) {
            result.respond(() -> callback.accept(error), callback);
            writes.complete(shard, result);
            return;
        }
        long now = clock.milliseconds();
        Map<TopicPartitionKey, OffsetAndMetadata> stamped = new LinkedHashMap<>();
        offsets.forEach((tp, offset) -> stamped.put(
                tp,
                offset.commitTimestamp() >= 0
                        ? offset
                        : new OffsetAndMetadata(offset.offset(), offset.leaderEpoch(), offset.metadata(), now)));
        OffsetManager.writeCommit(groupId, stamped, result);
        result.asTransactionOf(producerId, producerEpoch);
        result.onDurable(() -> {
            // As for an ordinary commit, and as Kafka's replay does: a group that commits offsets exists (Empty).
            if (!shard.consumerGroups.containsKey(groupId)) {
                shard.groups.computeIfAbsent(groupId, shard::newGroup);
            }
            long recordOffset = result.firstOffset();
            for (Map.Entry<TopicPartitionKey, OffsetAndMetadata> entry : stamped.entrySet()) {
                shard.transactionalOffsets.add(producerId, groupId, entry.getKey(), entry.getValue(), recordOffset++);
            }
        });
        result.respond(() -> callback.accept(GroupError.NONE), callback);
        writes.complete(shard, result);
    }

    /**
     * Kafka's checks: an unknown group takes commits without a generation (a simple group, created when the commit
     * is durable); a classic group checks what the request names; a consumer group (KIP-848) its member and epoch,
     * a stale epoch being ILLEGAL_GENERATION to the producer.
     */
    private static GroupError validate(
            GroupShard shard, String groupId, String memberId, String instanceId, int generation) {
        ConsumerGroup consumerGroup = shard.consumerGroups.get(groupId);
        if (consumerGroup != null) {
            GroupError error = consumerGroup.validateOffsetCommit(memberId, generation);
            return error == GroupError.STALE_MEMBER_EPOCH ? GroupError.ILLEGAL_GENERATION : error;
        }
        ClassicGroup group = shard.groups.get(groupId);
        if (group == null) {
            return generation < 0 ? GroupError.NONE : GroupError.ILLEGAL_GENERATION;
        }
        return group.validateTxnOffsetCommit(memberId, instanceId, generation);
    }

    /**
     * The producer's transaction ended: its marker is durable at {@code markerOffset} in the shard's partition. What
     * the transaction wrote before the marker becomes committed offsets (unless an ordinary commit came later in the
     * log) or is dropped. Writes before the marker are durable too, so they are completed first: a transactional
     * commit whose replication report has not arrived yet is then held, and ends here rather than stay pending.
     * Ignored by a shard this node does not serve: the node that loads it replays the marker.
     */
    void complete(GroupShard shard, long producerId, boolean commit, long markerOffset) {
        if (shard.status == GroupShard.Status.NOT_COORDINATOR) {
            return;
        }
        writes.drainDurable(shard);
        if (shard.status == GroupShard.Status.NOT_COORDINATOR) {
            return; // the drain found the leadership gone
        }
        end(shard, producerId, commit, markerOffset);
    }

    /** Ends the producer's transaction at its marker; also the replay of a marker. */
    static void end(GroupShard shard, long producerId, boolean commit, long markerOffset) {
        for (TransactionalOffsets.Pending pending : shard.transactionalOffsets.end(producerId, markerOffset)) {
            if (commit) {
                shard.offsets.commitTransactional(
                        pending.groupId(), pending.partition(), pending.offset(), pending.recordOffset());
            }
        }
    }
}
