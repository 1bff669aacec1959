package dev.strait.mirror.metrics;

import dev.strait.mirror.http.HttpEndpoint;
import dev.strait.mirror.http.HttpEndpoint.Response;
import dev.strait.mirror.http.Json;
import java.util.function.Supplier;

/**
 * The mirror's HTTP endpoint: {@code /metrics} (Prometheus text), {@code /metrics.json} and {@code /healthz}
 * (200 while the mirror runs, 503 once it stopped or failed).
 */
public final class MetricsHttpServer implements AutoCloseable {
    /** What {@code /healthz} reports: healthy or not, and a one-line reason. */
    public record Health(boolean healthy, String detail) {}

    private final HttpEndpoint endpoint;

    public MetricsHttpServer(String host, int port, MirrorMetrics metrics, Supplier<Health> health) {
        endpoint = new HttpEndpoint(host, port, "strait-metrics-http")
                .route("/metrics.json", () -> {
                    metrics.sync();
                    return Response.json(200, MetricsFormat.json(metrics.registry(), metrics.consumerLag()));
                })
                .route("/metrics", () -> {
                    metrics.sync();
                    return Response.prometheus(
                            MetricsFormat.prometheus(metrics.registry(), metrics.consumerLag(), metrics.positions()));
                })
                .route("/healthz", () -> {
                    Health h = health.get();
                    return Response.json(h.healthy() ? 200 : 503, Json.write(g -> {
                        g.writeStartObject();
                        g.writeBooleanField("healthy", h.healthy());
                        Json.string(g, "detail", h.detail());
                        g.writeEndObject();
                    }));
                })
                .start();
    }

    public int port() {
        return endpoint.port();
    }

    @Override
    public void close() {
        endpoint.close();
    }
}
