package dev.strait.broker.protocol;

import dev.strait.broker.group.GroupCoordinator;
import dev.strait.broker.log.AppendResult;
import dev.strait.broker.log.EpochEndOffset;
import dev.strait.broker.log.LogStorageException;
import dev.strait.broker.log.RecordBatchTooLargeException;
import dev.strait.broker.log.TimestampAndOffset;
import dev.strait.broker.metadata.TopicExistsException;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.metadata.UnknownTopicException;
import dev.strait.broker.network.NetworkRequest;
import dev.strait.broker.network.RequestDispatcher;
import dev.strait.broker.metadata.BrokerRegistration;
import dev.strait.broker.metadata.InvalidReplicationFactorException;
import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.replica.Partition;
import dev.strait.broker.replica.PartitionRoleException;
import dev.strait.broker.replica.DelayedOperation;
import dev.strait.broker.replication.ProduceCheck;
import dev.strait.broker.replica.ProducerBatch;
import dev.strait.broker.replica.ProducerIdManager;
import dev.strait.broker.replica.ProducerStateException;
import dev.strait.broker.replica.ReplicaManager;
import dev.strait.broker.replica.TopicConfigs;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopic;
import org.apache.kafka.common.message.CreateTopicsRequestData.CreatableTopicConfig;
import org.apache.kafka.common.message.CreateTopicsResponseData;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicConfigs;
import org.apache.kafka.common.message.CreateTopicsResponseData.CreatableTopicResult;
import org.apache.kafka.common.message.DeleteTopicsRequestData.DeleteTopicState;
import org.apache.kafka.common.message.DeleteTopicsResponseData;
import org.apache.kafka.common.message.DeleteTopicsResponseData.DeletableTopicResult;
import org.apache.kafka.common.message.DescribeClusterResponseData;
import org.apache.kafka.common.message.DescribeClusterResponseData.DescribeClusterBroker;
import org.apache.kafka.common.message.DescribeConfigsRequestData.DescribeConfigsResource;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResourceResult;
import org.apache.kafka.common.message.DescribeConfigsResponseData.DescribeConfigsResult;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterConfigsResource;
import org.apache.kafka.common.message.IncrementalAlterConfigsRequestData.AlterableConfig;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData;
import org.apache.kafka.common.message.IncrementalAlterConfigsResponseData.AlterConfigsResourceResponse;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsPartition;
import org.apache.kafka.common.message.ListOffsetsRequestData.ListOffsetsTopic;
import org.apache.kafka.common.message.ListOffsetsResponseData;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsPartitionResponse;
import org.apache.kafka.common.message.ListOffsetsResponseData.ListOffsetsTopicResponse;
import org.apache.kafka.common.message.MetadataRequestData.MetadataRequestTopic;
import org.apache.kafka.common.message.MetadataResponseData;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseBroker;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponsePartition;
import org.apache.kafka.common.message.MetadataResponseData.MetadataResponseTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderPartition;
import org.apache.kafka.common.message.OffsetForLeaderEpochRequestData.OffsetForLeaderTopic;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData;
import org.apache.kafka.common.message.OffsetForLeaderEpochResponseData.OffsetForLeaderTopicResult;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.CreateTopicsResponse;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DeleteTopicsResponse;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeClusterResponse;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeConfigsResponse;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListOffsetsResponse;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.MetadataResponse;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The protocol adapter's entry point: parses a frame with kafka-clients' classes, executes it against the
 * {@link ReplicaManager}, and sends the response built with {@code RequestContext.buildResponseSend}.
 *
 * <p>Errors: an unparseable frame (garbage, truncated, unknown API key, unsupported version of anything but
 * ApiVersions) closes the connection with a log line, as Kafka does; an API that is not advertised gets the
 * request's error response with UNSUPPORTED_VERSION; an unexpected failure while executing gets
 * UNKNOWN_SERVER_ERROR.
 *
 * <p>Thread-safe and stateless apart from the producer id allocator: called concurrently by all handler threads.
 * Consumer groups (classic protocol) are delegated to {@link GroupApis}, CreatePartitions and DeleteRecords to
 * {@link PartitionAdminApis}. Not implemented yet: transactions. Producer sequence state
 * is in memory only (see ProducerStateTable).
 */
public final class KafkaApis implements RequestDispatcher {

    private static final Logger LOGGER = LoggerFactory.getLogger(KafkaApis.class);
    private static final ListenerName LISTENER = ListenerName.forSecurityProtocol(SecurityProtocol.PLAINTEXT);

    // DescribeConfigs config sources and types (DescribeConfigsResponse.ConfigSource / ConfigType ids).
    private static final byte SOURCE_DYNAMIC_TOPIC = 1;
    private static final byte SOURCE_STATIC_BROKER = 4;
    private static final byte SOURCE_DEFAULT = 5;
    private static final byte RESOURCE_TOPIC = 2;
    private static final byte RESOURCE_BROKER = 4;

    private final Supplier<BrokerEndpoint> endpoint;
    private final ReplicaManager replicaManager;
    private final int defaultNumPartitions;
    private final boolean autoCreateTopics;
    private final Map<String, String> brokerConfigs;
    private final FetchHandler fetchHandler;
    private final ProducerIdManager producerIds;
    private final GroupApis groupApis;
    private final PartitionAdminApis partitionAdminApis;

