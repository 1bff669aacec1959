package dev.strait.mirror.config;

import dev.strait.settings.ConfigException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.jspecify.annotations.Nullable;

/**
 * Which source topic settings the mirror copies to the target: every setting made on the source topic except
 * those that would change the copies or weaken the target's own safety. The built-in exclusions are
 * MirrorMaker 2's, plus tiered storage, which the target may not have:
 * <ul>
 *   <li>{@code message.timestamp.type}: a LogAppendTime target would overwrite the source timestamps the mirror
 *       keeps; {@code message.timestamp.difference.max.ms}, {@code .before.max.ms}, {@code .after.max.ms}: a
 *       backlog of old records would be refused;</li>
 *   <li>{@code leader/follower.replication.throttled.replicas}: broker ids of the source cluster;</li>
 *   <li>{@code unclean.leader.election.enable}, {@code min.insync.replicas}: the target's durability is its
 *       operators' choice;</li>
 *   <li>{@code remote.storage.enable}, {@code remote.log.*}, {@code local.retention.*}: tiered storage;</li>
 *   <li>{@code strait.mirror.*}: a companion cluster's mirror-topic settings, which copied to another companion
 *       cluster would make the target topic a second copier of the source's source.</li>
 * </ul>
 * Users add their own with {@code --config.properties.exclude}. Immutable.
 */
public final class TopicConfigFilter {
    public static final List<String> DEFAULT_EXCLUDES = List.of(
            "message\\.timestamp\\.type",
            "message\\.timestamp\\.difference\\.max\\.ms",
            "message\\.timestamp\\.before\\.max\\.ms",
            "message\\.timestamp\\.after\\.max\\.ms",
            "follower\\.replication\\.throttled\\.replicas",
            "leader\\.replication\\.throttled\\.replicas",
            "unclean\\.leader\\.election\\.enable",
            "min\\.insync\\.replicas",
            "remote\\.storage\\.enable",
            "remote\\.log\\..*",
            "local\\.retention\\..*",
            "strait\\.mirror\\..*");

    private final List<Pattern> excludes;

    private TopicConfigFilter(List<Pattern> excludes) {
        this.excludes = List.copyOf(excludes);
    }

    public static TopicConfigFilter defaults() {
        return withExtra(null);
    }

    /** The defaults plus a comma-separated list of regexes over setting names (null or blank: none). */
    public static TopicConfigFilter withExtra(@Nullable String extra) {
        List<Pattern> patterns = new ArrayList<>();
        for (String p : DEFAULT_EXCLUDES) {
            patterns.add(Pattern.compile(p));
        }
        if (extra != null && !extra.isBlank()) {
            for (String part : extra.split(",")) {
                String p = part.trim();
                if (p.isEmpty()) {
                    continue;
                }
                try {
                    patterns.add(Pattern.compile(p));
                } catch (PatternSyntaxException e) {
                    throw new ConfigException(
                            "--config.properties.exclude: '" + p + "' is not a valid regex: " + e.getDescription());
                }
            }
        }
        return new TopicConfigFilter(patterns);
    }

    /** True when the setting may be copied from the source topic to its target. */
    public boolean copies(String name) {
        for (Pattern p : excludes) {
            if (p.matcher(name).matches()) {
                return false;
            }
        }
        return true;
    }

    public List<String> excludes() {
        return excludes.stream().map(Pattern::pattern).toList();
    }
}
