/**
 * The lag monitor: an independent daemon that says how far behind a mirror is, from the clusters themselves rather
 * than from the mirror's own account. {@link dev.strait.lag.LagMonitor} runs the cycle: sample
 * ({@code lag.sample}), evaluate ({@code lag.status}), alert ({@code lag.alert}) and now and then audit
 * ({@code lag.audit}), all on one loop thread (the command line's {@code strait-lag-monitor}), which also keeps the
 * last hour of lag and reads the canary and the mirror for the status page ({@code lag.peer}); it publishes each
 * verdict, history and neighbours' state as an immutable value for {@code lag.http}'s endpoint thread to read. {@code strait lag-monitor check}
 * and {@code audit} run the same parts once on the command's thread. Of Kafka the module may import only
 * kafka-clients' public API, and of the mirror only {@code config}, {@code provenance}, {@code handler},
 * {@code http} and {@code webhook} ({@code import-control-strait-lag-monitor.xml}); the command line and the benchmarks import it.
 */
package dev.strait.lag;
