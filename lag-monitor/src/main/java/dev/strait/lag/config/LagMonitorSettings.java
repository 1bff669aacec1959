package dev.strait.lag.config;

import static dev.strait.settings.Setting.ofClass;
import static dev.strait.settings.Setting.ofInt;
import static dev.strait.settings.Setting.ofLong;
import static dev.strait.settings.Setting.ofString;

import dev.strait.settings.Setting;
import dev.strait.settings.SettingChecks;
import dev.strait.settings.SettingGroup;
import dev.strait.settings.SettingTable;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.jspecify.annotations.Nullable;

/**
 * Every setting of {@code lag-monitor.properties} but the client settings, declared once: name, type, default, what
 * it allows and its documentation. {@link LagMonitorConfig#from} parses and checks a file with {@link #TABLE}, and
 * {@code docs/reference.md} is rendered from it. Client settings pass through under the {@code source.} and
 * {@code target.} prefixes and are Kafka's, so they are not declared here. Checks across settings (the window must
 * span a commit of the mirror, {@code message.handler.args} needs {@code message.handler}) are
 * {@link LagMonitorConfig}'s.
 */
public final class LagMonitorSettings {

    /** The groups the settings are documented in, in order. */
    public static final class Group {

        public static final SettingGroup MIRROR = new SettingGroup(
                "The mirror watched",
                "These name the mirror as its own flags do, so that lag and audit see the topics, names and"
                        + " records the mirror makes.");

        public static final SettingGroup STATUS = new SettingGroup(
                "Status",
                "Burrow's rules over a window of samples per partition (docs/operating.md, \"How the lag monitor"
                        + " decides a status\"), and optional hard thresholds.");

        public static final SettingGroup AUDIT =
                new SettingGroup("Audit", "The record-by-record audit of every committed record (docs/operating.md).");

        public static final SettingGroup ALERTS = new SettingGroup(
                "Alerts", "A log line on every status change, and a JSON POST to a webhook; repeats are suppressed.");

        public static final SettingGroup HTTP = new SettingGroup(
                "Status page", "The status page (/), /status, /metrics and /healthz, and what the page shows besides.");

        private Group() {}
    }

    public static final Setting<String> MIRROR_GROUP_ID = ofString(
                    "mirror.group.id",
                    null,
                    Group.MIRROR,
                    "The mirror's consumer group (group.id of its --consumer.config): its committed offsets are how"
                            + " far the mirror got.")
            .defaultIs("required");

    public static final Setting<String> TOPICS = ofString(
                    "topics",
                    ".*",
                    Group.MIRROR,
                    "The source topics to watch, a Java regex as the mirror's include pattern; internal topics"
                            + " (__*) never match.")
            .checked(LagMonitorSettings::topicsRefusal);

    public static final Setting<String> TOPIC_PREFIX =
            ofString("topic.prefix", null, Group.MIRROR, "The mirror's --topic.prefix, if it renames topics that way.");

    public static final Setting<String> TOPIC_RENAME = ofString(
            "topic.rename",
            null,
            Group.MIRROR,
            "The mirror's --topic.rename (regex=replacement), if it renames topics that way.");

    public static final Setting<String> MESSAGE_HANDLER = ofClass(
            "message.handler",
            null,
            Group.MIRROR,
            "The mirror's --message.handler, if it runs one: the audit runs it too, so it expects what the handler"
                    + " writes (its drops are not MISSING). Its jar goes on STRAIT_CLASSPATH.");

    public static final Setting<String> MESSAGE_HANDLER_ARGS = ofString(
            "message.handler.args", null, Group.MIRROR, "The mirror's --message.handler.args; needs message.handler.");

    public static final Setting<String> MIRROR_METRICS_URL = ofString(
                    "mirror.metrics.url",
                    null,
                    Group.MIRROR,
                    "The mirror's metrics endpoint (--metrics.port), e.g. http://127.0.0.1:9101/metrics, for the"
                            + " consumer-read lag.")
            .checked(SettingChecks.httpUrl());

    public static final Setting<Long> MIRROR_COMMIT_INTERVAL_MS = ofLong(
                    "mirror.commit.interval.ms",
                    null,
                    Group.MIRROR,
                    "The mirror's --offset.commit.interval.ms. Given, a status window that does not span more than"
                            + " one commit interval is refused; without it, the lag monitor warns when the window"
                            + " does not span the mirror's default (60000).")
            .between(100, 86_400_000)
            .defaultIs("unknown");

    public static final Setting<Integer> WINDOW_SIZE = ofInt(
                    "window.size",
                    "10",
                    Group.STATUS,
                    "Samples per partition the status is decided over. The window's span, (window.size - 1) x"
                            + " sample.interval.ms, must exceed the mirror's commit interval, or a healthy mirror"
                            + " between two commits would look stalled.")
            .between(2, 1000);

    public static final Setting<Long> SAMPLE_INTERVAL_MS = ofLong(
                    "sample.interval.ms", "10000", Group.STATUS, "Time between two samples (one cycle).")
            .between(100, 3_600_000);

