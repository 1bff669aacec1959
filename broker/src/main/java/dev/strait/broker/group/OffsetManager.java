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

    private final Map<String, Map<TopicPartitionKey, OffsetAndMetadata>> committed = new HashMap<>();

    /** The records of a commit, one per partition. */
    static void writeCommit(String groupId, Map<TopicPartitionKey, OffsetAndMetadata> offsets, GroupResult out) {
        for (Map.Entry<TopicPartitionKey, OffsetAndMetadata> entry : offsets.entrySet()) {
            out.write(new OffsetsLog.Entry(
                    GroupRecords.offsetKey(
                            groupId, entry.getKey().topic(), entry.getKey().partition()),
                    GroupRecords.offsetValue(entry.getValue())));
        }
    }

    /** Tombstones for every committed offset of a group. */
    void writeDeletion(String groupId, GroupResult out) {
        for (TopicPartitionKey tp : committed.getOrDefault(groupId, Map.of()).keySet()) {
            out.write(new OffsetsLog.Entry(GroupRecords.offsetKey(groupId, tp.topic(), tp.partition()), null));
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
            load(groupId, tp, null);
        }
    }

    /** A commit is durable. */
    void commit(String groupId, Map<TopicPartitionKey, OffsetAndMetadata> offsets) {
        committed.computeIfAbsent(groupId, g -> new LinkedHashMap<>()).putAll(offsets);
    }

    /** A replayed offset record; a null value is a tombstone. */
    void load(String groupId, TopicPartitionKey tp, @Nullable OffsetAndMetadata value) {
        if (value == null) {
            Map<TopicPartitionKey, OffsetAndMetadata> offsets = committed.get(groupId);
            if (offsets != null) {
                offsets.remove(tp);
                if (offsets.isEmpty()) {
                    committed.remove(groupId);
                }
            }
        } else {
            committed.computeIfAbsent(groupId, g -> new LinkedHashMap<>()).put(tp, value);
        }
    }

    void delete(String groupId) {
        committed.remove(groupId);
    }

    /** Committed offsets of a group; {@code wanted} null means all. Partitions without a commit are absent. */
    Map<TopicPartitionKey, OffsetAndMetadata> fetch(String groupId, @Nullable List<TopicPartitionKey> wanted) {
        Map<TopicPartitionKey, OffsetAndMetadata> offsets = committed.getOrDefault(groupId, Map.of());
        Map<TopicPartitionKey, OffsetAndMetadata> result = new LinkedHashMap<>();
        if (wanted == null) {
            result.putAll(offsets);
        } else {
            for (TopicPartitionKey tp : wanted) {
                OffsetAndMetadata offset = offsets.get(tp);
                if (offset != null) {
                    result.put(tp, offset);
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
