package dev.strait.broker.protocol;

import dev.strait.broker.log.LogReadResult;
import dev.strait.broker.log.LogStorageException;
import dev.strait.broker.log.OffsetOutOfRangeException;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.network.NetworkRequest;
import dev.strait.broker.partition.DelayedOperation;
import dev.strait.broker.partition.Partition;
import dev.strait.broker.partition.ReplicaManager;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.FetchRequestData;
import org.apache.kafka.common.message.FetchRequestData.FetchPartition;
import org.apache.kafka.common.message.FetchRequestData.FetchTopic;
import org.apache.kafka.common.message.FetchResponseData;
import org.apache.kafka.common.message.FetchResponseData.AbortedTransaction;
import org.apache.kafka.common.message.FetchResponseData.FetchableTopicResponse;
import org.apache.kafka.common.message.FetchResponseData.PartitionData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.record.MemoryRecords;
import org.apache.kafka.common.requests.FetchRequest;
import org.apache.kafka.common.requests.FetchResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Fetch for consumers and for followers (a replica id >= 0). A follower's fetch offset is its log end offset:
 * the leader records it first (which may move the high watermark, complete acks=all produces and propose an ISR
 * expansion), then answers with data up to its own log end offset and its high watermark; a consumer only ever
 * sees data below the high watermark. Only the leader answers, in the epoch the request names. A client that asks
 * for an incremental fetch session (KIP-227) gets one ({@link FetchSessions}): its later fetches name only what
 * changed, and the answers only the partitions with news. If less than {@code minBytes} is available the fetch
 * waits in the purgatory, without holding a handler thread, until an append makes enough data available or
 * {@code maxWaitMs} passes. Records are sent zero-copy from the log files.
 *
 * <p>Thread-safe: a fetch is completed by a handler thread, an appending handler thread or the scheduler thread,
 * exactly once (see {@link DelayedOperation}).
 */
final class FetchHandler {

    private static final Logger LOGGER = LoggerFactory.getLogger(FetchHandler.class);

    private final ReplicaManager replicaManager;
    private final RequestAuthorizer authorizer;
    private final FetchSessions sessions;

    FetchHandler(ReplicaManager replicaManager, RequestAuthorizer authorizer, FetchSessions sessions) {
        this.replicaManager = replicaManager;
        this.authorizer = authorizer;
        this.sessions = sessions;
    }

    /**
     * One requested partition, resolved against the metadata; {@code refused} is the authorization error it is
     * answered with instead of records (resolved is then empty), or null.
     */
    private record Target(
            FetchTopic topic,
            FetchPartition partition,
            Optional<TopicPartition> resolved,
            @Nullable Errors refused) {}

    void handleFetchRequest(NetworkRequest request, RequestContext context, FetchRequest fetchRequest) {
        FetchRequestData data = fetchRequest.data();
        short version = context.apiVersion();
        FetchSessions.Opened opened = version >= 7
                ? sessions.open(data, version >= 13, replicaManager.time().milliseconds())
                : new FetchSessions.Opened(Errors.NONE, data.topics(), 0, null, null);
        if (opened.error() != Errors.NONE) {
            KafkaApis.sendResponse(
                    request,
                    context,
                    FetchResponse.of(new FetchResponseData()
                            .setErrorCode(opened.error().code())
                            .setSessionId(0)));
            return;
        }
        int replicaId = fetchRequest.replicaId();
        List<Target> targets = targets(context, opened.topics(), version, replicaId);
        if (replicaId >= 0) {
            // A follower: what it fetches from tells the leader what it has (Kafka's updateFollowerFetchState).
            for (Target target : targets) {
                target.resolved().ifPresent(tp -> {
                    try {
                        // Checks the epoch and counts the offset in one step of the partition (issue 22, defect 4);
                        // KIP-903: the broker epoch it fetched with goes with the ISR expansion this fetch may cause.
                        replicaManager.onFollowerFetch(
                                tp,
                                replicaId,
                                target.partition().currentLeaderEpoch(),
                                data.replicaState().replicaEpoch(),
                                target.partition().fetchOffset());
                    } catch (RuntimeException e) {
                        // The read below answers the follower with the same error.
                        LOGGER.debug("replica {} fetch of {}: {}", replicaId, tp, ApiErrors.forException(e));
                    }
                });
            }
        }
        DelayedFetch fetch = new DelayedFetch(request, context, data, targets, version, replicaId, opened);
        if (data.maxWaitMs() <= 0 || data.minBytes() <= 0 || targets.isEmpty()) {
            fetch.completeNow();
            return;
        }
        List<TopicPartition> keys =
                targets.stream().flatMap(t -> t.resolved().stream()).toList();
        replicaManager.fetchPurgatory().tryCompleteElseWatch(fetch, keys, data.maxWaitMs());
    }

