/**
 * Cluster metadata as a replicated log: the {@link dev.strait.broker.raft.metadata.MetadataRecord} types, their
 * binary form ({@link dev.strait.broker.raft.metadata.MetadataRecordSerde}), the immutable
 * {@link dev.strait.broker.raft.metadata.MetadataImage} built by replaying committed records, and the
 * {@link dev.strait.broker.raft.metadata.MetadataLoader} that follows a Raft node's high watermark. Single
 * threaded like the Raft node it follows; images are immutable and may be shared. No Kafka imports: topic ids
 * are {@link java.util.UUID}s here and the broker's adapter converts them.
 */
package dev.strait.broker.raft.metadata;