    public static final Setting<Long> STOP_AFTER_MS = ofLong(
                    "stop.after.ms",
                    "300000",
                    Group.STATUS,
                    "STOP before the window holds window.size commits: no commit for this long while lag stays"
                            + " above zero.")
            .atLeast(1);

    public static final Setting<Long> MAX_LAG_RECORDS = ofLong(
                    "max.lag.records",
                    "-1",
                    Group.STATUS,
                    "A hard threshold on a partition's lag in records on top of the status; -1 for none.")
            .atLeast(-1);

    public static final Setting<Long> MAX_LAG_SECONDS = ofLong(
                    "max.lag.seconds",
                    "-1",
                    Group.STATUS,
                    "A hard threshold on a partition's time lag in seconds on top of the status; -1 for none.")
            .atLeast(-1);

    public static final Setting<Long> AUDIT_INTERVAL_MS = ofLong(
                    "audit.interval.ms",
                    "60000",
                    Group.AUDIT,
                    "Time between two audit rounds, each going on where the last stopped; 0 turns the audit off.")
            .atLeast(0);

    public static final Setting<Long> AUDIT_MAX_RECORDS = ofLong(
                    "audit.max.records", "10000", Group.AUDIT, "Records audited per partition and round.")
            .between(1, 10_000_000);

    public static final Setting<String> ALERT_WEBHOOK_URL = ofString(
                    "alert.webhook.url",
                    null,
                    Group.ALERTS,
                    "Where each status change is POSTed as JSON (an http:// or https:// URL); none for log lines"
                            + " only.")
            .checked(SettingChecks.httpUrl());

    public static final Setting<Long> ALERT_SUPPRESS_MS = ofLong(
                    "alert.suppress.ms",
                    "600000",
                    Group.ALERTS,
                    "A repeat of the same status within this long is not alerted again.")
            .atLeast(0);

    public static final Setting<Integer> HTTP_PORT = ofInt(
                    "http.port", "-1", Group.HTTP, "The port of the status page and endpoints; -1 serves none.")
            .between(-1, 65535);

    public static final Setting<String> HTTP_HOST =
            ofString("http.host", "127.0.0.1", Group.HTTP, "The address the status page binds to.");

    public static final Setting<String> STATUS_PAGE_CANARY_METRICS_URL = ofString(
                    "status.page.canary.metrics.url",
                    null,
                    Group.HTTP,
                    "The canary's metrics endpoint, e.g. http://127.0.0.1:9103/metrics: the page then shows the"
                            + " canary's state, read once a cycle.")
            .checked(SettingChecks.httpUrl());

    public static final Setting<String> STATUS_PAGE_MIRROR_METRICS_URL = ofString(
                    "status.page.mirror.metrics.url",
                    null,
                    Group.HTTP,
                    "The mirror's metrics endpoint the page reads the mirror's group offset sync from, once a"
                            + " cycle.")
            .checked(SettingChecks.httpUrl())
            .defaultIs("mirror.metrics.url");

    public static final Setting<Long> STATUS_PAGE_POLL_TIMEOUT_MS = ofLong(
                    "status.page.poll.timeout.ms",
                    Long.toString(LagMonitorConfig.DEFAULT_PAGE_POLL_TIMEOUT_MS),
                    Group.HTTP,
                    "How long the page's neighbours (canary and mirror metrics) may take to answer; read on the"
                            + " sampling thread, so a neighbour that hangs delays a cycle by at most this.")
            .between(100, 30_000);

    /** Every setting, in the order of the documentation. */
    public static final SettingTable TABLE = new SettingTable(
            "lag monitor",
            List.of(
                    MIRROR_GROUP_ID,
                    TOPICS,
                    TOPIC_PREFIX,
                    TOPIC_RENAME,
                    MESSAGE_HANDLER,
                    MESSAGE_HANDLER_ARGS,
                    MIRROR_METRICS_URL,
                    MIRROR_COMMIT_INTERVAL_MS,
                    WINDOW_SIZE,
                    SAMPLE_INTERVAL_MS,
                    STOP_AFTER_MS,
                    MAX_LAG_RECORDS,
                    MAX_LAG_SECONDS,
                    AUDIT_INTERVAL_MS,
                    AUDIT_MAX_RECORDS,
                    ALERT_WEBHOOK_URL,
                    ALERT_SUPPRESS_MS,
                    HTTP_PORT,
                    HTTP_HOST,
                    STATUS_PAGE_CANARY_METRICS_URL,
                    STATUS_PAGE_MIRROR_METRICS_URL,
                    STATUS_PAGE_POLL_TIMEOUT_MS));

    /** The prefixes under which Kafka's client settings pass through, undeclared. */
    public static final List<String> CLIENT_PREFIXES = List.of("source.", "target.");

    private LagMonitorSettings() {}

    /** The watched topics: {@code topics} as a pattern that never matches an internal ({@code __}) topic. */
    static Pattern topicPattern(String topics) {
        return Pattern.compile("(?!__)(?:" + topics + ")");
    }

    private static @Nullable String topicsRefusal(String topics) {
        try {
            topicPattern(topics);
            return null;
        } catch (PatternSyntaxException e) {
            return "not a valid regex: " + e.getDescription();
        }
    }
}
