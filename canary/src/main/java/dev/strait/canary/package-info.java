/**
 * The canary: a black-box check of the whole path, independent of the mirror's own metrics. {@link
 * dev.strait.canary.Canary} produces a {@link dev.strait.canary.Probe} to every partition of a canary topic on the
 * source each interval and reads the copies back from the target, timing them on its own clock so the clusters'
 * clocks never matter; {@link dev.strait.canary.ProbeTracker} decides OK, LATE or LOST, and
 * {@link dev.strait.canary.CanaryHttpServer} serves it. Threads: {@code strait-canary-scheduler} (probe rounds and
 * the evaluation), {@code strait-canary-reader} (polls the target) and {@code strait-canary-http}; they share only
 * the synchronized tracker and the metrics registry. Of Kafka it may import only kafka-clients' public API, and of
 * the mirror only {@code config}, {@code provenance} and {@code http} ({@code import-control-strait-canary.xml});
 * the command line imports it.
 */
package dev.strait.canary;
