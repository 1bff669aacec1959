package dev.strait.lag.http;

import dev.strait.lag.audit.ContinuousAudit;
import dev.strait.lag.peer.PeerState;
import dev.strait.lag.sample.LagHistory;
import dev.strait.lag.status.StatusEvaluator.GroupStatus;
import dev.strait.mirror.http.HttpEndpoint;
import dev.strait.mirror.http.HttpEndpoint.Response;
import dev.strait.mirror.http.Json;
import java.util.function.Supplier;

/**
 * {@code /status} (JSON), {@code /metrics} (Prometheus text), {@code /healthz} (200 once a cycle has
 * completed and the latest is recent; 503 before, or when sampling stopped), and the status page: {@code /} (one
 * self-contained HTML document that reads the others), {@code /history} (the last hour of lag) and {@code /peers}
 * (the canary and the group sync).
 */
public final class StatusServer implements AutoCloseable {
    /** What the server reads, each published by the monitor's loop thread as an immutable value. */
    public record Sources(
            Supplier<GroupStatus> latest,
            Supplier<Boolean> healthy,
            Supplier<ContinuousAudit.Summary> audit,
            Supplier<LagHistory.Snapshot> history,
            Supplier<PeerState> peers) {}

    private final HttpEndpoint endpoint;

    /** Without the page's history and neighbours: the page shows the latest status only. */
    public StatusServer(
            String host,
            int port,
            String group,
            Supplier<GroupStatus> latest,
            Supplier<Boolean> healthy,
            Supplier<ContinuousAudit.Summary> audit) {
        this(
                host,
                port,
                group,
                10_000,
                new Sources(latest, healthy, audit, () -> LagHistory.Snapshot.EMPTY, () -> PeerState.NONE));
    }

    /** The page refreshes every {@code refreshMs}. */
    public StatusServer(String host, int port, String group, long refreshMs, Sources sources) {
        String page = StatusPage.html(refreshMs);
        endpoint = new HttpEndpoint(host, port, "strait-lag-http")
                .route("/status", () -> {
                    GroupStatus s = sources.latest().get();
                    return s == null
                            ? Response.json(503, Json.write(g -> {
                                g.writeStartObject();
                                g.writeStringField("status", "STARTING");
                                g.writeEndObject();
                            }))
                            : Response.json(
                                    200,
                                    StatusFormat.json(group, s, sources.audit().get()));
                })
                .route("/metrics", () -> {
                    GroupStatus s = sources.latest().get();
                    return Response.prometheus(
                            s == null
                                    ? ""
                                    : StatusFormat.prometheus(
                                            group, s, sources.audit().get()));
                })
                .route("/healthz", () -> {
                    boolean ok = sources.healthy().get();
                    return Response.json(ok ? 200 : 503, Json.write(g -> {
                        g.writeStartObject();
                        g.writeBooleanField("healthy", ok);
                        g.writeEndObject();
                    }));
                })
                .route(
                        "/history",
                        () -> Response.json(
                                200,
                                StatusPage.historyJson(group, sources.history().get())))
                .route(
                        "/peers",
                        () -> Response.json(
                                200, StatusPage.peersJson(sources.peers().get())))
                .route("/favicon.ico", () -> new Response(404, "text/plain; charset=utf-8", ""))
                // The context "/" answers every path no other route claims: unknown paths get the page too.
                .route("/", () -> new Response(200, "text/html; charset=utf-8", page))
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
