/**
 * What the other modules' tests run against: real clusters behind one {@link dev.strait.testkit.TestCluster}
 * interface that speaks only through the Admin client, so one suite runs against Apache Kafka 4.1.1
 * ({@link dev.strait.testkit.KafkaCluster}, one child JVM per KRaft node through
 * {@link dev.strait.testkit.KafkaNodeMain}) and the companion broker ({@link dev.strait.testkit.CompanionCluster},
 * in the test JVM); no Kafka behaviour that crosses the wire is mocked. Around them: producers and readers of
 * comparable records, {@link dev.strait.testkit.ManualTime}, {@code SharedClusters} (one pair per test JVM, closed
 * by a shutdown hook) and the Docker gate. The clusters are driven by the test's thread; {@code LoadGenerator}
 * produces on its own background thread. Checkstyle forbids it the modules under test (mirror, lag monitor,
 * canary, command line); it may use the broker, whose clusters it runs. Those modules and the benchmarks use it.
 */
package dev.strait.testkit;
