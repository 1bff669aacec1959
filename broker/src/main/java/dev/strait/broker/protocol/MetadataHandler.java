package dev.strait.broker.protocol;

import dev.strait.broker.metadata.BrokerRegistration;
import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.metadata.TopicExistsException;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.partition.ReplicaManager;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.resource.ResourceType;

/**
 * Metadata and DescribeCluster: the live brokers (this one first) and each topic's partitions with their leader,
 * epoch, replicas and ISR from the committed metadata. A Metadata request naming an unknown topic creates it when
 * {@code auto.create.topics.enable} allows (with {@code num.partitions}). The internal offsets topic is listed only
 * when asked for by name, so that it stays out of pattern subscriptions. Also answers who leads an offsets
 * partition, for the group coordinator's FindCoordinator.
 *
 * <p>Thread-safe: stateless; reads the replica manager's metadata.
 */
final class MetadataHandler {

    private final Supplier<BrokerEndpoint> endpoint;
    private final Function<String, Optional<BrokerEndpoint>> listenerEndpoints;
    private final ReplicaManager replicaManager;
    private final int defaultNumPartitions;
    private final boolean autoCreateTopics;
    private final RequestAuthorizer authorizer;

    /** @param listenerEndpoints this node's advertised endpoint of a listener, empty if it has no such listener */
    MetadataHandler(
            Supplier<BrokerEndpoint> endpoint,
            Function<String, Optional<BrokerEndpoint>> listenerEndpoints,
            ReplicaManager replicaManager,
            int defaultNumPartitions,
            boolean autoCreateTopics,
            RequestAuthorizer authorizer) {
        this.authorizer = authorizer;
        this.endpoint = endpoint;
        this.listenerEndpoints = listenerEndpoints;
        this.replicaManager = replicaManager;
        this.defaultNumPartitions = defaultNumPartitions;
        this.autoCreateTopics = autoCreateTopics;
    }

    /**
     * Under an authorizer, as Kafka: topics the principal may not DESCRIBE are left out of an all-topics answer and
     * answered TOPIC_AUTHORIZATION_FAILED when named; creating a missing topic needs CREATE on the cluster or the
     * topic, else TOPIC_AUTHORIZATION_FAILED.
     */
    AbstractResponse handleMetadataRequest(RequestContext context, MetadataRequest request, short version) {
        BrokerEndpoint self = endpoint.get();
        MetadataResponseData data = new MetadataResponseData()
                .setClusterId(replicaManager.metadata().clusterId())
                .setControllerId(self.nodeId());
        String listener = listener(context);
        for (BrokerEndpoint broker : liveBrokers(listener)) {
            data.brokers()
                    .add(new MetadataResponseBroker()
                            .setNodeId(broker.nodeId())
                            .setHost(broker.host())
                            .setPort(broker.port()));
        }
        if (request.isAllTopics()) {
            for (TopicMetadata topic : replicaManager.topics()) {
                if (isInternal(topic.name())) {
                    continue; // as Kafka lists it only with isInternal; hiding it keeps it out of subscriptions
                }
                if (authorizer.topic(context, AclOperation.DESCRIBE, topic.name())) {
                    data.topics().add(withOperations(context, request, topicMetadata(topic, listener)));
                }
            }
        } else {
            boolean allowAutoCreate = version < 4 || request.allowAutoTopicCreation();
            for (MetadataRequestTopic requested : request.data().topics()) {
                data.topics()
                        .add(withOperations(
                                context, request, requestedTopicMetadata(context, requested, allowAutoCreate)));
            }
        }
        if (version >= 8 && version <= 10 && request.data().includeClusterAuthorizedOperations()) {
            data.setClusterAuthorizedOperations(
                    authorizer.authorizedOperations(context, ResourceType.CLUSTER, RequestAuthorizer.CLUSTER_NAME));
        }
        return new MetadataResponse(data, version);
    }

