package dev.strait.settings;

/**
 * A group of settings as the documentation shows them: a heading and one paragraph. A module declares its groups as
 * constants beside its settings ({@code BrokerSettings.Group.TLS}, {@code LagMonitorSettings.Group...}); the
 * documentation starts a new table where the group changes.
 *
 * @param title the heading, e.g. "Replication"
 * @param intro one paragraph under the heading: what the group's settings have in common
 */
public record SettingGroup(String title, String intro) {}
