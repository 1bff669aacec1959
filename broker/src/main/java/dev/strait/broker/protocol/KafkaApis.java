package dev.strait.broker.protocol;

import dev.strait.broker.group.GroupCoordinator;
import dev.strait.broker.network.NetworkRequest;
import dev.strait.broker.network.RequestDispatcher;
import dev.strait.broker.partition.ReplicaManager;
import java.nio.ByteBuffer;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.message.ApiVersionsResponseData;
import org.apache.kafka.common.network.ClientInformation;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.protocol.ApiKeys;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractRequest;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.AlterConfigsRequest;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.AlterUserScramCredentialsRequest;
import org.apache.kafka.common.requests.ApiVersionsRequest;
import org.apache.kafka.common.requests.ApiVersionsResponse;
import org.apache.kafka.common.requests.CreateAclsRequest;
import org.apache.kafka.common.requests.CreatePartitionsRequest;
import org.apache.kafka.common.requests.CreateTopicsRequest;
import org.apache.kafka.common.requests.DeleteAclsRequest;
import org.apache.kafka.common.requests.DeleteRecordsRequest;
import org.apache.kafka.common.requests.DeleteTopicsRequest;
import org.apache.kafka.common.requests.DescribeAclsRequest;
import org.apache.kafka.common.requests.DescribeClusterRequest;
import org.apache.kafka.common.requests.DescribeConfigsRequest;
import org.apache.kafka.common.requests.DescribeLogDirsRequest;
import org.apache.kafka.common.requests.DescribeProducersRequest;
import org.apache.kafka.common.requests.DescribeQuorumRequest;
import org.apache.kafka.common.requests.DescribeTopicPartitionsRequest;
import org.apache.kafka.common.requests.DescribeTransactionsRequest;
import org.apache.kafka.common.requests.DescribeUserScramCredentialsRequest;
import org.apache.kafka.common.requests.ElectLeadersRequest;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.IncrementalAlterConfigsRequest;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.ListOffsetsRequest;
import org.apache.kafka.common.requests.ListPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.ListTransactionsRequest;
import org.apache.kafka.common.requests.MetadataRequest;
import org.apache.kafka.common.requests.OffsetsForLeaderEpochRequest;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.requests.RequestHeader;
import org.apache.kafka.common.requests.WriteTxnMarkersRequest;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The protocol adapter's entry point: parses a frame with kafka-clients' classes, routes it to the handler of its
 * API, and sends the response built with {@code RequestContext.buildResponseSend}. The handlers: Produce and
 * InitProducerId ({@link ProduceHandler}), Fetch ({@link FetchHandler}), ListOffsets and OffsetForLeaderEpoch
 * ({@link PartitionOffsetsHandler}), Metadata and DescribeCluster ({@link MetadataHandler}), topic administration
 * and configs ({@link TopicAdminHandler}), CreatePartitions, DeleteRecords and ElectLeaders
 * ({@link PartitionAdminHandler}), the classic group protocol and committed offsets ({@link GroupHandler}),
 * DescribeLogDirs ({@link LogDirsHandler}), DescribeQuorum ({@link QuorumHandler}, only on a node of a Raft quorum). Each
 * names its entry points {@code handleXRequest}; all map exceptions to error codes through {@link ApiErrors}.
 *
 * <p>Errors: an unparseable frame (garbage, truncated, unknown API key, unsupported version of anything but
 * ApiVersions) closes the connection with a log line, as Kafka does; an API that is not advertised gets the
 * request's error response with UNSUPPORTED_VERSION; an unexpected failure while executing (a bug) gets
 * UNKNOWN_SERVER_ERROR and a logged stack trace.
 *
 * <p>Thread-safe: called concurrently by all handler threads; the handlers are stateless apart from the producer
 * id allocator, and transactions when a {@link TransactionServices} is given.
 */
public final class KafkaApis implements RequestDispatcher {

    private static final Logger LOGGER = LoggerFactory.getLogger(KafkaApis.class);

