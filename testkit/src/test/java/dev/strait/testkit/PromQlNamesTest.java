package dev.strait.testkit;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PromQlNamesTest {
    @Test
    void aSelectorWithLabelsIsItsMetricOnly() {
        assertThat(PromQlNames.of("strait_lag_exact_records{job=\"strait-lag-monitor\", topic=~\"$topic\"}"))
                .containsExactly("strait_lag_exact_records");
    }

    @Test
    void functionsAggregationsLabelListsAndDurationsAreNotMetrics() {
        assertThat(PromQlNames.of("histogram_quantile(0.99, sum by (api, le) (rate("
                        + "strait_broker_request_latency_seconds_bucket{cluster=~\"$cluster\"}[5m])))"))
                .containsExactly("strait_broker_request_latency_seconds_bucket");
        assertThat(PromQlNames.of("sum without (instance) (increase(a_total[$__rate_interval])) / on (group)"
                        + " group_left (topic) b"))
                .containsExactly("a_total", "b");
        assertThat(PromQlNames.of("max(time() - c_ms / 1000 and c_ms > 0)")).containsExactly("c_ms");
    }

    @Test
    void keywordsNumbersAndStringsAreNotMetrics() {
        assertThat(PromQlNames.of("d == 1e3 or d > bool 0.5 unless e offset 5m"))
                .containsExactly("d", "e");
        assertThat(PromQlNames.of("label_replace(f, \"dst\", \"$1\", \"src\", \"(g_total)\")"))
                .containsExactly("f");
    }
}
