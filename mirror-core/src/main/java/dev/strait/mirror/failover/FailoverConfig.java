package dev.strait.mirror.failover;

import dev.strait.mirror.config.ClientConfigs;
import dev.strait.mirror.config.SyncConfig;
import dev.strait.mirror.config.TopicRenamer;
import dev.strait.settings.ConfigException;
import java.nio.file.Path;
import java.util.Properties;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The file {@code strait failover} and {@code strait failback} read: the two clusters' client settings, given
 * with a {@code source.} or {@code target.} prefix and passed to the clients untouched (security settings
 * included; nothing here is ever logged), and the mirror's rename settings.
 *
 * <pre>
 *   source.bootstrap.servers=dc1-kafka:9092
 *   target.bootstrap.servers=dc2-kafka:9092
 *   target.security.protocol=SASL_SSL          # any client setting, per side
 *   topic.prefix=dc1.                          # as the mirror was run (optional)
 *   topic.rename=prod\.(.*)=dr.$1              # as the mirror was run (optional)
 *   sync.topic=__strait_sync                   # as the mirror was run (optional)
 *   source.cluster.id=...                      # which source, when several mirrors write to one target (optional)
 * </pre>
 */
public final class FailoverConfig {
    private static final Set<String> OWN_KEYS =
            Set.of("topic.prefix", "topic.rename", "sync.topic", "source.cluster.id");

    private final Properties source;
    private final Properties target;
    private final TopicRenamer renamer;
    private final String syncTopic;
    private final @Nullable String sourceClusterId;

    private FailoverConfig(
            Properties source,
            Properties target,
            TopicRenamer renamer,
            String syncTopic,
            @Nullable String sourceClusterId) {
        this.source = source;
        this.target = target;
        this.renamer = renamer;
        this.syncTopic = syncTopic;
        this.sourceClusterId = sourceClusterId;
    }

    public static FailoverConfig load(Path file) {
        return parse(ClientConfigs.load(file, "--config"));
    }

    public static FailoverConfig parse(Properties all) {
        Properties source = new Properties();
        Properties target = new Properties();
        for (String name : all.stringPropertyNames()) {
            String value = all.getProperty(name).trim();
            if (OWN_KEYS.contains(name)) {
                continue;
            }
            if (name.startsWith("source.")) {
                source.put(name.substring("source.".length()), value);
            } else if (name.startsWith("target.")) {
                target.put(name.substring("target.".length()), value);
            } else {
                throw new ConfigException(
                        "--config: unknown setting '" + name + "'; client settings need a 'source.' or "
                                + "'target.' prefix; other keys are topic.prefix, topic.rename, sync.topic, source.cluster.id");
            }
        }
        require(source, "source");
        require(target, "target");
        String syncTopic =
                all.getProperty("sync.topic", SyncConfig.DEFAULT_SYNC_TOPIC).trim();
        String clusterId = all.getProperty("source.cluster.id");
        return new FailoverConfig(
                source,
                target,
                TopicRenamer.of(trimmed(all, "topic.prefix"), trimmed(all, "topic.rename")),
                syncTopic,
                clusterId == null || clusterId.isBlank() ? null : clusterId.trim());
    }

    private static @Nullable String trimmed(Properties p, String key) {
        String v = p.getProperty(key);
        return v == null ? null : v.trim();
    }

    private static void require(Properties props, String side) {
        String bootstrap = props.getProperty("bootstrap.servers");
        if (bootstrap == null || bootstrap.isBlank()) {
            throw new ConfigException(
                    "--config must set " + side + ".bootstrap.servers (host:port of the " + side + " cluster)");
        }
    }

    /** Client settings of the source cluster (a copy). */
    public Properties source() {
        Properties p = new Properties();
        p.putAll(source);
        return p;
    }

    /** Client settings of the target cluster (a copy). */
    public Properties target() {
        Properties p = new Properties();
        p.putAll(target);
        return p;
    }

    public TopicRenamer renamer() {
        return renamer;
    }

    public String syncTopic() {
        return syncTopic;
    }

    /** The source cluster id given in the file, or null. */
    public @Nullable String sourceClusterId() {
        return sourceClusterId;
    }

    /** Where the clusters are, for messages (bootstrap addresses only, never other settings). */
    public String describe() {
        return "source " + source.getProperty("bootstrap.servers") + ", target "
                + target.getProperty("bootstrap.servers");
    }
}
