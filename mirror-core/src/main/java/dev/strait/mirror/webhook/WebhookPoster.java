package dev.strait.mirror.webhook;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * POSTs JSON documents to one webhook URL. A post returns within its timeout whatever the receiver does (connects
 * slowly, never answers, is not there), so the loop that alerts is held up at most that long; a failure is one
 * warning line that says what to check, and the caller goes on. No retries: an alert is posted on a change of
 * state, the next change posts again, and a retry would hold the caller's loop longer still.
 *
 * <p>Safe from any thread; each of Strait's alerters calls it from its own loop thread.
 */
public final class WebhookPoster {
    private static final Logger LOGGER = LoggerFactory.getLogger(WebhookPoster.class);
    /** Longest a connection attempt may take, when the timeout is longer. */
    private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

    private final String setting;
    private final URI url;
    private final Duration timeout;
    private final HttpClient http;

    /**
     * @param setting the setting that named {@code url}, for the failure line (e.g. {@code alert.webhook.url})
     * @param timeout the longest one post may take, from connecting to the receiver's answer
     */
    public WebhookPoster(String setting, URI url, Duration timeout) {
        if (timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("A webhook timeout must be positive, not " + timeout);
        }
        this.setting = setting;
        this.url = url;
        this.timeout = timeout;
        this.http = HttpClient.newBuilder()
                .connectTimeout(timeout.compareTo(CONNECT_TIMEOUT) < 0 ? timeout : CONNECT_TIMEOUT)
                .build();
    }

    public URI url() {
        return url;
    }

    /**
     * POSTs {@code json} as {@code application/json}. Returns true when the receiver answered, whatever the status
     * (an answer of 300 or more is logged as a refusal); false when no answer came within the timeout, which is
     * logged too.
     */
    public boolean post(String json) {
        HttpRequest request = HttpRequest.newBuilder(url)
                .timeout(timeout)
                .header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(json))
                .build();
        CompletableFuture<HttpResponse<Void>> answer = http.sendAsync(request, HttpResponse.BodyHandlers.discarding());
        try {
            // The request's own timeout may not cover connecting and resolving names; this bound covers it all.
            int status = answer.get(timeout.toMillis(), TimeUnit.MILLISECONDS).statusCode();
            if (status >= 300) {
                LOGGER.warn(
                        "Webhook {} answered HTTP {}: the receiver refused the alert; see its log, and check {}",
                        url,
                        status,
                        setting);
            }
            return true;
        } catch (InterruptedException e) {
            answer.cancel(true);
            Thread.currentThread().interrupt();
            LOGGER.warn("Webhook {} not posted: interrupted while waiting for the receiver (shutting down?)", url);
            return false;
        } catch (TimeoutException e) {
            answer.cancel(true);
            failed("no answer within " + timeout.toMillis() + " ms");
            return false;
        } catch (ExecutionException e) {
            Throwable cause = e.getCause() == null ? e : e.getCause();
            failed(
                    cause.getMessage() == null
                            ? cause.getClass().getSimpleName()
                            : cause.getClass().getSimpleName() + ": " + cause.getMessage());
            return false;
        }
    }

    private void failed(String reason) {
        LOGGER.warn(
                "Webhook {} failed ({}); the alert is only in this log: check that the receiver is up and {} is "
                        + "right",
                url,
                reason,
                setting);
    }
}
