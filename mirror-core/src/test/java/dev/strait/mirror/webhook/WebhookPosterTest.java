package dev.strait.mirror.webhook;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The one webhook client of the lag monitor and the canary, against a receiver on 127.0.0.1. */
class WebhookPosterTest {
    private static final Duration TIMEOUT = Duration.ofSeconds(10);

    private final List<String> received = new CopyOnWriteArrayList<>();
    /** Held by a receiver that does not answer until the test lets it. */
    private final CountDownLatch release = new CountDownLatch(1);

    private final ExecutorService receiverThreads = Executors.newCachedThreadPool();
    private HttpServer server;

    @AfterEach
    void stop() {
        release.countDown();
        if (server != null) {
            server.stop(0);
        }
        receiverThreads.shutdownNow();
    }

    /** A receiver at /hook that records each request and answers {@code status} (or never, when -1). */
    private URI receiver(int status) throws IOException {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        // Its own threads, so a receiver that holds one request back still takes the next.
        server.setExecutor(receiverThreads);
        server.createContext("/hook", ex -> {
            received.add(ex.getRequestMethod() + " " + ex.getRequestHeaders().getFirst("Content-Type") + " "
                    + new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8));
            if (status < 0) {
                try {
                    release.await(60, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            ex.sendResponseHeaders(Math.max(status, 204), -1);
            ex.close();
        });
        server.start();
        return URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/hook");
    }

    @Test
    void postsTheDocumentAsJson() throws Exception {
        WebhookPoster poster = new WebhookPoster("alert.webhook.url", receiver(204), TIMEOUT);

        boolean answered = poster.post("{\"group\":\"g é€😀\",\"status\":\"WARN\"}");

        assertThat(answered).isTrue();
        assertThat(received).containsExactly("POST application/json {\"group\":\"g é€😀\",\"status\":\"WARN\"}");
    }

    @Test
    void aRefusalIsAnAnswer() throws Exception {
        WebhookPoster poster = new WebhookPoster("alert.webhook.url", receiver(500), TIMEOUT);

        assertThat(poster.post("{}")).isTrue();
        assertThat(received).hasSize(1);
    }

    @Test
    void aReceiverThatNeverAnswersHoldsTheCallerOnlyUntilTheTimeout() throws Exception {
        WebhookPoster poster = new WebhookPoster("alert.webhook.url", receiver(-1), Duration.ofMillis(300));

        boolean answered = poster.post("{}");

        // The receiver still holds the request: the post came back on its own timeout, not on an answer.
        assertThat(answered).isFalse();
        assertThat(release.getCount()).isEqualTo(1);
        assertThat(received).hasSize(1);
        // And the next post is not stuck behind the first.
        assertThat(poster.post("{\"next\":1}")).isFalse();
        assertThat(received).hasSize(2);
    }

    @Test
    void nobodyListeningIsAFailureNotAnException() throws Exception {
        int port;
        try (ServerSocket s = new ServerSocket(0)) {
            port = s.getLocalPort();
        }
        WebhookPoster poster =
                new WebhookPoster("alert.webhook.url", URI.create("http://127.0.0.1:" + port + "/hook"), TIMEOUT);

        assertThat(poster.post("{}")).isFalse();
    }

    @Test
    void anInterruptedCallerGetsItsInterruptBack() throws Exception {
        WebhookPoster poster = new WebhookPoster("alert.webhook.url", receiver(-1), TIMEOUT);
        Thread.currentThread().interrupt();
        try {
            assertThat(poster.post("{}")).isFalse();
            assertThat(Thread.currentThread().isInterrupted()).isTrue();
        } finally {
            Thread.interrupted();
        }
    }

    @Test
    void aTimeoutMustBePositive() {
        assertThatThrownBy(() -> new WebhookPoster("alert.webhook.url", URI.create("http://127.0.0.1/"), Duration.ZERO))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("positive");
    }
}
