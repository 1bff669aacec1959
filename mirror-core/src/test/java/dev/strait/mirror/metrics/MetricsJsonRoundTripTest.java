package dev.strait.mirror.metrics;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.Map;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/** /metrics.json and /healthz read back as written, whatever the topic, metric name or health detail holds. */
class MetricsJsonRoundTripTest {
    /** Quotes, backslash, every control character, non-ASCII and an HTML closing tag. */
    static String hostile() {
        StringBuilder b = new StringBuilder("t \"quoted\" back\\slash </script> é€😀 \u2028");
        for (char c = 0; c < 0x20; c++) {
            b.append(c);
        }
        return b.toString();
    }

    @Test
    void aHostileTopicAndMetricNameRoundTrip() throws Exception {
        String name = hostile();
        MirrorMetrics metrics = new MirrorMetrics(new MetricRegistry());
        metrics.consumerLag(1, Map.of(new TopicPartition(name, 4), 9L));
        metrics.registry().counter(name).inc(5);
        metrics.registry().histogram(name + "h").update(3);

        JsonNode read = new ObjectMapper().readTree(MetricsFormat.json(metrics.registry(), metrics.consumerLag()));

        JsonNode lag = read.get("consumerLag").get(0);
        assertThat(lag.get("topic").textValue()).isEqualTo(name);
        assertThat(lag.get("partition").intValue()).isEqualTo(4);
        assertThat(lag.get("lag").longValue()).isEqualTo(9);
        assertThat(read.get("counters").get(name).longValue()).isEqualTo(5);
        assertThat(read.get("histograms").get(name + "h").get("count").longValue())
                .isEqualTo(1);
    }

    @Test
    void aHostileHealthDetailRoundTrips() throws Exception {
        String detail = hostile();
        MirrorMetrics metrics = new MirrorMetrics(new MetricRegistry());
        try (MetricsHttpServer server =
                new MetricsHttpServer("127.0.0.1", 0, metrics, () -> new MetricsHttpServer.Health(false, detail))) {
            HttpResponse<String> r = HttpClient.newHttpClient()
                    .send(
                            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.port() + "/healthz"))
                                    .build(),
                            HttpResponse.BodyHandlers.ofString());

            assertThat(r.statusCode()).isEqualTo(503);
            JsonNode read = new ObjectMapper().readTree(r.body());
            assertThat(read.get("healthy").booleanValue()).isFalse();
            assertThat(read.get("detail").textValue()).isEqualTo(detail);
            assertThat(r.body()).startsWith("{\"healthy\":false,\"detail\":");
        }
    }
}
