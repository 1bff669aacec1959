package dev.strait.broker.metadata;

import java.util.List;
import java.util.Optional;

/**
 * A broker as the cluster knows it: id, its inter-broker listener's advertised {@code host}/{@code port} (what
 * replica fetchers dial), every broker listener it advertises, and whether it is fenced.
 *
 * <p>{@code endpoints} is empty for a registration written before nodes listed their listeners: such a node had
 * one broker listener, the one {@code host}/{@code port} name.
 */
public record BrokerRegistration(int id, String host, int port, boolean fenced, List<Endpoint> endpoints) {

    /** One advertised broker listener: its name (upper case), host, port and security protocol. */
    public record Endpoint(String listener, String host, int port, String protocol) {}

    public BrokerRegistration {
        endpoints = List.copyOf(endpoints);
    }

    public BrokerRegistration(int id, String host, int port, boolean fenced) {
        this(id, host, port, fenced, List.of());
    }

    /**
     * Where clients that came in on {@code listener} reach this broker (Kafka's rule: the same listener name on
     * every node); empty when the broker has no such listener. A registration without endpoints answers with its
     * one listener whatever the name.
     */
    public Optional<Endpoint> endpoint(String listener) {
        if (endpoints.isEmpty()) {
            return Optional.of(new Endpoint(listener, host, port, ""));
        }
        return endpoints.stream()
                .filter(e -> e.listener().equalsIgnoreCase(listener))
                .findFirst();
    }
}
