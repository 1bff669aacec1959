package dev.strait.bench;

import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Parsers for the summaries that Apache Kafka 4.1.1's {@code ProducerPerformance} and {@code ConsumerPerformance}
 * print on stdout. Pure functions; the unit test feeds them lines captured from real runs.
 */
final class PerfOutput {
    /**
     * ProducerPerformance's final line, for example {@code 1000000 records sent, 95238.1 records/sec (93.01 MB/sec),
     * 290.12 ms avg latency, 817.00 ms max latency, 281 ms 50th, 512 ms 95th, 580 ms 99th, 780 ms 99.9th.}
     * The interim lines (every 5 s) lack the percentiles, so they do not match.
     */
    private static final Pattern PRODUCER_SUMMARY = Pattern.compile(
            "(\\d+) records sent, ([\\d.]+) records/sec \\(([\\d.]+) MB/sec\\), ([\\d.]+) ms avg latency, "
                    + "([\\d.]+) ms max latency, (\\d+) ms 50th, (\\d+) ms 95th, (\\d+) ms 99th, (\\d+) ms 99\\.9th\\.?");

    private static final int CONSUMER_FIELDS = 10;

    private PerfOutput() {}

    /** The producer's end-of-run summary; latencies are send-to-acknowledgement times in milliseconds. */
    record ProducerSummary(
            long records,
            double recordsPerSecond,
            double mbPerSecond,
            double avgLatencyMs,
            double maxLatencyMs,
            long p50Ms,
            long p95Ms,
            long p99Ms,
            long p999Ms) {}

    /**
     * The consumer's CSV line (header {@code start.time, end.time, data.consumed.in.MB, MB.sec,
     * data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec}). The
     * {@code fetch.*} rates leave out the group join (rebalance) time; the others cover the whole run.
     */
    record ConsumerSummary(
            double mb,
            double mbPerSecond,
            long records,
            double recordsPerSecond,
            long rebalanceMs,
            long fetchMs,
            double fetchMbPerSecond,
            double fetchRecordsPerSecond) {}

    /** The last summary line in the output, if there is one. */
    static Optional<ProducerSummary> parseProducer(List<String> lines) {
        ProducerSummary found = null;
        for (String line : lines) {
            Matcher m = PRODUCER_SUMMARY.matcher(line.trim());
            if (m.matches()) {
                found = new ProducerSummary(
                        Long.parseLong(m.group(1)),
                        Double.parseDouble(m.group(2)),
                        Double.parseDouble(m.group(3)),
                        Double.parseDouble(m.group(4)),
                        Double.parseDouble(m.group(5)),
                        Long.parseLong(m.group(6)),
                        Long.parseLong(m.group(7)),
                        Long.parseLong(m.group(8)),
                        Long.parseLong(m.group(9)));
            }
        }
        return Optional.ofNullable(found);
    }

    /** The last CSV data line in the output (the header and log lines are skipped), if there is one. */
    static Optional<ConsumerSummary> parseConsumer(List<String> lines) {
        ConsumerSummary found = null;
        for (String line : lines) {
            String[] f = line.split(",");
            if (f.length != CONSUMER_FIELDS || f[0].trim().equals("start.time")) {
                continue;
            }
            try {
                found = new ConsumerSummary(
                        Double.parseDouble(f[2].trim()),
                        Double.parseDouble(f[3].trim()),
                        Long.parseLong(f[4].trim()),
                        Double.parseDouble(f[5].trim()),
                        Long.parseLong(f[6].trim()),
                        Long.parseLong(f[7].trim()),
                        Double.parseDouble(f[8].trim()),
                        Double.parseDouble(f[9].trim()));
            } catch (NumberFormatException e) {
                // not a data line (a log line that happens to hold nine commas)
            }
        }
        return Optional.ofNullable(found);
    }
}
