/**
 * What the mirror keeps on the target besides the records, so that consumer groups can move to the target at an
 * exact offset, even with the source down. {@link dev.strait.mirror.sync.OffsetMap} (per target partition, a
 * {@link dev.strait.mirror.sync.TargetHistory} of which source record each copy holds) is fed by the producer's
 * I/O thread and read by {@link dev.strait.mirror.sync.GroupOffsetSync}, the engine's {@code strait-group-sync}
 * loop, which persists it with the groups' checkpoints in the compacted {@link dev.strait.mirror.sync.SyncTopic}
 * and translates committed offsets through {@link dev.strait.mirror.sync.TranslationRound} (the rule is in
 * {@link dev.strait.mirror.sync.PartitionIndex}). {@code strait failover} and failback read the same topic and run
 * the same translation on the command's thread. Imports {@code mirror.config} and {@code mirror.provenance}, never
 * the engine, so the failover commands can use it without a running mirror; the engine, failover and the
 * benchmarks import it.
 */
package dev.strait.mirror.sync;
