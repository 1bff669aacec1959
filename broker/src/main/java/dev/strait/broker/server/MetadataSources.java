package dev.strait.broker.server;

import dev.strait.broker.controller.ControllerTls;
import dev.strait.broker.controller.QuorumConfig;
import dev.strait.broker.controller.QuorumEnvironment;
import dev.strait.broker.controller.QuorumMetadataSource;
import dev.strait.broker.log.FaultHandler;
import dev.strait.broker.metadata.BrokerRegistration;
import dev.strait.broker.metadata.FileMetadataSource;
import dev.strait.broker.metadata.MetadataSource;
import dev.strait.broker.protocol.ControllerPeerCheck;
import dev.strait.broker.protocol.ListenerSecurity;
import dev.strait.broker.raft.RaftConfig;
import dev.strait.settings.ConfigException;
import dev.strait.time.Time;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.jspecify.annotations.Nullable;

/**
 * Chooses a node's metadata source from its config: a config that names no controller quorum runs a standalone
 * one-node cluster whose metadata is a local file; one that does follows the quorum's metadata log
 * ({@link QuorumMetadataSource}, which starts the node's Raft node, controller listener and controller here and
 * stops them in {@code close()}).
 *
 * <p>The one place the broker's randomness is bound: the quorum's election jitter, incarnation ids and topic ids
 * come from a {@link SecureRandom} made here (topic ids must not repeat across controllers and restarts).
 */
final class MetadataSources {

    /** Bound on one metadata mutation, across controller changes (Kafka's default request timeout). */
    static final long REQUEST_TIMEOUT_MS = 30_000;
    /** Bound on the controlled shutdown a closing node asks for. */
    static final long SHUTDOWN_TIMEOUT_MS = 5_000;
    /** Where the metadata log goes when {@code metadata.log.dir} is not set (Kafka's name). */
    static final String METADATA_DIR_NAME = "__cluster_metadata-0";

    private MetadataSources() {}

    /** @param faults told if the quorum loop fails (the broker must then stop) */
    static MetadataSource open(BrokerConfig config, Path logDir, Time time, FaultHandler faults) {
        if (!config.hasControllerQuorum()) {
            return FileMetadataSource.open(logDir, config.nodeId());
        }
        ControllerPeerCheck peerCheck = controllerPeerCheck(config);
        QuorumMetadataSource source = QuorumMetadataSource.open(
                quorumConfig(config, logDir, peerCheck),
                QuorumEnvironment.of(time, new SecureRandom(), faults).withBootIdFile(config.bootIdFile()));
        if (peerCheck != null) {
            peerCheck.bind(source);
        }
        List<BrokerRegistration.Endpoint> endpoints = knownEndpoints(config);
        if (endpoints != null) {
            // The broker endpoints are known before the listeners bind, so register now (the broker's own later
            // registerLocalBroker with the same endpoints is then a no-op): start-up steps that create topics,
            // such as the offsets topic, find this broker eligible. With a port 0 that waits for the bind.
            try {
                BrokerRegistration.Endpoint inter = endpoints.stream()
                        .filter(e -> e.listener().equals(config.interBrokerListenerName()))
                        .findFirst()
                        .orElseThrow();
                source.registerLocalBroker(inter.host(), inter.port(), listed(endpoints));
            } catch (RuntimeException e) {
                source.close();
                throw e;
            }
        }
        return source;
    }

    /**
     * The endpoints a node registers: none with one broker listener, whose registration then is exactly what the
     * previous release wrote (its host and port), so that a cluster can be upgraded one node at a time; a node of
     * that release cannot read registrations listing endpoints, so add a second listener once all are upgraded.
     */
    static List<BrokerRegistration.Endpoint> listed(List<BrokerRegistration.Endpoint> endpoints) {
        return endpoints.size() > 1 ? endpoints : List.of();
    }

