package dev.strait.mirror.http;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.Executors;
import java.util.function.Supplier;

/**
 * The small HTTP endpoint every Strait daemon serves ({@code /metrics}, {@code /status}, {@code /healthz}):
 * routes answer GETs with a {@link Response} built when asked. One daemon thread serves all requests, so
 * a slow scrape never competes with the daemon's own threads for more than one core.
 */
public final class HttpEndpoint implements AutoCloseable {
    /** One answer. Immutable. */
    public record Response(int status, String contentType, String body) {
        public static Response json(int status, String body) {
            return new Response(status, "application/json", body);
        }

        public static Response prometheus(String body) {
            return new Response(200, "text/plain; version=0.0.4; charset=utf-8", body);
        }
    }

    private final HttpServer server;

    public HttpEndpoint(String host, int port, String threadName) {
        try {
            server = HttpServer.create(new InetSocketAddress(host, port), 16);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot listen on " + host + ":" + port + ": " + e.getMessage(), e);
        }
        server.setExecutor(Executors.newSingleThreadExecutor(r -> {
            Thread t = new Thread(r, threadName);
            t.setDaemon(true);
            return t;
        }));
    }

    /** Serves {@code path} and everything below it; call before {@link #start()}. */
    public HttpEndpoint route(String path, Supplier<Response> handler) {
        server.createContext(path, ex -> {
            Response r = handler.get();
            byte[] bytes = r.body().getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", r.contentType());
            ex.sendResponseHeaders(r.status(), bytes.length == 0 ? -1 : bytes.length);
            try (OutputStream os = ex.getResponseBody()) {
                os.write(bytes);
            }
        });
        return this;
    }

    public HttpEndpoint start() {
        server.start();
        return this;
    }

    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
    }
}
