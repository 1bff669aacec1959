package dev.strait.broker.group;

import dev.strait.broker.group.GroupApi.TopicPartitionKey;
import dev.strait.time.Time;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Takes over a shard when this node becomes the leader of its offsets partition: replays the partition into the
 * shard (committed offsets and tombstones, group metadata and group tombstones, latest wins) and lets it serve once
 * everything replayed is durable. Runs on the shard's loop.
 */
final class ShardLoader {

    private static final Logger LOGGER = LoggerFactory.getLogger(ShardLoader.class);

    private final OffsetsLog log;
    private final Time clock;
    private final DurableWrites writes;

    ShardLoader(OffsetsLog log, Time clock, DurableWrites writes) {
        this.log = log;
        this.clock = clock;
        this.writes = writes;
    }

    /** Drops what the shard held, replays its partition if this node leads it, and activates it once durable. */
    void load(GroupShard shard) {
        int partition = shard.index;
        shard.reset(GroupError.NOT_COORDINATOR, clock.milliseconds());
        Optional<OffsetsLog.Position> position = log.position(partition);
        if (position.isEmpty()) {
            return;
        }
        long now = clock.milliseconds();
        long end = log.replay(partition, new Replay(shard, now));
        shard.status = GroupShard.Status.LOADING;
        // Serve nothing of the replayed tail until it is durable: a new leader's high watermark trails until its
        // followers fetch, and what lies above it could still be lost with this leadership.
        GroupResult loaded = new GroupResult();
        loaded.onDurable(() -> {
            shard.status = GroupShard.Status.ACTIVE;
            LOGGER.info("group coordinator: serving offsets partition {} ({} groups)", partition, shard.groups.size());
        });
        loaded.onFailed((error, nowMs) -> shard.status = GroupShard.Status.NOT_COORDINATOR);
        writes.completeWhenDurable(
                shard, new OffsetsLog.Appended(end, position.get().leaderEpoch()), loaded);
    }

    /**
     * Applies the replayed records to the shard, in log order: ordinary records as they come (latest wins),
     * transactional offset commits held until their producer's marker, which commits or drops them.
     */
    private static final class Replay implements OffsetsLog.RecordConsumer {
        private final GroupShard shard;
        private final long nowMs;

        Replay(GroupShard shard, long nowMs) {
            this.shard = shard;
            this.nowMs = nowMs;
        }

        @Override
        public void accept(long offset, byte[] key, byte @Nullable [] value) {
            apply(shard, offset, key, value, nowMs);
        }

        @Override
        public void acceptTransactional(long offset, long producerId, byte[] keyBytes, byte @Nullable [] value) {
            if (value == null
                    || ConsumerGroupRecords.groupIdOf(keyBytes) != null
                    || !(GroupRecords.readKey(keyBytes) instanceof GroupRecords.OffsetKey offsetKey)) {
                // The coordinator writes offset commits only in transactions; anything else counts as written.
                apply(shard, offset, keyBytes, value, nowMs);
                return;
            }
            TopicPartitionKey tp = new TopicPartitionKey(offsetKey.topic(), offsetKey.partition());
            shard.transactionalOffsets.add(
                    producerId, offsetKey.group(), tp, GroupRecords.readOffsetValue(value), offset);
            ensureGroup(shard, offsetKey.group());
        }

        @Override
        public void acceptMarker(long offset, long producerId, boolean commit) {
            TransactionalOffsetOperations.end(shard, producerId, commit, offset);
        }
    }

    private static void apply(GroupShard shard, long offset, byte[] keyBytes, byte @Nullable [] value, long nowMs) {
        if (ConsumerGroupOperations.replay(shard, keyBytes, value, nowMs)) {
            return;
        }
        Object key = GroupRecords.readKey(keyBytes);
        if (key instanceof GroupRecords.OffsetKey offsetKey) {
            TopicPartitionKey tp = new TopicPartitionKey(offsetKey.topic(), offsetKey.partition());
            shard.offsets.load(
                    offsetKey.group(), tp, value == null ? null : GroupRecords.readOffsetValue(value), offset);
            if (value == null) {
                // As Kafka: a tombstone drops what open transactions hold for the partition too.
                shard.transactionalOffsets.remove(offsetKey.group(), tp);
            } else {
                ensureGroup(shard, offsetKey.group());
            }
        } else {
            String groupId = (String) key;
            if (value == null) {
                shard.groups.remove(groupId);
            } else {
                shard.consumerGroups.remove(groupId);
                shard.groups.put(
                        groupId,
                        ClassicGroup.fromRecord(
                                groupId, GroupRecords.readGroupValue(value), shard.initialRebalanceDelayMs, nowMs));
            }
        }
    }

    /**
     * A group with committed offsets exists (Empty) even if it never had members: it is listed and can be deleted, as
     * in Kafka.
     */
    private static void ensureGroup(GroupShard shard, String groupId) {
        if (!shard.consumerGroups.containsKey(groupId)) {
            shard.groups.computeIfAbsent(groupId, shard::newGroup);
        }
    }
}
