/**
 * The canary: a black-box check of the whole path, independent of the mirror's own metrics. {@link
 * dev.strait.canary.Canary} wires and runs the parts: {@link dev.strait.canary.Prober} produces a
 * {@link dev.strait.canary.Probe} to every partition of a canary topic on the source each interval,
 * {@link dev.strait.canary.ProbeReader} reads the copies back from the target, timing them on this process's clock
 * so the clusters' clocks never matter, {@link dev.strait.canary.ProbeTracker} decides OK, LATE or LOST (and counts
 * the late, lost and duplicated), {@link dev.strait.canary.CanaryAlerter} logs and posts each change, and
 * {@link dev.strait.canary.CanaryHttpServer} serves it all. Threads: {@code strait-canary-scheduler} (probe rounds,
 * the evaluation and its alerts), {@code strait-canary-reader} (polls the target) and {@code strait-canary-http};
 * they share only the synchronized tracker, the metrics registry and volatile fields. Of Kafka it may import only
 * kafka-clients' public API, and of the mirror only {@code config}, {@code provenance}, {@code http} and
 * {@code webhook} ({@code import-control-strait-canary.xml}); the command line imports it.
 */
package dev.strait.canary;
