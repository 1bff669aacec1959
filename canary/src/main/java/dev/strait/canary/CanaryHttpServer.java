package dev.strait.canary;

import dev.strait.mirror.http.HttpEndpoint;
import dev.strait.mirror.http.HttpEndpoint.Response;
import dev.strait.mirror.http.Json;

/** {@code /status} (JSON), {@code /metrics} (Prometheus) and {@code /healthz} (200 unless LOST). */
public final class CanaryHttpServer implements AutoCloseable {
    private final HttpEndpoint endpoint;

    public CanaryHttpServer(String host, int port, Canary canary) {
        endpoint = new HttpEndpoint(host, port, "strait-canary-http")
                .route("/status", () -> Response.json(200, CanaryFormat.json(canary)))
                .route("/metrics", () -> Response.prometheus(CanaryFormat.prometheus(canary)))
                .route(
                        "/healthz",
                        () -> Response.json(canary.state() != CanaryState.LOST ? 200 : 503, Json.write(g -> {
                            g.writeStartObject();
                            g.writeStringField("state", canary.state().name());
                            g.writeEndObject();
                        })))
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
