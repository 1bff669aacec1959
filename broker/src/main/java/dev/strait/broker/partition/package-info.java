/**
 * The partitions this node hosts and what happens to them: {@link dev.strait.broker.partition.ReplicaManager} (topic
 * lifecycle, reconciliation of local replicas with the committed partition states of the metadata, appends,
 * ISR proposals, the purgatories for delayed fetches and acks=all produces), {@link dev.strait.broker.partition.Partition}
 * (the lock around one {@code PartitionLog} and its {@code replication.PartitionReplica} state machine, producer
 * state), {@link dev.strait.broker.partition.ReplicaFetcherManager} (one fetcher thread per leader broker, talking
 * through {@link dev.strait.broker.partition.LeaderClient}, which the protocol package implements), producer id
 * allocation and topic config validation.
 *
 * <p>{@code dev.strait.broker.replication} below it is the rule book: one partition's replication as a pure state
 * machine (roles, ISR, high watermark, truncation) with no I/O, threads or locks. This package owns the hosted
 * partitions around those state machines (logs, locks, the reconciliation and fetcher threads, purgatories) and
 * drives one per partition. (It was called {@code replica}, a name too close to {@code replication} for two
 * different jobs.)
 * <h2>Replication in brief</h2>
 * Followers pull with Fetch requests carrying their replica id; the leader takes the fetch offset as the
 * follower's log end, keeps the high watermark at the smallest log end offset in the ISR and sends it back;
 * consumers read below it only. ISR changes go to the controller ({@code MetadataSource.alterPartition}) and apply
 * when committed. A replica that becomes follower asks the leader where its latest epoch ended
 * (OffsetForLeaderEpoch) and truncates there. On a single node every partition is led in epoch 0 with ISR {self}
 * and the high watermark follows the log end offset.
 * <h2>Threading</h2>
 * Metadata changes only enqueue a reconciliation pass on the {@code strait-replica-state} thread; the listeners of
 * role changes (fetchers, the group coordinator) only enqueue work too. Partition state is used under the
 * partition's lock; fetcher threads and request handlers take it per call.
 * Uses only kafka-clients' public API ({@code TopicPartition}, {@code Uuid}).
 */
package dev.strait.broker.partition;
