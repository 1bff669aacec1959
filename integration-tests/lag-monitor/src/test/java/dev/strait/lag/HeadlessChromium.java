package dev.strait.lag;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;

/**
 * Debian's {@code chromium}, headless, driven over the Chrome DevTools protocol with the JDK's WebSocket client (no
 * browser driver library): opens one page and keeps it open, so a test sees what the page's own refresh does.
 * Records every JavaScript dialog the page opens (an {@code alert} from injected markup would be one).
 */
final class HeadlessChromium implements AutoCloseable {
    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

    private final Process process;
    private final Path profile;
    private final int port;
    private final HttpClient http = HttpClient.newHttpClient();
    private final List<Page> pages = new ArrayList<>();

    private HeadlessChromium(Process process, Path profile, int port) {
        this.process = process;
        this.profile = profile;
        this.port = port;
    }

    /** The browser named by {@code STRAIT_CHROMIUM} (null when not executable), else chromium on the PATH, or null. */
    static Path find() {
        String named = System.getenv("STRAIT_CHROMIUM");
        if (named != null && !named.isBlank()) {
            Path p = Path.of(named);
            return Files.isExecutable(p) ? p : null;
        }
        String path = System.getenv().getOrDefault("PATH", "");
        for (String dir : path.split(File.pathSeparator)) {
            for (String name : List.of("chromium", "chromium-browser")) {
                Path p = Path.of(dir, name);
                if (Files.isExecutable(p)) {
                    return p;
                }
            }
        }
        return null;
    }