    private final ProduceHandler produceHandler;
    private final ProducersHandler producersHandler;
    private final FetchHandler fetchHandler;
    private final PartitionOffsetsHandler offsetsHandler;
    private final MetadataHandler metadataHandler;
    private final DescribeTopicPartitionsHandler describeTopicPartitionsHandler;
    private final TopicAdminHandler topicAdminHandler;
    private final PartitionAdminHandler partitionAdminHandler;
    private final ReassignmentsHandler reassignmentsHandler;
    /** Null without a group coordinator (the group APIs are then not advertised). */
    private final @Nullable GroupHandler groupHandler;

    private final SecurityAdminHandler securityAdminHandler;
    private final LogDirsHandler logDirsHandler;
    /** Null without a metadata quorum (DescribeQuorum is then not advertised). */
    private final @Nullable QuorumHandler quorumHandler;

    private final @Nullable TransactionHandler transactionHandler;
    private final @Nullable WriteTxnMarkersHandler writeTxnMarkersHandler;

    private final BrokerSecurity security;

    /**
     * @param endpoint             this node's id and address (known only after binding)
     * @param defaultNumPartitions {@code num.partitions}
     * @param autoCreateTopics     {@code auto.create.topics.enable}
     * @param brokerConfigs        the static broker configs to report in DescribeConfigs
     */
    public KafkaApis(
            Supplier<BrokerEndpoint> endpoint,
            ReplicaManager replicaManager,
            int defaultNumPartitions,
            boolean autoCreateTopics,
            Map<String, String> brokerConfigs) {
        this(endpoint, replicaManager, defaultNumPartitions, autoCreateTopics, brokerConfigs, null);
    }

    /**
     * @param groupCoordinator the group coordinator, or null for none (the group APIs are then not advertised)
     */
    public KafkaApis(
            Supplier<BrokerEndpoint> endpoint,
            ReplicaManager replicaManager,
            int defaultNumPartitions,
            boolean autoCreateTopics,
            Map<String, String> brokerConfigs,
            @Nullable GroupCoordinator groupCoordinator) {
        this(
                endpoint,
                replicaManager,
                defaultNumPartitions,
                autoCreateTopics,
                brokerConfigs,
                groupCoordinator,
                BrokerSecurity.none());
    }

    /**
     * @param security each listener's authentication and the authorizer (see {@link BrokerSecurity})
     */
    public KafkaApis(
            Supplier<BrokerEndpoint> endpoint,
            ReplicaManager replicaManager,
            int defaultNumPartitions,
            boolean autoCreateTopics,
            Map<String, String> brokerConfigs,
            @Nullable GroupCoordinator groupCoordinator,
            BrokerSecurity security) {
        this(
                endpoint,
                listener -> Optional.of(endpoint.get()),
                replicaManager,
                defaultNumPartitions,
                autoCreateTopics,
                brokerConfigs,
                groupCoordinator,
                security);
    }

    /**
     * @param endpoint          this node's id and its inter-broker listener's address
     * @param listenerEndpoints this node's advertised endpoint of each broker listener (Metadata, FindCoordinator
     *                          and DescribeCluster answer with the endpoints of the listener a request came in on)
     */
    public KafkaApis(
            Supplier<BrokerEndpoint> endpoint,
            Function<String, Optional<BrokerEndpoint>> listenerEndpoints,
            ReplicaManager replicaManager,
            int defaultNumPartitions,
            boolean autoCreateTopics,
            Map<String, String> brokerConfigs,
            @Nullable GroupCoordinator groupCoordinator,
            BrokerSecurity security) {
        this(
                endpoint,
                listenerEndpoints,
                replicaManager,
                defaultNumPartitions,
                autoCreateTopics,
                brokerConfigs,
                groupCoordinator,
                security,
                null);
    }

