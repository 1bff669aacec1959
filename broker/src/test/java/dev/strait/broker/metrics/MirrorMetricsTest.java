package dev.strait.broker.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.link.MirrorStatus;
import java.util.List;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

class MirrorMetricsTest {

    @Test
    void eachLedMirrorPartitionReportsItsLagInRecordsAndSecondsAndItsState() {
        // Given: orders-0 100 records behind since 30 s ago; orders-1 caught up; clicks-0 cut off from its source
        List<MirrorStatus> statuses = List.of(
                new MirrorStatus(
                        new TopicPartition("orders", 0),
                        "orders",
                        MirrorStatus.State.COPYING,
                        900,
                        1_000,
                        99_000,
                        70_000,
                        ""),
                new MirrorStatus(
                        new TopicPartition("orders", 1),
                        "orders",
                        MirrorStatus.State.COPYING,
                        500,
                        500,
                        99_000,
                        -1,
                        ""),
                new MirrorStatus(
                        new TopicPartition("clicks", 0),
                        "web.clicks",
                        MirrorStatus.State.SOURCE_UNREACHABLE,
                        10,
                        -1,
                        -1,
                        40_000,
                        "connection refused"));
        PrometheusText text = new PrometheusText();

        // When
        MirrorMetrics.writeTo(text, statuses, 100_000);

        // Then
        assertThat(text.toString())
                .contains(
                        "strait_broker_mirror_partition_lag_records{topic=\"orders\",partition=\"0\",source_topic=\"orders\"} 100\n",
                        "strait_broker_mirror_partition_lag_records{topic=\"orders\",partition=\"1\",source_topic=\"orders\"} 0\n",
                        "strait_broker_mirror_partition_lag_seconds{topic=\"orders\",partition=\"0\",source_topic=\"orders\"} 30\n",
                        "strait_broker_mirror_partition_lag_seconds{topic=\"orders\",partition=\"1\",source_topic=\"orders\"} 0\n",
                        "strait_broker_mirror_partition_lag_seconds{topic=\"clicks\",partition=\"0\",source_topic=\"web.clicks\"} 60\n",
                        "strait_broker_mirror_partition_state{topic=\"clicks\",partition=\"0\",source_topic=\"web.clicks\",state=\"SOURCE_UNREACHABLE\"} 1\n")
                .doesNotContain("lag_records{topic=\"clicks\"");
    }
}
