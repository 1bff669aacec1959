package dev.strait.mirror.linked;

import java.util.HashMap;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * What to do with the target side of one matching source topic, decided from what both clusters show: create the
 * mirror topic, keep an existing mirror of this source in step (grow it, sync its settings), or leave a topic
 * that is not ours alone. Pure: no I/O, so every rule is tested without clusters.
 *
 * <p>A target topic is ours when its configs name the source topic and either pin the source topic's current id or,
 * before the broker pinned one, name the same source servers. Anything else that exists under the name (an
 * ordinary topic, a promoted mirror, a mirror of another cluster or of an earlier incarnation of the source topic)
 * belongs to someone else and is never changed.
 */
public final class TopicPlan {
    private TopicPlan() {}

    /**
     * A matching source topic.
     *
     * @param configs the source settings the ordinary mirror would copy (its config filter applied)
     */
    public record Source(String name, String topicId, int partitions, Map<String, String> configs) {
        public Source {
            Objects.requireNonNull(name);
            Objects.requireNonNull(topicId);
            configs = Map.copyOf(configs);
        }
    }

    /** A topic of the same name on the target: its partition count and config values (defaults included). */
    public record Target(int partitions, Map<String, String> configs) {
        public Target {
            configs = Map.copyOf(configs);
        }
    }

    /** The decision for one topic. */
    public sealed interface Decision permits Create, Keep, Skip {}

    /** Create the mirror topic with these partitions and configs (the copied ones and the mirror configs). */
    public record Create(int partitions, Map<String, String> configs) implements Decision {}

    /**
     * An existing mirror of this source: grow it to {@code growTo} partitions (0: no growth) and set
     * {@code configChanges} (source settings that differ on it).
     */
    public record Keep(int growTo, Map<String, String> configChanges) implements Decision {}

    /** Not ours: left alone, for {@code reason}. */
    public record Skip(String reason) implements Decision {}

    /**
     * @param source          the source topic
     * @param target          the target topic of the same name, or null when there is none
     * @param sourceServers   the source servers the mirror configs name
     * @param syncPartitions  whether a mirror with fewer partitions than its source is grown
     */
    public static Decision decide(
            Source source, @Nullable Target target, String sourceServers, boolean syncPartitions) {
        return decide(source, target, MirrorSource.servers(sourceServers), syncPartitions);
    }

    /** As above, for a source named by bootstrap servers or by a link. */
    public static Decision decide(
            Source source, @Nullable Target target, MirrorSource mirrorSource, boolean syncPartitions) {
        if (target == null) {
            Map<String, String> configs = new HashMap<>(source.configs());
            configs.keySet().removeIf(MirrorTopicConfigs::isMirrorConfig);
            configs.putAll(mirrorSource.configs(source.topicId()));
            return new Create(source.partitions(), configs);
        }
        Map<String, String> c = target.configs();
        if (!MirrorSource.namedIn(c)) {
            return new Skip("exists on the target and is not a mirror topic");
        }
        if (MirrorTopicConfigs.STATE_PROMOTED.equals(
                c.getOrDefault(MirrorTopicConfigs.STATE, "").trim())) {
            return new Skip("is a promoted mirror topic on the target (writable, no longer copied)");
        }
        String sourceTopic = c.getOrDefault(MirrorTopicConfigs.SOURCE_TOPIC, "").trim();
        if (!sourceTopic.isEmpty() && !sourceTopic.equals(source.name())) {
            return new Skip("is a mirror of source topic " + sourceTopic + " on the target");
        }
        String pinned = c.getOrDefault(MirrorTopicConfigs.SOURCE_TOPIC_ID, "").trim();
        if (!pinned.isEmpty() && !pinned.equals(source.topicId())) {
            return new Skip("is a mirror of source topic id " + pinned + " but the source topic now has id "
                    + source.topicId() + " (deleted and re-created on the source)");
        }
        if (pinned.isEmpty() && !mirrorSource.isNamedIn(c)) {
            String theirs = c.getOrDefault(MirrorTopicConfigs.LINK, "").isBlank()
                    ? c.getOrDefault(MirrorTopicConfigs.SOURCE_BOOTSTRAP_SERVERS, "")
                    : "link " + c.getOrDefault(MirrorTopicConfigs.LINK, "").trim();
            return new Skip("is a mirror of another source (" + theirs + ") on the target");
        }
        int growTo = syncPartitions && source.partitions() > target.partitions() ? source.partitions() : 0;
        Map<String, String> changes = new HashMap<>();
        source.configs().forEach((name, value) -> {
            if (!MirrorTopicConfigs.isMirrorConfig(name) && !value.equals(c.get(name))) {
                changes.put(name, value);
            }
        });
        return new Keep(growTo, changes);
    }
}