    /**
     * @param transactions the transaction coordinator, or null for none (transactional producers are then refused
     *     and the transaction APIs not advertised); needs a group coordinator
     */
    public KafkaApis(
            Supplier<BrokerEndpoint> endpoint,
            Function<String, Optional<BrokerEndpoint>> listenerEndpoints,
            ReplicaManager replicaManager,
            int defaultNumPartitions,
            boolean autoCreateTopics,
            Map<String, String> brokerConfigs,
            @Nullable GroupCoordinator groupCoordinator,
            BrokerSecurity security,
            @Nullable TransactionServices transactions) {
        this.security = security;
        RequestAuthorizer authorizer = new RequestAuthorizer(security.authorizer());
        this.produceHandler = new ProduceHandler(replicaManager, authorizer, transactions != null);
        if (transactions != null && groupCoordinator != null) {
            this.transactionHandler = new TransactionHandler(
                    transactions.coordinator(), replicaManager, authorizer, groupCoordinator::partitionFor);
            this.writeTxnMarkersHandler = new WriteTxnMarkersHandler(transactions.writer(), authorizer);
        } else {
            this.transactionHandler = null;
            this.writeTxnMarkersHandler = null;
        }
        this.fetchHandler = new FetchHandler(
                replicaManager,
                authorizer,
                new FetchSessions(
                        Integer.parseInt(brokerConfigs
                                .getOrDefault("max.incremental.fetch.session.cache.slots", "1000")
                                .trim()),
                        replicaManager.time().milliseconds()));
        this.offsetsHandler = new PartitionOffsetsHandler(replicaManager, authorizer);
        this.producersHandler = new ProducersHandler(replicaManager, authorizer);
        this.describeTopicPartitionsHandler = new DescribeTopicPartitionsHandler(replicaManager, authorizer);
        this.metadataHandler = new MetadataHandler(
                endpoint, listenerEndpoints, replicaManager, defaultNumPartitions, autoCreateTopics, authorizer);
        this.topicAdminHandler =
                new TopicAdminHandler(endpoint, replicaManager, defaultNumPartitions, brokerConfigs, authorizer);
        this.partitionAdminHandler = new PartitionAdminHandler(replicaManager, authorizer);
        this.reassignmentsHandler = new ReassignmentsHandler(replicaManager.metadata(), authorizer);
        MetadataHandler metadata = metadataHandler;
        FindCoordinatorHandler.TransactionLookup transactionCoordinators = transactions == null
                ? FindCoordinatorHandler.NO_TRANSACTIONS
                : (transactionalId, listener) -> transactions
                        .partitionOf(transactionalId)
                        .flatMap(p -> metadata.partitionLeader(TransactionTopicLog.TOPIC, p, listener));
        this.groupHandler = groupCoordinator == null
                ? null
                : new GroupHandler(
                        groupCoordinator,
                        metadataHandler::offsetsPartitionLeader,
                        transactionCoordinators,
                        authorizer,
                        topic -> replicaManager
                                .topic(topic)
                                .map(t -> t.partitions())
                                .orElse(0),
                        replicaManager.metadata()::topics);
        this.securityAdminHandler = new SecurityAdminHandler(replicaManager.metadata(), authorizer);
        this.logDirsHandler = new LogDirsHandler(replicaManager, authorizer);
        this.quorumHandler = replicaManager.metadata().hasQuorum()
                ? new QuorumHandler(replicaManager.metadata()::describeQuorum, authorizer)
                : null;
    }

    /**
     * The authentication state of the request's connection, made on its first request: authenticated at once on a
     * PLAINTEXT or SSL listener (anonymous, or the client certificate's principal), before SASL otherwise.
     */
    private SaslAuthenticator.Session session(NetworkRequest request, ListenerSecurity listener) {
        Object attached = request.connection().attachment();
        if (attached instanceof SaslAuthenticator.Session session) {
            return session;
        }
        SaslAuthenticator.Session session = listener.usesSasl()
                ? SaslAuthenticator.Session.beforeSasl()
                : SaslAuthenticator.Session.authenticated(
                        listener.transportPrincipal(request.connection().tlsSession()));
        request.connection().attach(session);
        return session;
    }

