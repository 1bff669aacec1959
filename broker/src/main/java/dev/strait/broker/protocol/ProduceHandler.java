package dev.strait.broker.protocol;

import dev.strait.broker.link.MirrorSpec;
import dev.strait.broker.log.AppendResult;
import dev.strait.broker.log.LogConfig;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.network.NetworkRequest;
import dev.strait.broker.partition.DelayedOperation;
import dev.strait.broker.partition.Partition;
import dev.strait.broker.partition.ProducerBatch;
import dev.strait.broker.partition.ProducerIdManager;
import dev.strait.broker.partition.ReplicaManager;
import dev.strait.broker.replication.ProduceCheck;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.InvalidTimestampException;
import org.apache.kafka.common.message.InitProducerIdResponseData;
import org.apache.kafka.common.message.ProduceRequestData.PartitionProduceData;
import org.apache.kafka.common.message.ProduceRequestData.TopicProduceData;
import org.apache.kafka.common.message.ProduceResponseData;
import org.apache.kafka.common.message.ProduceResponseData.PartitionProduceResponse;
import org.apache.kafka.common.message.ProduceResponseData.TopicProduceResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.record.MutableRecordBatch;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.InitProducerIdRequest;
import org.apache.kafka.common.requests.InitProducerIdResponse;
import org.apache.kafka.common.requests.ProduceRequest;
import org.apache.kafka.common.requests.ProduceResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.resource.ResourceType;
import org.jspecify.annotations.Nullable;

/**
 * Produce and InitProducerId. Each partition's batches are validated (format, keys on compacted topics) and
 * appended by the leader; acks=0 gets no response, acks=1 its answer at once, acks=all waits in the produce
 * purgatory until every appended partition's high watermark passed its batches in the epoch they were written in.
 * A retried idempotent batch that is already in the log is answered like the first attempt, with its original
 * offsets, and under acks=all only once they are replicated (issue 11, defect 1). Producer ids come from blocks the
 * controller hands out. Transactional batches are accepted when a transaction coordinator runs; the coordinator's
 * markers end them ({@link TxnMarkerWriter}).
 *
 * <p>Thread-safe: a delayed produce is completed exactly once, by whichever thread sees it first (see
 * {@link DelayedOperation}).
 */
final class ProduceHandler {

    private final ReplicaManager replicaManager;
    private final ProducerIdManager producerIds;
    private final RequestAuthorizer authorizer;

    /** Whether a transaction coordinator runs, without which transactional batches would stay open for good. */
    private final boolean transactions;

    ProduceHandler(ReplicaManager replicaManager, RequestAuthorizer authorizer) {
        this(replicaManager, authorizer, false);
    }

    ProduceHandler(ReplicaManager replicaManager, RequestAuthorizer authorizer, boolean transactions) {
        this.authorizer = authorizer;
        this.replicaManager = replicaManager;
        this.producerIds = new ProducerIdManager(replicaManager.metadata());
        this.transactions = transactions;
    }

