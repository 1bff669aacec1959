package dev.strait.canary;

import static dev.strait.settings.Setting.ofInt;
import static dev.strait.settings.Setting.ofLong;
import static dev.strait.settings.Setting.ofString;

import dev.strait.settings.Setting;
import dev.strait.settings.SettingChecks;
import dev.strait.settings.SettingGroup;
import dev.strait.settings.SettingTable;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * Every setting of {@code canary.properties} but the client settings, declared once: name, type, default, what it
 * allows and its documentation. {@link CanaryConfig#from} parses and checks a file with {@link #TABLE}, and
 * {@code docs/reference.md} is rendered from it. Client settings pass through under the {@code source.} and
 * {@code target.} prefixes and are Kafka's, so they are not declared here. The defaults that follow from other
 * settings (alarm.threshold.ms, lost.after.ms, target.topic, canary.id) and the check across settings
 * (lost.after.ms above alarm.threshold.ms) are {@link CanaryConfig}'s.
 */
public final class CanarySettings {

    /** The groups the settings are documented in, in order. */
    public static final class Group {

        public static final SettingGroup PROBES = new SettingGroup(
                "Probes",
                "One probe per partition of the topic every interval.ms, read back from the target; a probe is LATE"
                        + " after alarm.threshold.ms and LOST when still missing after lost.after.ms.");

        public static final SettingGroup HTTP = new SettingGroup(
                "Endpoints and alerts", "/status, /metrics and /healthz, and a JSON POST on every alarm change.");

        private Group() {}
    }

    public static final Setting<String> TOPIC = ofString(
                    "topic",
                    "strait-canary",
                    Group.PROBES,
                    "The probe topic on the source (created if absent); the mirror's include pattern must match it.")
            .checked(CanarySettings::topicNameRefusal);

    public static final Setting<String> TARGET_TOPIC = ofString(
                    "target.topic",
                    null,
                    Group.PROBES,
                    "The probe topic's name on the target, when the mirror renames (e.g. --topic.prefix nyc.).")
            .checked(CanarySettings::topicNameRefusal)
            .defaultIs("topic");

    public static final Setting<Integer> PARTITIONS = ofInt(
                    "partitions", "3", Group.PROBES, "Partitions of the probe topic when the canary creates it.")
            .between(1, 10_000);

    public static final Setting<Integer> REPLICATION_FACTOR = ofInt(
                    "replication.factor",
                    "-1",
                    Group.PROBES,
                    "Replicas of the probe topic when the canary creates it; -1 for the cluster's default.")
            .between(-1, 32);

    public static final Setting<Long> INTERVAL_MS = ofLong(
                    "interval.ms", "60000", Group.PROBES, "Time between two rounds of probes.")
            .between(1_000, 86_400_000);

    public static final Setting<Long> ALARM_THRESHOLD_MS = ofLong(
                    "alarm.threshold.ms",
                    null,
                    Group.PROBES,
                    "A probe not arrived this long after it was sent is LATE.")
            .atLeast(1)
            .defaultIs("2 x interval.ms");

    public static final Setting<Long> LOST_AFTER_MS = ofLong(
                    "lost.after.ms",
                    null,
                    Group.PROBES,
                    "A probe still missing this long after it was sent is LOST; must be above alarm.threshold.ms.")
            .atLeast(1)
            .defaultIs("the larger of 5 x interval.ms and 2 x alarm.threshold.ms");

    public static final Setting<String> CANARY_ID = ofString(
                    "canary.id",
                    null,
                    Group.PROBES,
                    "Tells this canary's probes from other canaries' on the same topic: several canaries may share"
                            + " it, each reads only its own probes.")
            .defaultIs("canary-<8 random hex digits>, new at every start");

    public static final Setting<Integer> HTTP_PORT = ofInt(
                    "http.port", "-1", Group.HTTP, "The port of /status, /metrics and /healthz; -1 serves none.")
            .between(-1, 65535);

    public static final Setting<String> HTTP_HOST =
            ofString("http.host", "127.0.0.1", Group.HTTP, "The address the endpoints bind to.");

    public static final Setting<String> ALERT_WEBHOOK_URL = ofString(
                    "alert.webhook.url",
                    null,
                    Group.HTTP,
                    "Where each alarm change is POSTed as JSON (an http:// or https:// URL); none for log lines"
                            + " only.")
            .checked(SettingChecks.httpUrl());

    public static final Setting<Long> ALERT_SUPPRESS_MS = ofLong(
                    "alert.suppress.ms",
                    "600000",
                    Group.HTTP,
                    "A repeat of the same alarm within this long is not alerted again.")
            .atLeast(0);

    /** Every setting, in the order of the documentation. */
    public static final SettingTable TABLE = new SettingTable(
            "canary",
            List.of(
                    TOPIC,
                    TARGET_TOPIC,
                    PARTITIONS,
                    REPLICATION_FACTOR,
                    INTERVAL_MS,
                    ALARM_THRESHOLD_MS,
                    LOST_AFTER_MS,
                    CANARY_ID,
                    HTTP_PORT,
                    HTTP_HOST,
                    ALERT_WEBHOOK_URL,
                    ALERT_SUPPRESS_MS));

    /** The prefixes under which Kafka's client settings pass through, undeclared (target.topic is declared). */
    public static final List<String> CLIENT_PREFIXES = List.of("source.", "target.");

    private CanarySettings() {}

    private static @Nullable String topicNameRefusal(String topic) {
        return topic.matches("[a-zA-Z0-9._-]{1,249}")
                ? null
                : "not a valid Kafka topic name (1 to 249 letters, digits, '.', '_' or '-')";
    }
}
