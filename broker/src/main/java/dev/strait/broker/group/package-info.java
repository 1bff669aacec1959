/**
 * The group coordinator for the classic consumer group protocol (JoinGroup / SyncGroup / Heartbeat / LeaveGroup),
 * the consumer group protocol of KIP-848 (ConsumerGroupHeartbeat / ConsumerGroupDescribe) and committed offsets,
 * modelled on Kafka's. Imports nothing from kafka-clients' protocol classes: the protocol
 * adapter ({@code dev.strait.broker.protocol.GroupHandler}) translates requests into calls on
 * {@link dev.strait.broker.group.GroupCoordinator} and errors from {@link dev.strait.broker.group.GroupError}.
 * <h2>State machine</h2>
 * {@link dev.strait.broker.group.ClassicGroup#transitionTo} enforces Kafka's transitions and throws
 * IllegalStateException naming both states otherwise: Empty &rarr; PreparingRebalance &rarr; CompletingRebalance
 * &rarr; Stable &rarr; PreparingRebalance ...; PreparingRebalance &rarr; Empty when nobody rejoined; any &rarr;
 * Dead (deleted).
 * <h2>Classes</h2>
 * {@link dev.strait.broker.group.GroupCoordinator} is the API: it refuses what is invalid on its face and queues
 * the rest to the group's shard; its requests and answers are the immutable values of
 * {@link dev.strait.broker.group.GroupApi}. On the shard's loop the operations run: {@code MembershipOperations}
 * (JoinGroup, SyncGroup, Heartbeat, LeaveGroup, session expiry), {@code OffsetOperations} (OffsetCommit,
 * OffsetFetch, OffsetDelete) and {@code AdminOperations} (DeleteGroups, ListGroups, DescribeGroups), each on a
 * {@code GroupShard} (one offsets partition's groups, offsets and writes in flight, and whether this node serves
 * it). {@link dev.strait.broker.group.ClassicGroup} holds one group's state and the rules of JoinGroup, SyncGroup,
 * Heartbeat, LeaveGroup and session expiry, each call returning the records to write and the responses to send
 * ({@code GroupResult}); {@code OffsetManager} holds the committed offsets; {@code DurableWrites} appends what an
 * operation wrote and completes it once durable, with {@code PendingWrites} the writes not yet durable;
 * {@code ShardLoader} replays a shard's partition when this node becomes its leader;
 * {@link dev.strait.broker.group.ShardLoops} runs the shards ({@code ThreadShardLoops} in the broker).
 * <h2>Consumer groups (KIP-848)</h2>
 * Beside classic groups, a shard holds consumer groups of the consumer rebalance protocol
 * ({@code group.protocol=consumer}): {@link dev.strait.broker.group.GroupCoordinator#consumerGroupHeartbeat} and
 * {@link dev.strait.broker.group.GroupCoordinator#describeConsumerGroup} run {@code ConsumerGroupOperations} on the
 * shard's loop; {@code ConsumerGroup} is the pure state machine (group epoch, target assignment computed by
 * {@code ConsumerAssignors} ({@code uniform}, {@code range}), each member's reconciliation towards it, fencing,
 * session and revocation timeouts, static members); its whole state is one record in the offsets partition
 * ({@code ConsumerGroupRecords}), written through the same durable writes as classic groups and replayed by
 * {@code ShardLoader}. A group id is a classic group or a consumer group; the protocols do not mix in one group
 * (Kafka with {@code group.consumer.migration.policy=disabled}).
 * <h2>Sharding and threading</h2>
 * One shard per partition of the offsets topic {@code __consumer_offsets} ({@code offsets.topic.num.partitions},
 * default 5); a group's shard is {@code (groupId.hashCode() & 0x7fffffff) % shards}. Each shard is owned by one
 * single-threaded event loop ({@link dev.strait.broker.group.ShardLoops}; in the broker a few threads, each owning
 * a fixed set of shards): requests from the network handler threads, the periodic expiry tick, leadership changes
 * and the high watermark's progress reported by the replica layer are all tasks queued to the shard's loop, run one
 * at a time in arrival order, so a shard's state has no lock and no caller ever waits for it. Every answer goes
 * back through the caller's callback, on the loop thread; delayed JoinGroup and SyncGroup responses are callbacks
 * stored on the member and completed by a later task. A task that throws is a fatal fault reported to the broker's
 * fault handler. A shard is active only on the leader of its offsets partition: it is loaded (replayed from the log)
 * when this node becomes leader, serves once everything replayed is durable (COORDINATOR_LOAD_IN_PROGRESS until
 * then), and is dropped when this node stops leading ({@code onBecomeLeader} / {@code onResign}, tasks on the
 * shard's loop); requests for an inactive shard get NOT_COORDINATOR (COORDINATOR_LOAD_IN_PROGRESS while loading)
 * from the protocol adapter, which reads the status each loop publishes, and again from the loop itself for a
 * request that a leadership change overtook in the queue. Time comes from the clock the coordinator is given, read on the loop; the loops are
 * injected, so a simulation drives every shard deterministically on one thread.
 * <h2>Durability</h2>
 * Offset commits, group metadata (protocol type, generation, protocol, members and assignments) and deletions
 * (tombstones) are appended to the shard's offsets partition ({@link dev.strait.broker.group.OffsetsLog}, record
 * encoding in {@link dev.strait.broker.group.GroupRecords}) and replayed on load. A write is durable once the
 * partition's high watermark passed it. Responses wait for it (and for every earlier write); committed offsets and
 * deletions become visible to OffsetFetch only then, in log order, so a reader never sees an offset that a
 * coordinator failover takes back. A write whose replication times out is answered COORDINATOR_NOT_AVAILABLE but
 * still applies if it becomes durable later, as a reload would apply it; a lost leadership applies none of the
 * writes in flight. Group membership changes at once in memory (DescribeGroups shows it), but members hear of a
 * completed rebalance only once its record is durable; if it is not, they rebalance again. The log cleaner
 * compacts the offsets topic (latest record per key).
 * <h2>Transactional offset commits</h2>
 * TxnOffsetCommit ({@link dev.strait.broker.group.GroupCoordinator#commitTransactionalOffsets}, run by
 * {@code TransactionalOffsetOperations}) writes the usual offset records as one transactional batch of the producer
 * ({@link dev.strait.broker.group.OffsetsLog#appendTransactional}: the partition's producer state fences an old
 * epoch). Once durable they are pending in {@code TransactionalOffsets}, per producer, with their log offsets:
 * OffsetFetch serves the previous committed offsets, and with requireStable calls those partitions unstable. The
 * transaction's end arrives as {@link dev.strait.broker.group.GroupCoordinator#completeTransaction} once its
 * marker is durable (from the transaction markers' writer), or as the marker itself in a replay: a commit makes the
 * producer's offsets recorded before the marker committed offsets unless an ordinary commit was recorded later (the
 * later record wins, as Kafka), an abort drops them; an ordinary tombstone drops pending offsets of its partition.
 * The log cleaner keeps transactional batches and markers whole (they give no key to its map).
 */
package dev.strait.broker.group;