    /**
     * @param endpoint             this node's id and address (known only after binding)
     * @param defaultNumPartitions {@code num.partitions}
     * @param autoCreateTopics     {@code auto.create.topics.enable}
     * @param brokerConfigs        the static broker configs to report in DescribeConfigs
     */
    public KafkaApis(Supplier<BrokerEndpoint> endpoint, ReplicaManager replicaManager, int defaultNumPartitions,
            boolean autoCreateTopics, Map<String, String> brokerConfigs) {
        this(endpoint, replicaManager, defaultNumPartitions, autoCreateTopics, brokerConfigs, null);
    }

    /**
     * @param groupCoordinator the group coordinator, or null for none (the group APIs are then not advertised)
     */
    public KafkaApis(Supplier<BrokerEndpoint> endpoint, ReplicaManager replicaManager, int defaultNumPartitions,
            boolean autoCreateTopics, Map<String, String> brokerConfigs, GroupCoordinator groupCoordinator) {
        this.endpoint = endpoint;
        this.replicaManager = replicaManager;
        this.defaultNumPartitions = defaultNumPartitions;
        this.autoCreateTopics = autoCreateTopics;
        this.brokerConfigs = Map.copyOf(brokerConfigs);
        this.fetchHandler = new FetchHandler(replicaManager);
        this.producerIds = new ProducerIdManager(replicaManager.metadata());
        this.groupApis = groupCoordinator == null ? null
                : new GroupApis(groupCoordinator, endpoint, this::offsetsPartitionLeader);
        this.partitionAdminApis = new PartitionAdminApis(replicaManager, () -> endpoint.get().nodeId());
    }

    @Override
    public void dispatch(NetworkRequest request) {
        RequestContext context;
        AbstractRequest body;
        try {
            ByteBuffer buffer = request.payload();
            RequestHeader header = RequestHeader.parse(buffer);
            context = new RequestContext(header, request.connectionId(), request.clientAddress().getAddress(),
                    KafkaPrincipal.ANONYMOUS, LISTENER, SecurityProtocol.PLAINTEXT, ClientInformation.EMPTY, false);
            body = context.parseRequest(buffer).request;
        } catch (RuntimeException e) {
            LOGGER.warn("closing connection {}: cannot parse request: {}", request.connectionId(), e.toString());
            request.closeConnection();
            return;
        }
        AbstractResponse response;
        try {
            response = handle(request, context, body);
        } catch (RuntimeException e) {
            LOGGER.error("{} from {} failed", context.header.apiKey(), request.connectionId(), e);
            response = errorResponse(request, body, e);
            if (response == null) {
                return;
            }
        }
        if (response != null) {
            sendResponse(request, context, response);
        }
    }

    /** Sends a response; if it cannot be serialized (a bug), logs and closes the connection. */
    static void sendResponse(NetworkRequest request, RequestContext context, AbstractResponse response) {
        try {
            request.respond(new SendWriter(context.buildResponseSend(response)));
        } catch (RuntimeException e) {
            LOGGER.error("closing connection {}: cannot serialize the {} v{} response", request.connectionId(),
                    context.header.apiKey(), context.apiVersion(), e);
            request.closeConnection();
        }
    }

    private static AbstractResponse errorResponse(NetworkRequest request, AbstractRequest body, Throwable error) {
        try {
            return body.getErrorResponse(0, error);
        } catch (RuntimeException e) {
            LOGGER.warn("closing connection {}: no error response possible: {}", request.connectionId(),
                    e.toString());
            request.closeConnection();
            return null;
        }
    }

    /** @return the response, or null if it was (or will be) sent by other means */
    private AbstractResponse handle(NetworkRequest request, RequestContext context, AbstractRequest body) {
        ApiKeys key = context.header.apiKey();
        short version = context.apiVersion();
        if (key == ApiKeys.API_VERSIONS) {
            return handleApiVersions((ApiVersionsRequest) body);
        }
        if (!SupportedApis.isSupported(key, version, groupApis != null)) {
            return errorResponse(request, body, new UnsupportedVersionException(
                    "this broker does not support " + key + " v" + version));
        }
        switch (key) {
            case METADATA:
                return handleMetadata((MetadataRequest) body, version);
            case PRODUCE:
                return handleProduce(request, context, (ProduceRequest) body, version);
            case FETCH:
                fetchHandler.handle(request, context, (FetchRequest) body);
                return null;
            case LIST_OFFSETS:
                return handleListOffsets((ListOffsetsRequest) body, version);
            case CREATE_TOPICS:
                return handleCreateTopics((CreateTopicsRequest) body, version);
            case DELETE_TOPICS:
                return handleDeleteTopics((DeleteTopicsRequest) body, version);
            case DESCRIBE_CONFIGS:
                return handleDescribeConfigs((DescribeConfigsRequest) body);
            case INCREMENTAL_ALTER_CONFIGS:
                return handleIncrementalAlterConfigs((IncrementalAlterConfigsRequest) body);
            case DESCRIBE_CLUSTER:
                return handleDescribeCluster((DescribeClusterRequest) body);
            case INIT_PRODUCER_ID:
                return handleInitProducerId((InitProducerIdRequest) body);
            case OFFSET_FOR_LEADER_EPOCH:
                return handleOffsetForLeaderEpoch((OffsetsForLeaderEpochRequest) body);
            case CREATE_PARTITIONS:
                return partitionAdminApis.handleCreatePartitions((CreatePartitionsRequest) body);
            case DELETE_RECORDS:
                return partitionAdminApis.handleDeleteRecords((DeleteRecordsRequest) body);
            case ELECT_LEADERS:
                return partitionAdminApis.handleElectLeaders((org.apache.kafka.common.requests.ElectLeadersRequest) body);
            default:
                if (SupportedApis.GROUP_APIS.contains(key)) {
                    return groupApis.handle(request, context, body);
                }
                throw new IllegalStateException("advertised but not dispatched: " + key);
        }
    }

