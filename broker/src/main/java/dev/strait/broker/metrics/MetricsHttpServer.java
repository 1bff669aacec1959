package dev.strait.broker.metrics;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's metrics endpoint: {@code GET /metrics} answers Prometheus text, anything else 404. One daemon
 * thread serves every scrape, so scraping never takes more than one core from the broker.
 */
public final class MetricsHttpServer implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(MetricsHttpServer.class);
    static final String CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

    private final HttpServer server;
    private final ExecutorService executor;

    /**
     * Binds {@code host:port} (0: a free port) and starts serving {@code body} at /metrics.
     *
     * @throws UncheckedIOException naming the address if it cannot be bound
     */
    public MetricsHttpServer(String host, int port, String threadName, Supplier<String> body) {
        try {
            server = HttpServer.create(new InetSocketAddress(host, port), 16);
        } catch (IOException e) {
            throw new UncheckedIOException(
                    "cannot serve metrics on " + host + ":" + port + " (strait.metrics.host, strait.metrics.port): "
                            + e.getMessage(),
                    e);
        }
        executor = Executors.newSingleThreadExecutor(r -> {
            Thread thread = new Thread(r, threadName);
            thread.setDaemon(true);
            return thread;
        });
        server.setExecutor(executor);
        server.createContext("/", exchange -> {
            try (exchange) {
                if (!exchange.getRequestURI().getPath().equals("/metrics")) {
                    exchange.sendResponseHeaders(404, -1);
                    return;
                }
                byte[] bytes;
                int status;
                try {
                    bytes = body.get().getBytes(StandardCharsets.UTF_8);
                    status = 200;
                } catch (RuntimeException e) {
                    // A scrape must not take the endpoint down; Prometheus marks the target down instead.
                    LOGGER.warn("metrics scrape failed", e);
                    bytes = ("metrics unavailable: " + e).getBytes(StandardCharsets.UTF_8);
                    status = 500;
                }
                exchange.getResponseHeaders().set("Content-Type", status == 200 ? CONTENT_TYPE : "text/plain");
                exchange.sendResponseHeaders(status, bytes.length);
                try (OutputStream os = exchange.getResponseBody()) {
                    os.write(bytes);
                }
            }
        });
        server.start();
    }

    /** The port bound (useful with port 0). */
    public int port() {
        return server.getAddress().getPort();
    }

    @Override
    public void close() {
        server.stop(0);
        executor.shutdownNow();
    }
}