    /** Each partition to read, resolved against the metadata, or the authorization error it is answered with. */
    private List<Target> targets(RequestContext context, List<FetchTopic> topics, short version, int replicaId) {
        List<Target> targets = new ArrayList<>();
        // As Kafka: a follower needs CLUSTER_ACTION on the cluster (else every partition is refused), a consumer
        // READ on each topic.
        boolean replicaAuthorized = replicaId < 0 || authorizer.cluster(context, AclOperation.CLUSTER_ACTION);
        for (FetchTopic topic : topics) {
            Optional<TopicMetadata> metadata =
                    version >= 13 ? replicaManager.topic(topic.topicId()) : replicaManager.topic(topic.topic());
            String name = metadata.map(TopicMetadata::name).orElse(version >= 13 ? null : topic.topic());
            boolean authorized = replicaId >= 0
                    ? replicaAuthorized
                    : name == null || authorizer.topic(context, AclOperation.READ, name);
            for (FetchPartition partition : topic.partitions()) {
                if (!authorized) {
                    targets.add(new Target(topic, partition, Optional.empty(), Errors.TOPIC_AUTHORIZATION_FAILED));
                    continue;
                }
                Optional<TopicPartition> tp = metadata.map(t -> new TopicPartition(t.name(), partition.partition()));
                targets.add(new Target(topic, partition, tp, null));
            }
        }
        return targets;
    }

    private static Errors epochError(int requestEpoch, Partition partition) {
        return ApiErrors.checkLeaderEpoch(requestEpoch, partition);
    }

    private final class DelayedFetch extends DelayedOperation {

        /** A follower reads up to the leader's log end; a consumer only what is committed (below the HW). */
        private LogReadResult read(Partition partition, long offset, int maxBytes, boolean minOneBatch) {
            if (replicaId >= 0) {
                return partition.readForFollower(offset, maxBytes);
            }
            return readCommitted()
                    ? partition.readCommitted(offset, maxBytes, minOneBatch)
                    : partition.read(offset, maxBytes, minOneBatch);
        }

        /** A read_committed consumer reads below the last stable offset and is told which transactions aborted. */
        private boolean readCommitted() {
            return replicaId < 0 && data.isolationLevel() == IsolationLevel.READ_COMMITTED.id();
        }

        private final NetworkRequest request;
        private final RequestContext context;
        private final FetchRequestData data;
        private final List<Target> targets;
        private final short version;
        /** The fetching follower's node id, or -1 for a consumer. */
        private final int replicaId;
        /** The session the fetch belongs to, if any, and whether the answer leaves unchanged partitions out. */
        private final FetchSessions.Opened session;

        DelayedFetch(
                NetworkRequest request,
                RequestContext context,
                FetchRequestData data,
                List<Target> targets,
                short version,
                int replicaId,
                FetchSessions.Opened session) {
            this.replicaId = replicaId;
            this.session = session;
            this.request = request;
            this.context = context;
            this.data = data;
            this.targets = targets;
            this.version = version;
        }

        void completeNow() {
            onComplete();
        }

        /** Satisfied when enough bytes are available, or any partition would answer with an error. */
        @Override
        protected boolean isSatisfied() {
            long available = 0;
            for (Target target : targets) {
                Optional<Partition> partition = target.resolved().flatMap(replicaManager::partition);
                if (partition.isEmpty()) { // unknown or refused: answered with its error now
                    return true;
                }
                if (epochError(target.partition().currentLeaderEpoch(), partition.get()) != Errors.NONE) {
                    return true;
                }
                try {
                    LogReadResult read = read(
                            partition.get(),
                            target.partition().fetchOffset(),
                            target.partition().partitionMaxBytes(),
                            true);
                    available += read.records().sizeBytes();
                } catch (OffsetOutOfRangeException | LogStorageException e) {
                    return true;
                }
                if (available >= data.minBytes()) {
                    return true;
                }
            }
            return false;
        }

        @Override
        protected void onComplete() {
            FetchResponse response;
            try {
                response = FetchResponse.of(buildResponse());
            } catch (RuntimeException e) {
                LOGGER.error("closing connection {}: fetch failed", request.connectionId(), e);
                request.closeConnection();
                return;
            }
            KafkaApis.sendResponse(request, context, response);
        }