    // ---------------------------------------------------------------- ApiVersions

    private AbstractResponse handleApiVersions(ApiVersionsRequest request) {
        if (request.hasUnsupportedRequestVersion()) {
            return request.getErrorResponse(0, Errors.UNSUPPORTED_VERSION.exception());
        }
        if (!request.isValid()) {
            return request.getErrorResponse(0, Errors.INVALID_REQUEST.exception());
        }
        ApiVersionsResponseData data = new ApiVersionsResponseData()
                .setErrorCode(Errors.NONE.code())
                .setApiKeys(SupportedApis.advertised(groupApis != null))
                .setFinalizedFeaturesEpoch(-1);
        return new ApiVersionsResponse(data);
    }

    // ---------------------------------------------------------------- Metadata

    private AbstractResponse handleMetadata(MetadataRequest request, short version) {
        BrokerEndpoint self = endpoint.get();
        MetadataResponseData data = new MetadataResponseData()
                .setClusterId(replicaManager.metadata().clusterId())
                .setControllerId(self.nodeId());
        for (BrokerEndpoint broker : liveBrokers()) {
            data.brokers().add(new MetadataResponseBroker().setNodeId(broker.nodeId()).setHost(broker.host())
                    .setPort(broker.port()));
        }
        if (request.isAllTopics()) {
            for (TopicMetadata topic : replicaManager.topics()) {
                if (isInternal(topic.name())) {
                    continue; // as Kafka lists it only with isInternal; hiding it keeps it out of subscriptions
                }
                data.topics().add(topicMetadata(topic, self.nodeId()));
            }
        } else {
            boolean allowAutoCreate = version < 4 || request.allowAutoTopicCreation();
            for (MetadataRequestTopic requested : request.data().topics()) {
                data.topics().add(requestedTopicMetadata(requested, allowAutoCreate, self.nodeId()));
            }
        }
        return new MetadataResponse(data, version);
    }

