package dev.strait.broker.group;

import java.util.List;
import java.util.function.BiConsumer;

/**
 * The durable log behind the coordinator: the partitions of the internal offsets topic. Implemented by the protocol
 * adapter (it builds Kafka record batches); records are opaque key/value bytes encoded by {@link GroupRecords}.
 */
public interface OffsetsLog {

    /** A record; a null value is a tombstone. */
    record Entry(byte[] key, byte[] value) {
    }

    /** Appends the records to the partition durably (in one batch), or throws. */
    void append(int partition, List<Entry> records);

    /** Whether this node leads the partition, and so serves its shard (always, on a single node). */
    default boolean isLeader(int partition) {
        return true;
    }

    /** Replays every record of the partition in offset order. */
    void replay(int partition, BiConsumer<byte[], byte[]> consumer);
}
