package dev.strait.mirror.metrics;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * The mirror's HTTP endpoint: {@code /metrics} (Prometheus text), {@code /metrics.json} and {@code /healthz}
 * (200 while the mirror runs, 503 once it stopped or failed). One daemon thread serves all requests.
 */
public final class MetricsHttpServer implements AutoCloseable {
    /** What {@code /healthz} reports: healthy or not, and a one-line reason. */
    public record Health(boolean healthy, String detail) {
    }

    private final HttpServer server;

    public MetricsHttpServer(String host, int port, MirrorMetrics metrics, Supplier<Health> health) {
        try {
            server = HttpServer.create(new InetSocketAddress(host, port), 16);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + host + ":" + port + " for metrics: " + e.getMessage(), e);
        }
        server.createContext("/metrics", ex -> {
            metrics.sync();
            if (ex.getRequestURI().getPath().equals("/metrics.json")) {
                respond(ex, 200, "application/json",
                    MetricsFormat.json(metrics.registry(), metrics.consumerLag()));
            } else {
                respond(ex, 200, "text/plain; version=0.0.4; charset=utf-8",
                    MetricsFormat.prometheus(metrics.registry(), metrics.consumerLag(), metrics.positions()));
            }
        });
        server.createContext("/healthz", ex -> {
            Health h = health.get();
            respond(ex, h.healthy() ? 200 : 503, "application/json",
                "{\"healthy\":" + h.healthy() + ",\"detail\":" + MetricsFormat.str(h.detail()) + "}");
        });
        server.setExecutor(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "strait-metrics-http");
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
        ex.sendResponseHeaders(status, bytes.length);
        try (OutputStream os = ex.getResponseBody()) {
            os.write(bytes);
        }
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