    /** Every broker listener's advertised endpoint, as {@code BrokerServer} computes it; null if a port is 0. */
    private static @Nullable List<BrokerRegistration.Endpoint> knownEndpoints(BrokerConfig config) {
        List<BrokerRegistration.Endpoint> endpoints = new ArrayList<>();
        for (BrokerConfig.Listener listener : config.brokerListeners()) {
            int port = config.advertisedListener(listener.name())
                    .map(BrokerConfig.Listener::port)
                    .orElse(listener.port());
            if (port == 0) {
                return null;
            }
            endpoints.add(new BrokerRegistration.Endpoint(
                    listener.name(),
                    BrokerServer.advertisedHost(config, listener),
                    port,
                    protocolOf(config, listener.name())));
        }
        return endpoints;
    }

    /**
     * TLS of the controller wire when the controller listener maps to SSL (both for this node's listener and for
     * its connections to the voters); null over PLAINTEXT.
     */
    private static @Nullable ControllerTls controllerTls(BrokerConfig config, @Nullable ControllerPeerCheck peerCheck) {
        if (peerCheck == null) {
            return null;
        }
        ListenerSecurity.SocketTls tls;
        try {
            tls = ListenerSecurity.socketTls(
                    Objects.requireNonNull(config.controllerListenerName(), "a peer check means a controller listener"),
                    config.originals());
        } catch (IllegalArgumentException e) {
            throw new ConfigException(messageOf(e));
        }
        return new ControllerTls(
                tls.serverContext(),
                tls.serverParameters(),
                tls.clientContext(),
                tls.clientParameters(),
                peerCheck::refusal);
    }

    /** Who may connect to the controller listener when it speaks SSL; null over PLAINTEXT. */
    private static @Nullable ControllerPeerCheck controllerPeerCheck(BrokerConfig config) {
        String listener = config.controllerListenerName();
        if (listener == null || !"SSL".equals(config.controllerSecurityProtocol())) {
            return null;
        }
        try {
            return ControllerPeerCheck.create(listener, config.originals());
        } catch (IllegalArgumentException e) {
            throw new ConfigException(messageOf(e));
        }
    }

    static QuorumConfig quorumConfig(BrokerConfig config, Path logDir) {
        return quorumConfig(config, logDir, controllerPeerCheck(config));
    }

    private static QuorumConfig quorumConfig(
            BrokerConfig config, Path logDir, @Nullable ControllerPeerCheck peerCheck) {
        Map<Integer, InetSocketAddress> voters = new LinkedHashMap<>();
        config.controllerQuorumVoters()
                .forEach((id, voter) -> voters.put(id, new InetSocketAddress(voter.host(), voter.port())));
        BrokerConfig.Listener self = config.controllerQuorumVoters().get(config.nodeId());
        String listenHost = "0.0.0.0";
        int listenPort = -1;
        if (self != null) {
            BrokerConfig.Listener listener = config.controllerListener().orElseThrow();
            listenHost = listener.host();
            // Port 0 binds the port this node's voter entry names: the other voters dial that one.
            listenPort = listener.port() != 0 ? listener.port() : self.port();
        }
        Path metadataDir = config.metadataLogDir().orElse(logDir.resolve(METADATA_DIR_NAME));
        return new QuorumConfig(
                config.nodeId(),
                voters,
                listenHost,
                listenPort,
                metadataDir,
                config.brokerSessionTimeoutMs(),
                config.brokerHeartbeatIntervalMs(),
                config.defaultReplicationFactor(),
                REQUEST_TIMEOUT_MS,
                SHUTDOWN_TIMEOUT_MS,
                RaftConfig.defaults()
                        .withSnapshots(
                                config.metadataLogMaxRecordBytesBetweenSnapshots(),
                                config.metadataLogMaxSnapshotIntervalMs()),
                controllerTls(config, peerCheck),
                config.minInsyncReplicas(),
                config.flushOnAck());
    }

    /** A refusal's message for a ConfigException: the exception's, or its name when it has none. */
    static String messageOf(Exception e) {
        String message = e.getMessage();
        return message != null ? message : e.toString();
    }

    /** The security protocol of one of the configured listeners (the config maps every listener to one). */
    static String protocolOf(BrokerConfig config, String listenerName) {
        return Objects.requireNonNull(
                config.listenerProtocols().get(listenerName),
                () -> "no security protocol for listener " + listenerName);
    }
}
