package dev.strait.broker.controller;

import dev.strait.broker.raft.RaftConfig;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import org.jspecify.annotations.Nullable;

/**
 * What one node needs to take part in the metadata quorum, taken from its broker config by the server package
 * (this package does not know the config names).
 *
 * @param nodeId                   {@code node.id}
 * @param voters                   {@code controller.quorum.voters}: id to controller listener address
 * @param listenHost               host of this node's controller listener (ignored if it has none)
 * @param listenPort               port of this node's controller listener; -1 for a node without one (a broker
 *                                 only node; it still connects out to the voters)
 * @param metadataLogDir           where the Raft log and quorum state live
 * @param sessionTimeoutMs         {@code broker.session.timeout.ms}: the controller fences a node silent this long
 * @param heartbeatIntervalMs      {@code broker.heartbeat.interval.ms}
 * @param defaultReplicationFactor {@code default.replication.factor}
 * @param requestTimeoutMs         bound on one metadata mutation, retries across controller changes included
 * @param shutdownTimeoutMs        bound on the controlled shutdown in {@code close()}
 * @param raftConfig               timings of the Raft node
 * @param tls                      TLS of the controller wire, or null for plain TCP
 * @param defaultMinInsyncReplicas {@code min.insync.replicas} of topics that do not set it: the ISR size below
 *                                 which the controller keeps eligible leader replicas (KIP-966)
 * @param defaultFlushOnAck        {@code strait.flush.on.ack} for topics that do not set {@code flush.on.ack}: their
 *                                 replicas fsync what they acknowledge, so a power loss takes none of it
 */
public record QuorumConfig(
        int nodeId,
        Map<Integer, InetSocketAddress> voters,
        String listenHost,
        int listenPort,
        Path metadataLogDir,
        long sessionTimeoutMs,
        long heartbeatIntervalMs,
        int defaultReplicationFactor,
        long requestTimeoutMs,
        long shutdownTimeoutMs,
        RaftConfig raftConfig,
        @Nullable ControllerTls tls,
        int defaultMinInsyncReplicas,
        boolean defaultFlushOnAck) {

    /** With the default min.insync.replicas of 1 and without the fsync mode by default. */
    public QuorumConfig(
            int nodeId,
            Map<Integer, InetSocketAddress> voters,
            String listenHost,
            int listenPort,
            Path metadataLogDir,
            long sessionTimeoutMs,
            long heartbeatIntervalMs,
            int defaultReplicationFactor,
            long requestTimeoutMs,
            long shutdownTimeoutMs,
            RaftConfig raftConfig,
            @Nullable ControllerTls tls) {
        this(
                nodeId,
                voters,
                listenHost,
                listenPort,
                metadataLogDir,
                sessionTimeoutMs,
                heartbeatIntervalMs,
                defaultReplicationFactor,
                requestTimeoutMs,
                shutdownTimeoutMs,
                raftConfig,
                tls,
                1,
                false);
    }

    /** Over plain TCP. */
    public QuorumConfig(
            int nodeId,
            Map<Integer, InetSocketAddress> voters,
            String listenHost,
            int listenPort,
            Path metadataLogDir,
            long sessionTimeoutMs,
            long heartbeatIntervalMs,
            int defaultReplicationFactor,
            long requestTimeoutMs,
            long shutdownTimeoutMs,
            RaftConfig raftConfig) {
        this(
                nodeId,
                voters,
                listenHost,
                listenPort,
                metadataLogDir,
                sessionTimeoutMs,
                heartbeatIntervalMs,
                defaultReplicationFactor,
                requestTimeoutMs,
                shutdownTimeoutMs,
                raftConfig,
                null);
    }

    public QuorumConfig {
        voters = Map.copyOf(new TreeMap<>(voters));
        Objects.requireNonNull(metadataLogDir, "metadataLogDir");
        Objects.requireNonNull(raftConfig, "raftConfig");
        if (voters.isEmpty()) {
            throw new IllegalArgumentException("a quorum needs at least one voter");
        }
        if (heartbeatIntervalMs <= 0 || sessionTimeoutMs <= heartbeatIntervalMs) {
            throw new IllegalArgumentException("heartbeat interval " + heartbeatIntervalMs
                    + " ms must be positive and below the session timeout " + sessionTimeoutMs + " ms");
        }
    }

    public boolean isVoter() {
        return voters.containsKey(nodeId);
    }

    /** A stable cluster id every node derives alike from the voter set. */
    String clusterId() {
        StringBuilder text = new StringBuilder("strait-cluster:");
        new TreeMap<>(voters)
                .forEach((id, address) -> text.append(id)
                        .append('@')
                        .append(address.getHostString())
                        .append(':')
                        .append(address.getPort())
                        .append(','));
        java.util.UUID uuid =
                java.util.UUID.nameUUIDFromBytes(text.toString().getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return new org.apache.kafka.common.Uuid(uuid.getMostSignificantBits(), uuid.getLeastSignificantBits())
                .toString();
    }
}
