package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.mirror.metrics.MetricsFormat;
import dev.strait.mirror.metrics.MirrorMetrics;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * The mirror exports how many of its streams are in each state (the Grafana mirror dashboard's "Streams" panel):
 * a stream counts as new once built, as running while it polls, then as stopped or failed, as its own state says.
 */
class MirrorStreamStateMetricsTest {
    @Test
    void everyStreamStateHasAGauge() {
        assertThat(MirrorMetrics.STREAM_STATES)
                .containsExactlyElementsOf(Arrays.stream(MirrorStream.State.values())
                        .map(s -> s.name().toLowerCase(java.util.Locale.ROOT))
                        .toList());
    }

    @Test
    void aStreamCountsAsRunningWhilePollingThenAsStopped() {
        StreamHarness h = new StreamHarness(true, StreamHarness.unlimited(1), b -> {});
        TopicPartition tp = new TopicPartition(StreamHarness.TOPIC, 0);
        String[] whilePolling = new String[1];
        h.consumer.schedulePollTask(() -> {
            h.consumer.updateBeginningOffsets(Map.of(tp, 0L));
            h.consumer.rebalance(List.of(tp));
        });
        h.consumer.schedulePollTask(() -> {
            whilePolling[0] = prometheus(h.metrics);
            h.stream.requestStop();
        });
        assertThat(prometheus(h.metrics)).contains("strait_mirror_streams_new 1\n");

        h.stream.run();

        assertThat(whilePolling[0])
                .contains("strait_mirror_streams_new 0\n")
                .contains("strait_mirror_streams_running 1\n")
                .contains("strait_mirror_streams_stopped 0\n");
        assertThat(prometheus(h.metrics))
                .contains("strait_mirror_streams_running 0\n")
                .contains("strait_mirror_streams_stopped 1\n")
                .contains("strait_mirror_streams_failed 0\n");
    }

    @Test
    void aStreamThatFailsCountsAsFailed() {
        StreamHarness h = new StreamHarness(true, StreamHarness.unlimited(1), b -> {});
        h.consumer.setPollException(new KafkaException("the source went away"));

        assertThatThrownBy(h.stream::run).isInstanceOf(RuntimeException.class);

        assertThat(prometheus(h.metrics))
                .contains("strait_mirror_streams_running 0\n")
                .contains("strait_mirror_streams_failed 1\n");
    }

    private static String prometheus(MirrorMetrics metrics) {
        return MetricsFormat.prometheus(metrics.registry(), Map.of());
    }
}
