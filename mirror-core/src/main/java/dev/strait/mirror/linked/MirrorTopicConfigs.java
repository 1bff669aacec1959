package dev.strait.mirror.linked;

import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

/**
 * The topic configs that make a topic on a Strait companion cluster a mirror topic, copied by the companion
 * partition leader from the source at the source's offsets. The names are the companion broker's contract
 * ({@code TopicConfigs} in the broker module); the mirror process only writes them, so it keeps its own copy of
 * the names rather than depend on the broker.
 */
public final class MirrorTopicConfigs {
    /** {@code host:port,...} the companion brokers use to reach the source; non-empty makes the topic a mirror. */
    public static final String SOURCE_BOOTSTRAP_SERVERS = "strait.mirror.source.bootstrap.servers";
    /** A source named by a link in the companion brokers' settings, instead of bootstrap servers. */
    public static final String LINK = "strait.mirror.link";
    /** The source topic's name when it differs from the mirror's; empty means the same name. */
    public static final String SOURCE_TOPIC = "strait.mirror.source.topic";
    /** The source topic's id: a source deleted and re-created under the same name is never copied on top. */
    public static final String SOURCE_TOPIC_ID = "strait.mirror.source.topic.id";
    /**
     * {@code mirroring} (copied, read-only), {@code paused} (read-only, not copied) or {@code promoted} (no longer
     * copied, writable).
     */
    public static final String STATE = "strait.mirror.state";

    public static final String STATE_MIRRORING = "mirroring";
    public static final String STATE_PAUSED = "paused";
    public static final String STATE_PROMOTED = "promoted";
    /** A failback's or a promote's cut: {@code partition:offset,...}; every replica cuts its log there once per id. */
    public static final String TRUNCATE_OFFSETS = "strait.mirror.truncate.offsets";
    /** Names a cut ({@code failback-<time>} or {@code promote-<time>}). */
    public static final String TRUNCATE_ID = "strait.mirror.truncate.id";

    /**
     * Written by the companion partition leaders, never by the mirror: per partition, the source topic id, the offset
     * where the copy began and the source epochs of what it copied ({@link SourceLineage}; {@code <p>=<lineage>;...}).
     */
    public static final String SOURCE_LINEAGE = "strait.mirror.source.lineage";
    /** Each partition's end when the topic was promoted ({@code partition:offset,...}); a failback bounds by it. */
    public static final String PROMOTED_OFFSETS = "strait.mirror.promoted.offsets";

    private MirrorTopicConfigs() {}

    /** Whether a config name belongs to the mirror contract (never synced from the source, never changed). */
    public static boolean isMirrorConfig(String name) {
        return name.startsWith("strait.mirror.");
    }

    /** The mirror configs of a topic that copies {@code sourceTopicId} (empty: pinned by the broker) from a source. */
    public static Map<String, String> of(String sourceBootstrapServers, String sourceTopicId) {
        return MirrorSource.servers(sourceBootstrapServers).configs(sourceTopicId);
    }

    /** A {@code host:port} list as a set of trimmed entries, so two spellings of one list compare equal. */
    public static Set<String> servers(String list) {
        Set<String> out = new LinkedHashSet<>();
        if (list == null) {
            return out;
        }
        for (String s : list.split(",")) {
            if (!s.isBlank()) {
                out.add(s.trim());
            }
        }
        return out;
    }
}
