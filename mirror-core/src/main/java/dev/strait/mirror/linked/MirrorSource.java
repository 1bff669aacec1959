package dev.strait.mirror.linked;

import java.util.HashMap;
import java.util.Map;

/**
 * How the companion brokers reach the source a mirror topic copies: its bootstrap servers (over PLAINTEXT), or a link
 * defined in the brokers' settings ({@code strait.mirror.link.<name>.*}, with the source's client security). Exactly
 * one is set. Immutable.
 */
public record MirrorSource(String servers, String link) {

    public MirrorSource {
        servers = servers == null ? "" : String.join(",", MirrorTopicConfigs.servers(servers));
        link = link == null ? "" : link.trim();
        if (servers.isEmpty() == link.isEmpty()) {
            throw new IllegalArgumentException("a mirror source is bootstrap servers or a link, one of them");
        }
    }

    public static MirrorSource servers(String servers) {
        return new MirrorSource(servers, "");
    }

    public static MirrorSource link(String name) {
        return new MirrorSource("", name);
    }

    /** The mirror configs of a topic copying the source topic {@code sourceTopicId} (empty: pinned by the broker). */
    public Map<String, String> configs(String sourceTopicId) {
        Map<String, String> out = new HashMap<>();
        if (link.isEmpty()) {
            out.put(MirrorTopicConfigs.SOURCE_BOOTSTRAP_SERVERS, servers);
        } else {
            out.put(MirrorTopicConfigs.LINK, link);
        }
        out.put(MirrorTopicConfigs.SOURCE_TOPIC_ID, sourceTopicId == null ? "" : sourceTopicId);
        out.put(MirrorTopicConfigs.STATE, MirrorTopicConfigs.STATE_MIRRORING);
        return out;
    }

    /** Whether a topic's configs name a source at all, i.e. make it a mirror topic. */
    public static boolean namedIn(Map<String, String> configs) {
        return !configs.getOrDefault(MirrorTopicConfigs.SOURCE_BOOTSTRAP_SERVERS, "")
                        .isBlank()
                || !configs.getOrDefault(MirrorTopicConfigs.LINK, "").isBlank();
    }

    /** Whether a topic's configs name this source (the same link, or the same servers in any order). */
    public boolean isNamedIn(Map<String, String> configs) {
        String theirLink = configs.getOrDefault(MirrorTopicConfigs.LINK, "").trim();
        if (!link.isEmpty() || !theirLink.isEmpty()) {
            return link.equals(theirLink);
        }
        return MirrorTopicConfigs.servers(configs.getOrDefault(MirrorTopicConfigs.SOURCE_BOOTSTRAP_SERVERS, ""))
                .equals(MirrorTopicConfigs.servers(servers));
    }

    @Override
    public String toString() {
        return link.isEmpty() ? servers : "link " + link;
    }
}
