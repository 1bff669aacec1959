package dev.strait.lag.config;

import static dev.strait.mirror.config.PropertyValues.number;
import static dev.strait.mirror.config.PropertyValues.prefixed;
import static dev.strait.mirror.config.PropertyValues.requireBootstrap;
import static dev.strait.mirror.config.PropertyValues.url;

import dev.strait.mirror.config.ConfigException;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.mirror.handler.MessageHandler;
import dev.strait.mirror.handler.MessageHandlers;
import java.net.URI;
import java.util.Properties;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.jspecify.annotations.Nullable;

/**
 * The lag monitor's settings, from {@code lag-monitor.properties}. Client settings pass through with the
 * {@code source.} and {@code target.} prefixes (e.g. {@code source.security.protocol}). Immutable, but for the
 * mirror's message handler ({@code message.handler}, may be null), which the audit runs to know what the mirror
 * writes for each source record.
 *
 * <p>The status page ({@code /}) also shows the canary's state and the mirror's group sync when given their metrics
 * endpoints: {@code status.page.canary.metrics.url} and {@code status.page.mirror.metrics.url} (default: {@code
 * mirror.metrics.url}), each read once a cycle with at most {@code status.page.poll.timeout.ms} (default 2000).
 */
public record LagMonitorConfig(
        Properties sourceClient,
        Properties targetClient,
        String mirrorGroupId,
        Pattern topics,
        TopicRenamer renamer,
        @Nullable URI mirrorMetricsUrl,
        int httpPort,
        String httpHost,
        int windowSize,
        long sampleIntervalMs,
        long stopAfterMs,
        long maxLagRecords,
        long maxLagSeconds,
        @Nullable URI webhookUrl,
        long alertSuppressMs,
        long auditIntervalMs,
        long auditMaxRecords,
        long mirrorCommitIntervalMs,
        @Nullable MessageHandler messageHandler,
        @Nullable URI canaryMetricsUrl,
        @Nullable URI pageMirrorMetricsUrl,
        long pagePollTimeoutMs) {

    /** The mirror's default --offset.commit.interval.ms. */
    public static final long DEFAULT_MIRROR_COMMIT_INTERVAL_MS = 60_000;

    /** How long the status page's neighbours (canary, mirror metrics) may take to answer, by default. */
    public static final long DEFAULT_PAGE_POLL_TIMEOUT_MS = 2_000;

    /** {@link #mirrorCommitIntervalMs} when mirror.commit.interval.ms is not set. */
    public static final long UNKNOWN = -1;

    /**
     * Refuses a status window too short to see a commit of a healthy mirror: its first and last samples must
     * lie further apart than the mirror's commit interval (mirror.commit.interval.ms), or a mirror between two
     * commits looks stalled. When the interval is not given, the lag monitor warns instead (see
     * {@link #windowWarning()}).
     */
    public LagMonitorConfig {
        if (mirrorCommitIntervalMs != UNKNOWN) {
            requireWindowSpansACommit(windowSize, sampleIntervalMs, mirrorCommitIntervalMs, "window.size");
        }
    }

    /** A warning to log when the window may not span a commit of a mirror at its default interval, or null. */
    public @Nullable String windowWarning() {
        long span = (windowSize - 1) * sampleIntervalMs;
        if (mirrorCommitIntervalMs == UNKNOWN && span <= DEFAULT_MIRROR_COMMIT_INTERVAL_MS) {
            return "the status window (" + windowSize + " samples " + sampleIntervalMs + " ms apart) spans " + span
                    + " ms, not more than the mirror's default commit interval (60000 ms): set mirror.commit.interval.ms to "
                    + "the mirror's --offset.commit.interval.ms, or a healthy mirror may look stalled between two commits";
        }
        return null;
    }

    /** The fewest samples whose span exceeds the commit interval. */
    public static int samplesSpanning(long sampleIntervalMs, long mirrorCommitIntervalMs) {
        return (int) Math.max(2, mirrorCommitIntervalMs / sampleIntervalMs + 2);
    }

    public static void requireWindowSpansACommit(
            int windowSize, long sampleIntervalMs, long mirrorCommitIntervalMs, String what) {
        long span = (windowSize - 1) * sampleIntervalMs;
        if (span <= mirrorCommitIntervalMs) {
            throw new ConfigException(
                    what + " " + windowSize + " samples " + sampleIntervalMs + " ms apart span " + span
                            + " ms, not more than the mirror's commit interval (mirror.commit.interval.ms="
                            + mirrorCommitIntervalMs
                            + "): a healthy mirror would look stalled between two commits. Use at least "
                            + samplesSpanning(sampleIntervalMs, mirrorCommitIntervalMs)
                            + " samples, or a shorter sample.interval.ms");
        }
    }

    public static LagMonitorConfig from(Properties p) {
        Properties source = prefixed(p, "source.");
        Properties target = prefixed(p, "target.");
        requireBootstrap(source, "source.");
        requireBootstrap(target, "target.");
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
        URI mirrorMetrics = url(p, "mirror.metrics.url");
        URI pageMirrorMetrics = url(p, "status.page.mirror.metrics.url");
        return new LagMonitorConfig(
                source,
                target,
                group.trim(),
                topics,
                renamer,
                mirrorMetrics,
                (int) number(p, "http.port", -1, -1, 65535),
                p.getProperty("http.host", "127.0.0.1").trim(),
                window,
                interval,
                number(p, "stop.after.ms", 300_000, 1, Long.MAX_VALUE),
                number(p, "max.lag.records", -1, -1, Long.MAX_VALUE),
                number(p, "max.lag.seconds", -1, -1, Long.MAX_VALUE),
                url(p, "alert.webhook.url"),
                number(p, "alert.suppress.ms", 600_000, 0, Long.MAX_VALUE),
                number(p, "audit.interval.ms", 60_000, 0, Long.MAX_VALUE),
                number(p, "audit.max.records", 10_000, 1, 10_000_000),
                p.getProperty("mirror.commit.interval.ms", "").isBlank()
                        ? UNKNOWN
                        : number(p, "mirror.commit.interval.ms", DEFAULT_MIRROR_COMMIT_INTERVAL_MS, 100, 86_400_000),
                handler(p),
                url(p, "status.page.canary.metrics.url"),
                pageMirrorMetrics != null ? pageMirrorMetrics : mirrorMetrics,
                // Read on the sampling thread: a neighbour that hangs delays a cycle by at most this.
                number(p, "status.page.poll.timeout.ms", DEFAULT_PAGE_POLL_TIMEOUT_MS, 100, 30_000));
    }

    /** The mirror's {@code --message.handler}, named again here so that the audit expects what the mirror writes. */
    private static @Nullable MessageHandler handler(Properties p) {
        String className = p.getProperty("message.handler", "").trim();
        String args = p.getProperty("message.handler.args");
        if (className.isEmpty()) {
            if (args != null) {
                throw new ConfigException("message.handler.args needs message.handler");
            }
            return null;
        }
        return MessageHandlers.load(className, args, "message.handler");
    }
}
