package dev.strait.mirror.config;

import dev.strait.settings.ConfigException;
import java.util.Properties;

/**
 * The client settings of a daemon's properties file (lag monitor, canary): Kafka's own settings, passed through under
 * a prefix such as {@code source.}, and the one each needs. The daemons' own settings are declared as tables of
 * {@code dev.strait.settings.Setting}s. Stateless.
 */
public final class PropertyValues {
    private PropertyValues() {}

    /** The entries under {@code prefix} with the prefix removed (e.g. {@code source.} client settings). */
    public static Properties prefixed(Properties p, String prefix) {
        Properties out = new Properties();
        for (String name : p.stringPropertyNames()) {
            if (name.startsWith(prefix)) {
                out.put(name.substring(prefix.length()), p.getProperty(name).trim());
            }
        }
        return out;
    }

    /** Fails unless the client settings under {@code prefix} name the cluster. */
    public static void requireBootstrap(Properties client, String prefix) {
        String v = client.getProperty("bootstrap.servers");
        if (v == null || v.isBlank()) {
            throw new ConfigException(prefix + "bootstrap.servers is required (host:port of the cluster)");
        }
    }
}
