/**
 * The group coordinator for the classic consumer group protocol (JoinGroup / SyncGroup / Heartbeat / LeaveGroup)
 * and committed offsets, modelled on Kafka's. Imports nothing from kafka-clients' protocol classes: the protocol
 * adapter ({@code dev.strait.broker.protocol.GroupApis}) translates requests into calls on
 * {@link dev.strait.broker.group.GroupCoordinator} and errors from {@link dev.strait.broker.group.GroupError}.
 * <h2>State machine</h2>
 * {@link dev.strait.broker.group.ClassicGroup#transitionTo} enforces Kafka's transitions and throws
 * IllegalStateException naming both states otherwise: Empty &rarr; PreparingRebalance &rarr; CompletingRebalance
 * &rarr; Stable &rarr; PreparingRebalance ...; PreparingRebalance &rarr; Empty when nobody rejoined; any &rarr;
 * Dead (deleted).
 * <h2>Sharding and threading</h2>
 * One shard per partition of the offsets topic {@code __consumer_offsets} ({@code offsets.topic.num.partitions},
 * default 5); a group's shard is {@code (groupId.hashCode() & 0x7fffffff) % shards}. All state of a shard is used
 * only under the shard's lock (handler threads and the coordinator's own timer thread take it). Delayed JoinGroup
 * and SyncGroup responses are callbacks stored on the member and completed later under that lock; nothing waits.
 * A shard is active only on the leader of its offsets partition: it is loaded (replayed from the log) when this
 * node becomes leader and dropped when it stops leading ({@code onBecomeLeader} / {@code onResign}, run on the
 * coordinator's timer thread); requests for an inactive shard get NOT_COORDINATOR from the protocol adapter, which
 * also holds responses of writing requests until the offsets partition is replicated to its ISR.
 * <h2>Durability</h2>
 * Offset commits, group metadata (protocol type, generation, protocol) and deletions (tombstones) are appended to
 * the shard's offsets partition ({@link dev.strait.broker.group.OffsetsLog}, record encoding in
 * {@link dev.strait.broker.group.GroupRecords}) before they take effect, and replayed on start. Group metadata
 * includes the members and their assignments as of the last completed rebalance, so a Stable group is Stable
 * again after a restart and its consumers need not rejoin. The log cleaner compacts the offsets topic (latest
 * record per key).
 */
package dev.strait.broker.group;
