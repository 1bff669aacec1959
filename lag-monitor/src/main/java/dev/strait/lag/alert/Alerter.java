package dev.strait.lag.alert;

import dev.strait.lag.http.StatusFormat;
import dev.strait.lag.status.Status;
import dev.strait.lag.status.StatusEvaluator.GroupStatus;
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
 * Alerts when the group's status changes: a log line and, if configured, a webhook POST with the /status
 * JSON wrapped in {@code {"previous":…,"status":…,"detail":{…}}}. A change to a status that was already
 * alerted within {@code suppressMs} is logged at debug only, so a flapping partition does not page twice.
 *
 * <p>Not thread-safe: the sampling thread owns it.
 */
public final class Alerter {
    private static final Logger LOGGER = LoggerFactory.getLogger(Alerter.class);

    /** The longest one webhook POST holds the sampling loop. */
    private static final Duration WEBHOOK_TIMEOUT = Duration.ofSeconds(10);

    private final String group;
    /** Null when no webhook is configured. */
    private final @Nullable WebhookPoster webhook;

    private final long suppressMs;
    private final Map<Status, Long> lastAlertMs = new EnumMap<>(Status.class);
    private @Nullable Status current;
    private int sent;

    public Alerter(String group, @Nullable URI webhook, long suppressMs) {
        this.group = group;
        this.webhook = webhook == null ? null : new WebhookPoster("alert.webhook.url", webhook, WEBHOOK_TIMEOUT);
        this.suppressMs = suppressMs;
    }

    /** Called once per cycle; alerts only on a change. */
    public void onStatus(GroupStatus status, long nowMs) {
        Status previous = current;
        Status now = status.status();
        current = now;
        if (previous == current || previous == null && current == Status.OK) {
            return;
        }
        Long last = lastAlertMs.get(current);
        if (last != null && nowMs - last < suppressMs) {
            LOGGER.debug("Suppressed repeated alert for group {}: {} -> {}", group, previous, current);
            return;
        }
        lastAlertMs.put(current, nowMs);
        LOGGER.warn(
                "ALERT mirror group {}: status {} -> {}{}",
                group,
                previous == null ? "(start)" : previous,
                current,
                status.partitions().stream()
                        .filter(p -> p.status() == current)
                        .findFirst()
                        .map(p -> " (" + p.lag().topic() + "-" + p.lag().partition() + ": " + p.reason() + ")")
                        .orElse(""));
        if (webhook != null) {
            String body = Json.write(g -> {
                g.writeStartObject();
                g.writeStringField("group", group);
                Json.string(g, "previous", previous == null ? null : previous.name());
                g.writeStringField("status", now.name());
                g.writeFieldName("detail");
                StatusFormat.write(g, group, status, null);
                g.writeEndObject();
            });
            if (webhook.post(body)) {
                sent++;
            }
        }
    }

    /** Webhook calls made so far (for tests and the /metrics page). */
    public int sent() {
        return sent;
    }
}
