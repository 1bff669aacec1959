/**
 * The broker's view of cluster metadata (cluster id, brokers, topics with ids, partition states, config
 * overrides, ACLs, SCRAM credentials, producer id blocks) behind one interface,
 * {@link dev.strait.broker.metadata.MetadataSource}, and its immutable values
 * ({@link dev.strait.broker.metadata.TopicMetadata}, {@link dev.strait.broker.metadata.PartitionState}). A node
 * whose config names {@code controller.quorum.voters} gets the Raft-backed {@code controller.QuorumMetadataSource};
 * a standalone node without them (one-node {@code strait broker}, a one-node {@code EmbeddedCluster}) keeps it all
 * in one local file, {@link dev.strait.broker.metadata.FileMetadataSource}; {@code server.MetadataSources} chooses.
 * Implementations are thread-safe: request handler threads and the replica state thread call them; change
 * listeners run on the quorum's callback thread, or for the file on the thread that made the change. Kept out of
 * the server package so the replica layer, the controller and the protocol adapter can depend on it without the
 * wiring; of Kafka it may use only {@code TopicPartition} and {@code Uuid}.
 */
package dev.strait.broker.metadata;
