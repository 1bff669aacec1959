package dev.strait.mirror.config;

import dev.strait.settings.ConfigException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.jspecify.annotations.Nullable;

/**
 * Maps a source topic name to its target name. Either a prefix ({@code nyc.} makes {@code orders} into
 * {@code nyc.orders}), a regex rule {@code PATTERN=REPLACEMENT} applied to the whole name (topics that do not
 * match keep their name), or both, the rule first. Immutable and thread-safe.
 */
public final class TopicRenamer {
    private static final TopicRenamer IDENTITY = new TopicRenamer("", null, null, java.util.Map.of());

    private final String prefix;
    private final @Nullable Pattern pattern;
    private final @Nullable String replacement;
    /** Names given one by one (failback's reverse of a rename); consulted first, names not in it are kept. */
    private final java.util.Map<String, String> explicit;

    private TopicRenamer(
            String prefix,
            @Nullable Pattern pattern,
            @Nullable String replacement,
            java.util.Map<String, String> explicit) {
        this.prefix = prefix;
        this.pattern = pattern;
        this.replacement = replacement;
        this.explicit = java.util.Map.copyOf(explicit);
    }

    /** A renamer that maps the given names and keeps every other name. */
    public static TopicRenamer explicit(java.util.Map<String, String> names) {
        return new TopicRenamer("", null, null, names);
    }

    public static TopicRenamer identity() {
        return IDENTITY;
    }

    /**
     * @param prefix a prefix or null
     * @param rule {@code PATTERN=REPLACEMENT} or null
     */
    public static TopicRenamer of(@Nullable String prefix, @Nullable String rule) {
        Pattern pattern = null;
        String replacement = null;
        if (rule != null && !rule.isBlank()) {
            int eq = rule.lastIndexOf('=');
            if (eq <= 0) {
                throw new ConfigException(
                        "--topic.rename must look like PATTERN=REPLACEMENT (e.g. 'prod\\.(.*)=dr.$1'), not '" + rule
                                + "'");
            }
            try {
                pattern = Pattern.compile(rule.substring(0, eq));
            } catch (PatternSyntaxException e) {
                throw new ConfigException("--topic.rename pattern is not a valid regex: " + e.getDescription());
            }
            replacement = rule.substring(eq + 1);
        }
        String p = prefix == null ? "" : prefix;
        if (!p.isEmpty() && !p.matches("[a-zA-Z0-9._-]+")) {
            throw new ConfigException(
                    "--topic.prefix may only contain letters, digits, '.', '_' and '-', not '" + p + "'");
        }
        return new TopicRenamer(p, pattern, replacement, java.util.Map.of());
    }

    public String targetTopic(String sourceTopic) {
        String mapped = explicit.get(sourceTopic);
        if (mapped != null) {
            return mapped;
        }
        String name = sourceTopic;
        if (pattern != null && replacement != null) {
            Matcher m = pattern.matcher(name);
            if (m.matches()) {
                name = m.replaceAll(replacement);
            }
        }
        return prefix.isEmpty() ? name : prefix + name;
    }

    public boolean isIdentity() {
        return prefix.isEmpty()
                && pattern == null
                && explicit.entrySet().stream().allMatch(e -> e.getKey().equals(e.getValue()));
    }

    /** The rule in the form a user wrote it, for logs and for the lag monitor. */
    public String describe() {
        if (isIdentity()) {
            return "none";
        }
        if (!explicit.isEmpty()) {
            return "names " + new java.util.TreeMap<>(explicit);
        }
        String rule = pattern == null ? "" : pattern.pattern() + "=" + replacement;
        return (rule.isEmpty() ? "" : "rename " + rule)
                + (prefix.isEmpty() ? "" : (rule.isEmpty() ? "" : ", ") + "prefix " + prefix);
    }
}
