package dev.strait.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The parsers against lines captured from Kafka 4.1.1's tools in real {@code bin/bench broker} runs; the consumer's
 * timeout warning (not seen in a run) follows the tool's format string in kafka-tools-4.1.1.jar.
 */
class PerfOutputTest {

    @Test
    void producerSummaryIsTheFinalLineWithPercentiles() {
        // Given
        List<String> output = List.of(
                "[main] WARN org.apache.kafka.clients.producer.ProducerConfig - some log line, with, commas",
                "21691 records sent, 4320.9 records/sec (4.22 MB/sec), 1659.9 ms avg latency, 2984.0 ms max latency.",
                "20000 records sent, 6830.6 records/sec (6.67 MB/sec), 1270.87 ms avg latency, 1640.00 ms max latency, "
                        + "1384 ms 50th, 1598 ms 95th, 1622 ms 99th, 1635 ms 99.9th.");

        // When
        PerfOutput.ProducerSummary s = PerfOutput.parseProducer(output).orElseThrow();

        // Then
        assertThat(s)
                .isEqualTo(
                        new PerfOutput.ProducerSummary(20000, 6830.6, 6.67, 1270.87, 1640.00, 1384, 1598, 1622, 1635));
    }

    @Test
    void producerInterimLinesAloneAreNoSummary() {
        // Given
        List<String> output = List.of(
                "21691 records sent, 4320.9 records/sec (4.22 MB/sec), 1659.9 ms avg latency, 2984.0 ms max latency.");

        // When / Then
        assertThat(PerfOutput.parseProducer(output)).isEmpty();
    }

    @Test
    void consumerSummaryIsTheCsvLineAfterTheHeader() {
        // Given
        List<String> output = List.of(
                "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, "
                        + "fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec",
                "2026-11-29 12:20:45:569, 2026-11-29 12:20:46:624, 19.5313, 18.5130, 20000, 18957.3460, 627, 428, "
                        + "45.6338, 46728.9720");

        // When
        PerfOutput.ConsumerSummary s = PerfOutput.parseConsumer(output).orElseThrow();

        // Then
        assertThat(s)
                .isEqualTo(new PerfOutput.ConsumerSummary(
                        19.5313, 18.5130, 20000, 18957.3460, 627, 428, 45.6338, 46728.9720));
    }

    @Test
    void consumerWithoutDataLineHasNoSummary() {
        // Given
        List<String> output = List.of(
                "start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms, "
                        + "fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec",
                "WARNING: Exiting before consuming the expected number of messages: timeout (30000 ms) exceeded. You can "
                        + "use the --timeout option to increase the timeout.");

        // When / Then
        assertThat(PerfOutput.parseConsumer(output)).isEmpty();
    }
}
