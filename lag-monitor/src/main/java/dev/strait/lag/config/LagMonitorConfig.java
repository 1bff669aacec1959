package dev.strait.lag.config;

import static dev.strait.lag.config.LagMonitorSettings.ALERT_SUPPRESS_MS;
import static dev.strait.lag.config.LagMonitorSettings.ALERT_WEBHOOK_URL;
import static dev.strait.lag.config.LagMonitorSettings.AUDIT_INTERVAL_MS;
import static dev.strait.lag.config.LagMonitorSettings.AUDIT_MAX_RECORDS;
import static dev.strait.lag.config.LagMonitorSettings.HTTP_HOST;
import static dev.strait.lag.config.LagMonitorSettings.HTTP_PORT;
import static dev.strait.lag.config.LagMonitorSettings.MAX_LAG_RECORDS;
import static dev.strait.lag.config.LagMonitorSettings.MAX_LAG_SECONDS;
import static dev.strait.lag.config.LagMonitorSettings.MESSAGE_HANDLER;
import static dev.strait.lag.config.LagMonitorSettings.MESSAGE_HANDLER_ARGS;
import static dev.strait.lag.config.LagMonitorSettings.MIRROR_COMMIT_INTERVAL_MS;
import static dev.strait.lag.config.LagMonitorSettings.MIRROR_GROUP_ID;
import static dev.strait.lag.config.LagMonitorSettings.MIRROR_METRICS_URL;
import static dev.strait.lag.config.LagMonitorSettings.SAMPLE_INTERVAL_MS;
import static dev.strait.lag.config.LagMonitorSettings.STATUS_PAGE_CANARY_METRICS_URL;
import static dev.strait.lag.config.LagMonitorSettings.STATUS_PAGE_MIRROR_METRICS_URL;
import static dev.strait.lag.config.LagMonitorSettings.STATUS_PAGE_POLL_TIMEOUT_MS;
import static dev.strait.lag.config.LagMonitorSettings.STOP_AFTER_MS;
import static dev.strait.lag.config.LagMonitorSettings.TOPICS;
import static dev.strait.lag.config.LagMonitorSettings.TOPIC_PREFIX;
import static dev.strait.lag.config.LagMonitorSettings.TOPIC_RENAME;
import static dev.strait.lag.config.LagMonitorSettings.WINDOW_SIZE;
import static dev.strait.mirror.config.PropertyValues.prefixed;
import static dev.strait.mirror.config.PropertyValues.requireBootstrap;

import dev.strait.mirror.config.TopicRenamer;
import dev.strait.mirror.handler.MessageHandler;
import dev.strait.mirror.handler.MessageHandlers;
import dev.strait.settings.ConfigException;
import dev.strait.settings.Setting;
import dev.strait.settings.SettingValues;
import java.net.URI;
import java.util.Properties;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lag monitor's settings, from {@code lag-monitor.properties}: each declared once in {@link LagMonitorSettings}
 * (name, type, default, range, documentation), from which {@link #from} parses them and {@code docs/reference.md}
 * documents them. Client settings pass through with the {@code source.} and {@code target.} prefixes (e.g.
 * {@code source.security.protocol}). Immutable, but for the mirror's message handler ({@code message.handler}, may be
 * null), which the audit runs to know what the mirror writes for each source record.
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

    private static final Logger LOGGER = LoggerFactory.getLogger(LagMonitorConfig.class);

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

    /**
     * The lag monitor's settings from {@code p}: each value parsed and checked against {@link LagMonitorSettings},
     * a blank value taken as unset. Keys that are neither a setting nor a {@code source.}/{@code target.} client
     * setting are logged and ignored.
     *
     * @throws ConfigException naming the first bad setting
     */
    public static LagMonitorConfig from(Properties p) {
        Properties source = prefixed(p, "source.");
        Properties target = prefixed(p, "target.");
        requireBootstrap(source, "source.");
        requireBootstrap(target, "target.");
        SettingValues v = LagMonitorSettings.TABLE.parse(p);
        warnUnknown(v);
        String group = v.find(MIRROR_GROUP_ID)
                .orElseThrow(() ->
                        new ConfigException("mirror.group.id is required: the consumer group of the mirror to watch"));
        URI mirrorMetrics = url(v, MIRROR_METRICS_URL);
        URI pageMirrorMetrics = url(v, STATUS_PAGE_MIRROR_METRICS_URL);
        return new LagMonitorConfig(
                source,
                target,
                group,
                LagMonitorSettings.topicPattern(v.get(TOPICS)),
                TopicRenamer.of(
                        v.find(TOPIC_PREFIX).orElse(null), v.find(TOPIC_RENAME).orElse(null)),
                mirrorMetrics,
                v.get(HTTP_PORT),
                v.get(HTTP_HOST),
                v.get(WINDOW_SIZE),
                v.get(SAMPLE_INTERVAL_MS),
                v.get(STOP_AFTER_MS),
                v.get(MAX_LAG_RECORDS),
                v.get(MAX_LAG_SECONDS),
                url(v, ALERT_WEBHOOK_URL),
                v.get(ALERT_SUPPRESS_MS),
                v.get(AUDIT_INTERVAL_MS),
                v.get(AUDIT_MAX_RECORDS),
                v.find(MIRROR_COMMIT_INTERVAL_MS).orElse(UNKNOWN),
                handler(v),
                url(v, STATUS_PAGE_CANARY_METRICS_URL),
                pageMirrorMetrics != null ? pageMirrorMetrics : mirrorMetrics,
                v.get(STATUS_PAGE_POLL_TIMEOUT_MS));
    }

    private static void warnUnknown(SettingValues values) {
        for (String key : values.unknown()) {
            if (LagMonitorSettings.CLIENT_PREFIXES.stream().noneMatch(key::startsWith)) {
                LOGGER.warn(LagMonitorSettings.TABLE.unknownWarning(key));
            }
        }
    }

    /** The URL {@code setting} gives (its table check has refused any other than http and https), or null. */
    private static @Nullable URI url(SettingValues values, Setting<String> setting) {
        return values.find(setting).map(URI::create).orElse(null);
    }

    /** The mirror's {@code --message.handler}, named again here so that the audit expects what the mirror writes. */
    private static @Nullable MessageHandler handler(SettingValues values) {
        String args = values.find(MESSAGE_HANDLER_ARGS).orElse(null);
        String className = values.find(MESSAGE_HANDLER).orElse(null);
        if (className == null) {
            if (args != null) {
                throw new ConfigException("message.handler.args needs message.handler");
            }
            return null;
        }
        return MessageHandlers.load(className, args, "message.handler");
    }
}
