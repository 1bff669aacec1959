package dev.strait.settings;

import dev.strait.settings.Setting.Scope;

/**
 * Renders settings as the tables of {@code docs/reference.md}: one table per {@link SettingGroup}, under the group's
 * title and introduction, one row per setting with its type, default, what it allows and its documentation. The
 * reference is generated from the tables, so it says what the code accepts. Stateless.
 */
public final class SettingsMarkdown {

    private SettingsMarkdown() {}

    /**
     * One table per group of {@code settings}, in order, each under a heading of {@code headingLevel} (e.g. "###").
     */
    public static String tables(Iterable<Setting<?>> settings, String headingLevel) {
        StringBuilder b = new StringBuilder();
        SettingGroup group = null;
        for (Setting<?> setting : settings) {
            if (setting.group() != group) {
                group = setting.group();
                b.append('\n')
                        .append(headingLevel)
                        .append(' ')
                        .append(group.title())
                        .append("\n\n")
                        .append(group.intro())
                        .append("\n\n| Setting | Type | Default | Allowed | Description |\n")
                        .append("|---|---|---|---|---|\n");
            }
            row(b, setting);
        }
        return b.toString();
    }

    private static void row(StringBuilder b, Setting<?> setting) {
        String name = setting.scope() == Scope.LISTENER_MECHANISM
                ? "listener.name.<listener>.<mechanism>." + setting.name()
                : setting.name();
        String plainDefault = setting.defaultValue();
        b.append("| ")
                .append(code(name))
                .append(" | ")
                .append(setting.type().label())
                .append(setting.scope() == Scope.LISTENER ? ", per listener" : "")
                .append(" | ")
                .append(
                        setting.defaultDoc() == null && plainDefault != null
                                ? code(plainDefault)
                                : cell(setting.defaultDocText()))
                .append(" | ")
                .append(cell(setting.allowedDoc()))
                .append(" | ")
                .append(cell(setting.doc()))
                .append(" |\n");
    }

    /** {@code value} as code in a table cell ("(empty)" when empty). */
    public static String code(String value) {
        return value.isEmpty() ? "(empty)" : "`" + value.replace("|", "\\|") + "`";
    }

    /** {@code text} escaped for a table cell. */
    public static String cell(String text) {
        return text.replace("|", "\\|").replace("<", "&lt;");
    }
}