    private MetadataResponseTopic requestedTopicMetadata(MetadataRequestTopic requested, boolean allowAutoCreate,
            int nodeId) {
        if (requested.name() == null) {
            Optional<TopicMetadata> byId = replicaManager.topic(requested.topicId());
            return byId.map(t -> topicMetadata(t, nodeId)).orElseGet(() -> new MetadataResponseTopic()
                    .setTopicId(requested.topicId()).setName(null).setErrorCode(Errors.UNKNOWN_TOPIC_ID.code()));
        }
        String name = requested.name();
        Optional<TopicMetadata> topic = replicaManager.topic(name);
        if (topic.isEmpty() && allowAutoCreate && autoCreateTopics) {
            try {
                topic = Optional.of(replicaManager.createTopic(name, defaultNumPartitions, Map.of(), false));
            } catch (TopicExistsException e) {
                topic = replicaManager.topic(name);
            } catch (IllegalArgumentException e) {
                return new MetadataResponseTopic().setName(name)
                        .setErrorCode(Errors.INVALID_TOPIC_EXCEPTION.code());
            }
        }
        return topic.map(t -> topicMetadata(t, nodeId)).orElseGet(() -> new MetadataResponseTopic().setName(name)
                .setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
    }

    private static boolean isInternal(String topic) {
        return OffsetsTopicLog.TOPIC.equals(topic);
    }

    /**
     * The unfenced brokers clients may talk to, this one first; this one is listed even before its registration
     * reached the metadata, so that a client never sees an empty cluster from the node it asked.
     */
    private List<BrokerEndpoint> liveBrokers() {
        BrokerEndpoint self = endpoint.get();
        List<BrokerEndpoint> brokers = new ArrayList<>();
        brokers.add(self);
        for (BrokerRegistration broker : replicaManager.metadata().brokers()) {
            if (!broker.fenced() && broker.id() != self.nodeId()) {
                brokers.add(new BrokerEndpoint(broker.id(), broker.host(), broker.port()));
            }
        }
        return brokers;
    }

    private MetadataResponseTopic topicMetadata(TopicMetadata topic, int nodeId) {
        MetadataResponseTopic result = new MetadataResponseTopic().setName(topic.name())
                .setTopicId(topic.topicId()).setIsInternal(isInternal(topic.name())).setErrorCode(Errors.NONE.code());
        Set<Integer> live = new HashSet<>();
        for (BrokerEndpoint broker : liveBrokers()) {
            live.add(broker.nodeId());
        }
        for (int i = 0; i < topic.partitions(); i++) {
            Optional<PartitionState> state = replicaManager.metadata().partitionState(topic.topicId(), i);
            MetadataResponsePartition partition = new MetadataResponsePartition().setPartitionIndex(i);
            if (state.isEmpty()) {
                result.partitions().add(partition.setErrorCode(Errors.LEADER_NOT_AVAILABLE.code()).setLeaderId(-1)
                        .setLeaderEpoch(-1).setReplicaNodes(List.of()).setIsrNodes(List.of())
                        .setOfflineReplicas(List.of()));
                continue;
            }
            PartitionState p = state.get();
            List<Integer> offline = p.replicas().stream().filter(r -> !live.contains(r)).toList();
            boolean leaderLive = p.hasLeader() && live.contains(p.leader());
            result.partitions().add(partition
                    .setErrorCode(leaderLive ? Errors.NONE.code() : Errors.LEADER_NOT_AVAILABLE.code())
                    .setLeaderId(leaderLive ? p.leader() : -1).setLeaderEpoch(p.leaderEpoch())
                    .setReplicaNodes(p.replicas()).setIsrNodes(p.isr()).setOfflineReplicas(offline));
        }
        return result;
    }

    /** The live leader of a partition of the offsets topic: the coordinator of the groups mapped to it. */
    private Optional<BrokerEndpoint> offsetsPartitionLeader(int partition) {
        Optional<TopicMetadata> topic = replicaManager.topic(OffsetsTopicLog.TOPIC);
        if (topic.isEmpty()) {
            return Optional.empty();
        }
        Optional<PartitionState> state = replicaManager.metadata().partitionState(topic.get().topicId(), partition);
        if (state.isEmpty() || !state.get().hasLeader()) {
            return Optional.empty();
        }
        int leader = state.get().leader();
        return liveBrokers().stream().filter(b -> b.nodeId() == leader).findFirst();
    }

    // ---------------------------------------------------------------- Produce

    private AbstractResponse handleProduce(NetworkRequest networkRequest, RequestContext context,
            ProduceRequest request, short version) {
        ProduceResponseData data = new ProduceResponseData();
        if (request.transactionalId() != null) {
            throw Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.exception("transactions are not supported yet");
        }
        short acks = request.acks();
        if (acks != 0 && acks != 1 && acks != -1) {
            throw Errors.INVALID_REQUIRED_ACKS.exception("acks must be -1, 0 or 1, got " + acks);
        }
        boolean acksAll = acks == -1;
        List<PendingProduce> pending = new ArrayList<>();
        for (TopicProduceData topicData : request.data().topicData()) {
            Optional<TopicMetadata> topic = version >= 13 ? replicaManager.topic(topicData.topicId())
                    : replicaManager.topic(topicData.name());
            TopicProduceResponse topicResponse = new TopicProduceResponse().setName(topicData.name())
                    .setTopicId(topicData.topicId());
            for (PartitionProduceData partitionData : topicData.partitionData()) {
                PartitionProduceResponse partitionResponse = produceToPartition(topic, partitionData, version,
                        acksAll, pending);
                topicResponse.partitionResponses().add(partitionResponse);
            }
            data.responses().add(topicResponse);
        }
        if (request.acks() == 0) {
            networkRequest.noResponse();
            return null;
        }
        if (!pending.isEmpty()) {
            DelayedProduce delayed = new DelayedProduce(networkRequest, context, data, pending);
            List<TopicPartition> keys = pending.stream().map(PendingProduce::topicPartition).distinct().toList();
            replicaManager.producePurgatory().tryCompleteElseWatch(delayed, keys, Math.max(1, request.timeout()));
            return null;
        }
        return new ProduceResponse(data);
    }

    private PartitionProduceResponse produceToPartition(Optional<TopicMetadata> topic,
            PartitionProduceData partitionData, short version, boolean acksAll, List<PendingProduce> pending) {
        PartitionProduceResponse response = new PartitionProduceResponse().setIndex(partitionData.index())
                .setBaseOffset(-1);
        if (topic.isEmpty()) {
            Errors error = version >= 13 ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION;
            return response.setErrorCode(error.code());
        }
        if (isInternal(topic.get().name())) {
            return response.setErrorCode(Errors.INVALID_TOPIC_EXCEPTION.code())
                    .setErrorMessage("cannot produce to internal topic " + topic.get().name());
        }
        TopicPartition tp = new TopicPartition(topic.get().name(), partitionData.index());
        if (!(partitionData.records() instanceof MemoryRecords)) {
            return response.setErrorCode(Errors.CORRUPT_MESSAGE.code());
        }
        MemoryRecords records = (MemoryRecords) partitionData.records();
        List<ProducerBatch> producerBatches = new ArrayList<>();
        try {
            ProduceRequest.validateRecords(version, records);
            if (replicaManager.logConfigFor(topic.get()).cleanupPolicy().compact()) {
                requireKeys(records);
            }
            for (MutableRecordBatch batch : records.batches()) {
                producerBatches.add(new ProducerBatch(batch.producerId(), batch.producerEpoch(),
                        batch.baseSequence(), batch.lastSequence(),
                        (int) (batch.lastOffset() - batch.baseOffset() + 1)));
            }
        } catch (ApiException e) {
            return response.setErrorCode(Errors.forException(e).code()).setErrorMessage(e.getMessage());
        }
        ByteBuffer batches = records.buffer();
        try {
            Partition.LeaderAppend append = replicaManager.appendRecords(tp, batches, producerBatches, acksAll);
            AppendResult result = append.result();
            // A duplicate (a retried batch already in the log) is answered with its original offsets, and under
            // acks=all only once they are replicated, exactly like the first attempt.
            response.setBaseOffset(result.firstOffset()).setLogAppendTimeMs(result.logAppendTimeMs())
                    .setLogStartOffset(result.logStartOffset()).setErrorCode(Errors.NONE.code());
            if (acksAll) {
                pending.add(new PendingProduce(tp, response, result.lastOffset(), append.leaderEpoch()));
            }
            return response;
        } catch (PartitionRoleException e) {
            return response.setErrorCode(roleError(e).code()).setErrorMessage(e.getMessage());
        } catch (UnknownTopicException e) {
            return response.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        } catch (ProducerStateException e) {
            return producerStateError(response, e);
        } catch (dev.strait.broker.log.CorruptRecordException e) {
            return response.setErrorCode(Errors.CORRUPT_MESSAGE.code()).setErrorMessage(e.getMessage());
        } catch (RecordBatchTooLargeException e) {
            return response.setErrorCode(Errors.MESSAGE_TOO_LARGE.code()).setErrorMessage(e.getMessage());
        } catch (LogStorageException e) {
            LOGGER.error("append to {} failed", tp, e);
            return response.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code());
        }
    }

