package dev.strait.mirror.config;

import java.net.URI;
import java.util.Properties;
import org.jspecify.annotations.Nullable;

/**
 * Typed reads of a properties file for Strait's daemons (lag monitor, canary): each bad value becomes a
 * {@link ConfigException} that names the key and the allowed range. Stateless.
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

    public static long number(Properties p, String key, long dflt, long min, long max) {
        String v = p.getProperty(key);
        if (v == null || v.isBlank()) {
            return dflt;
        }
        long n;
        try {
            n = Long.parseLong(v.trim());
        } catch (NumberFormatException e) {
            throw new ConfigException(key + " must be a whole number, not '" + v + "'");
        }
        if (n < min || n > max) {
            throw new ConfigException(key + " must be between " + min + " and " + max + ", not " + n);
        }
        return n;
    }

    /** An http(s) URL, or null when the key is absent. */
    public static @Nullable URI url(Properties p, String key) {
        String v = p.getProperty(key);
        if (v == null || v.isBlank()) {
            return null;
        }
        URI u;
        try {
            u = URI.create(v.trim());
        } catch (IllegalArgumentException e) {
            throw new ConfigException(key + " is not a valid URL: " + e.getMessage());
        }
        if (!"http".equals(u.getScheme()) && !"https".equals(u.getScheme())) {
            throw new ConfigException(key + " must be an http:// or https:// URL, not '" + v + "'");
        }
        return u;
    }
}
