package dev.strait.broker.link;

import java.util.Map;
import java.util.Optional;

/**
 * The source clusters this node may copy from: a mirror topic names its source by bootstrap servers (reached over
 * PLAINTEXT) or by a link, defined in the brokers' settings as {@code strait.mirror.link.<name>.<client setting>}
 * ({@code bootstrap.servers}, {@code security.protocol}, {@code ssl.*}, {@code sasl.*}), so that credentials stay
 * in each broker's configuration and out of the metadata. Immutable.
 */
public final class SourceLinks {

    /** How to reach one source: its bootstrap servers and the connections to open to its brokers. */
    public record Source(String name, String bootstrapServers, SourceClient.Factory factory) {}

    /** Builds the connection factory of a source from its client settings (empty for plain bootstrap servers). */
    public interface Connector {
        SourceClient.Factory connect(String name, Map<String, String> clientSettings);
    }

    public static final String PREFIX = "strait.mirror.link.";

    private final Map<String, Map<String, String>> links;
    private final Connector connector;

    /** @param links each link's client settings by link name */
    public SourceLinks(Map<String, Map<String, String>> links, Connector connector) {
        this.links = Map.copyOf(links);
        this.connector = connector;
    }

    /** Every link in a node's settings: {@code strait.mirror.link.<name>.<setting>} grouped by name. */
    public static Map<String, Map<String, String>> fromSettings(Map<String, String> settings) {
        Map<String, Map<String, String>> links = new java.util.TreeMap<>();
        settings.forEach((key, value) -> {
            if (key.startsWith(PREFIX)) {
                String rest = key.substring(PREFIX.length());
                int dot = rest.indexOf('.');
                if (dot > 0) {
                    links.computeIfAbsent(rest.substring(0, dot), n -> new java.util.HashMap<>())
                            .put(rest.substring(dot + 1), value);
                }
            }
        });
        return links;
    }

    /**
     * The source of a mirror topic, or empty with a reason when its link is not defined here.
     *
     * @throws IllegalArgumentException when the link's settings are wrong (naming the setting)
     */
    public Optional<Source> resolve(MirrorSpec spec) {
        if (spec.link().isEmpty()) {
            return Optional.of(new Source(
                    spec.sourceBootstrapServers(),
                    spec.sourceBootstrapServers(),
                    connector.connect(spec.sourceBootstrapServers(), Map.of())));
        }
        Map<String, String> settings = links.get(spec.link());
        if (settings == null) {
            return Optional.empty();
        }
        String servers = settings.getOrDefault("bootstrap.servers", "").trim();
        if (servers.isEmpty()) {
            throw new IllegalArgumentException(
                    "mirror link " + spec.link() + " has no " + PREFIX + spec.link() + ".bootstrap.servers");
        }
        return Optional.of(
                new Source("link " + spec.link(), servers, connector.connect("mirror link " + spec.link(), settings)));
    }
}