    /** An acks=all partition append waiting for the high watermark to pass {@code lastOffset}. */
    private record PendingProduce(TopicPartition topicPartition, PartitionProduceResponse response, long lastOffset,
                                  int leaderEpoch) {
    }

    /**
     * An acks=all produce: done when every appended partition's high watermark passed its batches in the epoch they
     * were written in (then NONE, or NOT_ENOUGH_REPLICAS_AFTER_APPEND if the ISR fell below min.insync.replicas),
     * when leadership was lost (NOT_LEADER_OR_FOLLOWER), or at the request timeout (REQUEST_TIMED_OUT).
     */
    private final class DelayedProduce extends DelayedOperation {
        private final NetworkRequest request;
        private final RequestContext context;
        private final ProduceResponseData data;
        private final List<PendingProduce> pending;

        DelayedProduce(NetworkRequest request, RequestContext context, ProduceResponseData data,
                List<PendingProduce> pending) {
            this.request = request;
            this.context = context;
            this.data = data;
            this.pending = pending;
        }

        private ProduceCheck check(PendingProduce p) {
            return replicaManager.partition(p.topicPartition())
                    .map(partition -> partition.checkProduceCompletion(p.lastOffset(), p.leaderEpoch()))
                    .orElse(ProduceCheck.NOT_LEADER);
        }

        @Override
        protected boolean isSatisfied() {
            for (PendingProduce p : pending) {
                if (check(p) == ProduceCheck.PENDING) {
                    return false;
                }
            }
            return true;
        }

        @Override
        protected void onComplete() {
            for (PendingProduce p : pending) {
                Errors error;
                switch (check(p)) {
                    case OK:
                        error = Errors.NONE;
                        break;
                    case NOT_ENOUGH_REPLICAS_AFTER_APPEND:
                        error = Errors.NOT_ENOUGH_REPLICAS_AFTER_APPEND;
                        break;
                    case PENDING:
                        error = Errors.REQUEST_TIMED_OUT;
                        break;
                    default:
                        error = Errors.NOT_LEADER_OR_FOLLOWER;
                        break;
                }
                if (error != Errors.NONE) {
                    p.response().setErrorCode(error.code()).setBaseOffset(-1).setLogAppendTimeMs(-1);
                }
            }
            sendResponse(request, context, new ProduceResponse(data));
        }
    }

    /** As Kafka: compaction keeps the last record per key, so a record without one has no place in the log. */
    private static void requireKeys(MemoryRecords records) {
        for (MutableRecordBatch batch : records.batches()) {
            if (batch.isControlBatch()) {
                continue;
            }
            for (org.apache.kafka.common.record.Record record : batch) {
                if (!record.hasKey()) {
                    throw new InvalidRecordException("Compacted topic cannot accept message without key");
                }
            }
        }
    }

    private static PartitionProduceResponse producerStateError(PartitionProduceResponse response,
            ProducerStateException e) {
        switch (e.reason()) {
            case OUT_OF_ORDER_SEQUENCE:
                return response.setErrorCode(Errors.OUT_OF_ORDER_SEQUENCE_NUMBER.code())
                        .setErrorMessage(e.getMessage());
            case INVALID_PRODUCER_EPOCH:
                return response.setErrorCode(Errors.INVALID_PRODUCER_EPOCH.code()).setErrorMessage(e.getMessage());
            default:
                throw new IllegalStateException("unhandled producer state result " + e.reason(), e);
        }
    }

    // ---------------------------------------------------------------- ListOffsets

    private AbstractResponse handleListOffsets(ListOffsetsRequest request, short version) {
        ListOffsetsResponseData data = new ListOffsetsResponseData();
        for (ListOffsetsTopic topic : request.data().topics()) {
            ListOffsetsTopicResponse topicResponse = new ListOffsetsTopicResponse().setName(topic.name());
            for (ListOffsetsPartition partition : topic.partitions()) {
                topicResponse.partitions().add(listOffsets(topic.name(), partition, version));
            }
            data.topics().add(topicResponse);
        }
        return new ListOffsetsResponse(data);
    }

