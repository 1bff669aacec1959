package dev.strait.mirror.config;

import dev.strait.settings.ConfigException;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What the mirror keeps in step on the target besides the records.
 *
 * @param groups the consumer groups whose offsets are translated to the target, or null for none (the default)
 * @param groupOffsetsIntervalMs how often group offsets are synced and the offset map persisted
 * @param offsetMap whether the offset map (where each source record landed) is kept and persisted in the sync
 *     topic; needed by {@code --groups} and by {@code strait failover} with the source unreachable
 * @param syncTopic the compacted topic on the target that holds the offset map and the groups' checkpoints
 * @param topics topic settings, partition counts and ACLs
 */
public record SyncConfig(
        @Nullable GroupFilter groups,
        long groupOffsetsIntervalMs,
        boolean offsetMap,
        String syncTopic,
        TopicSyncConfig topics) {
    public static final long DEFAULT_GROUP_OFFSETS_INTERVAL_MS = 5000;
    public static final String DEFAULT_SYNC_TOPIC = "__strait_sync";

    public SyncConfig {
        Objects.requireNonNull(syncTopic);
        Objects.requireNonNull(topics);
        if (groupOffsetsIntervalMs < 100) {
            throw new ConfigException(
                    "--sync.group.offsets.interval.ms must be at least 100, not " + groupOffsetsIntervalMs);
        }
        if (groups != null && !offsetMap) {
            throw new ConfigException("--groups needs the offset map: remove --offset.map=false");
        }
        if (!syncTopic.matches("[a-zA-Z0-9._-]{1,249}")) {
            throw new ConfigException("--sync.topic must be a valid topic name, not '" + syncTopic + "'");
        }
    }

    public static SyncConfig defaults() {
        return new SyncConfig(
                null, DEFAULT_GROUP_OFFSETS_INTERVAL_MS, true, DEFAULT_SYNC_TOPIC, TopicSyncConfig.defaults());
    }
}
