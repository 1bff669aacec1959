package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.mirror.metrics.MetricsHttpServer;
import dev.strait.testkit.TestCluster;
import dev.strait.testkit.TestProducer;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The metrics endpoint of a running mirror: Prometheus text, JSON and health, with the clients' metrics bridged in. */
class MetricsEndpointIT {

    private static HttpResponse<String> get(int port, String path) throws Exception {
        return HttpClient.newHttpClient()
                .send(
                        HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                                .timeout(Duration.ofSeconds(10))
                                .build(),
                        HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void servesMirrorAndClientMetricsAndHealth() throws Exception {
        // Given: a running mirror that copied 600 records
        MirrorFixture fixture = new MirrorFixture(TestCluster.Kind.KAFKA);
        fixture.source().createTopic("metrics.t", 3);
        try (TestProducer producer = new TestProducer(fixture.source().bootstrapServers())) {
            producer.produce("metrics.t", 3, 200);
        }
        MirrorEngine engine = MirrorFixture.start(
                fixture.settings("g-metrics", "metrics\\.t").numStreams(2).build());
        try (MetricsHttpServer http = new MetricsHttpServer(
                "127.0.0.1",
                0,
                engine.metrics(),
                () -> new MetricsHttpServer.Health(
                        engine.state() == MirrorEngine.State.RUNNING,
                        engine.state().name()))) {
            fixture.awaitTarget("metrics.t", 600);
            dev.strait.time.Await.until("per-partition position published", Duration.ofSeconds(30), () -> {
                try {
                    return get(http.port(), "/metrics")
                            .body()
                            .contains("strait_mirror_partition_position{topic=\"metrics.t\",partition=\"0\"} 200");
                } catch (Exception e) {
                    return false;
                }
            });

            // When
            HttpResponse<String> prometheus = get(http.port(), "/metrics");
            HttpResponse<String> json = get(http.port(), "/metrics.json");
            HttpResponse<String> healthy = get(http.port(), "/healthz");
            MirrorFixture.stop(engine);
            HttpResponse<String> stopped = get(http.port(), "/healthz");

            // Then
            assertThat(prometheus.statusCode()).isEqualTo(200);
            assertThat(prometheus.body())
                    .contains("strait_mirror_records_produced_total 600")
                    .contains("strait_mirror_client_producer_batch_size_avg")
                    .contains("strait_mirror_client_consumer_stream_0_fetch_size_avg")
                    .contains("strait_mirror_client_producer_requests_in_flight")
                    .contains("strait_mirror_flush_time_seconds_count")
                    .contains("strait_mirror_partition_consumer_lag_records{topic=\"metrics.t\"")
                    .contains("strait_mirror_partition_position{topic=\"metrics.t\",partition=\"0\"} 200");
            assertThat(json.body()).contains("\"strait.mirror.records-produced\":{\"count\":600");
            assertThat(healthy.statusCode()).isEqualTo(200);
            assertThat(stopped.statusCode()).isEqualTo(503);
        }
    }
}
