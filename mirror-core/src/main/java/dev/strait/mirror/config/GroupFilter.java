package dev.strait.mirror.config;

import dev.strait.settings.ConfigException;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.jspecify.annotations.Nullable;

/** Which consumer groups to sync: an include regex, an optional exclude regex, never the mirror's own group. */
public record GroupFilter(Pattern include, @Nullable Pattern exclude) {

    public static GroupFilter of(String include, @Nullable String exclude, String includeFlag, String excludeFlag) {
        return new GroupFilter(
                compile(include, includeFlag),
                exclude == null || exclude.isBlank() ? null : compile(exclude, excludeFlag));
    }

    private static Pattern compile(String regex, String flag) {
        if (regex == null || regex.isBlank()) {
            throw new ConfigException(flag + " needs a regex of consumer group ids, e.g. 'orders-.*'");
        }
        try {
            return Pattern.compile(regex.trim());
        } catch (PatternSyntaxException e) {
            throw new ConfigException(flag + " is not a valid regex: " + e.getDescription() + " near index "
                    + e.getIndex() + " in '" + regex + "'");
        }
    }

    public boolean matches(String group) {
        return include.matcher(group).matches()
                && (exclude == null || !exclude.matcher(group).matches());
    }
}
