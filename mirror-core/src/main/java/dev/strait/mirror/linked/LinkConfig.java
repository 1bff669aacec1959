package dev.strait.mirror.linked;

import dev.strait.mirror.config.ClientConfigs;
import dev.strait.mirror.config.GroupFilter;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.config.PartitionMode;
import dev.strait.mirror.config.TopicSyncConfig;
import dev.strait.settings.ConfigException;
import java.util.Locale;
import java.util.Properties;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * What an offset-preserving mirror ({@code --offset.preserving}) runs with, checked: the mirror process sets up
 * mirror topics on a companion cluster and keeps them, the groups and the lag in step, while the companion
 * brokers copy the batches themselves. Immutable.
 *
 * @param sourceClient           the source's client properties (admin connection and security)
 * @param targetClient           the target's client properties
 * @param topics                 the source topics to mirror (the user's include pattern minus internal topics)
 * @param sourceBootstrapServers {@code host:port,...} the companion brokers use to reach the source; empty when a
 *                               link names it
 * @param link                   the link in the companion brokers' settings that names the source and its
 *                               security; empty when the bootstrap servers do
 * @param replicationFactor      of the mirror topics created; -1 for the target's default
 * @param topicSync              settings and partition sync, with the ordinary mirror's config filter
 * @param groups                 the groups whose offsets are copied, or null for none
 * @param mirrorGroup            the consumer config's group.id, never copied (it is the mirror's own)
 * @param discoveryIntervalMs    how often new matching source topics and partitions are looked for
 * @param groupIntervalMs        how often group offsets are copied and the lag measured
 * @param progressIntervalMs     how often a progress line is logged
 */
public record LinkConfig(
        Properties sourceClient,
        Properties targetClient,
        Pattern topics,
        String sourceBootstrapServers,
        String link,
        short replicationFactor,
        TopicSyncConfig topicSync,
        @Nullable GroupFilter groups,
        String mirrorGroup,
        long discoveryIntervalMs,
        long groupIntervalMs,
        long progressIntervalMs) {

    /**
     * The offset-preserving form of {@code settings}, or a {@link ConfigException} naming the flag that cannot be
     * used with it. {@code sourceBootstrapOverride} (null: none) is the source's address as the companion brokers
     * see it, when it differs from the consumer config's.
     */
    public static LinkConfig of(MirrorConfig settings, String sourceBootstrapOverride) {
        return of(settings, sourceBootstrapOverride, null);
    }

    /**
     * As above; {@code link} (null: none) names a link the companion brokers define with the source's address and
     * client security, for a secured source, instead of bootstrap servers.
     */
    public static LinkConfig of(
            MirrorConfig settings, @Nullable String sourceBootstrapOverride, @Nullable String link) {
        refuseRecordChanges(settings);
        Properties consumer = settings.consumerConfig();
        String linkName = link == null ? "" : link.trim();
        if (link != null && !linkName.matches("[A-Za-z0-9_-]+")) {
            throw new ConfigException("--offset.preserving.link '" + link + "' is not a link name (letters, digits, '_'"
                    + " and '-'), as the companion brokers' strait.mirror.link.<name>.* settings name it");
        }
        if (!linkName.isEmpty() && sourceBootstrapOverride != null) {
            throw new ConfigException("--offset.preserving.link and --offset.preserving.source.bootstrap exclude each"
                    + " other: the link's bootstrap.servers in the brokers' settings is the source's address");
        }
        String servers = "";
        if (linkName.isEmpty()) {
            String protocol = consumer.getProperty("security.protocol", "PLAINTEXT")
                    .trim()
                    .toUpperCase(Locale.ROOT);
            if (!protocol.equals("PLAINTEXT")) {
                throw new ConfigException("--offset.preserving needs a PLAINTEXT source or a link: --consumer.config"
                        + " sets security.protocol=" + protocol + "; define the source's client settings on the"
                        + " companion brokers as strait.mirror.link.<name>.* and pass --offset.preserving.link <name>");
            }
            String bootstrap = sourceBootstrapOverride == null
                    ? consumer.getProperty("bootstrap.servers", "")
                    : sourceBootstrapOverride;
            servers = String.join(",", MirrorTopicConfigs.servers(bootstrap));
            checkHostPorts(
                    servers,
                    sourceBootstrapOverride == null
                            ? "bootstrap.servers in --consumer.config"
                            : "--offset.preserving.source.bootstrap");
        }
        Properties effective = ClientConfigs.consumer(consumer, 0);
        long discovery =
                Long.parseLong(effective.getProperty("metadata.max.age.ms").trim());
        return new LinkConfig(
                consumer,
                settings.producerConfig(),
                settings.subscription(),
                servers,
                linkName,
                settings.targetReplicationFactor(),
                settings.sync().topics(),
                settings.sync().groups(),
                consumer.getProperty("group.id"),
                Math.max(1000, discovery),
                settings.sync().groupOffsetsIntervalMs(),
                settings.progressIntervalMs());
    }

    /** The source as the mirror topics name it. */
    public MirrorSource source() {
        return link.isEmpty() ? MirrorSource.servers(sourceBootstrapServers) : MirrorSource.link(link);
    }

    /**
     * The companion copies batches as they are on the source, so the options that would change records, their
     * partitions or topic names cannot hold; offsets could not be preserved either way.
     */
    private static void refuseRecordChanges(MirrorConfig settings) {
        String why = ": the companion cluster copies the source's batches unchanged at the source's offsets";
        if (settings.messageHandler() != null) {
            throw new ConfigException("--offset.preserving cannot be combined with --message.handler" + why);
        }
        if (!settings.renamer().isIdentity()) {
            throw new ConfigException("--offset.preserving cannot be combined with --topic.prefix or --topic.rename"
                    + why + " into a topic of the same name");
        }
        if (settings.partitionMode() != PartitionMode.PRESERVE) {
            throw new ConfigException("--offset.preserving cannot be combined with --partition.mode=hash" + why
                    + " into the same partition");
        }
        if (!settings.provenanceHeaders()) {
            throw new ConfigException(
                    "--offset.preserving cannot be combined with --provenance.headers=false (which removes headers)"
                            + why + "; no header is added either");
        }
    }

    private static void checkHostPorts(String servers, String where) {
        if (servers.isEmpty()) {
            throw new ConfigException(where + " is empty: --offset.preserving needs the source's host:port list");
        }
        for (String server : servers.split(",")) {
            int colon = server.lastIndexOf(':');
            boolean ok = colon > 0 && colon < server.length() - 1;
            if (ok) {
                try {
                    int port = Integer.parseInt(server.substring(colon + 1));
                    ok = port > 0 && port <= 65535;
                } catch (NumberFormatException e) {
                    ok = false;
                }
            }
            if (!ok) {
                throw new ConfigException(where + ": '" + server + "' is not host:port");
            }
        }
    }
}