    private MetadataResponseTopic withOperations(
            RequestContext context, MetadataRequest request, MetadataResponseTopic topic) {
        if (request.data().includeTopicAuthorizedOperations() && topic.errorCode() == Errors.NONE.code()) {
            topic.setTopicAuthorizedOperations(
                    authorizer.authorizedOperations(context, ResourceType.TOPIC, topic.name()));
        }
        return topic;
    }

    private MetadataResponseTopic requestedTopicMetadata(
            RequestContext context, MetadataRequestTopic requested, boolean allowAutoCreate) {
        // By id (v10+): the 4.1.1 consumer of a KIP-848 regex subscription asks for its assigned topic ids with an
        // empty name, not a null one (Kafka looks up every topic with a non-zero id by its id).
        if (requested.name() == null || requested.name().isEmpty() && !Uuid.ZERO_UUID.equals(requested.topicId())) {
            Optional<TopicMetadata> byId = replicaManager.topic(requested.topicId());
            if (byId.isPresent()
                    && !authorizer.topic(
                            context, AclOperation.DESCRIBE, byId.get().name())) {
                return new MetadataResponseTopic()
                        .setTopicId(requested.topicId())
                        .setName(null)
                        .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
            }
            return byId.map(t -> topicMetadata(t, listener(context)))
                    .orElseGet(() -> new MetadataResponseTopic()
                            .setTopicId(requested.topicId())
                            .setName(null)
                            .setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()));
        }
        String name = requested.name();
        if (!authorizer.topic(context, AclOperation.DESCRIBE, name)) {
            return new MetadataResponseTopic()
                    .setName(name)
                    .setIsInternal(isInternal(name))
                    .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
        }
        Optional<TopicMetadata> topic = replicaManager.topic(name);
        if (topic.isEmpty() && allowAutoCreate && autoCreateTopics) {
            if (!authorizer.cluster(context, AclOperation.CREATE)
                    && !authorizer.topic(context, AclOperation.CREATE, name)) {
                return new MetadataResponseTopic().setName(name).setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
            }
            try {
                topic = Optional.of(replicaManager.createTopic(name, defaultNumPartitions, Map.of(), false));
            } catch (TopicExistsException e) {
                topic = replicaManager.topic(name); // created meanwhile by another request
            } catch (RuntimeException e) {
                return new MetadataResponseTopic()
                        .setName(name)
                        .setErrorCode(ApiErrors.forException(e, Errors.INVALID_TOPIC_EXCEPTION)
                                .code());
            }
        }
        return topic.map(t -> topicMetadata(t, listener(context)))
                .orElseGet(() -> new MetadataResponseTopic()
                        .setName(name)
                        .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
    }

    static boolean isInternal(String topic) {
        return OffsetsTopicLog.TOPIC.equals(topic) || TransactionTopicLog.TOPIC.equals(topic);
    }

    /** The listener a request arrived on (its name, upper case). */
    static String listener(RequestContext context) {
        return context.listenerName == null ? "" : context.listenerName.value();
    }

    /**
     * The unfenced brokers clients of {@code listener} may talk to, at their endpoints of that listener, this one
     * first; this one is listed even before its registration reached the metadata, so that a client never sees an
     * empty cluster from the node it asked. As Kafka, a broker without that listener is left out.
     */
    private List<BrokerEndpoint> liveBrokers(String listener) {
        int selfId = endpoint.get().nodeId();
        List<BrokerEndpoint> brokers = new ArrayList<>();
        listenerEndpoints.apply(listener).ifPresent(brokers::add);
        for (BrokerRegistration broker : replicaManager.metadata().brokers()) {
            if (!broker.fenced() && broker.id() != selfId) {
                broker.endpoint(listener)
                        .ifPresent(e -> brokers.add(new BrokerEndpoint(broker.id(), e.host(), e.port())));
            }
        }
        return brokers;
    }

