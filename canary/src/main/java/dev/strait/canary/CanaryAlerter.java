package dev.strait.canary;

import dev.strait.mirror.http.Json;
import dev.strait.mirror.webhook.WebhookPoster;
import java.net.URI;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Tells someone the canary's state changed: an {@code ALERT} log line and, when {@code alert.webhook.url} is set, a
 * POST of {@code {"canaryId":…,"previous":…,"state":…,"detail":{the /status document}}}. A change to a state that
 * was already alerted within {@code alert.suppress.ms} is logged at debug only, so a flapping path pages once.
 *
 * <p>Threads: the canary's scheduler calls {@link #changed}, and waits for the POST (at most its 10 s timeout);
 * others read only {@link #webhooksSent()}.
 */
final class CanaryAlerter {
    private static final Logger LOGGER = LoggerFactory.getLogger(CanaryAlerter.class);
    /** The longest one webhook POST holds the scheduler, and with it the next probe round. */
    private static final Duration WEBHOOK_TIMEOUT = Duration.ofSeconds(10);

    private final String canaryId;
    private final long suppressMs;
    /** Null when no webhook is configured. */
    private final @Nullable WebhookPoster webhook;

    private final Map<CanaryState, Long> lastAlertMs = new EnumMap<>(CanaryState.class);
    private final java.util.concurrent.atomic.AtomicInteger webhooksSent =
            new java.util.concurrent.atomic.AtomicInteger();

    CanaryAlerter(String canaryId, @Nullable URI webhook, long suppressMs) {
        this.canaryId = canaryId;
        this.suppressMs = suppressMs;
        this.webhook = webhook == null ? null : new WebhookPoster("alert.webhook.url", webhook, WEBHOOK_TIMEOUT);
    }

    /**
     * The state went from {@code previous} to {@code next} at {@code nowMs}. {@code counts} and
     * {@code sourceAvailable} go into the log line; {@code detail} writes the /status document for the webhook.
     */
    void changed(
            CanaryState previous,
            CanaryState next,
            long nowMs,
            ProbeTracker.Counts counts,
            boolean sourceAvailable,
            Json.Document detail) {
        Long last = lastAlertMs.get(next);
        if (last != null && nowMs - last < suppressMs) {
            LOGGER.debug("Suppressed repeated canary alert {} -> {}", previous, next);
            return;
        }
        lastAlertMs.put(next, nowMs);
        LOGGER.warn(
                "ALERT canary {}: {} -> {} (sent {}, arrived {}, late {}, lost {}, source {})",
                canaryId,
                previous,
                next,
                counts.sent(),
                counts.arrived(),
                counts.late(),
                counts.lost(),
                sourceAvailable ? "available" : "unavailable");
        if (webhook != null && webhook.post(CanaryFormat.webhook(canaryId, previous, next, detail))) {
            webhooksSent.incrementAndGet();
        }
    }

    /** Webhook POSTs the receiver answered. */
    int webhooksSent() {
        return webhooksSent.get();
    }
}
