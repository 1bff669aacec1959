/**
 * Partitions led by this node and what happens to them: {@link dev.strait.broker.replica.ReplicaManager} (topic
 * lifecycle, appends, partition lookup), {@link dev.strait.broker.replica.Partition} (the lock around one
 * {@code PartitionLog}), the purgatory for delayed fetches, producer id allocation and topic config validation.
 * Single node for now: every partition has leader epoch 0 and the high watermark follows the log end offset.
 * Uses only kafka-clients' public API ({@code TopicPartition}, {@code Uuid}).
 */
package dev.strait.broker.replica;
