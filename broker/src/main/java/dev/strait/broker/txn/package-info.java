/**
 * The transaction coordinator (issue 24), modelled on Kafka's (transaction version 1, with KIP-360's producer
 * recovery): which producer id and epoch each {@code transactional.id} holds, which partitions its current
 * transaction spans, and how it ends. This increment is the core only; nothing calls it from the network yet, and
 * the protocol adapter still refuses transactional producers.
 * <h2>What it owns</h2>
 * {@link dev.strait.broker.txn.TransactionState} (the states and Kafka's legal transitions),
 * {@link dev.strait.broker.txn.TransactionMetadata} (one id's immutable value, with the {@code prepareX} methods
 * that build the next one), {@link dev.strait.broker.txn.TransactionCoordinatorCore} (the rules of InitProducerId,
 * AddPartitionsToTxn, AddOffsetsToTxn, EndTxn, marker completion, the timeout and expiry scans, ListTransactions and
 * DescribeTransactions, for one shard), {@link dev.strait.broker.txn.TransactionRecords} (the record format of
 * {@code __transaction_state}) and {@link dev.strait.broker.txn.TransactionLoader} (replay, and the markers a new
 * coordinator owes).
 * <h2>Durability</h2>
 * The state lives in the internal topic {@code __transaction_state}, one record per transactional id (latest wins,
 * a tombstone when it expires), sharded by its partitions like the group coordinator's offsets topic: a shard is
 * served by the leader of its partition, which replays it when it becomes leader. A state change is made durable
 * before it is made: the core returns the transition to append and applies it only once the append is durable, so
 * the in-memory state is always what a replay of the durable log yields.
 * <h2>Threads</h2>
 * None of its own. The core is pure and single-threaded, takes {@code nowMs} arguments and returns values; the
 * wiring (next increment) runs each shard's core on that shard's loop, as {@code group}'s ShardLoops do.
 * <h2>Imports</h2>
 * The JDK and JSpecify only: no kafka-clients classes at all, in particular not the protocol adapter's request and
 * record classes, and no other broker package (the adapter translates requests into calls on the core, and
 * {@code WriteMarkers} into WriteTxnMarkers).
 */
package dev.strait.broker.txn;
