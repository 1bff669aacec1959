package dev.strait.mirror.config;

/** How a mirrored record's target partition is chosen when the handler did not choose one. */
public enum PartitionMode {
    /**
     * Target partition = source partition, so per-partition order and offsets line up one to one.
     * Falls back to {@link #HASH} for a source partition the target topic does not have.
     */
    PRESERVE,
    /** Kafka's default key hash (murmur2) over the target's partitions; null keys keep the source partition modulo. */
    HASH
}
