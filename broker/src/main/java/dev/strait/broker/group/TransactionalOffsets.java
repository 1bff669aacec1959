package dev.strait.broker.group;

import dev.strait.broker.group.GroupApi.OffsetAndMetadata;
import dev.strait.broker.group.GroupApi.TopicPartitionKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The offsets that open transactions committed (TxnOffsetCommit) in one shard, by producer: durable in the offsets
 * partition but not committed offsets yet. OffsetFetch does not serve them; with requireStable it answers
 * UNSTABLE_OFFSET_COMMIT for their partitions. When the producer's transaction ends (its marker is durable in the
 * partition) they are taken out: on commit they become committed offsets (see {@link OffsetManager}), on abort they
 * are dropped. An ordinary tombstone of a partition drops what every transaction holds for it, as Kafka's replay does.
 *
 * <p>Each offset keeps the log offset of its record: a marker ends only the transaction written before it, and a
 * committed transaction's offset loses to an ordinary commit written after it.
 *
 * <p>Not thread-safe: used only on the shard's loop.
 */
final class TransactionalOffsets {

    /** One partition's offset held by a transaction, and where its record is in the log. */
    record Pending(String groupId, TopicPartitionKey partition, OffsetAndMetadata offset, long recordOffset) {}

    private record Key(String groupId, TopicPartitionKey partition) {}

    /**
     * By producer id, per group and partition the producer's offset records in log order: normally those of its
     * open transaction (the last one counts), but the records of its next transaction can arrive before the shard
     * hears of the marker that ended the previous one.
     */
    private final Map<Long, Map<Key, List<Pending>>> byProducer = new HashMap<>();

    /** A transactional offset record of {@code producerId} at {@code recordOffset} is durable (or replayed). */
    void add(long producerId, String groupId, TopicPartitionKey tp, OffsetAndMetadata offset, long recordOffset) {
        byProducer
                .computeIfAbsent(producerId, p -> new LinkedHashMap<>())
                .computeIfAbsent(new Key(groupId, tp), k -> new ArrayList<>())
                .add(new Pending(groupId, tp, offset, recordOffset));
    }

    /**
     * The producer's transaction ended with a marker at {@code markerOffset}: takes out what it wrote before the
     * marker and returns, per group and partition, the last of it (a transaction's later commit replaces an earlier
     * one). Records after the marker belong to the producer's next transaction and stay.
     */
    List<Pending> end(long producerId, long markerOffset) {
        Map<Key, List<Pending>> pending = byProducer.get(producerId);
        if (pending == null) {
            return List.of();
        }
        List<Pending> ended = new ArrayList<>();
        for (Iterator<List<Pending>> it = pending.values().iterator(); it.hasNext(); ) {
            List<Pending> records = it.next();
            Pending last = null;
            while (!records.isEmpty() && records.get(0).recordOffset() < markerOffset) {
                last = records.remove(0);
            }
            if (last != null) {
                ended.add(last);
            }
            if (records.isEmpty()) {
                it.remove();
            }
        }
        if (pending.isEmpty()) {
            byProducer.remove(producerId);
        }
        return ended;
    }

    /** Whether a transaction holds an offset for the group's partition. */
    boolean isPending(String groupId, TopicPartitionKey tp) {
        Key key = new Key(groupId, tp);
        for (Map<Key, List<Pending>> pending : byProducer.values()) {
            if (pending.containsKey(key)) {
                return true;
            }
        }
        return false;
    }

    /** The group's partitions that some transaction holds an offset for. */
    Set<TopicPartitionKey> partitions(String groupId) {
        Set<TopicPartitionKey> result = new LinkedHashSet<>();
        for (Map<Key, List<Pending>> pending : byProducer.values()) {
            for (Key key : pending.keySet()) {
                if (key.groupId().equals(groupId)) {
                    result.add(key.partition());
                }
            }
        }
        return result;
    }

    /** An ordinary tombstone of the group's partition is durable: no transaction's offset for it survives. */
    void remove(String groupId, TopicPartitionKey tp) {
        Key key = new Key(groupId, tp);
        byProducer.values().removeIf(pending -> {
            pending.remove(key);
            return pending.isEmpty();
        });
    }

    void clear() {
        byProducer.clear();
    }
}