    private ListOffsetsPartitionResponse listOffsets(String topic, ListOffsetsPartition request, short version) {
        ListOffsetsPartitionResponse response = new ListOffsetsPartitionResponse()
                .setPartitionIndex(request.partitionIndex());
        Optional<Partition> partition = replicaManager.partition(new TopicPartition(topic, request.partitionIndex()));
        if (partition.isEmpty()) {
            return response.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
        }
        Errors epochError = checkLeaderEpoch(request.currentLeaderEpoch(), partition.get());
        if (epochError != Errors.NONE) {
            return response.setErrorCode(epochError.code());
        }
        long timestamp = request.timestamp();
        long offset;
        long foundTimestamp = -1;
        if (timestamp == ListOffsetsRequest.EARLIEST_TIMESTAMP
                || timestamp == ListOffsetsRequest.EARLIEST_LOCAL_TIMESTAMP) {
            offset = partition.get().logStartOffset();
        } else if (timestamp == ListOffsetsRequest.LATEST_TIMESTAMP) {
            offset = partition.get().highWatermark();
        } else if (timestamp >= 0 || timestamp == ListOffsetsRequest.MAX_TIMESTAMP) {
            Optional<TimestampAndOffset> found = timestamp >= 0 ? partition.get().offsetForTimestamp(timestamp)
                    : partition.get().offsetOfMaxTimestamp();
            offset = found.map(TimestampAndOffset::offset).orElse(-1L);
            foundTimestamp = found.map(TimestampAndOffset::timestampMs).orElse(-1L);
        } else {
            // The tiered-storage specials (-5 latest tiered, -6 earliest pending upload) mean nothing here.
            return response.setErrorCode(Errors.UNSUPPORTED_VERSION.code());
        }
        response.setErrorCode(Errors.NONE.code()).setOffset(offset).setTimestamp(foundTimestamp);
        if (version >= 4) {
            response.setLeaderEpoch(partition.get().leaderEpoch());
        }
        return response;
    }

    /** Leadership and epoch fencing of a request naming {@code requestEpoch} (-1: any epoch). */
    static Errors checkLeaderEpoch(int requestEpoch, Partition partition) {
        try {
            partition.checkLeader(requestEpoch);
            return Errors.NONE;
        } catch (PartitionRoleException e) {
            return roleError(e);
        }
    }

    static Errors roleError(PartitionRoleException e) {
        switch (e.reason()) {
            case FENCED_EPOCH:
                return Errors.FENCED_LEADER_EPOCH;
            case UNKNOWN_EPOCH:
                return Errors.UNKNOWN_LEADER_EPOCH;
            case NOT_ENOUGH_REPLICAS:
                return Errors.NOT_ENOUGH_REPLICAS;
            case OFFSET_OUT_OF_RANGE:
                return Errors.OFFSET_OUT_OF_RANGE;
            default:
                return Errors.NOT_LEADER_OR_FOLLOWER;
        }
    }

    // ---------------------------------------------------------------- CreateTopics / DeleteTopics

    private AbstractResponse handleCreateTopics(CreateTopicsRequest request, short version) {
        CreateTopicsResponseData data = new CreateTopicsResponseData();
        Set<String> seen = new HashSet<>();
        Set<String> duplicates = new HashSet<>();
        for (CreatableTopic topic : request.data().topics()) {
            if (!seen.add(topic.name())) {
                duplicates.add(topic.name());
            }
        }
        for (CreatableTopic topic : request.data().topics()) {
            CreatableTopicResult result = new CreatableTopicResult().setName(topic.name());
            if (duplicates.contains(topic.name())) {
                setError(result, Errors.INVALID_REQUEST, "duplicate topic in request");
            } else {
                createTopic(topic, request.data().validateOnly(), version, result);
            }
            data.topics().add(result);
        }
        return new CreateTopicsResponse(data);
    }

    private void createTopic(CreatableTopic topic, boolean validateOnly, short version, CreatableTopicResult result) {
        int nodeId = endpoint.get().nodeId();
        int partitions = topic.numPartitions() == -1 ? defaultNumPartitions : topic.numPartitions();
        if (!topic.assignments().isEmpty()) {
            boolean valid = topic.numPartitions() == -1 && topic.replicationFactor() == -1;
            for (var assignment : topic.assignments()) {
                valid &= assignment.brokerIds().equals(List.of(nodeId));
            }
            if (!valid) {
                setError(result, Errors.INVALID_REPLICA_ASSIGNMENT, "only assignments to node " + nodeId
                        + " are possible, without numPartitions and replicationFactor");
                return;
            }
            partitions = topic.assignments().size();
        }
        if (topic.replicationFactor() == 0 || topic.replicationFactor() < -1) {
            setError(result, Errors.INVALID_REPLICATION_FACTOR, "Replication factor must be larger than 0, or -1 "
                    + "to use the default value.");
            return;
        }
        if (partitions < 1) {
            setError(result, Errors.INVALID_PARTITIONS, "Number of partitions must be larger than 0.");
            return;
        }
        Map<String, String> configs = new HashMap<>();
        for (CreatableTopicConfig config : topic.configs()) {
            configs.put(config.name(), config.value());
        }
        try {
            TopicConfigs.validate(configs);
        } catch (IllegalArgumentException e) {
            setError(result, Errors.INVALID_CONFIG, e.getMessage());
            return;
        }
        try {
            TopicMetadata created = replicaManager.createTopic(topic.name(), partitions, topic.replicationFactor(),
                    configs, validateOnly);
            short replicationFactor = replicaManager.metadata().partitionState(created.topicId(), 0)
                    .map(p -> (short) p.replicas().size())
                    .orElse(topic.replicationFactor() > 0 ? topic.replicationFactor() : (short) 1);
            result.setErrorCode(Errors.NONE.code()).setTopicId(created.topicId()).setNumPartitions(partitions)
                    .setReplicationFactor(replicationFactor);
            if (version >= 5) {
                List<CreatableTopicConfigs> described = new ArrayList<>();
                for (var entry : replicaManager.effectiveConfigs(created).entrySet()) {
                    described.add(new CreatableTopicConfigs().setName(entry.getKey()).setValue(entry.getValue())
                            .setReadOnly(false).setIsSensitive(false)
                            .setConfigSource(configSource(created, entry.getKey())));
                }
                result.setConfigs(described);
            }
        } catch (TopicExistsException e) {
            setError(result, Errors.TOPIC_ALREADY_EXISTS, "Topic '" + topic.name() + "' already exists.");
        } catch (InvalidReplicationFactorException e) {
            setError(result, Errors.INVALID_REPLICATION_FACTOR, e.getMessage());
        } catch (IllegalArgumentException e) {
            setError(result, Errors.INVALID_TOPIC_EXCEPTION, e.getMessage());
        }
    }