    /** Starts a headless chromium with a new profile; its output goes to {@code log}. */
    static HeadlessChromium start(Path binary, Path log) throws Exception {
        Path profile = Files.createTempDirectory("strait-chromium-");
        Process p = new ProcessBuilder(
                        binary.toString(),
                        "--headless",
                        "--no-sandbox",
                        "--disable-gpu",
                        "--disable-quic",
                        "--no-first-run",
                        "--disable-background-networking",
                        "--disable-component-update",
                        "--disable-sync",
                        "--disable-dev-shm-usage",
                        "--window-size=1400,1000",
                        "--user-data-dir=" + profile,
                        "--remote-debugging-address=127.0.0.1",
                        "--remote-debugging-port=0",
                        "about:blank")
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
        // Chromium writes the port it chose, then the browser target's path, once it listens.
        Path active = profile.resolve("DevToolsActivePort");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new IllegalStateException("chromium exited with " + p.exitValue() + "; see " + log);
            }
            if (Files.exists(active)) {
                List<String> lines = Files.readAllLines(active);
                if (lines.size() >= 2) {
                    return new HeadlessChromium(
                            p, profile, Integer.parseInt(lines.get(0).trim()));
                }
            }
            Thread.sleep(100);
        }
        p.descendants().forEach(ProcessHandle::destroyForcibly);
        p.destroyForcibly();
        throw new IllegalStateException("chromium did not open its DevTools port within 60 s; see " + log);
    }

    /** Opens {@code url} in a new tab of its own. */
    Page open(String url) throws Exception {
        HttpResponse<String> r = http.send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/json/new?" + url))
                        .PUT(HttpRequest.BodyPublishers.noBody())
                        .timeout(CALL_TIMEOUT)
                        .build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("DevTools /json/new answered " + r.statusCode() + ": " + r.body());
        }
        String ws = JSON.readTree(r.body()).get("webSocketDebuggerUrl").asText();
        Page page = new Page();
        page.socket = http.newWebSocketBuilder()
                .connectTimeout(CALL_TIMEOUT)
                .buildAsync(URI.create(ws), page)
                .get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
        pages.add(page);
        page.call("Page.enable", Map.of());
        page.call("Runtime.enable", Map.of());
        awaitLoaded(page, url);
        return page;
    }

    /**
     * Waits until the tab shows {@code url} fully loaded. A new tab first holds an empty document, and
     * the navigation replaces it later: anything evaluated before that lands in the document thrown away.
     */
    private static void awaitLoaded(Page page, String url) throws InterruptedException {
        long deadline = System.nanoTime() + CALL_TIMEOUT.toNanos();
        String check = "location.href === " + JSON.valueToTree(url) + " && document.readyState === 'complete'";
        while (!page.eval(check).asBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("the tab did not load " + url + " within " + CALL_TIMEOUT
                        + "; it shows " + page.text("location.href"));
            }
            Thread.sleep(50);
        }
    }

    /** One tab: DevTools calls by id, events kept. */
    static final class Page implements WebSocket.Listener {
        private final AtomicInteger ids = new AtomicInteger();
        private final Map<Integer, CompletableFuture<JsonNode>> calls = new ConcurrentHashMap<>();
        private final List<String> dialogs = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final List<String> exceptions = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final StringBuilder partial = new StringBuilder();
        private WebSocket socket;

        JsonNode call(String method, Map<String, ?> params) throws Exception {
            int id = ids.incrementAndGet();
            CompletableFuture<JsonNode> answer = new CompletableFuture<>();
            calls.put(id, answer);
            ObjectNode msg = JSON.createObjectNode();
            msg.put("id", id);
            msg.put("method", method);
            msg.set("params", JSON.valueToTree(params));
            socket.sendText(JSON.writeValueAsString(msg), true).get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            JsonNode reply = answer.get(CALL_TIMEOUT.toSeconds(), TimeUnit.SECONDS);
            if (reply.has("error")) {
                throw new IllegalStateException(method + " failed: " + reply.get("error"));
            }
            return reply.get("result");
        }

        /** The value of a JavaScript expression in the page (awaited when it is a promise). */
        JsonNode eval(String expression) {
            JsonNode r;
            try {
                r = call(
                        "Runtime.evaluate",
                        Map.of("expression", expression, "returnByValue", true, "awaitPromise", true));
            } catch (RuntimeException e) {
                throw e;
            } catch (Exception e) {
                throw new IllegalStateException("DevTools call failed for " + expression + ": " + e, e);
            }
            if (r.has("exceptionDetails")) {
                throw new IllegalStateException("page threw on " + expression + ": " + r.get("exceptionDetails"));
            }
            JsonNode v = r.get("result").get("value");
            return v == null ? JSON.nullNode() : v;
        }

        String text(String expression) {
            return eval(expression).asText();
        }

        void screenshot(Path file, int width, int height) throws Exception {
            call(
                    "Emulation.setDeviceMetricsOverride",
                    Map.of("width", width, "height", height, "deviceScaleFactor", 1, "mobile", false));
            JsonNode shot = call("Page.captureScreenshot", Map.of("format", "png", "captureBeyondViewport", true));
            Files.createDirectories(file.getParent());
            Files.write(file, Base64.getDecoder().decode(shot.get("data").asText()));
        }

        /** Messages of the JavaScript dialogs the page opened (alert, confirm, prompt). */
        List<String> dialogs() {
            return List.copyOf(dialogs);
        }

        /** Uncaught exceptions the page's scripts threw. */
        List<String> exceptions() {
            return List.copyOf(exceptions);
        }

        @Override
        public CompletionStage<?> onText(WebSocket ws, CharSequence data, boolean last) {
            partial.append(data);
            if (last) {
                String text = partial.toString();
                partial.setLength(0);
                try {
                    JsonNode msg = JSON.readTree(text);
                    if (msg.has("id")) {
                        CompletableFuture<JsonNode> f =
                                calls.remove(msg.get("id").asInt());
                        if (f != null) {
                            f.complete(msg);
                        }
                    } else if ("Page.javascriptDialogOpening"
                            .equals(msg.path("method").asText())) {
                        dialogs.add(msg.path("params").path("message").asText());
                        ws.sendText(
                                "{\"id\":-1,\"method\":\"Page.handleJavaScriptDialog\",\"params\":{\"accept\":true}}",
                                true);
                    } else if ("Runtime.exceptionThrown"
                            .equals(msg.path("method").asText())) {
                        exceptions.add(
                                msg.path("params").path("exceptionDetails").toString());
                    }
                } catch (IOException e) {
                    throw new IllegalStateException("DevTools sent what is not JSON: " + text, e);
                }
            }
            ws.request(1);
            return null;
        }
    }

    @Override
    public void close() throws IOException {
        for (Page p : pages) {
            p.socket.abort();
        }
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        try (Stream<Path> files = Files.walk(profile)) {
            files.sorted(Comparator.reverseOrder()).forEach(f -> f.toFile().delete());
        }
    }
}
