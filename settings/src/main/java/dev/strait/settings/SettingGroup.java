package dev.strait.settings;

/**
 * A group of settings as the documentation shows them: a heading and one paragraph. A module's groups are usually
 * the constants of an enum that implements this ({@code BrokerSettings.Group}, {@code LagMonitorSettings.Group}).
 */
public interface SettingGroup {

    /** The heading, e.g. "Replication". */
    String title();

    /** One paragraph under the heading: what the group's settings have in common. */
    String intro();
}