    private static void setError(CreatableTopicResult result, Errors error, String message) {
        result.setErrorCode(error.code()).setErrorMessage(message);
    }

    private AbstractResponse handleDeleteTopics(DeleteTopicsRequest request, short version) {
        DeleteTopicsResponseData data = new DeleteTopicsResponseData();
        List<DeleteTopicState> targets = new ArrayList<>();
        if (version >= 6) {
            targets.addAll(request.data().topics());
        } else {
            for (String name : request.data().topicNames()) {
                targets.add(new DeleteTopicState().setName(name));
            }
        }
        for (DeleteTopicState target : targets) {
            DeletableTopicResult result = new DeletableTopicResult().setName(target.name())
                    .setTopicId(target.topicId());
            Optional<TopicMetadata> topic = target.name() != null ? replicaManager.topic(target.name())
                    : replicaManager.topic(target.topicId());
            if (topic.isEmpty()) {
                Errors error = target.name() == null ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION;
                data.responses().add(result.setErrorCode(error.code()));
                continue;
            }
            if (isInternal(topic.get().name())) {
                data.responses().add(result.setErrorCode(Errors.INVALID_TOPIC_EXCEPTION.code())
                        .setErrorMessage("cannot delete internal topic " + topic.get().name()));
                continue;
            }
            try {
                replicaManager.deleteTopic(topic.get().name());
                result.setName(topic.get().name()).setTopicId(topic.get().topicId()).setErrorCode(Errors.NONE.code());
            } catch (UnknownTopicException e) {
                result.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            }
            data.responses().add(result);
        }
        return new DeleteTopicsResponse(data);
    }

    // ---------------------------------------------------------------- Configs

    private byte configSource(TopicMetadata topic, String key) {
        if (topic.configs().containsKey(key)) {
            return SOURCE_DYNAMIC_TOPIC;
        }
        return replicaManager.brokerTopicDefaults().containsKey(key) ? SOURCE_STATIC_BROKER : SOURCE_DEFAULT;
    }

    private static byte configType(String key) {
        switch (key) {
            case TopicConfigs.CLEANUP_POLICY:
                return 7; // LIST
            case "message.timestamp.type":
                return 2; // STRING
            case "segment.bytes":
            case "max.message.bytes":
            case "index.interval.bytes":
                return 3; // INT
            default:
                return 5; // LONG
        }
    }

