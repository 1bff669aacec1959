package dev.strait.canary;

import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/** {@code /status} (JSON), {@code /metrics} (Prometheus) and {@code /healthz} (200 unless LOST). */
public final class CanaryHttpServer implements AutoCloseable {
    private final HttpServer server;

    public CanaryHttpServer(String host, int port, Canary canary) {
        try {
            server = HttpServer.create(new InetSocketAddress(host, port), 16);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
        }
        server.createContext("/status", ex -> respond(ex, 200, "application/json", CanaryFormat.json(canary)));
        server.createContext("/metrics", ex -> respond(ex, 200, "text/plain; version=0.0.4; charset=utf-8",
            CanaryFormat.prometheus(canary)));
        server.createContext("/healthz", ex -> {
            boolean ok = canary.state() != CanaryState.LOST;
            respond(ex, ok ? 200 : 503, "application/json", "{\"state\":\"" + canary.state() + "\"}");
        });
        server.setExecutor(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, "strait-canary-http");
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