    /** @return the response, or null if it is sent later (acks=all) or never (acks=0) */
    @Nullable
    AbstractResponse handleProduceRequest(
            NetworkRequest networkRequest, RequestContext context, ProduceRequest request, short version) {
        ProduceResponseData data = new ProduceResponseData();
        String transactionalId = request.transactionalId();
        if (transactionalId != null
                && (!transactions
                        || !authorizer.authorize(
                                context, AclOperation.WRITE, ResourceType.TRANSACTIONAL_ID, transactionalId))) {
            throw Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.exception(
                    transactions ? null : "this node runs no transaction coordinator");
        }
        short acks = request.acks();
        if (acks != 0 && acks != 1 && acks != -1) {
            throw Errors.INVALID_REQUIRED_ACKS.exception("acks must be -1, 0 or 1, got " + acks);
        }
        boolean acksAll = acks == -1;
        List<PendingProduce> pending = new ArrayList<>();
        for (TopicProduceData topicData : request.data().topicData()) {
            Optional<TopicMetadata> topic =
                    version >= 13 ? replicaManager.topic(topicData.topicId()) : replicaManager.topic(topicData.name());
            TopicProduceResponse topicResponse =
                    new TopicProduceResponse().setName(topicData.name()).setTopicId(topicData.topicId());
            // Kafka checks WRITE on the topic first: a principal without it learns nothing, not even existence.
            boolean authorized = topic.isEmpty() && version < 13
                    ? authorizer.topic(context, AclOperation.WRITE, topicData.name())
                    : topic.isEmpty()
                            || authorizer.topic(
                                    context, AclOperation.WRITE, topic.get().name());
            for (PartitionProduceData partitionData : topicData.partitionData()) {
                if (!authorized) {
                    topicResponse
                            .partitionResponses()
                            .add(new PartitionProduceResponse()
                                    .setIndex(partitionData.index())
                                    .setBaseOffset(-1)
                                    .setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
                    continue;
                }
                topicResponse
                        .partitionResponses()
                        .add(produceToPartition(topic, partitionData, version, acksAll, transactionalId, pending));
            }
            data.responses().add(topicResponse);
        }
        if (request.acks() == 0) {
            networkRequest.noResponse();
            return null;
        }
        if (!pending.isEmpty()) {
            DelayedProduce delayed = new DelayedProduce(networkRequest, context, data, pending);
            List<TopicPartition> keys = pending.stream()
                    .map(PendingProduce::topicPartition)
                    .distinct()
                    .toList();
            replicaManager.producePurgatory().tryCompleteElseWatch(delayed, keys, Math.max(1, request.timeout()));
            return null;
        }
        return new ProduceResponse(data);
    }

    private PartitionProduceResponse produceToPartition(
            Optional<TopicMetadata> topic,
            PartitionProduceData partitionData,
            short version,
            boolean acksAll,
            @Nullable String transactionalId,
            List<PendingProduce> pending) {
        PartitionProduceResponse response =
                new PartitionProduceResponse().setIndex(partitionData.index()).setBaseOffset(-1);
        if (topic.isEmpty()) {
            Errors error = version >= 13 ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION;
            return response.setErrorCode(error.code());
        }
        if (MetadataHandler.isInternal(topic.get().name())) {
            return response.setErrorCode(Errors.INVALID_TOPIC_EXCEPTION.code())
                    .setErrorMessage(
                            "cannot produce to internal topic " + topic.get().name());
        }
        Optional<MirrorSpec> mirror = MirrorSpec.from(topic.get());
        if (mirror.isPresent() && mirror.get().readOnly()) {
            // As Kafka's non-retriable INVALID_REQUEST, so the producer fails the send at once with this message.
            return response.setErrorCode(Errors.INVALID_REQUEST.code())
                    .setErrorMessage("topic " + topic.get().name() + " is a read-only mirror of "
                            + mirror.get().sourceTopic() + " on " + mirror.get().source()
                            + "; promote it (strait.mirror.state=promoted) before producing to it");
        }
        TopicPartition tp = new TopicPartition(topic.get().name(), partitionData.index());
        if (!(partitionData.records() instanceof MemoryRecords)) {
            return response.setErrorCode(Errors.CORRUPT_MESSAGE.code());
        }
        MemoryRecords records = (MemoryRecords) partitionData.records();
        List<ProducerBatch> producerBatches = new ArrayList<>();
        try {
            ProduceRequest.validateRecords(version, records);
            LogConfig config = replicaManager.logConfigFor(topic.get());
            if (config.cleanupPolicy().compact()) {
                requireKeys(records);
            }
            requireTimestampsInRange(records, config, replicaManager.time().milliseconds());
            for (MutableRecordBatch batch : records.batches()) {
                // A transaction only a coordinator can end, or a marker only a coordinator writes, would hold the
                // last stable offset of read_committed consumers back for good.
                if (batch.isControlBatch()) {
                    throw new InvalidRecordException("clients may not write control batches");
                }
                if (batch.isTransactional() && (!transactions || transactionalId == null)) {
                    throw new InvalidRecordException(
                            transactions
                                    ? "a transactional batch must come with its producer's transactional.id"
                                    : "transactional batches need a transaction coordinator, which this node does not run");
                }
                producerBatches.add(new ProducerBatch(
                        batch.producerId(), batch.producerEpoch(), batch.baseSequence(), batch.lastSequence(), (int)
                                (batch.lastOffset() - batch.baseOffset() + 1)));
            }
            ByteBuffer batches = records.buffer();
            Partition.LeaderAppend append = replicaManager.appendRecords(tp, batches, producerBatches, acksAll);
            AppendResult result = append.result();
            // A duplicate (a retried batch already in the log) is answered with its original offsets, and under
            // acks=all only once they are replicated, exactly like the first attempt.
            response.setBaseOffset(result.firstOffset())
                    .setLogAppendTimeMs(result.logAppendTimeMs())
                    .setLogStartOffset(result.logStartOffset())
                    .setErrorCode(Errors.NONE.code());
            if (acksAll) {
                pending.add(new PendingProduce(tp, response, result.lastOffset(), append.leaderEpoch()));
            }
            return response;
        } catch (RuntimeException e) {
            Errors error = ApiErrors.forException(e);
            return response.setErrorCode(error.code())
                    .setErrorMessage(
                            error == Errors.UNKNOWN_TOPIC_OR_PARTITION || error == Errors.KAFKA_STORAGE_ERROR
                                    ? null
                                    : e.getMessage());
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

    /**
     * As Kafka, for a CreateTime topic: a record stamped more than {@code message.timestamp.before.max.ms} before
     * the broker's clock or more than {@code message.timestamp.after.max.ms} after it is refused with
     * INVALID_TIMESTAMP, and the whole batch with it. The future limit is checked on each batch's max timestamp;
     * the past limit, off by default, reads every record (decompressing) only when it is set.
     */
    private static void requireTimestampsInRange(MemoryRecords records, LogConfig config, long nowMs) {
        if (config.timestampType() != dev.strait.broker.log.TimestampType.CREATE_TIME) {
            return;
        }
        long latest = config.timestampAfterMaxMs() > Long.MAX_VALUE - nowMs
                ? Long.MAX_VALUE
                : nowMs + config.timestampAfterMaxMs();
        boolean checkPast = config.timestampBeforeMaxMs() != LogConfig.DEFAULT_TIMESTAMP_BEFORE_MAX_MS;
        long earliest = nowMs - config.timestampBeforeMaxMs();
        for (MutableRecordBatch batch : records.batches()) {
            if (batch.maxTimestamp() > latest) {
                throw outOfRange(batch.maxTimestamp(), earliest, latest, checkPast);
            }
            if (checkPast) {
                for (org.apache.kafka.common.record.Record record : batch) {
                    if (record.timestamp() < earliest) {
                        throw outOfRange(record.timestamp(), earliest, latest, true);
                    }
                }
            }
        }
    }

    private static InvalidTimestampException outOfRange(long timestamp, long earliest, long latest, boolean past) {
        return new InvalidTimestampException("timestamp " + timestamp + " is out of range: the topic accepts "
                + (past ? "timestamps from " + earliest + " " : "timestamps ") + "up to " + latest
                + " (message.timestamp.before.max.ms / message.timestamp.after.max.ms)");
    }

    /** An acks=all partition append waiting for the high watermark to pass {@code lastOffset}. */
    private record PendingProduce(
            TopicPartition topicPartition, PartitionProduceResponse response, long lastOffset, int leaderEpoch) {}

    /**
     * An acks=all produce: done when every appended partition's high watermark passed its batches in the epoch they
     * were written in (then NONE, or NOT_ENOUGH_REPLICAS_AFTER_APPEND if the ISR fell below min.insync.replicas),
     * when leadership was lost (NOT_LEADER_OR_FOLLOWER), or at the request timeout (REQUEST_TIMED_OUT). Never
     * success without replication.
     */
    private final class DelayedProduce extends DelayedOperation {
        private final NetworkRequest request;
        private final RequestContext context;
        private final ProduceResponseData data;
        private final List<PendingProduce> pending;

        DelayedProduce(
                NetworkRequest request,
                RequestContext context,
                ProduceResponseData data,
                List<PendingProduce> pending) {
            this.request = request;
            this.context = context;
            this.data = data;
            this.pending = pending;
        }

        private ProduceCheck check(PendingProduce p) {
            return replicaManager
                    .partition(p.topicPartition())
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
            KafkaApis.sendResponse(request, context, new ProduceResponse(data));
        }
    }

    // ---------------------------------------------------------------- InitProducerId

    AbstractResponse handleInitProducerIdRequest(RequestContext context, InitProducerIdRequest request) {
        InitProducerIdResponseData data = new InitProducerIdResponseData();
        if (request.data().transactionalId() == null
                && !authorizer.cluster(context, AclOperation.IDEMPOTENT_WRITE)
                && !authorizer.anyOfType(context, AclOperation.WRITE, ResourceType.TOPIC)) {
            return new InitProducerIdResponse(data.setErrorCode(Errors.CLUSTER_AUTHORIZATION_FAILED.code())
                    .setProducerId(-1)
                    .setProducerEpoch((short) -1));
        }
        if (request.data().transactionalId() != null) {
            return new InitProducerIdResponse(data.setErrorCode(Errors.TRANSACTIONAL_ID_AUTHORIZATION_FAILED.code())
                    .setProducerId(-1)
                    .setProducerEpoch((short) -1));
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
}
