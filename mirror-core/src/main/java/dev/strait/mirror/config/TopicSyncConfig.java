package dev.strait.mirror.config;

import dev.strait.settings.ConfigException;
import java.util.Objects;

/**
 * How the mirror keeps target topics in step with their sources, every {@code intervalMs}: settings (through
 * {@code filter}), partition counts (grown, never shrunk) and, where both clusters have an authorizer, the
 * READ and DESCRIBE ACLs of mirrored topics (never WRITE: only the mirror writes to a target topic).
 */
public record TopicSyncConfig(
        boolean configs, boolean partitions, boolean acls, long intervalMs, TopicConfigFilter filter) {
    public TopicSyncConfig {
        Objects.requireNonNull(filter);
        if (intervalMs < 1000) {
            throw new ConfigException("--sync.topics.interval.ms must be at least 1000, not " + intervalMs);
        }
    }

    public static TopicSyncConfig defaults() {
        return new TopicSyncConfig(true, true, false, 60_000, TopicConfigFilter.defaults());
    }
}
