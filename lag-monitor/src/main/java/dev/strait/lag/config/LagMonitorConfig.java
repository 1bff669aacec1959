package dev.strait.lag.config;

import java.net.URI;
import java.util.Properties;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import dev.strait.mirror.config.ConfigException;
import dev.strait.mirror.config.TopicRenamer;

/**
 * The lag monitor's settings, from {@code lag-monitor.properties}. Client settings pass through with the
 * {@code source.} and {@code target.} prefixes (e.g. {@code source.security.protocol}). Immutable.
 */
public record LagMonitorConfig(Properties sourceClient, Properties targetClient, String mirrorGroupId, Pattern topics,
                               TopicRenamer renamer, URI mirrorMetricsUrl, int httpPort, String httpHost,
                               int windowSize, long sampleIntervalMs, long stopAfterMs, long maxLagRecords,
                               long maxLagSeconds, URI webhookUrl, long alertSuppressMs, long auditIntervalMs,
                               long auditMaxRecords) {

    public static LagMonitorConfig from(Properties p) {
        Properties source = prefixed(p, "source.");
        Properties target = prefixed(p, "target.");
        require(source, "source.bootstrap.servers");
        require(target, "target.bootstrap.servers");
        String group = p.getProperty("mirror.group.id");
        if (group == null || group.isBlank()) {
            throw new ConfigException("mirror.group.id is required: the consumer group of the mirror to watch");
        }
        Pattern topics;
        try {
            topics = Pattern.compile("(?!__)(?:" + p.getProperty("topics", ".*").trim() + ")");
        } catch (PatternSyntaxException e) {
            throw new ConfigException("topics is not a valid regex: " + e.getDescription());
        }
        TopicRenamer renamer = TopicRenamer.of(p.getProperty("topic.prefix"), p.getProperty("topic.rename"));
        int window = (int) number(p, "window.size", 10, 2, 1000);
        long interval = number(p, "sample.interval.ms", 10_000, 100, 3_600_000);
        return new LagMonitorConfig(source, target, group.trim(), topics, renamer, uri(p, "mirror.metrics.url"),
            (int) number(p, "http.port", -1, -1, 65535), p.getProperty("http.host", "127.0.0.1").trim(), window,
            interval, number(p, "stop.after.ms", 300_000, 1, Long.MAX_VALUE),
            number(p, "max.lag.records", -1, -1, Long.MAX_VALUE), number(p, "max.lag.seconds", -1, -1, Long.MAX_VALUE),
            uri(p, "alert.webhook.url"), number(p, "alert.suppress.ms", 600_000, 0, Long.MAX_VALUE),
            number(p, "audit.interval.ms", 60_000, 0, Long.MAX_VALUE),
            number(p, "audit.max.records", 10_000, 1, 10_000_000));
    }

    private static Properties prefixed(Properties p, String prefix) {
        Properties out = new Properties();
        for (String name : p.stringPropertyNames()) {
            if (name.startsWith(prefix)) {
                out.put(name.substring(prefix.length()), p.getProperty(name).trim());
            }
        }
        return out;
    }

    private static void require(Properties client, String key) {
        String v = client.getProperty(key.substring(key.indexOf('.') + 1));
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
            if (u.getScheme() == null || !(u.getScheme().equals("http") || u.getScheme().equals("https"))) {
                throw new ConfigException(key + " must be an http:// or https:// URL, not '" + v + "'");
            }
            return u;
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key + " is not a valid URL: " + e.getMessage());
        }
    }
}