    private AbstractResponse handleDescribeConfigs(DescribeConfigsRequest request) {
        DescribeConfigsResponseData data = new DescribeConfigsResponseData();
        for (DescribeConfigsResource resource : request.data().resources()) {
            DescribeConfigsResult result = new DescribeConfigsResult().setResourceType(resource.resourceType())
                    .setResourceName(resource.resourceName()).setErrorCode(Errors.NONE.code());
            List<String> keys = resource.configurationKeys();
            if (resource.resourceType() == RESOURCE_TOPIC) {
                Optional<TopicMetadata> topic = replicaManager.topic(resource.resourceName());
                if (topic.isEmpty()) {
                    result.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code())
                            .setErrorMessage("unknown topic '" + resource.resourceName() + "'");
                } else {
                    for (var entry : replicaManager.effectiveConfigs(topic.get()).entrySet()) {
                        if (keys == null || keys.contains(entry.getKey())) {
                            result.configs().add(describedConfig(entry.getKey(), entry.getValue(),
                                    configSource(topic.get(), entry.getKey())));
                        }
                    }
                }
            } else if (resource.resourceType() == RESOURCE_BROKER) {
                String self = Integer.toString(endpoint.get().nodeId());
                if (!resource.resourceName().isEmpty() && !resource.resourceName().equals(self)) {
                    result.setErrorCode(Errors.INVALID_REQUEST.code())
                            .setErrorMessage("this is node " + self + ", not " + resource.resourceName());
                } else {
                    for (var entry : brokerConfigs.entrySet()) {
                        if (keys == null || keys.contains(entry.getKey())) {
                            result.configs().add(describedConfig(entry.getKey(), entry.getValue(),
                                    SOURCE_STATIC_BROKER).setReadOnly(true).setConfigType((byte) 2));
                        }
                    }
                }
            } else {
                result.setErrorCode(Errors.INVALID_REQUEST.code())
                        .setErrorMessage("resource type " + resource.resourceType() + " is not supported");
            }
            data.results().add(result);
        }
        return new DescribeConfigsResponse(data);
    }

    private static DescribeConfigsResourceResult describedConfig(String key, String value, byte source) {
        return new DescribeConfigsResourceResult().setName(key).setValue(value).setReadOnly(false)
                .setIsSensitive(false).setConfigSource(source).setConfigType(configType(key));
    }

    private AbstractResponse handleIncrementalAlterConfigs(IncrementalAlterConfigsRequest request) {
        IncrementalAlterConfigsResponseData data = new IncrementalAlterConfigsResponseData();
        for (AlterConfigsResource resource : request.data().resources()) {
            AlterConfigsResourceResponse response = new AlterConfigsResourceResponse()
                    .setResourceType(resource.resourceType()).setResourceName(resource.resourceName());
            try {
                alterTopicConfigs(resource, request.data().validateOnly());
                response.setErrorCode(Errors.NONE.code());
            } catch (UnknownTopicException e) {
                response.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()).setErrorMessage(e.getMessage());
            } catch (IllegalArgumentException e) {
                response.setErrorCode(Errors.INVALID_CONFIG.code()).setErrorMessage(e.getMessage());
            } catch (UnsupportedOperationException e) {
                response.setErrorCode(Errors.INVALID_REQUEST.code()).setErrorMessage(e.getMessage());
            }
            data.responses().add(response);
        }
        return new IncrementalAlterConfigsResponse(data);
    }

    private void alterTopicConfigs(AlterConfigsResource resource, boolean validateOnly) {
        if (resource.resourceType() != RESOURCE_TOPIC) {
            throw new UnsupportedOperationException("only topic configs can be altered (broker configs are static)");
        }
        TopicMetadata topic = replicaManager.topic(resource.resourceName())
                .orElseThrow(() -> new UnknownTopicException("unknown topic '" + resource.resourceName() + "'"));
        Map<String, String> overrides = new LinkedHashMap<>(topic.configs());
        Set<String> seen = new HashSet<>();
        for (AlterableConfig config : resource.configs()) {
            if (!seen.add(config.name())) {
                throw new UnsupportedOperationException("config '" + config.name() + "' appears twice");
            }
            switch (config.configOperation()) {
                case 0: // SET
                    overrides.put(config.name(), config.value());
                    break;
                case 1: // DELETE
                    overrides.remove(config.name());
                    break;
                default: // APPEND, SUBTRACT (list configs, i.e. cleanup.policy): not yet; SET the whole list instead.
                    throw new UnsupportedOperationException("config operation " + config.configOperation()
                            + " is not supported");
            }
        }
        replicaManager.replaceTopicConfigs(topic.name(), overrides, validateOnly);
    }

    // ---------------------------------------------------------------- Cluster, producer ids, epochs

    private AbstractResponse handleDescribeCluster(DescribeClusterRequest request) {
        BrokerEndpoint self = endpoint.get();
        DescribeClusterResponseData data = new DescribeClusterResponseData()
                .setClusterId(replicaManager.metadata().clusterId()).setControllerId(self.nodeId())
                .setEndpointType(request.data().endpointType());
        if (request.data().endpointType() != 1) {
            return new DescribeClusterResponse(data.setErrorCode(Errors.UNSUPPORTED_ENDPOINT_TYPE.code())
                    .setErrorMessage("only the broker endpoint type (1) is served"));
        }
        for (BrokerEndpoint broker : liveBrokers()) {
            data.brokers().add(new DescribeClusterBroker().setBrokerId(broker.nodeId()).setHost(broker.host())
                    .setPort(broker.port()).setRack(null).setIsFenced(false));
        }
        return new DescribeClusterResponse(data.setErrorCode(Errors.NONE.code()));
    }

    private AbstractResponse handleInitProducerId(InitProducerIdRequest request) {
        InitProducerIdResponseData data = new InitProducerIdResponseData();
        if (request.data().transactionalId() != null) {
            return new InitProducerIdResponse(data.setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code())
                    .setProducerId(-1).setProducerEpoch((short) -1));
        }
        long producerId = request.data().producerId();
        short epoch = request.data().producerEpoch();
        if (producerId >= 0 && epoch >= 0 && epoch < Short.MAX_VALUE - 1) {
            data.setProducerId(producerId).setProducerEpoch((short) (epoch + 1));
        } else {
            data.setProducerId(producerIds.nextProducerId()).setProducerEpoch((short) 0);
        }
        return new InitProducerIdResponse(data.setErrorCode(Errors.NONE.code()));
    }

    private AbstractResponse handleOffsetForLeaderEpoch(OffsetsForLeaderEpochRequest request) {
        OffsetForLeaderEpochResponseData data = new OffsetForLeaderEpochResponseData();
        for (OffsetForLeaderTopic topic : request.data().topics()) {
            OffsetForLeaderTopicResult topicResult = new OffsetForLeaderTopicResult().setTopic(topic.topic());
            for (OffsetForLeaderPartition requested : topic.partitions()) {
                OffsetForLeaderEpochResponseData.EpochEndOffset result =
                        new OffsetForLeaderEpochResponseData.EpochEndOffset().setPartition(requested.partition());
                Optional<Partition> partition = replicaManager.partition(
                        new TopicPartition(topic.topic(), requested.partition()));
                if (partition.isEmpty()) {
                    result.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
                } else {
                    Errors epochError = checkLeaderEpoch(requested.currentLeaderEpoch(), partition.get());
                    if (epochError != Errors.NONE) {
                        result.setErrorCode(epochError.code());
                    } else {
                        EpochEndOffset end = partition.get().endOffsetForEpoch(requested.leaderEpoch());
                        result.setErrorCode(Errors.NONE.code()).setLeaderEpoch(end.leaderEpoch())
                                .setEndOffset(end.endOffset());
                    }
                }
                topicResult.partitions().add(result);
            }
            data.topics().add(topicResult);
        }
        return new OffsetsForLeaderEpochResponse(data);
    }

}
