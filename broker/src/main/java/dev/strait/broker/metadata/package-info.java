/**
 * Durable cluster metadata (cluster id, topics with ids, partition counts and config overrides, producer id
 * blocks) behind {@link dev.strait.broker.metadata.MetadataSource}, today one file per broker
 * ({@link dev.strait.broker.metadata.FileMetadataSource}); a Raft quorum will replace it. Kept out of the server
 * package so that the replica layer can depend on it without depending on the wiring.
 */
package dev.strait.broker.metadata;
