package dev.strait.broker.link;

import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.partition.TopicConfigs;
import java.util.Map;
import java.util.Optional;

/**
 * What makes a topic a mirror topic, read from its configs: the source cluster, the source topic, the source topic
 * id pinned when copying began, and whether it still copies or was promoted. Immutable.
 *
 * @param sourceBootstrapServers {@code host:port,...} of the source cluster, reached over PLAINTEXT; empty when a link
 *                               names the source
 * @param link                   the link in the brokers' settings that names the source and its security; empty
 *                               when the bootstrap servers do
 * @param sourceTopic            the topic copied (the mirror topic's own name unless configured)
 * @param pinnedTopicId          the source topic's id when copying began; empty before the first copy
 * @param state                  copied and read-only, paused (read-only, not copied), or promoted (writable)
 */
public record MirrorSpec(
        String sourceBootstrapServers, String link, String sourceTopic, String pinnedTopicId, State state) {

    /** Where a mirror topic stands, from {@code strait.mirror.state}. */
    public enum State {
        /** Copied from the source; producers refused. */
        MIRRORING,
        /** Not copied and producers refused: a failback saves what only this side holds, then cuts the log. */
        PAUSED,
        /** A topic of its own: not copied, producers welcome. */
        PROMOTED
    }

    /**
     * The spec of a topic whose configs name a source; empty for an ordinary topic. Read from the topic's own
     * overrides, without merging defaults: no broker setting defaults a mirror config, and the produce path asks.
     */
    public static Optional<MirrorSpec> from(TopicMetadata topic) {
        return from(topic.name(), topic.configs());
    }

    /** As above, from a topic's name and config overrides. */
    public static Optional<MirrorSpec> from(String topic, Map<String, String> configs) {
        if (!TopicConfigs.isMirror(configs)) {
            return Optional.empty();
        }
        String servers = configs.getOrDefault(TopicConfigs.MIRROR_SOURCE_BOOTSTRAP_SERVERS, "")
                .trim();
        String link = configs.getOrDefault(TopicConfigs.MIRROR_LINK, "").trim();
        String sourceTopic =
                configs.getOrDefault(TopicConfigs.MIRROR_SOURCE_TOPIC, "").trim();
        String state = configs.getOrDefault(TopicConfigs.MIRROR_STATE, "").trim();
        return Optional.of(new MirrorSpec(
                link.isEmpty() ? servers : "",
                link,
                sourceTopic.isEmpty() ? topic : sourceTopic,
                configs.getOrDefault(TopicConfigs.MIRROR_SOURCE_TOPIC_ID, "").trim(),
                switch (state) {
                    case TopicConfigs.MIRROR_STATE_PROMOTED -> State.PROMOTED;
                    case TopicConfigs.MIRROR_STATE_PAUSED -> State.PAUSED;
                    default -> State.MIRRORING;
                }));
    }

    /** The source cluster for people and for grouping: the link's name, or the bootstrap servers. */
    public String source() {
        return link.isEmpty() ? sourceBootstrapServers : "link " + link;
    }

    public boolean promoted() {
        return state == State.PROMOTED;
    }

    /** Whether the topic refuses producers: it is copied now, or paused for a failback. */
    public boolean readOnly() {
        return state != State.PROMOTED;
    }
}
