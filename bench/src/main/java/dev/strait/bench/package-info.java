/**
 * Benchmarks, not tests: each {@code *Bench} class is the main of one {@code bin/bench} mode and prints what it
 * measured. Strait is compared with what it replaces on the same machine and never at the same time:
 * {@link dev.strait.bench.MirrorBench} and {@link dev.strait.bench.FailoverBench} against MirrorMaker 2 on two
 * local Apache Kafka clusters, {@link dev.strait.bench.BrokerBench} and {@link dev.strait.bench.ClusterBench} the
 * companion broker against Apache Kafka 4.1.1; the others measure one part alone (lag sampling, offset translation,
 * the metadata quorum, the nemesis campaign). Each main runs on its own thread plus its clients' threads; Kafka
 * clusters come from the testkit, and brokers and mirrors run as child JVMs, destroyed when the run ends (several
 * benches also from a shutdown hook through {@code ChildProcesses}, so an interrupted run leaves none behind).
 * Every mode reads its flags with picocli through {@code BenchFlags} ({@code --help} prints them with their
 * defaults; a bad flag exits with code 2); the broker and cluster benches share their Kafka tool runs
 * ({@code PerfTools}) and report text ({@code ReportText}), and their results are records, not maps.
 * Checkstyle lets it import anything (it drives Kafka's own tools and reaches into mirror-core, lag-monitor,
 * broker and testkit internals); nothing imports it.
 */
package dev.strait.bench;
