package dev.strait.broker.protocol;

import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.network.NetworkRequest;
import dev.strait.broker.partition.ReplicaManager;
import dev.strait.broker.txn.ProducerIdAndEpoch;
import dev.strait.broker.txn.TransactionCoordinator;
import dev.strait.broker.txn.TransactionListing;
import dev.strait.broker.txn.TransactionMetadata;
import dev.strait.broker.txn.TransactionState;
import dev.strait.broker.txn.TxnError;
import dev.strait.broker.txn.TxnPartition;
import dev.strait.broker.txn.TxnView;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.function.ToIntFunction;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.AddOffsetsToTxnResponseData;
import org.apache.kafka.common.message.AddPartitionsToTxnResponseData;
import org.apache.kafka.common.message.DescribeTransactionsResponseData;
import org.apache.kafka.common.message.EndTxnResponseData;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ListTransactionsResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.AddOffsetsToTxnRequest;
import org.apache.kafka.common.requests.AddOffsetsToTxnResponse;
import org.apache.kafka.common.requests.AddPartitionsToTxnRequest;
import org.apache.kafka.common.requests.AddPartitionsToTxnResponse;
import org.apache.kafka.common.requests.DescribeTransactionsRequest;
import org.apache.kafka.common.requests.DescribeTransactionsResponse;
import org.apache.kafka.common.requests.EndTxnRequest;
import org.apache.kafka.common.requests.EndTxnResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ListTransactionsRequest;
import org.apache.kafka.common.requests.ListTransactionsResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.resource.ResourceType;
import org.jspecify.annotations.Nullable;

/**
 * The transaction coordinator's requests: InitProducerId with a transactional id, AddPartitionsToTxn (the client
 * form, v0–3), AddOffsetsToTxn, EndTxn, DescribeTransactions and ListTransactions. Each is checked here (ACLs as
 * Kafka checks them, topics that exist), handed to the {@link TransactionCoordinator} shard of its transactional id,
 * and answered from that shard's loop once its state change is durable.
 */
final class TransactionHandler {

    private final TransactionCoordinator coordinator;
    private final ReplicaManager replicaManager;
    private final RequestAuthorizer authorizer;
    private final ToIntFunction<String> offsetsPartitionFor;

    /** @param offsetsPartitionFor the offsets-topic partition of a group, which AddOffsetsToTxn adds */
    TransactionHandler(
            TransactionCoordinator coordinator,
            ReplicaManager replicaManager,
            RequestAuthorizer authorizer,
            ToIntFunction<String> offsetsPartitionFor) {
        this.coordinator = coordinator;
        this.replicaManager = replicaManager;
        this.authorizer = authorizer;
        this.offsetsPartitionFor = offsetsPartitionFor;
    }

    private boolean mayWrite(RequestContext context, String transactionalId) {
        return authorizer.authorize(context, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactionalId);
    }

    private static void answer(NetworkRequest request, RequestContext context, AbstractResponse response) {
        KafkaApis.sendResponse(request, context, response);
    }

    // ---------------------------------------------------------------- InitProducerId

