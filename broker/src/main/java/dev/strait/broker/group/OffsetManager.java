package dev.strait.broker.group;

import dev.strait.broker.group.GroupApi.OffsetAndMetadata;
import dev.strait.broker.group.GroupApi.TopicPartitionKey;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The committed offsets of one shard's groups: only what is durable in the offsets partition. A commit enters
 * here when its record is on the partition's in-sync replicas ({@link PendingWrites}), never when it is merely
 * appended, so OffsetFetch never serves an offset that a coordinator failover would take back (issue 11, defect
 * 6). Builds the records of commits and deletions; loads them on replay.
 *
 * <p>Not thread-safe: used only on the shard's loop.
 */
final class OffsetManager {

    /** A committed offset and where its record is in the log (-1 if unknown), which orders it against a transaction's. */
    private record Committed(OffsetAndMetadata value, long recordOffset) {}

    private final Map<String, Map<TopicPartitionKey, Committed>> committed = new HashMap<>();

    /** The records of a commit, one per partition, in the map's order. */
    static void writeCommit(String groupId, Map<TopicPartitionKey, OffsetAndMetadata> offsets, GroupResult out) {
        for (Map.Entry<TopicPartitionKey, OffsetAndMetadata> entry : offsets.entrySet()) {
            out.write(new OffsetsLog.Entry(
                    GroupRecords.offsetKey(
                            groupId, entry.getKey().topic(), entry.getKey().partition()),
                    GroupRecords.offsetValue(entry.getValue())));
        }
    }

    /**
     * Tombstones for some partitions of a group, written whether or not an offset is known for them: a commit
     * appended before and still waiting to be durable is then deleted too, as the deletion's answer says.
     */
    static void writeDeletion(String groupId, Iterable<TopicPartitionKey> partitions, GroupResult out) {
        for (TopicPartitionKey tp : partitions) {
            out.write(new OffsetsLog.Entry(GroupRecords.offsetKey(groupId, tp.topic(), tp.partition()), null));
        }
    }

    /** Tombstones for some partitions of a group are durable. */
    void delete(String groupId, Iterable<TopicPartitionKey> partitions) {
        for (TopicPartitionKey tp : partitions) {
            load(groupId, tp, null, -1);
        }
    }

    /**
     * A commit is durable; its records start at log offset {@code firstOffset}, one per partition in the map's order
     * (that of {@link #writeCommit}).
     */
    void commit(String groupId, Map<TopicPartitionKey, OffsetAndMetadata> offsets, long firstOffset) {
        Map<TopicPartitionKey, Committed> group = committed.computeIfAbsent(groupId, g -> new LinkedHashMap<>());
        long recordOffset = firstOffset;
        for (Map.Entry<TopicPartitionKey, OffsetAndMetadata> entry : offsets.entrySet()) {
            group.put(entry.getKey(), new Committed(entry.getValue(), firstOffset < 0 ? -1 : recordOffset++));
        }
    }

    /**
     * A transaction that wrote {@code value} at {@code recordOffset} committed: it becomes the committed offset unless
     * an ordinary commit written later in the log holds the partition (Kafka keeps the later record).
     */
    void commitTransactional(String groupId, TopicPartitionKey tp, OffsetAndMetadata value, long recordOffset) {
        Committed existing = committed.getOrDefault(groupId, Map.of()).get(tp);
        if (existing == null || recordOffset > existing.recordOffset()) {
            committed.computeIfAbsent(groupId, g -> new LinkedHashMap<>()).put(tp, new Committed(value, recordOffset));
        }
    }

    /** A replayed offset record at {@code recordOffset}; a null value is a tombstone. */
    void load(String groupId, TopicPartitionKey tp, @Nullable OffsetAndMetadata value, long recordOffset) {
        if (value == null) {
            Map<TopicPartitionKey, Committed> offsets = committed.get(groupId);
            if (offsets != null) {
                offsets.remove(tp);
                if (offsets.isEmpty()) {
                    committed.remove(groupId);
                }
            }
        } else {
            committed.computeIfAbsent(groupId, g -> new LinkedHashMap<>()).put(tp, new Committed(value, recordOffset));
        }
    }

    /** Whether the group has a committed offset for the partition. */
    boolean has(String groupId, TopicPartitionKey tp) {
        return committed.getOrDefault(groupId, Map.of()).containsKey(tp);
    }

    /** Committed offsets of a group; {@code wanted} null means all. Partitions without a commit are absent. */
    Map<TopicPartitionKey, OffsetAndMetadata> fetch(String groupId, @Nullable List<TopicPartitionKey> wanted) {
        Map<TopicPartitionKey, Committed> offsets = committed.getOrDefault(groupId, Map.of());
        Map<TopicPartitionKey, OffsetAndMetadata> result = new LinkedHashMap<>();
        if (wanted == null) {
            offsets.forEach((tp, offset) -> result.put(tp, offset.value()));
        } else {
            for (TopicPartitionKey tp : wanted) {
                Committed offset = offsets.get(tp);
                if (offset != null) {
                    result.put(tp, offset.value());
                }
            }
        }
        return result;
    }

    /** The groups that have committed offsets. */
    Set<String> groups() {
        return committed.keySet();
    }

    void clear() {
        committed.clear();
    }
}
