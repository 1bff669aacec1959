package dev.strait.broker.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.time.Time;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** The text exposition format Prometheus parses: HELP and TYPE lines, label escaping, cumulative buckets. */
class PrometheusTextTest {

    @Test
    void writesHelpTypeAndSamplesWithEscapedLabels() {
        String text = new PrometheusText()
                .family("strait_broker_x", "gauge", "A help \\ with\na newline.")
                .sample("strait_broker_x", 3, "topic", "a\"b\\c\nd")
                .sample("strait_broker_x", 0.25)
                .toString();

        assertThat(text)
                .isEqualTo("# HELP strait_broker_x A help \\\\ with\\na newline.\n"
                        + "# TYPE strait_broker_x gauge\n"
                        + "strait_broker_x{topic=\"a\\\"b\\\\c\\nd\"} 3\n"
                        + "strait_broker_x 0.25\n");
    }

    @Test
    void formatsSpecialValuesAsPrometheusDoes() {
        assertThat(PrometheusText.format(Double.NaN)).isEqualTo("NaN");
        assertThat(PrometheusText.format(Double.POSITIVE_INFINITY)).isEqualTo("+Inf");
        assertThat(PrometheusText.format(Double.NEGATIVE_INFINITY)).isEqualTo("-Inf");
        assertThat(PrometheusText.format(-1)).isEqualTo("-1");
        assertThat(PrometheusText.format(12345678901L)).isEqualTo("12345678901");
    }

    @Test
    void refusesAnOddLabelList() {
        assertThatThrownBy(() -> new PrometheusText().sample("x", 1, "api"))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("pairs");
    }

    @Test
    void requestLatencyIsACumulativeHistogramPerApiWithBytesCounted() {
        AtomicLong nanos = new AtomicLong();
        Time clock = new Time() {
            @Override
            public long milliseconds() {
                return nanos.get() / 1_000_000L;
            }

            @Override
            public long nanoseconds() {
                return nanos.get();
            }
        };
        RequestMetrics metrics = new RequestMetrics(clock);
        metrics.onCompleted("Produce", 3_000_000L, 100, 40); // 3 ms
        metrics.onCompleted("Produce", 40_000_000_000L, 10, 0); // 40 s: above every bound
        metrics.onCompleted("Fetch", 200_000L, 20, 500); // 0.2 ms
        metrics.onCompleted(null, 1, 7, 0); // never parsed: bytes only

        PrometheusText text = new PrometheusText();
        metrics.writeTo(text);
        String out = text.toString();

        assertThat(out)
                .contains("# TYPE strait_broker_requests_total counter\n")
                .contains("strait_broker_requests_total{api=\"Fetch\"} 1\n")
                .contains("strait_broker_requests_total{api=\"Produce\"} 2\n")
                .contains("# TYPE strait_broker_request_latency_seconds histogram\n")
                .contains("strait_broker_request_latency_seconds_bucket{api=\"Produce\",le=\"0.0025\"} 0\n")
                .contains("strait_broker_request_latency_seconds_bucket{api=\"Produce\",le=\"0.005\"} 1\n")
                .contains("strait_broker_request_latency_seconds_bucket{api=\"Produce\",le=\"30\"} 1\n")
                .contains("strait_broker_request_latency_seconds_bucket{api=\"Produce\",le=\"+Inf\"} 2\n")
                .contains("strait_broker_request_latency_seconds_sum{api=\"Produce\"} 40.003\n")
                .contains("strait_broker_request_latency_seconds_count{api=\"Produce\"} 2\n")
                .contains("strait_broker_request_latency_seconds_bucket{api=\"Fetch\",le=\"0.0005\"} 1\n")
                .contains("strait_broker_bytes_in_total 137\n")
                .contains("strait_broker_bytes_out_total 540\n")
                .doesNotContain("api=\"null\"");
        assertThat(metrics.requests("Produce")).isEqualTo(2);
        assertThat(metrics.nanoseconds()).isZero();
    }
}