    @Override
    public void dispatch(NetworkRequest request) {
        ListenerSecurity listener = security.listener(request.connection().listenerName());
        SaslAuthenticator.Session session;
        try {
            session = session(request, listener);
        } catch (RuntimeException e) {
            LOGGER.warn(
                    "closing connection {}: no principal for its certificate: {}",
                    request.connectionId(),
                    e.getMessage());
            request.closeConnection();
            return;
        }
        if (session.expectsBareToken()) {
            SaslAuthenticator.handleBareToken(request, session);
            return;
        }
        RequestContext context;
        AbstractRequest body;
        try {
            ByteBuffer buffer = request.payload();
            RequestHeader header = RequestHeader.parse(buffer);
            request.tagApi(header.apiKey().name);
            context = new RequestContext(
                    header,
                    request.connectionId(),
                    request.clientAddress().getAddress(),
                    session.principal(),
                    new ListenerName(listener.listenerName()),
                    listener.protocol(),
                    ClientInformation.EMPTY,
                    false);
            body = context.parseRequest(buffer).request;
        } catch (RuntimeException e) {
            LOGGER.warn("closing connection {}: cannot parse request: {}", request.connectionId(), e.toString());
            request.closeConnection();
            return;
        }
        if (!session.complete()) {
            try {
                SaslAuthenticator.handle(
                        request,
                        context,
                        body,
                        session,
                        listener,
                        b -> handleApiVersionsRequest((ApiVersionsRequest) b));
            } catch (RuntimeException e) {
                LOGGER.error("closing connection {}: SASL exchange failed", request.connectionId(), e);
                request.closeConnection();
            }
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
            LOGGER.error(
                    "closing connection {}: cannot serialize the {} v{} response",
                    request.connectionId(),
                    context.header.apiKey(),
                    context.apiVersion(),
                    e);
            request.closeConnection();
        }
    }

    private static @Nullable AbstractResponse errorResponse(
            NetworkRequest request, AbstractRequest body, Throwable error) {
        try {
            return body.getErrorResponse(0, error);
        } catch (RuntimeException e) {
            LOGGER.warn("closing connection {}: no error response possible: {}", request.connectionId(), e.toString());
            request.closeConnection();
            return null;
        }
    }

