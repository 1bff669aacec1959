package dev.strait.bench;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.bench.BrokerNode.Kind;
import dev.strait.bench.PerfOutput.ConsumerSummary;
import dev.strait.bench.PerfOutput.ProducerSummary;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The reports of bin/bench broker and cluster, to the character, from given measurements. */
class BenchReportsTest {

    @Test
    void brokerReport() throws Exception {
        BrokerBench.Options options = BrokerBench.parse(new String[0]);
        Map<Kind, BrokerBench.Measured> results = new EnumMap<>(Kind.class);
        results.put(
                Kind.KAFKA,
                new BrokerBench.Measured(
                        1234.5678,
                        300L,
                        new ProducerSummary(1_000_000, 250000.25, 244.14, 3.5, 40.0, 2, 9, 15, 20),
                        new ProducerSummary(1_000_000, 120000.0, 117.19, 9.25, 80.0, 0, 20, 30, 45),
                        new ProducerSummary(300_000, 9999.87, 9.77, 1.234, 12.0, 1, 2, 3, 7),
                        new ConsumerSummary(976.56, 390.62, 1_000_000, 400000.0, 3012, 2000, 488.28, 500000.5),
                        512L,
                        640L,
                        Map.of()));
        Map<String, String> straitFailures = new LinkedHashMap<>();
        straitFailures.put("fixed-rate acks=all", "IllegalStateException: exit 1, 5 of 300000 records sent; tail:\nx");
        straitFailures.put("consume", "skipped: broker process has exited");
        results.put(
                Kind.STRAIT,
                new BrokerBench.Measured(
                        321.0,
                        80L,
                        new ProducerSummary(1_000_000, 300000.0, 292.97, 2.5, 35.0, 1, 8, 12, 25),
                        new ProducerSummary(1_000_000, 100000.0, 97.66, 11.0, 90.0, 3, 25, 33, 50),
                        null,
                        null,
                        150L,
                        170L,
                        straitFailures));
        String report = BrokerBench.report(options, "HEADER", results);
        assertThat(masked(report)).isEqualTo("""
                HEADER; run order: Apache Kafka 4.1.1, Strait broker

                | metric | Apache Kafka 4.1.1 | Strait broker | Strait / Kafka | better |
                |---|---:|---:|---:|---|
                | start-up: spawn to Admin answered (ms) | 1,235 | 321 | 0.26 | lower |
                | produce acks=1 (records/s) | 250,000 | 300,000 | 1.20 | higher |
                | produce acks=1 (MB/s) | 244 | 293 | 1.20 | higher |
                | produce acks=1 p50 latency (ms) | 2 | 1 | 0.50 | lower |
                | produce acks=1 p99 latency (ms) | 15 | 12 | 0.80 | lower |
                | produce acks=1 p99.9 latency (ms) | 20 | 25 | 1.25 | lower |
                | produce acks=all (records/s) | 120,000 | 100,000 | 0.83 | higher |
                | produce acks=all (MB/s) | 117 | 97.66 | 0.83 | higher |
                | produce acks=all p50 latency (ms) | 0 | 3 | - | lower |
                | produce acks=all p99 latency (ms) | 30 | 33 | 1.10 | lower |
                | produce acks=all p99.9 latency (ms) | 45 | 50 | 1.11 | lower |
                | fixed-rate acks=all: achieved (records/s) | 10,000 | - | - |  |
                | fixed-rate acks=all avg latency (ms) | 1.23 | - | - | lower |
                | fixed-rate acks=all p50 latency (ms) | 1 | - | - | lower |
                | fixed-rate acks=all p99 latency (ms) | 3 | - | - | lower |
                | fixed-rate acks=all p99.9 latency (ms) | 7 | - | - | lower |
                | consume, whole run incl. group join (records/s) | 400,000 | - | - | higher |
                | consume, whole run (MB/s) | 391 | - | - | higher |
                | consume, fetch only (records/s) | 500,001 | - | - | higher |
                | consume: group join (ms) | 3,012 | - | - | lower |
                | RSS idle after start-up (MiB) | 300 | 80 | 0.27 | lower |
                | RSS after the workload (MiB) | 512 | 150 | 0.29 | lower |
                | RSS peak, VmHWM (MiB) | 640 | 170 | 0.27 | lower |

                **Strait broker failed at fixed-rate acks=all:** IllegalStateException: exit 1, 5 of 300000 records sent; tail:
                x
                **Strait broker failed at consume:** skipped: broker process has exited

                Load average at the end: LOAD, TIME. Latencies are ProducerPerformance's send-to-acknowledgement times; unthrottled runs measure mostly the producer's own queue, the fixed-rate run (10000 records/s, 300000 records) the broker. Consumer: ConsumerPerformance --messages 1000000 in a new group.""");
    }

