package dev.strait.canary;

import java.net.URI;
import java.util.Properties;
import java.util.UUID;

import dev.strait.mirror.config.ConfigException;

/**
 * The canary's settings, from {@code canary.properties}. Client settings pass through with the
 * {@code source.} and {@code target.} prefixes. Immutable.
 *
 * @param lostAfterMs  a probe still missing this long after it was sent is counted as lost
 * @param canaryId     tells this canary's probes from other canaries' on the same topic
 */
public record CanaryConfig(Properties sourceClient, Properties targetClient, String topic, String targetTopic,
                           int partitions, short replicationFactor, long intervalMs, long alarmThresholdMs,
                           long lostAfterMs, String canaryId, int httpPort, String httpHost, URI webhookUrl,
                           long alertSuppressMs) {

    public static CanaryConfig from(Properties p) {
        Properties source = prefixed(p, "source.");
        Properties target = prefixed(p, "target.");
        require(source, "source.bootstrap.servers");
        require(target, "target.bootstrap.servers");
        String topic = p.getProperty("topic", "strait-canary").trim();
        if (!topic.matches("[a-zA-Z0-9._-]{1,249}")) {
            throw new ConfigException("topic must be a valid Kafka topic name, not '" + topic + "'");
        }
        String targetTopic = p.getProperty("target.topic", topic).trim();
        long interval = number(p, "interval.ms", 60_000, 1_000, 86_400_000);
        long threshold = number(p, "alarm.threshold.ms", 2 * interval, 1, Long.MAX_VALUE);
        long lostAfter = number(p, "lost.after.ms", Math.max(5 * interval, 2 * threshold), 1, Long.MAX_VALUE);
        if (lostAfter <= threshold) {
            throw new ConfigException("lost.after.ms (" + lostAfter + ") must be above alarm.threshold.ms (" + threshold + ")");
        }
        String id = p.getProperty("canary.id", "").trim();
        if (id.isEmpty()) {
            id = "canary-" + UUID.randomUUID().toString().substring(0, 8);
        }
        return new CanaryConfig(source, target, topic, targetTopic, (int) number(p, "partitions", 3, 1, 10_000),
            (short) number(p, "replication.factor", -1, -1, 32), interval, threshold, lostAfter, id,
            (int) number(p, "http.port", -1, -1, 65535), p.getProperty("http.host", "127.0.0.1").trim(),
            uri(p, "alert.webhook.url"), number(p, "alert.suppress.ms", 600_000, 0, Long.MAX_VALUE));
    }

    private static Properties prefixed(Properties p, String prefix) {
        Properties out = new Properties();
        for (String name : p.stringPropertyNames()) {
            if (name.startsWith(prefix) && !name.equals("target.topic")) {
                out.put(name.substring(prefix.length()), p.getProperty(name).trim());
            }
        }
        return out;
    }

    private static void require(Properties client, String key) {
        String v = client.getProperty("bootstrap.servers");
        if (v == null || v.isBlank()) {
            throw new ConfigException(key + " is required (host:port of the cluster)");
        }
    }

    private static long number(Properties p, String key, long dflt, long min, long max) {
        String v = p.getProperty(key);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        try {
            long n = Long.parseLong(v.trim());
            if (n < min || n > max) {
                throw new ConfigException(key + " must be between " + min + " and " + max + ", not " + n);
            }
            return n;
        } catch (NumberFormatException e) {
            throw new ConfigException(key + " must be a whole number, not '" + v + "'");
        }
    }

    private static URI uri(Properties p, String key) {
        String v = p.getProperty(key);
        if (v == null || v.isBlank()) {
            return null;
        }
        try {
            URI u = URI.create(v.trim());
            if (!"http".equals(u.getScheme()) && !"https".equals(u.getScheme())) {
                throw new ConfigException(key + " must be an http:// or https:// URL, not '" + v + "'");
            }
            return u;
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key + " is not a valid URL: " + e.getMessage());
        }
    }
}
