/**
 * The {@link dev.strait.mirror.provenance.Provenance} header the mirror writes on every copy (origin cluster, source
 * cluster, topic, partition, offset) and its versioned binary codec. It is the contract between the writer
 * ({@code mirror.engine}) and every reader that must know where a target record came from: the offset map and
 * failover ({@code mirror.sync}, {@code mirror.failover}), the lag monitor's exact lag and audit, loop prevention
 * in active-active pairs, and the benchmarks. An immutable value, safe on any thread; imports nothing of the mirror.
 */
package dev.strait.mirror.provenance;
