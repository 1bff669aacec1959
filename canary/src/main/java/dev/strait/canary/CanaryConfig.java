package dev.strait.canary;

import static dev.strait.mirror.config.PropertyValues.number;
import static dev.strait.mirror.config.PropertyValues.prefixed;
import static dev.strait.mirror.config.PropertyValues.requireBootstrap;
import static dev.strait.mirror.config.PropertyValues.url;

import dev.strait.mirror.config.ConfigException;
import java.net.URI;
import java.util.Properties;
import java.util.UUID;
import org.jspecify.annotations.Nullable;

/**
 * The canary's settings, from {@code canary.properties}. Client settings pass through with the
 * {@code source.} and {@code target.} prefixes. Immutable.
 *
 * @param lostAfterMs  a probe still missing this long after it was sent is counted as lost
 * @param canaryId     tells this canary's probes from other canaries' on the same topic
 */
public record CanaryConfig(
        Properties sourceClient,
        Properties targetClient,
        String topic,
        String targetTopic,
        int partitions,
        short replicationFactor,
        long intervalMs,
        long alarmThresholdMs,
        long lostAfterMs,
        String canaryId,
        int httpPort,
        String httpHost,
        @Nullable URI webhookUrl,
        long alertSuppressMs) {

    public static CanaryConfig from(Properties p) {
        Properties source = prefixed(p, "source.");
        Properties target = prefixed(p, "target.");
        target.remove("topic");
        requireBootstrap(source, "source.");
        requireBootstrap(target, "target.");
        String topic = p.getProperty("topic", "strait-canary").trim();
        if (!topic.matches("[a-zA-Z0-9._-]{1,249}")) {
            throw new ConfigException("topic must be a valid Kafka topic name, not '" + topic + "'");
        }
        String targetTopic = p.getProperty("target.topic", topic).trim();
        long interval = number(p, "interval.ms", 60_000, 1_000, 86_400_000);
        long threshold = number(p, "alarm.threshold.ms", 2 * interval, 1, Long.MAX_VALUE);
        long lostAfter = number(p, "lost.after.ms", Math.max(5 * interval, 2 * threshold), 1, Long.MAX_VALUE);
        if (lostAfter <= threshold) {
            throw new ConfigException(
                    "lost.after.ms (" + lostAfter + ") must be above alarm.threshold.ms (" + threshold + ")");
        }
        String id = p.getProperty("canary.id", "").trim();
        if (id.isEmpty()) {
            id = "canary-" + UUID.randomUUID().toString().substring(0, 8);
        }
        return new CanaryConfig(
                source,
                target,
                topic,
                targetTopic,
                (int) number(p, "partitions", 3, 1, 10_000),
                (short) number(p, "replication.factor", -1, -1, 32),
                interval,
                threshold,
                lostAfter,
                id,
                (int) number(p, "http.port", -1, -1, 65535),
                p.getProperty("http.host", "127.0.0.1").trim(),
                url(p, "alert.webhook.url"),
                number(p, "alert.suppress.ms", 600_000, 0, Long.MAX_VALUE));
    }
}
