package dev.strait.canary;

import static dev.strait.canary.CanarySettings.ALARM_THRESHOLD_MS;
import static dev.strait.canary.CanarySettings.ALERT_SUPPRESS_MS;
import static dev.strait.canary.CanarySettings.ALERT_WEBHOOK_URL;
import static dev.strait.canary.CanarySettings.CANARY_ID;
import static dev.strait.canary.CanarySettings.HTTP_HOST;
import static dev.strait.canary.CanarySettings.HTTP_PORT;
import static dev.strait.canary.CanarySettings.INTERVAL_MS;
import static dev.strait.canary.CanarySettings.LOST_AFTER_MS;
import static dev.strait.canary.CanarySettings.PARTITIONS;
import static dev.strait.canary.CanarySettings.REPLICATION_FACTOR;
import static dev.strait.canary.CanarySettings.TARGET_TOPIC;
import static dev.strait.canary.CanarySettings.TOPIC;
import static dev.strait.mirror.config.PropertyValues.prefixed;
import static dev.strait.mirror.config.PropertyValues.requireBootstrap;

import dev.strait.settings.ConfigException;
import dev.strait.settings.SettingValues;
import java.net.URI;
import java.util.Properties;
import java.util.UUID;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The canary's settings, from {@code canary.properties}: each declared once in {@link CanarySettings} (name, type,
 * default, range, documentation), from which {@link #from} parses them and {@code docs/reference.md} documents them.
 * Client settings pass through with the {@code source.} and {@code target.} prefixes. Immutable.
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

    private static final Logger LOGGER = LoggerFactory.getLogger(CanaryConfig.class);

    /**
     * The canary's settings from {@code p}: each value parsed and checked against {@link CanarySettings}, a blank
     * value taken as unset. Keys that are neither a setting nor a {@code source.}/{@code target.} client setting are
     * logged and ignored.
     *
     * @throws ConfigException naming the first bad setting
     */
    public static CanaryConfig from(Properties p) {
        Properties source = prefixed(p, "source.");
        Properties target = prefixed(p, "target.");
        target.remove("topic");
        requireBootstrap(source, "source.");
        requireBootstrap(target, "target.");
        SettingValues v = CanarySettings.TABLE.parse(p);
        for (String key : v.unknown()) {
            if (CanarySettings.CLIENT_PREFIXES.stream().noneMatch(key::startsWith)) {
                LOGGER.warn(CanarySettings.TABLE.unknownWarning(key));
            }
        }
        String topic = v.get(TOPIC);
        long interval = v.get(INTERVAL_MS);
        long threshold = v.find(ALARM_THRESHOLD_MS).orElse(2 * interval);
        long lostAfter = v.find(LOST_AFTER_MS).orElse(Math.max(5 * interval, 2 * threshold));
        if (lostAfter <= threshold) {
            throw new ConfigException(
                    "lost.after.ms (" + lostAfter + ") must be above alarm.threshold.ms (" + threshold + ")");
        }
        return new CanaryConfig(
                source,
                target,
                topic,
                v.find(TARGET_TOPIC).orElse(topic),
                v.get(PARTITIONS),
                v.get(REPLICATION_FACTOR).shortValue(),
                interval,
                threshold,
                lostAfter,
                v.find(CANARY_ID)
                        .orElseGet(
                                () -> "canary-" + UUID.randomUUID().toString().substring(0, 8)),
                v.get(HTTP_PORT),
                v.get(HTTP_HOST),
                v.find(ALERT_WEBHOOK_URL).map(URI::create).orElse(null),
                v.get(ALERT_SUPPRESS_MS));
    }
}
