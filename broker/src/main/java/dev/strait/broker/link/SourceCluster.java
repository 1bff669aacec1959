package dev.strait.broker.link;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One source cluster as the mirror fetcher sees it: its metadata for the topics copied from it, refreshed when
 * stale or after an error, and one connection per source broker. Owned by the fetcher thread.
 */
final class SourceCluster implements AutoCloseable {
    private static final Logger LOGGER = LoggerFactory.getLogger(SourceCluster.class);

    private final String name;
    private final String bootstrapServers;
    private final SourceClient.Factory factory;
    private final Map<Integer, SourceClient> clients = new HashMap<>();
    /** Null until first fetched. */
    private SourceClient.@Nullable Metadata metadata;

    private long metadataAtMs = Long.MIN_VALUE;
    private boolean stale = true;

    SourceCluster(String name, String bootstrapServers, SourceClient.Factory factory) {
        this.name = name;
        this.bootstrapServers = bootstrapServers;
        this.factory = factory;
    }

    /** For people: the link's name, or the bootstrap servers. */
    String name() {
        return name;
    }

    /** Asks for fresh metadata before the next use (a leader moved, or a connection failed). */
    void invalidate() {
        stale = true;
    }

    /**
     * The metadata for {@code topics}, fetched again when invalidated, older than {@code maxAgeMs}, or missing a
     * topic; from a bootstrap server or any broker known before.
     *
     * @throws IOException if no source broker answered
     */
    SourceClient.Metadata metadata(Collection<String> topics, long nowMs, long maxAgeMs) throws IOException {
        SourceClient.Metadata known = metadata;
        boolean covers = known != null && known.topics().keySet().containsAll(topics);
        if (!stale && known != null && covers && nowMs - metadataAtMs < maxAgeMs) {
            return known;
        }
        IOException last = null;
        for (Endpoint endpoint : endpoints()) {
            try (SourceClient client = factory.connect(endpoint.host(), endpoint.port())) {
                metadata = client.metadata(topics);
                metadataAtMs = nowMs;
                stale = false;
                return metadata;
            } catch (IOException e) {
                last = e;
                LOGGER.debug(
                        "source broker {}:{} gave no metadata: {}", endpoint.host(), endpoint.port(), e.toString());
            }
        }
        throw new IOException(
                "no broker of source cluster " + name + " answered a metadata request"
                        + (last == null ? "" : ": " + last.getMessage()),
                last);
    }

    /** The connection to a source broker, opened on first use. */
    SourceClient client(int brokerId) throws IOException {
        SourceClient client = clients.get(brokerId);
        if (client != null) {
            return client;
        }
        SourceClient.Broker broker = Optional.ofNullable(metadata)
                .map(m -> m.brokers().get(brokerId))
                .orElseThrow(() -> new IOException("source broker " + brokerId + " is not in the metadata"));
        client = factory.connect(broker.host(), broker.port());
        clients.put(brokerId, client);
        return client;
    }

    /** Drops a broker's connection after it failed; the next use reconnects. */
    void disconnect(int brokerId) {
        SourceClient client = clients.remove(brokerId);
        if (client != null) {
            client.close();
        }
        stale = true;
    }

    private List<Endpoint> endpoints() {
        List<Endpoint> endpoints = new ArrayList<>();
        for (String entry : bootstrapServers.split(",")) {
            String server = entry.trim();
            int colon = server.lastIndexOf(':');
            if (colon > 0) {
                endpoints.add(new Endpoint(server.substring(0, colon), Integer.parseInt(server.substring(colon + 1))));
            }
        }
        if (metadata != null) {
            for (SourceClient.Broker broker : metadata.brokers().values()) {
                endpoints.add(new Endpoint(broker.host(), broker.port()));
            }
        }
        return endpoints;
    }

    private record Endpoint(String host, int port) {}

    @Override
    public void close() {
        for (SourceClient client : clients.values()) {
            client.close();
        }
        clients.clear();
    }
}
