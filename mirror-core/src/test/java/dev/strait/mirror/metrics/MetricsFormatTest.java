package dev.strait.mirror.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class MetricsFormatTest {
    @Test
    void prometheusTextHasCountersMetersSummariesAndPartitionLag() {
        // Given
        MirrorMetrics metrics = new MirrorMetrics(new MetricRegistry());
        metrics.consumed(3, 300);
        metrics.produced(100, 42);
        metrics.sendError();
        metrics.consumerLag(0, Map.of(new TopicPartition("orders", 1), 7L));

        // When
        String text = MetricsFormat.prometheus(metrics.registry(), metrics.consumerLag());

        // Then
        assertThat(text)
                .contains("strait_mirror_records_consumed_total 3")
                .contains("strait_mirror_send_errors_total 1")
                .contains("# TYPE strait_mirror_record_age_ms summary")
                .contains("strait_mirror_partition_consumer_lag_records{topic=\"orders\",partition=\"1\"} 7")
                .contains("strait_mirror_consumer_lag_records 7");
    }

    @Test
    void theLagOfMirrorTopicsACompanionCopiesIsReportedUnderTheSameNamesAsTheStreams() {
        // Given: a stream's lag and, from --offset.preserving, the lag and positions of mirror topics
        MirrorMetrics metrics = new MirrorMetrics(new MetricRegistry());
        metrics.consumerLag(0, Map.of(new TopicPartition("orders", 0), 7L));
        metrics.linkedLag(
                Map.of(new TopicPartition("clicks", 0), 5L, new TopicPartition("clicks", 1), 0L),
                Map.of(new TopicPartition("clicks", 0), 995L, new TopicPartition("clicks", 1), 40L));

        // When
        String text = MetricsFormat.prometheus(metrics.registry(), metrics.consumerLag(), metrics.positions());

        // Then
        assertThat(metrics.totalLag()).isEqualTo(12);
        assertThat(text)
                .contains("strait_mirror_partition_consumer_lag_records{topic=\"clicks\",partition=\"0\"} 5")
                .contains("strait_mirror_partition_consumer_lag_records{topic=\"clicks\",partition=\"1\"} 0")
                .contains("strait_mirror_partition_consumer_lag_records{topic=\"orders\",partition=\"0\"} 7")
                .contains("strait_mirror_partition_position{topic=\"clicks\",partition=\"0\"} 995")
                .contains("strait_mirror_consumer_lag_records 12");
    }

    @Test
    void jsonIsWellFormedEnoughToFindTheFigures() {
        MirrorMetrics metrics = new MirrorMetrics(new MetricRegistry());
        metrics.consumerLag(1, Map.of(new TopicPartition("a\"b", 0), 2L));

        String json = MetricsFormat.json(metrics.registry(), metrics.consumerLag());

        assertThat(json)
                .startsWith("{")
                .endsWith("}")
                .contains("\"topic\":\"a\\\"b\"")
                .contains("\"lag\":2");
    }
}
