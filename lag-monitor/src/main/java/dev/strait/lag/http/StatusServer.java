package dev.strait.lag.http;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import dev.strait.lag.audit.ContinuousAudit;
import dev.strait.lag.status.StatusEvaluator.GroupStatus;

/**
 * {@code /status} (JSON), {@code /metrics} (Prometheus text) and {@code /healthz} (200 once a cycle has
 * completed and the latest is recent; 503 before, or when sampling stopped). One daemon thread serves.
 */
public final class StatusServer implements AutoCloseable {
    private final HttpServer server;

    public StatusServer(String host, int port, String group, Supplier<GroupStatus> latest, Supplier<Boolean> healthy,
                        Supplier<ContinuousAudit.Summary> audit) {
        try {
            server = HttpServer.create(new InetSocketAddress(host, port), 16);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
        }
        server.createContext("/status", ex -> {
            GroupStatus s = latest.get();
            if (s == null) {
                respond(ex, 503, "application/json", "{\"status\":\"STARTING\"}");
            } else {
                respond(ex, 200, "application/json", StatusFormat.json(group, s, audit.get()));
            }
        });
        server.createContext("/metrics", ex -> {
            GroupStatus s = latest.get();
            respond(ex, 200, "text/plain; version=0.0.4; charset=utf-8", s == null ? "" : StatusFormat.prometheus(group, s, audit.get()));
        });
        server.createContext("/healthz", ex -> {
            boolean ok = healthy.get();
            respond(ex, ok ? 200 : 503, "application/json", "{\"healthy\":" + ok + "}");
        });
        server.setExecutor(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "strait-lag-http");
            t.setDaemon(true);
            return t;
        }));
        server.start();
    }

    public int port() {
        return server.getAddress().getPort();
    }

    private static void respond(HttpExchange ex, int status, String type, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        ex.getResponseHeaders().set("Content-Type", type);
        ex.sendResponseHeaders(status, bytes.length == 0 ? -1 : bytes.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