    /** @return the response, or null if it was (or will be) sent by other means */
    private @Nullable AbstractResponse handle(NetworkRequest request, RequestContext context, AbstractRequest body) {
        ApiKeys key = context.header.apiKey();
        short version = context.apiVersion();
        if (key == ApiKeys.API_VERSIONS) {
            return handleApiVersionsRequest((ApiVersionsRequest) body);
        }
        if (!SupportedApis.isSupported(
                key, version, groupHandler != null, quorumHandler != null, transactionHandler != null)) {
            return errorResponse(
                    request,
                    body,
                    new UnsupportedVersionException("this broker does not support " + key + " v" + version));
        }
        switch (key) {
            case METADATA:
                return metadataHandler.handleMetadataRequest(context, (MetadataRequest) body, version);
            case PRODUCE:
                return produceHandler.handleProduceRequest(request, context, (ProduceRequest) body, version);
            case FETCH:
                fetchHandler.handleFetchRequest(request, context, (FetchRequest) body);
                return null;
            case LIST_OFFSETS:
                return offsetsHandler.handleListOffsetsRequest(context, (ListOffsetsRequest) body, version);
            case CREATE_TOPICS:
                return topicAdminHandler.handleCreateTopicsRequest(context, (CreateTopicsRequest) body, version);
            case DELETE_TOPICS:
                return topicAdminHandler.handleDeleteTopicsRequest(context, (DeleteTopicsRequest) body, version);
            case DESCRIBE_CONFIGS:
                return topicAdminHandler.handleDescribeConfigsRequest(context, (DescribeConfigsRequest) body);
            case INCREMENTAL_ALTER_CONFIGS:
                return topicAdminHandler.handleIncrementalAlterConfigsRequest(
                        context, (IncrementalAlterConfigsRequest) body);
            case ALTER_CONFIGS:
                return topicAdminHandler.handleAlterConfigsRequest(context, (AlterConfigsRequest) body);
            case DESCRIBE_CLUSTER:
                return metadataHandler.handleDescribeClusterRequest(context, (DescribeClusterRequest) body);
            case INIT_PRODUCER_ID:
                InitProducerIdRequest init = (InitProducerIdRequest) body;
                if (init.data().transactionalId() != null && transactionHandler != null) {
                    return transactionHandler.handleInitProducerId(request, context, init);
                }
                return produceHandler.handleInitProducerIdRequest(context, init);
            case ADD_PARTITIONS_TO_TXN:
                return transactions().handleAddPartitionsToTxn(request, context, (AddPartitionsToTxnRequest) body);
            case ADD_OFFSETS_TO_TXN:
                return transactions().handleAddOffsetsToTxn(request, context, (AddOffsetsToTxnRequest) body);
            case END_TXN:
                return transactions().handleEndTxn(request, context, (EndTxnRequest) body);
            case DESCRIBE_TRANSACTIONS:
                return transactions().handleDescribeTransactions(request, context, (DescribeTransactionsRequest) body);
            case LIST_TRANSACTIONS:
                return transactions().handleListTransactions(request, context, (ListTransactionsRequest) body);
            case WRITE_TXN_MARKERS:
                return Objects.requireNonNull(writeTxnMarkersHandler, "advertised only with transactions")
                        .handle(request, context, (WriteTxnMarkersRequest) body);
            case OFFSET_FOR_LEADER_EPOCH:
                return offsetsHandler.handleOffsetForLeaderEpochRequest(context, (OffsetsForLeaderEpochRequest) body);
            case CREATE_PARTITIONS:
                return partitionAdminHandler.handleCreatePartitionsRequest(context, (CreatePartitionsRequest) body);
            case DELETE_RECORDS:
                return partitionAdminHandler.handleDeleteRecordsRequest(context, (DeleteRecordsRequest) body);
            case DESCRIBE_PRODUCERS:
                return producersHandler.handle(context, (DescribeProducersRequest) body);
            case ELECT_LEADERS:
                return partitionAdminHandler.handleElectLeadersRequest(context, (ElectLeadersRequest) body);
            case ALTER_PARTITION_REASSIGNMENTS:
                return reassignmentsHandler.handleAlterPartitionReassignmentsRequest(
                        context, (AlterPartitionReassignmentsRequest) body);
            case LIST_PARTITION_REASSIGNMENTS:
                return reassignmentsHandler.handleListPartitionReassignmentsRequest(
                        context, (ListPartitionReassignmentsRequest) body);
            case SASL_HANDSHAKE:
            case SASL_AUTHENTICATE:
                return SaslAuthenticator.afterAuthentication(key);
            case CREATE_ACLS:
                return securityAdminHandler.handleCreateAclsRequest(context, (CreateAclsRequest) body);
            case DESCRIBE_ACLS:
                return securityAdminHandler.handleDescribeAclsRequest(context, (DescribeAclsRequest) body);
            case DELETE_ACLS:
                return securityAdminHandler.handleDeleteAclsRequest(context, (DeleteAclsRequest) body);
            case DESCRIBE_USER_SCRAM_CREDENTIALS:
                return securityAdminHandler.handleDescribeUserScramCredentialsRequest(
                        context, (DescribeUserScramCredentialsRequest) body);
            case ALTER_USER_SCRAM_CREDENTIALS:
                return securityAdminHandler.handleAlterUserScramCredentialsRequest(
                        context, (AlterUserScramCredentialsRequest) body);
            case DESCRIBE_TOPIC_PARTITIONS:
                return describeTopicPartitionsHandler.handle(context, (DescribeTopicPartitionsRequest) body);
            case DESCRIBE_LOG_DIRS:
                return logDirsHandler.handleDescribeLogDirsRequest(context, (DescribeLogDirsRequest) body);
            case DESCRIBE_QUORUM:
                Objects.requireNonNull(quorumHandler, "DescribeQuorum is advertised only with a quorum")
                        .handleDescribeQuorumRequest(request, context, (DescribeQuorumRequest) body, version);
                return null;
            default:
                if (SupportedApis.GROUP_APIS.contains(key)) {
                    return Objects.requireNonNull(groupHandler, "group APIs are advertised only with a coordinator")
                            .handleGroupRequest(request, context, body);
                }
                throw new IllegalStateException("advertised but not dispatched: " + key);
        }
    }

    private TransactionHandler transactions() {
        return Objects.requireNonNull(
                transactionHandler, "the transaction APIs are advertised only with a coordinator");
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
                .setApiKeys(SupportedApis.advertised(
                        groupHandler != null, quorumHandler != null, transactionHandler != null))
                .setFinalizedFeaturesEpoch(-1);
        return new ApiVersionsResponse(data);
    }
}
