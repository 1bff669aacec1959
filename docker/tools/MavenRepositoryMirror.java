import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.regex.Pattern;

/**
 * A Maven repository for {@code docker build}, on 127.0.0.1 only: serves the files of the local repository
 * (~/.m2/repository) and forwards what it lacks to the upstream repository (Maven Central, or the URL given), so the
 * Dockerfile's Maven stage downloads little, and needs no trust store of its own for the upstream's TLS.
 *
 * <pre>java docker/tools/MavenRepositoryMirror.java LOCAL_REPO PORT_FILE PREFERRED_PORT [UPSTREAM_URL]</pre>
 *
 * Binds PREFERRED_PORT, or an ephemeral port when that one is taken (the URL is a build argument, so a port that
 * stays the same lets Docker reuse the cached dependency layer), writes it to PORT_FILE, and serves until killed. GET and HEAD only. Maven metadata
 * (maven-metadata.xml) always comes from upstream: the local copies carry the name of the repository they came from.
 * Nothing of dev.strait is served: the build makes those itself, and a stale local copy must not leak into an image.
 * Run by docker/build-images.sh; a single-file program (java runs it from source), so it needs no build.
 */
public final class MavenRepositoryMirror {
    private static final Pattern SAFE_PATH = Pattern.compile("(/[A-Za-z0-9._+~-]+)+");

    private final Path local;
    private final String upstream;
    private final HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(20))
        .followRedirects(HttpClient.Redirect.NORMAL).build();

    private MavenRepositoryMirror(Path local, String upstream) {
        this.local = local;
        this.upstream = upstream.endsWith("/") ? upstream.substring(0, upstream.length() - 1) : upstream;
    }

    public static void main(String[] args) throws IOException {
        if (args.length < 3 || args.length > 4) {
            System.err.println("usage: java MavenRepositoryMirror.java LOCAL_REPO PORT_FILE PREFERRED_PORT [UPSTREAM_URL]");
            System.exit(2);
        }
        String upstream = args.length == 4 ? args[3] : "https://repo.maven.apache.org/maven2";
        MavenRepositoryMirror mirror = new MavenRepositoryMirror(Path.of(args[0]), upstream);
        HttpServer server;
        try {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(),
                Integer.parseInt(args[2])), 64);
        } catch (java.net.BindException taken) {
            server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 64);
        }
        server.createContext("/", mirror::handle);
        server.setExecutor(Executors.newFixedThreadPool(8));
        server.start();
        Path portFile = Path.of(args[1]);
        Path tmp = portFile.resolveSibling(portFile.getFileName() + ".tmp");
        Files.writeString(tmp, Integer.toString(server.getAddress().getPort()), StandardCharsets.US_ASCII);
        Files.move(tmp, portFile, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
    }

    private void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod();
            String path = exchange.getRequestURI().getRawPath();
            if (!method.equals("GET") && !method.equals("HEAD")) {
                exchange.sendResponseHeaders(405, -1);
                return;
            }
            if (!SAFE_PATH.matcher(path).matches() || path.contains("..") || path.startsWith("/dev/strait/")) {
                exchange.sendResponseHeaders(404, -1);
                return;
            }
            Path file = local.resolve(path.substring(1));
            boolean metadata = path.endsWith("/maven-metadata.xml") || path.contains("/maven-metadata.xml.");
            if (!metadata && Files.isRegularFile(file)) {
                long size = Files.size(file);
                exchange.sendResponseHeaders(200, method.equals("HEAD") ? -1 : size);
                if (method.equals("GET")) {
                    try (OutputStream out = exchange.getResponseBody()) {
                        Files.copy(file, out);
                    }
                }
                return;
            }
            forward(exchange, method, path);
        } catch (IOException | RuntimeException e) {
            System.err.println("maven mirror: " + exchange.getRequestURI() + ": " + e);
        }
    }

    private void forward(HttpExchange exchange, String method, String path) throws IOException {
        System.err.println("maven mirror: upstream " + method + " " + path);
        HttpRequest request = HttpRequest.newBuilder(URI.create(upstream + path)).timeout(Duration.ofMinutes(2))
            .method(method, HttpRequest.BodyPublishers.noBody()).build();
        HttpResponse<InputStream> response;
        try {
            response = client.send(request, HttpResponse.BodyHandlers.ofInputStream());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            exchange.sendResponseHeaders(503, -1);
            return;
        } catch (IOException e) {
            System.err.println("maven mirror: upstream " + upstream + path + ": " + e);
            exchange.sendResponseHeaders(502, -1);
            return;
        }
        try (InputStream body = response.body()) {
            int status = response.statusCode();
            if (method.equals("HEAD") || status != 200) {
                exchange.sendResponseHeaders(status, -1);
                return;
            }
            long length = response.headers().firstValueAsLong("Content-Length").orElse(0);
            exchange.sendResponseHeaders(200, length > 0 ? length : 0);
            try (OutputStream out = exchange.getResponseBody()) {
                body.transferTo(out);
            }
        }
    }
}