    private MetadataResponseTopic topicMetadata(TopicMetadata topic, String listener) {
        MetadataResponseTopic result = new MetadataResponseTopic()
                .setName(topic.name())
                .setTopicId(topic.topicId())
                .setIsInternal(isInternal(topic.name()))
                .setErrorCode(Errors.NONE.code());
        Set<Integer> live = new HashSet<>();
        for (BrokerEndpoint broker : liveBrokers(listener)) {
            live.add(broker.nodeId());
        }
        for (int i = 0; i < topic.partitions(); i++) {
            Optional<PartitionState> state = replicaManager.metadata().partitionState(topic.topicId(), i);
            MetadataResponsePartition partition = new MetadataResponsePartition().setPartitionIndex(i);
            if (state.isEmpty()) {
                result.partitions()
                        .add(partition
                                .setErrorCode(Errors.LEADER_NOT_AVAILABLE.code())
                                .setLeaderId(-1)
                                .setLeaderEpoch(-1)
                                .setReplicaNodes(List.of())
                                .setIsrNodes(List.of())
                                .setOfflineReplicas(List.of()));
                continue;
            }
            PartitionState p = state.get();
            List<Integer> offline =
                    p.replicas().stream().filter(r -> !live.contains(r)).toList();
            boolean leaderLive = p.hasLeader() && live.contains(p.leader());
            result.partitions()
                    .add(partition
                            .setErrorCode(leaderLive ? Errors.NONE.code() : Errors.LEADER_NOT_AVAILABLE.code())
                            .setLeaderId(leaderLive ? p.leader() : -1)
                            .setLeaderEpoch(p.leaderEpoch())
                            .setReplicaNodes(p.replicas())
                            .setIsrNodes(p.isr())
                            .setOfflineReplicas(offline));
        }
        return result;
    }

    /**
     * The live leader of a partition of the offsets topic, the coordinator of the groups mapped to it, at its
     * endpoint of {@code listener}.
     */
    Optional<BrokerEndpoint> offsetsPartitionLeader(int partition, String listener) {
        return partitionLeader(OffsetsTopicLog.TOPIC, partition, listener);
    }

    /** The leader of a partition, at its endpoint of {@code listener}, if it has one and is alive. */
    Optional<BrokerEndpoint> partitionLeader(String topicName, int partition, String listener) {
        Optional<TopicMetadata> topic = replicaManager.topic(topicName);
        if (topic.isEmpty()) {
            return Optional.empty();
        }
        Optional<PartitionState> state =
                replicaManager.metadata().partitionState(topic.get().topicId(), partition);
        if (state.isEmpty() || !state.get().hasLeader()) {
            return Optional.empty();
        }
        int leader = state.get().leader();
        return liveBrokers(listener).stream().filter(b -> b.nodeId() == leader).findFirst();
    }

    AbstractResponse handleDescribeClusterRequest(RequestContext context, DescribeClusterRequest request) {
        BrokerEndpoint self = endpoint.get();
        DescribeClusterResponseData data = new DescribeClusterResponseData()
                .setClusterId(replicaManager.metadata().clusterId())
                .setControllerId(self.nodeId())
                .setEndpointType(request.data().endpointType());
        if (request.data().endpointType() != 1) {
            return new DescribeClusterResponse(data.setErrorCode(Errors.UNSUPPORTED_ENDPOINT_TYPE.code())
                    .setErrorMessage("only the broker endpoint type (1) is served"));
        }
        for (BrokerEndpoint broker : liveBrokers(listener(context))) {
            data.brokers()
                    .add(new DescribeClusterBroker()
                            .setBrokerId(broker.nodeId())
                            .setHost(broker.host())
                            .setPort(broker.port())
                            .setRack(null)
                            .setIsFenced(false));
        }
        if (request.data().includeClusterAuthorizedOperations()) {
            data.setClusterAuthorizedOperations(
                    authorizer.authorizedOperations(context, ResourceType.CLUSTER, RequestAuthorizer.CLUSTER_NAME));
        }
        return new DescribeClusterResponse(data.setErrorCode(Errors.NONE.code()));
    }
}
