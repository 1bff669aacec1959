/**
 * {@code strait failover} and {@code strait failback}: plans that are printed first and only applied with
 * {@code --execute}. {@link dev.strait.mirror.failover.FailoverPlanner} moves the matching groups to the target at
 * the exact translation of their source commits (from the source when it answers, otherwise from the mirror's
 * checkpoints in the sync topic) and yields a {@link dev.strait.mirror.failover.FailoverPlan};
 * {@link dev.strait.mirror.failover.Failback} copies back what was written on the target after the failover, with a
 * reverse {@code MirrorEngine}, and yields a {@link dev.strait.mirror.failover.FailbackPlan}: it reads both clusters
 * into a {@code FailbackObservation} and {@code FailbackPlanner} decides from it, without clients or a clock;
 * {@link dev.strait.mirror.failover.FailoverConfig} reads both commands' file. Not thread-safe: one command runs
 * it on its own thread (failback's reverse mirror brings the engine's threads). Imports {@code mirror.sync} for
 * the offset map and translation, plus config, provenance, metrics, engine and progress; only {@code cli.failover} imports it.
 */
package dev.strait.mirror.failover;
