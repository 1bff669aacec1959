/**
 * Partition replication as a single-threaded state machine with no I/O of its own: leader and follower roles,
 * follower progress, the in-sync replica set, the high watermark, the acks=all rule and the truncation a
 * replica does when it becomes a follower. The broker drives it from fetch requests and responses; the
 * simulation tests drive it from a fake network, clock and disk. It talks to the log only through
 * {@link dev.strait.broker.replication.ReplicaLog}.
 *
 * <p>{@code dev.strait.broker.partition} sits above it: that package owns the partitions this node hosts (their
 * logs and locks, fetcher threads, purgatories) and calls into one
 * {@link dev.strait.broker.replication.PartitionReplica} per partition under the partition's lock; this one only
 * decides, and may import nothing of the broker but {@code log}.
 *
 * <p>Semantics follow Kafka's replication protocol: followers pull; the leader learns a follower's log end
 * offset from the offset it fetches next; the high watermark is the smallest log end offset in the ISR; ISR
 * changes are proposed by the leader and take effect only once the controller commits them (a shrink never
 * lowers the set used for the high watermark before that); a replica that becomes a follower asks the leader
 * where its latest epoch ended and truncates exactly there instead of to its high watermark.
 */
package dev.strait.broker.replication;
