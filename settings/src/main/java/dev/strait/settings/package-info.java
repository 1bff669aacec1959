/**
 * Settings: the one way a Strait properties file is declared and read. A module declares each of its settings once
 * as a {@link dev.strait.settings.Setting} constant (name, type, default, range or allowed values, check, group,
 * documentation), gathers them in a {@link dev.strait.settings.SettingTable}, and reads a file's typed values from
 * the {@link dev.strait.settings.SettingValues} the table parses, as {@code values.get(SOME_SETTING)}; the same
 * declarations render the documentation ({@link dev.strait.settings.SettingsMarkdown}). Every bad setting, flag or
 * file is one {@link dev.strait.settings.ConfigException}, whose message is one line naming it.
 *
 * <p>Owns no state and no threads: every class here is immutable or stateless. Imports nothing but the JDK and
 * JSpecify, so every module may depend on it.
 */
package dev.strait.settings;