    /** @return null: answered later, from the shard's loop */
    @Nullable
    AbstractResponse handleInitProducerId(NetworkRequest request, RequestContext context, InitProducerIdRequest body) {
        String transactionalId = body.data().transactionalId();
        InitProducerIdResponseData data =
                new InitProducerIdResponseData().setProducerId(-1).setProducerEpoch((short) -1);
        if (transactionalId.isEmpty()) {
            return new InitProducerIdResponse(data.setErrorCode(Errors.INVALID_REQUEST.code()));
        }
        if (!mayWrite(context, transactionalId)) {
            return new InitProducerIdResponse(data.setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code()));
        }
        @Nullable
        ProducerIdAndEpoch expected = body.data().producerId() >= 0
                        && body.data().producerEpoch() >= 0
                ? new ProducerIdAndEpoch(body.data().producerId(), body.data().producerEpoch())
                : null;
        boolean knowsFenced = context.apiVersion() >= 4;
        coordinator
                .initProducerId(transactionalId, body.data().transactionTimeoutMs(), expected)
                .thenAccept(reply -> answer(
                        request,
                        context,
                        new InitProducerIdResponse(data.setErrorCode(ApiErrors.forTxn(reply.error(), knowsFenced)
                                        .code())
                                .setProducerId(reply.producerId())
                                .setProducerEpoch(reply.producerEpoch()))));
        return null;
    }

    // ---------------------------------------------------------------- AddPartitionsToTxn

    @Nullable
    AbstractResponse handleAddPartitionsToTxn(
            NetworkRequest request, RequestContext context, AddPartitionsToTxnRequest body) {
        String transactionalId = body.data().v3AndBelowTransactionalId();
        List<TopicPartition> partitions =
                AddPartitionsToTxnRequest.getPartitions(body.data().v3AndBelowTopics());
        if (!mayWrite(context, transactionalId)) {
            return addPartitionsAnswer(
                    transactionalId, uniform(partitions, Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED));
        }
        // As Kafka: one unusable partition fails the request, and the others are not attempted.
        Map<TopicPartition, Errors> refused = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            Optional<TopicMetadata> topic = replicaManager.topic(tp.topic());
            if (!authorizer.topic(context, AclOperation.WRITE, tp.topic())) {
                refused.put(tp, Errors.TOPIC_AUTHORIZATION_FAILED);
            } else if (topic.isEmpty()
                    || tp.partition() < 0
                    || tp.partition() >= topic.get().partitions()) {
                refused.put(tp, Errors.UNKNOWN_TOPIC_OR_PARTITION);
            }
        }
        if (!refused.isEmpty()) {
            Map<TopicPartition, Errors> errors = uniform(partitions, Errors.OPERATION_NOT_ATTEMPTED);
            errors.putAll(refused);
            return addPartitionsAnswer(transactionalId, errors);
        }
        Set<TxnPartition> added = new HashSet<>();
        for (TopicPartition tp : partitions) {
            added.add(new TxnPartition(tp.topic(), tp.partition()));
        }
        boolean knowsFenced = context.apiVersion() >= 2;
        coordinator
                .addPartitions(
                        transactionalId,
                        body.data().v3AndBelowProducerId(),
                        body.data().v3AndBelowProducerEpoch(),
                        added)
                .thenAccept(reply -> answer(
                        request,
                        context,
                        addPartitionsAnswer(
                                transactionalId, uniform(partitions, ApiErrors.forTxn(reply.error(), knowsFenced)))));
        return null;
    }

    private static Map<TopicPartition, Errors> uniform(List<TopicPartition> partitions, Errors error) {
        Map<TopicPartition, Errors> errors = new LinkedHashMap<>();
        for (TopicPartition tp : partitions) {
            errors.put(tp, error);
        }
        return errors;
    }

    private static AddPartitionsToTxnResponse addPartitionsAnswer(
            String transactionalId, Map<TopicPartition, Errors> errors) {
        return new AddPartitionsToTxnResponse(new AddPartitionsToTxnResponseData()
                .setResultsByTopicV3AndBelow(AddPartitionsToTxnResponse.resultForTransaction(transactionalId, errors)
                        .topicResults()));
    }

    // ---------------------------------------------------------------- AddOffsetsToTxn, EndTxn

    @Nullable
    AbstractResponse handleAddOffsetsToTxn(
            NetworkRequest request, RequestContext context, AddOffsetsToTxnRequest body) {
        String transactionalId = body.data().transactionalId();
        if (!mayWrite(context, transactionalId)) {
            return new AddOffsetsToTxnResponse(new AddOffsetsToTxnResponseData()
                    .setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code()));
        }
        boolean knowsFenced = context.apiVersion() >= 2;
        coordinator
                .addOffsets(
                        transactionalId,
                        body.data().producerId(),
                        body.data().producerEpoch(),
                        body.data().groupId(),
                        offsetsPartitionFor)
                .thenAccept(reply -> answer(
                        request,
                        context,
                        new AddOffsetsToTxnResponse(new AddOffsetsToTxnResponseData()
                                .setErrorCode(ApiErrors.forTxn(reply.error(), knowsFenced)
                                        .code()))));
        return null;
    }

    @Nullable
    AbstractResponse handleEndTxn(NetworkRequest request, RequestContext context, EndTxnRequest body) {
        String transactionalId = body.data().transactionalId();
        EndTxnResponseData data = new EndTxnResponseData().setProducerId(-1).setProducerEpoch((short) -1);
        if (!mayWrite(context, transactionalId)) {
            return new EndTxnResponse(data.setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code()));
        }
        boolean knowsFenced = context.apiVersion() >= 2;
        coordinator
                .endTxn(
                        transactionalId,
                        body.data().producerId(),
                        body.data().producerEpoch(),
                        body.data().committed())
                .thenAccept(reply -> answer(
                        request,
                        context,
                        new EndTxnResponse(data.setErrorCode(
                                ApiErrors.forTxn(reply.error(), knowsFenced).code()))));
        return null;
    }

    // ---------------------------------------------------------------- DescribeTransactions, ListTransactions

    @Nullable
    AbstractResponse handleDescribeTransactions(
            NetworkRequest request, RequestContext context, DescribeTransactionsRequest body) {
        List<CompletableFuture<DescribeTransactionsResponseData.TransactionState>> answers = new ArrayList<>();
        for (String transactionalId : body.data().transactionalIds()) {
            if (!authorizer.authorize(context, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, transactionalId)) {
                answers.add(CompletableFuture.completedFuture(new DescribeTransactionsResponseData.TransactionState()
                        .setTransactionalId(transactionalId)
                        .setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code())));
                continue;
            }
            answers.add(coordinator.describe(transactionalId).thenApply(view -> described(transactionalId, view)));
        }
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).thenRun(() -> {
            DescribeTransactionsResponseData data = new DescribeTransactionsResponseData();
            for (CompletableFuture<DescribeTransactionsResponseData.TransactionState> one : answers) {
                data.transactionStates().add(one.join());
            }
            answer(request, context, new DescribeTransactionsResponse(data));
        });
        return null;
    }

    private static DescribeTransactionsResponseData.TransactionState described(String transactionalId, TxnView view) {
        DescribeTransactionsResponseData.TransactionState state =
                new DescribeTransactionsResponseData.TransactionState().setTransactionalId(transactionalId);
        TransactionMetadata txn = view.metadata();
        if (view.error() != TxnError.NONE || txn == null) {
            return state.setErrorCode(ApiErrors.forTxn(view.error(), true).code());
        }
        Map<String, List<Integer>> byTopic = new TreeMap<>();
        for (TxnPartition p : txn.partitions()) {
            byTopic.computeIfAbsent(p.topic(), t -> new ArrayList<>()).add(p.partition());
        }
        DescribeTransactionsResponseData.TopicDataCollection topics =
                new DescribeTransactionsResponseData.TopicDataCollection();
        byTopic.forEach((topic, indexes) -> topics.add(new DescribeTransactionsResponseData.TopicData()
                .setTopic(topic)
                .setPartitions(indexes.stream().sorted().toList())));
        return state.setErrorCode(Errors.NONE.code())
                .setTransactionState(txn.state().stateName())
                .setTransactionTimeoutMs(txn.txnTimeoutMs())
                .setTransactionStartTimeMs(txn.txnStartTimestampMs())
                .setProducerId(txn.producerId())
                .setProducerEpoch(txn.producerEpoch())
                .setTopics(topics);
    }

    @Nullable
    AbstractResponse handleListTransactions(
            NetworkRequest request, RequestContext context, ListTransactionsRequest body) {
        ListTransactionsResponseData data = new ListTransactionsResponseData();
        Set<TransactionState> states = EnumSet.noneOf(TransactionState.class);
        for (String name : body.data().stateFilters()) {
            Optional<TransactionState> state = stateNamed(name);
            if (state.isPresent()) {
                states.add(state.get());
            } else {
                data.unknownStateFilters().add(name);
            }
        }
        @Nullable Pattern idPattern;
        try {
            String pattern = body.data().transactionalIdPattern();
            idPattern = pattern == null || pattern.isEmpty() ? null : Pattern.compile(pattern);
        } catch (PatternSyntaxException e) {
            return new ListTransactionsResponse(data.setErrorCode(Errors.INVALID_REGULAR_EXPRESSION.code()));
        }
        if (!body.data().stateFilters().isEmpty() && states.isEmpty()) {
            return new ListTransactionsResponse(data.setErrorCode(Errors.NONE.code()));
        }
        @Nullable Pattern filter = idPattern;
        coordinator
                .listTransactions(
                        states,
                        new HashSet<>(body.data().producerIdFilters()),
                        body.data().durationFilter())
                .thenAccept(listed -> {
                    addListed(context, listed, filter, data);
                    answer(request, context, new ListTransactionsResponse(data.setErrorCode(Errors.NONE.code())));
                });
        return null;
    }

    /** The listed transactions the principal may describe and the id pattern matches, into the answer. */
    private void addListed(
            RequestContext context,
            List<TransactionListing> listed,
            @Nullable Pattern filter,
            ListTransactionsResponseData data) {
        for (TransactionListing one : listed) {
            if (filter != null && !filter.matcher(one.transactionalId()).matches()) {
                continue;
            }
            if (!authorizer.authorize(
                    context, AclOperation.DESCRIBE, ResourceType.TRANSACTIONAL_ID, one.transactionalId())) {
                continue;
            }
            data.transactionStates()
                    .add(new ListTransactionsResponseData.TransactionState()
                            .setTransactionalId(one.transactionalId())
                            .setProducerId(one.producerId())
                            .setTransactionState(one.state().stateName()));
        }
    }

    private static Optional<TransactionState> stateNamed(String name) {
        for (TransactionState state : TransactionState.values()) {
            if (state.stateName().equals(name)) {
                return Optional.of(state);
            }
        }
        return Optional.empty();
    }
}
