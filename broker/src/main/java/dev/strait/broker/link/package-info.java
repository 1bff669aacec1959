/**
 * Mirror topics: partitions of this cluster that copy a source Kafka cluster's partitions byte for byte, at the
 * same offsets, so consumer offsets need no translation. A topic is a mirror when its configs name a source
 * ({@code strait.mirror.source.bootstrap.servers}); {@link dev.strait.broker.link.MirrorFetcher} runs one thread
 * per node and copies the partitions this node leads, speaking to the source as a consumer through a
 * {@link dev.strait.broker.link.SourceClient} that the protocol adapter implements. Followers here replicate the
 * copy like any other data. Imports: log, metadata, replica; kafka-clients' {@code TopicPartition} and {@code Uuid}
 * only.
 */
package dev.strait.broker.link;
