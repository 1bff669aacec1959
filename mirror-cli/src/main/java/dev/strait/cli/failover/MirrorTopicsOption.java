package dev.strait.cli.failover;

import dev.strait.settings.ConfigException;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.jspecify.annotations.Nullable;

/** {@code --mirror-topics} of failover and failback: which of the two jobs, and the topics' pattern. */
final class MirrorTopicsOption {
    private MirrorTopicsOption() {}

    /**
     * Checks that exactly one of {@code --groups} and {@code --mirror-topics} was given, and that the group-only
     * options are not given with {@code --mirror-topics}.
     *
     * @param job what --mirror-topics does, for the message ("promote mirror topics")
     * @return whether the mirror topics are the job
     */
    static boolean chosen(
            @Nullable String groups,
            @Nullable String mirrorTopics,
            boolean force,
            @Nullable String groupsExclude,
            String job) {
        if ((groups == null) == (mirrorTopics == null)) {
            throw new ConfigException(
                    "give --groups (move consumer groups) or --mirror-topics (" + job + "), one of" + " them");
        }
        if (mirrorTopics != null && (force || groupsExclude != null)) {
            throw new ConfigException("--force and --groups.exclude apply to --groups, not to --mirror-topics");
        }
        return mirrorTopics != null;
    }

    /** The pattern, or a one-line error naming the option. */
    static Pattern pattern(String mirrorTopics) {
        try {
            return Pattern.compile(mirrorTopics);
        } catch (PatternSyntaxException e) {
            throw new ConfigException("--mirror-topics is not a regular expression: " + e.getDescription());
        }
    }
}
