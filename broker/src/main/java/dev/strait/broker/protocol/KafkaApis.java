package dev.strait.broker.protocol;

import dev.strait.broker.group.GroupCoordinator;
import dev.strait.broker.network.NetworkRequest;
import dev.strait.broker.network.RequestDispatcher;
import dev.strait.broker.replica.ReplicaManager;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.ElectLeadersRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The protocol adapter's entry point: parses a frame with kafka-clients' classes, routes it to the handler of its
 * API, and sends the response built with {@code RequestContext.buildResponseSend}. The handlers: Produce and
 * InitProducerId ({@link ProduceHandler}), Fetch ({@link FetchHandler}), ListOffsets and OffsetForLeaderEpoch
 * ({@link PartitionOffsetsHandler}), Metadata and DescribeCluster ({@link MetadataHandler}), topic administration
 * and configs ({@link TopicAdminHandler}), CreatePartitions, DeleteRecords and ElectLeaders
 * ({@link PartitionAdminHandler}), the classic group protocol and committed offsets ({@link GroupHandler}). Each
 * names its entry points {@code handleXRequest}; all map exceptions to error codes through {@link ApiErrors}.
 *
 * <p>Errors: an unparseable frame (garbage, truncated, unknown API key, unsupported version of anything but
 * ApiVersions) closes the connection with a log line, as Kafka does; an API that is not advertised gets the
 * request's error response with UNSUPPORTED_VERSION; an unexpected failure while executing (a bug) gets
 * UNKNOWN_SERVER_ERROR and a logged stack trace.
 *
 * <p>Thread-safe: called concurrently by all handler threads; the handlers are stateless apart from the producer
 * id allocator. Not implemented yet: transactions.
 */
public final class KafkaApis implements RequestDispatcher {

    private static final Logger LOGGER = LoggerFactory.getLogger(KafkaApis.class);
    private static final ListenerName LISTENER = ListenerName.forSecurityProtocol(SecurityProtocol.PLAINTEXT);

    private final ProduceHandler produceHandler;
    private final FetchHandler fetchHandler;
    private final PartitionOffsetsHandler offsetsHandler;
    private final MetadataHandler metadataHandler;
    private final TopicAdminHandler topicAdminHandler;
    private final PartitionAdminHandler partitionAdminHandler;
    private final GroupHandler groupHandler;

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
        this.produceHandler = new ProduceHandler(replicaManager);
        this.fetchHandler = new FetchHandler(replicaManager);
        this.offsetsHandler = new PartitionOffsetsHandler(replicaManager);
        this.metadataHandler = new MetadataHandler(endpoint, replicaManager, defaultNumPartitions, autoCreateTopics);
        this.topicAdminHandler = new TopicAdminHandler(endpoint, replicaManager, defaultNumPartitions, brokerConfigs);
        this.partitionAdminHandler = new PartitionAdminHandler(replicaManager, () -> endpoint.get().nodeId());
        this.groupHandler = groupCoordinator == null ? null
                : new GroupHandler(groupCoordinator, endpoint, metadataHandler::offsetsPartitionLeader);
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
            return handleApiVersionsRequest((ApiVersionsRequest) body);
        }
        if (!SupportedApis.isSupported(key, version, groupHandler != null)) {
            return errorResponse(request, body, new UnsupportedVersionException(
                    "this broker does not support " + key + " v" + version));
        }
        switch (key) {
            case METADATA:
                return metadataHandler.handleMetadataRequest((MetadataRequest) body, version);
            case PRODUCE:
                return produceHandler.handleProduceRequest(request, context, (ProduceRequest) body, version);
            case FETCH:
                fetchHandler.handleFetchRequest(request, context, (FetchRequest) body);
                return null;
            case LIST_OFFSETS:
                return offsetsHandler.handleListOffsetsRequest((ListOffsetsRequest) body, version);
            case CREATE_TOPICS:
                return topicAdminHandler.handleCreateTopicsRequest((CreateTopicsRequest) body, version);
            case DELETE_TOPICS:
                return topicAdminHandler.handleDeleteTopicsRequest((DeleteTopicsRequest) body, version);
            case DESCRIBE_CONFIGS:
                return topicAdminHandler.handleDescribeConfigsRequest((DescribeConfigsRequest) body);
            case INCREMENTAL_ALTER_CONFIGS:
                return topicAdminHandler.handleIncrementalAlterConfigsRequest((IncrementalAlterConfigsRequest) body);
            case DESCRIBE_CLUSTER:
                return metadataHandler.handleDescribeClusterRequest((DescribeClusterRequest) body);
            case INIT_PRODUCER_ID:
                return produceHandler.handleInitProducerIdRequest((InitProducerIdRequest) body);
            case OFFSET_FOR_LEADER_EPOCH:
                return offsetsHandler.handleOffsetForLeaderEpochRequest((OffsetsForLeaderEpochRequest) body);
            case CREATE_PARTITIONS:
                return partitionAdminHandler.handleCreatePartitionsRequest((CreatePartitionsRequest) body);
            case DELETE_RECORDS:
                return partitionAdminHandler.handleDeleteRecordsRequest((DeleteRecordsRequest) body);
            case ELECT_LEADERS:
                return partitionAdminHandler.handleElectLeadersRequest((ElectLeadersRequest) body);
            default:
                if (SupportedApis.GROUP_APIS.contains(key)) {
                    return groupHandler.handleGroupRequest(request, context, body);
                }
                throw new IllegalStateException("advertised but not dispatched: " + key);
        }
    }

    private AbstractResponse handleApiVersionsRequest(ApiVersionsRequest request) {
        if (request.hasUnsupportedRequestVersion()) {
            return request.getErrorResponse(0, Errors.UNSUPPORTED_VERSION.exception());
        }
        if (!request.isValid()) {
            return request.getErrorResponse(0, Errors.INVALID_REQUEST.exception());
        }
        ApiVersionsResponseData data = new ApiVersionsResponseData()
                .setErrorCode(Errors.NONE.code())
                .setApiKeys(SupportedApis.advertised(groupHandler != null))
                .setFinalizedFeaturesEpoch(-1);
        return new ApiVersionsResponse(data);
    }
}
