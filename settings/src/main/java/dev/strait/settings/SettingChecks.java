package dev.strait.settings;

import java.net.URI;
import org.jspecify.annotations.Nullable;

/** Checks that more than one table uses, for {@link Setting#checked}. Stateless. */
public final class SettingChecks {

    private SettingChecks() {}

    /** Refuses anything but an absolute http:// or https:// URL (a webhook, a metrics endpoint). */
    public static Setting.Check<String> httpUrl() {
        return SettingChecks::httpUrlRefusal;
    }

    private static @Nullable String httpUrlRefusal(String value) {
        URI uri;
        try {
            uri = URI.create(value);
        } catch (IllegalArgumentException e) {
            return "not a valid URL: " + e.getMessage();
        }
        if (!"http".equals(uri.getScheme()) && !"https".equals(uri.getScheme())) {
            return "must be an http:// or https:// URL";
        }
        return null;
    }
}
