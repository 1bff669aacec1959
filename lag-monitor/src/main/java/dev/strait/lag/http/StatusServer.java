package dev.strait.lag.http;

import dev.strait.lag.audit.ContinuousAudit;
import dev.strait.lag.status.StatusEvaluator.GroupStatus;
import dev.strait.mirror.http.HttpEndpoint;
import dev.strait.mirror.http.HttpEndpoint.Response;
import dev.strait.mirror.http.Json;
import java.util.function.Supplier;

/**
 * {@code /status} (JSON), {@code /metrics} (Prometheus text) and {@code /healthz} (200 once a cycle has
 * completed and the latest is recent; 503 before, or when sampling stopped).
 */
public final class StatusServer implements AutoCloseable {
    private final HttpEndpoint endpoint;

    public StatusServer(
            String host,
            int port,
            String group,
            Supplier<GroupStatus> latest,
            Supplier<Boolean> healthy,
            Supplier<ContinuousAudit.Summary> audit) {
        endpoint = new HttpEndpoint(host, port, "strait-lag-http")
                .route("/status", () -> {
                    GroupStatus s = latest.get();
                    return s == null
                            ? Response.json(503, Json.write(g -> {
                                g.writeStartObject();
                                g.writeStringField("status", "STARTING");
                                g.writeEndObject();
                            }))
                            : Response.json(200, StatusFormat.json(group, s, audit.get()));
                })
                .route("/metrics", () -> {
                    GroupStatus s = latest.get();
                    return Response.prometheus(s == null ? "" : StatusFormat.prometheus(group, s, audit.get()));
                })
                .route("/healthz", () -> {
                    boolean ok = healthy.get();
                    return Response.json(ok ? 200 : 503, Json.write(g -> {
                        g.writeStartObject();
                        g.writeBooleanField("healthy", ok);
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