        private FetchResponseData buildResponse() {
            FetchResponseData response =
                    new FetchResponseData().setErrorCode(Errors.NONE.code()).setSessionId(session.sessionId());
            Map<FetchTopic, FetchableTopicResponse> topics = new LinkedHashMap<>();
            int remainingBytes = data.maxBytes();
            boolean anyRecords = false;
            for (Target target : targets) {
                FetchableTopicResponse topicResponse = topics.computeIfAbsent(target.topic(), t -> {
                    FetchableTopicResponse r = new FetchableTopicResponse();
                    if (version >= 13) {
                        r.setTopicId(t.topicId());
                    } else {
                        r.setTopic(t.topic());
                    }
                    return r;
                });
                PartitionData partitionData = readPartition(target, Math.max(0, remainingBytes), !anyRecords);
                int size = partitionData.records() == null
                        ? 0
                        : partitionData.records().sizeInBytes();
                remainingBytes -= size;
                anyRecords |= size > 0;
                // A sessionless fetch (every follower's, and older clients') answers every partition: no lock on
                // the session cache and nothing recorded on the replication path.
                boolean include = session.recordSent() == null
                        || sessions.answer(
                                session.recordSent(),
                                session.incremental() != null,
                                FetchSessions.key(
                                        version >= 13,
                                        target.topic().topicId(),
                                        target.topic().topic(),
                                        target.partition().partition()),
                                size > 0,
                                partitionData.errorCode(),
                                new FetchSessions.Sent(
                                        partitionData.highWatermark(),
                                        partitionData.lastStableOffset(),
                                        partitionData.logStartOffset()));
                if (include) {
                    topicResponse.partitions().add(partitionData);
                }
            }
            for (FetchableTopicResponse topic : topics.values()) {
                if (!topic.partitions().isEmpty()) {
                    response.responses().add(topic);
                }
            }
            return response;
        }

        private PartitionData readPartition(Target target, int maxBytes, boolean minOneBatch) {
            FetchPartition requested = target.partition();
            PartitionData result = new PartitionData()
                    .setPartitionIndex(requested.partition())
                    .setHighWatermark(-1)
                    .setLastStableOffset(-1)
                    .setLogStartOffset(-1)
                    .setRecords(MemoryRecords.EMPTY);
            if (target.refused() != null) {
                return result.setErrorCode(target.refused().code());
            }
            if (target.resolved().isEmpty()) {
                Errors error = version >= 13 ? Errors.UNKNOWN_TOPIC_ID : Errors.UNKNOWN_TOPIC_OR_PARTITION;
                return result.setErrorCode(error.code());
            }
            Optional<Partition> partition =
                    replicaManager.partition(target.resolved().get());
            if (partition.isEmpty()) {
                return result.setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code());
            }
            Errors epochError = epochError(requested.currentLeaderEpoch(), partition.get());
            if (epochError != Errors.NONE) {
                return result.setErrorCode(epochError.code());
            }
            try {
                int limit = Math.min(maxBytes, requested.partitionMaxBytes());
                LogReadResult read = read(partition.get(), requested.fetchOffset(), limit, minOneBatch);
                // A follower takes no stable offset; a consumer's is looked up once, beside its read.
                long lastStableOffset =
                        replicaId >= 0 ? read.highWatermark() : partition.get().lastStableOffset();
                result.setErrorCode(Errors.NONE.code())
                        .setHighWatermark(read.highWatermark())
                        .setLastStableOffset(lastStableOffset)
                        .setLogStartOffset(read.logStartOffset());
                if (readCommitted()) {
                    List<AbortedTransaction> aborted = new ArrayList<>();
                    for (Partition.AbortedTransaction a :
                            partition.get().abortedTransactions(requested.fetchOffset(), lastStableOffset)) {
                        aborted.add(new AbortedTransaction()
                                .setProducerId(a.producerId())
                                .setFirstOffset(a.firstOffset()));
                    }
                    result.setAbortedTransactions(aborted);
                }
                if (!read.records().isEmpty() && FileSliceRecords.startsWithCompleteBatch(read.records())) {
                    result.setRecords(new FileSliceRecords(read.records()));
                }
                return result;
            } catch (IOException e) {
                LOGGER.error("read from {} failed", target.resolved().get(), e);
                return result.setErrorCode(Errors.KAFKA_STORAGE_ERROR.code());
            } catch (RuntimeException e) {
                Errors error = ApiErrors.forException(e);
                if (error == Errors.OFFSET_OUT_OF_RANGE) {
                    // The consumer resets its position from these.
                    result.setHighWatermark(partition.get().highWatermark())
                            .setLastStableOffset(partition.get().lastStableOffset())
                            .setLogStartOffset(partition.get().logStartOffset());
                }
                return result.setErrorCode(error.code());
            }
        }
    }
}
