package dev.strait.bench;

import dev.strait.bench.PerfOutput.ConsumerSummary;
import dev.strait.bench.PerfOutput.ProducerSummary;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Kafka's own {@code ProducerPerformance} and {@code ConsumerPerformance}, each a child JVM with the same JVM and
 * client settings whichever broker or cluster it talks to (the tools' defaults plus {@code acks}), so that the
 * brokers compared differ only in themselves. A run that exits badly, prints no summary or moves fewer records
 * than asked fails with the tail of its log.
 */
final class PerfTools {
    private PerfTools() {}

    /** A producer run: the tool's summary and how long the child ran. */
    record Produced(ProducerSummary summary, double seconds) {
        /** The summary as the benches log it. */
        String describe() {
            return String.format(
                    Locale.ROOT,
                    "%.0f records/s, %.2f MB/s, p50 %d ms, p99 %d ms, p99.9 %d ms, max %.0f ms (%.1f s)",
                    summary.recordsPerSecond(),
                    summary.mbPerSecond(),
                    summary.p50Ms(),
                    summary.p99Ms(),
                    summary.p999Ms(),
                    summary.maxLatencyMs(),
                    seconds);
        }
    }

    /** A consumer run: the tool's summary and how long the child ran. */
    record Consumed(ConsumerSummary summary, double seconds) {}

    /**
     * Sends {@code records} records of {@code recordBytes} bytes to {@code topic}; {@code throughput} records/s,
     * or -1 for unthrottled.
     */
    static Produced produce(
            ChildProcesses children,
            String bootstrap,
            String topic,
            String acks,
            long records,
            int recordBytes,
            int throughput,
            Path log,
            Duration timeout,
            Runnable whileWaiting)
            throws InterruptedException {
        List<String> cmd = command("org.apache.kafka.tools.ProducerPerformance");
        cmd.addAll(List.of(
                "--topic",
                topic,
                "--num-records",
                String.valueOf(records),
                "--record-size",
                String.valueOf(recordBytes),
                "--throughput",
                String.valueOf(throughput),
                "--producer-props",
                "bootstrap.servers=" + bootstrap,
                "acks=" + acks));
        ChildProcesses.Completed done = children.run(cmd, log, timeout, whileWaiting);
        ProducerSummary s = PerfOutput.parseProducer(done.lines())
                .orElseThrow(() -> new IllegalStateException("no summary line (exit " + done.exitCode() + "); tail:\n"
                        + ChildProcesses.tail(done.log(), 10)));
        if (done.exitCode() != 0 || s.records() != records) {
            throw new IllegalStateException("exit " + done.exitCode() + ", " + s.records() + " of " + records
                    + " records sent; tail:\n" + ChildProcesses.tail(done.log(), 10));
        }
        return new Produced(s, done.seconds());
    }

    /** Reads at least {@code records} records of {@code topic} in a new {@code group}. */
    static Consumed consume(
            ChildProcesses children,
            String bootstrap,
            String topic,
            long records,
            String group,
            int idleTimeoutMs,
            Path log,
            Duration timeout,
            Runnable whileWaiting)
            throws InterruptedException {
        List<String> cmd = command("org.apache.kafka.tools.ConsumerPerformance");
        cmd.addAll(List.of(
                "--bootstrap-server",
                bootstrap,
                "--topic",
                topic,
                "--messages",
                String.valueOf(records),
                "--group",
                group,
                "--timeout",
                String.valueOf(idleTimeoutMs)));
        ChildProcesses.Completed done = children.run(cmd, log, timeout, whileWaiting);
        ConsumerSummary s = PerfOutput.parseConsumer(done.lines())
                .orElseThrow(() -> new IllegalStateException(
                        "no CSV line (exit " + done.exitCode() + "); tail:\n" + ChildProcesses.tail(done.log(), 10)));
        if (done.exitCode() != 0 || s.records() < records) {
            throw new IllegalStateException("exit " + done.exitCode() + ", " + s.records() + " of " + records
                    + " records read; tail:\n" + ChildProcesses.tail(done.log(), 10));
        }
        return new Consumed(s, done.seconds());
    }

    /** A child JVM running {@code mainClass} from this class path; the English locale keeps the output parseable. */
    private static List<String> command(String mainClass) {
        List<String> cmd = new ArrayList<>();
        cmd.add(BrokerNode.java());
        cmd.addAll(List.of(
                "-Xmx512m",
                "-Duser.language=en",
                "-Duser.country=US",
                "-Dorg.slf4j.simpleLogger.defaultLogLevel=warn",
                "-cp",
                System.getProperty("java.class.path"),
                mainClass));
        return cmd;
    }
}
