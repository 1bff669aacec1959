/**
 * One measurement of the mirror's lag. {@link dev.strait.lag.sample.LagSampler} reads both clusters in batched
 * calls (end offsets, the mirror group's commits, the newest record of each target partition for its provenance)
 * and the mirror's read positions from its metrics endpoint ({@link dev.strait.lag.sample.MirrorPositions}), and
 * builds an immutable {@link dev.strait.lag.sample.LagSnapshot} of {@link dev.strait.lag.sample.PartitionLag}s;
 * {@link dev.strait.lag.sample.LagCalculator} states the lag rules once; {@link dev.strait.lag.sample.LagHistory}
 * keeps the last hour of every partition's lag for the status page. The sampler and the history are not thread-safe:
 * the monitor's loop thread owns them, and only the snapshots they return cross threads. Imports {@code lag.config},
 * {@code mirror.config} and {@code mirror.provenance}; the monitor, status, audit, http and the benchmarks import
 * it.
 */
package dev.strait.lag.sample;
