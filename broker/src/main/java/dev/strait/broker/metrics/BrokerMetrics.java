package dev.strait.broker.metrics;

import dev.strait.broker.link.MirrorStatus;
import dev.strait.broker.metadata.BrokerRegistration;
import dev.strait.broker.metadata.MetadataSource;
import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.partition.ReplicaManager;
import dev.strait.time.Time;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * A node's {@code strait_broker_*} metrics, read when scraped. Partition gauges come from the node's image of the
 * committed metadata (leaders and ISRs as the controller decided them, which is what Kafka's gauges report too):
 * a node counts only the partitions it leads, so summing a gauge over the cluster counts each partition once.
 *
 * <p>Offline partitions (no leader) are reported by the active controller only, 0 by every other node, as
 * Kafka's {@code OfflinePartitionsCount}: a partition without a leader has no node to count it otherwise, and
 * one reporter keeps a sum over the cluster right. While two nodes briefly both believe they are the controller
 * the sum counts twice, so rules use {@code max}.
 */
public final class BrokerMetrics {

    private final int nodeId;
    private final MetadataSource metadata;
    private final ReplicaManager replicas;
    private final RequestMetrics requests;
    private final Supplier<List<MirrorStatus>> mirrors;
    private final Time time;

    public BrokerMetrics(int nodeId, MetadataSource metadata, ReplicaManager replicas, RequestMetrics requests) {
        this(nodeId, metadata, replicas, requests, List::of, Time.SYSTEM);
    }

    /** With the mirror-topic partitions this node leads, and the clock their lag in seconds is measured by. */
    public BrokerMetrics(
            int nodeId,
            MetadataSource metadata,
            ReplicaManager replicas,
            RequestMetrics requests,
            Supplier<List<MirrorStatus>> mirrors,
            Time time) {
        this.nodeId = nodeId;
        this.metadata = metadata;
        this.replicas = replicas;
        this.requests = requests;
        this.mirrors = mirrors;
        this.time = time;
    }

    /** The partition counts of one scrape. */
    record PartitionCounts(int replicas, int led, int underReplicated, int underMinIsr, int offline) {}

    PartitionCounts partitionCounts() {
        int hosted = 0;
        int led = 0;
        int underReplicated = 0;
        int underMinIsr = 0;
        int offline = 0;
        for (TopicMetadata topic : metadata.topics()) {
            int minIsr = replicas.replicationConfigFor(topic).minInsyncReplicas();
            for (int p = 0; p < topic.partitions(); p++) {
                Optional<PartitionState> found = metadata.partitionState(topic.topicId(), p);
                if (found.isEmpty()) {
                    continue;
                }
                PartitionState state = found.get();
                if (state.replicas().contains(nodeId)) {
                    hosted++;
                }
                if (state.leader() < 0) {
                    offline++;
                } else if (state.leader() == nodeId) {
                    led++;
                    // As Kafka: during a reassignment the factor is the replicas less those being added.
                    if (state.isr().size()
                            < state.replicas().size() - state.addingReplicas().size()) {
                        underReplicated++;
                    }
                    if (state.isr().size() < minIsr) {
                        underMinIsr++;
                    }
                }
            }
        }
        return new PartitionCounts(hosted, led, underReplicated, underMinIsr, offline);
    }

    /** Every metric in Prometheus' text format. */
    public String scrape() {
        PrometheusText text = new PrometheusText();
        PartitionCounts counts = partitionCounts();
        boolean activeController = metadata.isActiveController();
        text.single(
                "strait_broker_partitions",
                "gauge",
                "Partitions with a replica on this node (Kafka's ReplicaManager PartitionCount).",
                counts.replicas());
        text.single(
                "strait_broker_leader_partitions",
                "gauge",
                "Partitions this node leads (Kafka's ReplicaManager LeaderCount).",
                counts.led());
        text.single(
                "strait_broker_under_replicated_partitions",
                "gauge",
                "Partitions this node leads whose ISR is smaller than their replica set (Kafka's"
                        + " UnderReplicatedPartitions).",
                counts.underReplicated());
        text.single(
                "strait_broker_under_min_isr_partitions",
                "gauge",
                "Partitions this node leads whose ISR is smaller than their min.insync.replicas: acks=all produces"
                        + " to them fail with NOT_ENOUGH_REPLICAS (Kafka's UnderMinIsrPartitionCount).",
                counts.underMinIsr());
        text.single(
                "strait_broker_offline_partitions",
                "gauge",
                "Partitions without a leader, counted by the active controller only (0 on other nodes; Kafka's"
                        + " OfflinePartitionsCount).",
                activeController ? counts.offline() : 0);
        text.single(
                "strait_broker_isr_shrinks_total",
                "counter",
                "ISR shrinks this node proposed as leader and the controller committed (Kafka's IsrShrinksPerSec).",
                replicas.isrShrinks());
        text.single(
                "strait_broker_isr_expands_total",
                "counter",
                "ISR expansions this node proposed as leader and the controller committed (Kafka's"
                        + " IsrExpandsPerSec).",
                replicas.isrExpands());
        text.single(
                "strait_broker_active_controller",
                "gauge",
                "1 on the node that is the active controller, else 0 (Kafka's ActiveControllerCount).",
                activeController ? 1 : 0);
        text.single(
                "strait_broker_metadata_applied_offset",
                "gauge",
                "Offset of the last metadata log entry this node applied; -1 before the first (Kafka's"
                        + " last-applied-record-offset). A node far behind the others serves stale leaders.",
                metadata.appliedMetadataOffset());
        text.single(
                "strait_broker_fenced",
                "gauge",
                "1 while the controller counts this node fenced or it has not registered yet (it then leads nothing"
                        + " and clients are not sent to it), else 0.",
                fenced() ? 1 : 0);
        MirrorMetrics.writeTo(text, mirrors.get(), time.milliseconds());
        requests.writeTo(text);
        return text.toString();
    }

    private boolean fenced() {
        for (BrokerRegistration broker : metadata.brokers()) {
            if (broker.id() == nodeId) {
                return broker.fenced();
            }
        }
        return true;
    }
}