    @Test
    void clusterReport() throws Exception {
        ClusterBench.Options options = ClusterBench.parse(
                new String[] {"--runs", "2", "--session-timeout-ms", "9000,3000", "--strait-flush-on-ack"});
        Map<String, List<ClusterBench.ClusterRun>> results = new LinkedHashMap<>();
        results.put(
                "KAFKA/9000",
                List.of(run(1500.0, 200000.0, 2, 3, 1, 6.125, 2, 0), run(1600.0, 210000.5, 3, 1, 1, 9.5, 3, 2)));
        results.put("STRAIT/9000", List.of(run(400.0, 150000.0, 1, 2, 3, 0.75, 1, 4), partial(450.0)));
        results.put(
                "STRAIT_FLUSH_ON_ACK/9000",
                List.of(run(420.0, 90000.0, 4, 1, 2, 0.5, 2, 0), run(430.0, 95000.0, 5, 2, 2, 3.25, 1, 1)));
        Map<String, String> failures = new LinkedHashMap<>();
        failures.put(
                "STRAIT/9000 run 2 failover",
                "IllegalStateException: no acknowledged send within 60 s after the kill (7 errors)");
        String report = ClusterBench.report(options, results, failures);
        assertThat(masked(report)).isEqualTo("""
                broker.session.timeout.ms=9000 (both), 2 runs each on fresh clusters: medians, node ids per run

                | metric | Apache Kafka 4.1.1 | Strait broker | Strait / Kafka | Strait broker, flush.on.ack | flush.on.ack / Kafka |
                |---|---:|---:|---:|---:|---:|
                | start-up: 3 nodes registered (ms) | 1,550 | 425 | 0.27 | 425 | 0.27 |
                | produce acks=all (records/s) | 205,000 | 150,000 | 0.73 | 92,500 | 0.45 |
                | produce acks=all (MB/s) | 210 | 154 | 0.73 | 94.72 | 0.45 |
                | produce acks=all p50 latency (ms) | 2.50 | 1 | 0.40 | 4.50 | 1.80 |
                | produce acks=all p99 latency (ms) | 25 | 10 | 0.40 | 45 | 1.80 |
                | produce acks=all p99.9 latency (ms) | 50 | 20 | 0.40 | 90 | 1.80 |
                | failover: SIGKILL of leader to first ack (s) | 7.81 | 0.75 | 0.10 | 1.88 | 0.24 |
                | killed partition's leader (node id) | 3,1 | 2,2 | - | 1,2 | - |
                | active controller before the kill (node id) | 1,1 | 3,2 | - | 2,2 | - |
                | killed node was the active controller (1 yes, 0 no) | 0,1 | 0,1 | - | 0,1 | - |
                | that partition's new leader (node id) | 2,3 | 1 | - | 2,1 | - |
                | active controller after the kill (node id) | 1,3 | 3 | - | 2,1 | - |
                | failover: failed sends | 1 | 4 | 4.00 | 0.50 | 0.50 |

                failover, SIGKILL of partition 0's leader to the first acknowledged send (s); C = the killed node was also the active controller

                | run | Apache Kafka 4.1.1 | Strait broker |
                |---|---:|---:|
                | 1 | 6.125 | 0.750 |
                | 2 | 9.500 C | failed |
                | median | 7.813 | 0.750 |
                | p99 (nearest rank; = max for N <= 100) | 9.500 | 0.750 |

                Strait / Kafka: median 0.10, p99 0.08 (1 and 2 successful runs).

                **failed: STRAIT/9000 run 2 failover:** IllegalStateException: no acknowledged send within 60 s after the kill (7 errors)
                Load average at the end: LOAD, TIME.""");
    }

    @Test
    void clusterReportOfOneSystem() {
        ClusterBench.Options options = ClusterBench.parse(new String[] {"--only", "strait"});
        Map<String, List<ClusterBench.ClusterRun>> results = new LinkedHashMap<>();
        results.put("STRAIT/9000", List.of(run(400.0, 150000.0, 1, 2, 2, 0.75, 1, 4)));
        String report = ClusterBench.report(options, results, Map.of());
        assertThat(report)
                .contains("| start-up: 3 nodes registered (ms) | - | 400 | - |\n")
                .contains("| killed partition's leader (node id) | - | 2 | - |\n")
                .contains("| failover: SIGKILL of leader to first ack (s) | - | 0.75 | - |\n");
    }

    /** The load average and the time at the end vary. */
    private static String masked(String report) {
        return report.replaceFirst("Load average at the end: [^,]*, \\S+?Z", "Load average at the end: LOAD, TIME");
    }

    private static ClusterBench.ClusterRun run(
            double startup,
            double rps,
            long p50,
            int leader,
            int controller,
            double failover,
            int newLeader,
            long errors) {
        return new ClusterBench.ClusterRun(
                startup,
                new ProducerSummary(1000, rps, rps * 1024 / 1e6, 1.0, p50 * 30.0, p50, p50 * 5, p50 * 10, p50 * 20),
                new ClusterBench.Kill(leader, controller),
                new ClusterBench.Failover(failover, newLeader, errors, controller == leader ? newLeader : controller));
    }

    /** Started and produced nothing; the kill chosen, then no acknowledged send. */
    private static ClusterBench.ClusterRun partial(double startup) {
        return new ClusterBench.ClusterRun(startup, null, new ClusterBench.Kill(2, 2), null);
    }
}
