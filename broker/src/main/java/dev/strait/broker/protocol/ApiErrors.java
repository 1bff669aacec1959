package dev.strait.broker.protocol;

import dev.strait.broker.group.GroupError;
import dev.strait.broker.log.CorruptRecordException;
import dev.strait.broker.log.LogStorageException;
import dev.strait.broker.log.OffsetOutOfRangeException;
import dev.strait.broker.log.RecordBatchTooLargeException;
import dev.strait.broker.metadata.InvalidReplicaAssignmentException;
import dev.strait.broker.metadata.InvalidReplicationFactorException;
import dev.strait.broker.metadata.NoReassignmentInProgressException;
import dev.strait.broker.metadata.TopicExistsException;
import dev.strait.broker.metadata.UnknownTopicException;
import dev.strait.broker.partition.DeleteRecordsRefusedException;
import dev.strait.broker.partition.Partition;
import dev.strait.broker.partition.PartitionRoleException;
import dev.strait.broker.partition.ProducerStateException;
import dev.strait.broker.txn.TxnError;
import org.apache.kafka.common.errors.ApiException;
import org.apache.kafka.common.protocol.Errors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one mapping from the broker's exceptions to Kafka error codes, for every handler of the adapter. An
 * expected failure (a client's mistake, a role or epoch that moved, a full or broken disk) becomes the error code
 * Kafka answers in its place; anything else is a bug and is rethrown, so that the request fails as a whole with
 * UNKNOWN_SERVER_ERROR and a logged stack trace (see {@link KafkaApis}).
 */
final class ApiErrors {

    private static final Logger LOGGER = LoggerFactory.getLogger(ApiErrors.class);

    private ApiErrors() {}

    /**
     * The Kafka error for {@code e}.
     *
     * @param invalidArgument what a plain {@link IllegalArgumentException} (bad input the request carried) means in
     *                        this request: INVALID_CONFIG for configs, INVALID_PARTITIONS for a partition count...
     * @throws RuntimeException {@code e} itself if it is not an expected failure
     */
    static Errors forException(RuntimeException e, Errors invalidArgument) {
        if (e instanceof PartitionRoleException role) {
            return forRole(role);
        }
        if (e instanceof UnknownTopicException) {
            return Errors.UNKNOWN_TOPIC_OR_PARTITION;
        }
        if (e instanceof ProducerStateException producerState) {
            return producerState.reason() == ProducerStateException.Reason.INVALID_PRODUCER_EPOCH
                    ? Errors.INVALID_PRODUCER_EPOCH
                    : Errors.OUT_OF_ORDER_SEQUENCE_NUMBER;
        }
        if (e instanceof CorruptRecordException) {
            return Errors.CORRUPT_MESSAGE;
        }
        if (e instanceof RecordBatchTooLargeException) {
            return Errors.MESSAGE_TOO_LARGE;
        }
        if (e instanceof OffsetOutOfRangeException) {
            return Errors.OFFSET_OUT_OF_RANGE;
        }
        if (e instanceof DeleteRecordsRefusedException) {
            return Errors.POLICY_VIOLATION;
        }
        if (e instanceof TopicExistsException) {
            return Errors.TOPIC_ALREADY_EXISTS;
        }
        if (e instanceof InvalidReplicationFactorException) {
            return Errors.INVALID_REPLICATION_FACTOR;
        }
        if (e instanceof NoReassignmentInProgressException) {
            return Errors.NO_REASSIGNMENT_IN_PROGRESS;
        }
        if (e instanceof InvalidReplicaAssignmentException) {
            return Errors.INVALID_REPLICA_ASSIGNMENT;
        }
        if (e instanceof LogStorageException) {
            LOGGER.error("storage failure", e);
            return Errors.KAFKA_STORAGE_ERROR;
        }
        if (e instanceof ApiException) {
            return Errors.forException(e);
        }
        if (e instanceof UnsupportedOperationException) {
            return Errors.INVALID_REQUEST;
        }
        if (e instanceof IllegalArgumentException) {
            return invalidArgument;
        }
        throw e;
    }

    /** As {@link #forException(RuntimeException, Errors)} where bad input is INVALID_REQUEST. */
    static Errors forException(RuntimeException e) {
        return forException(e, Errors.INVALID_REQUEST);
    }

    /**
     * What the group coordinator answers when its write to the offsets topic failed with {@code error}, as Kafka's
     * coordinator does: the client retries at the same coordinator, finds a new one, or gets told the commit is
     * too large.
     */
    static GroupError forCoordinatorWrite(Errors error) {
        switch (error) {
            case NOT_ENOUGH_REPLICAS:
            case NOT_ENOUGH_REPLICAS_AFTER_APPEND:
            case UNKNOWN_TOPIC_OR_PARTITION:
            case REQUEST_TIMED_OUT:
                return GroupError.COORDINATOR_NOT_AVAILABLE;
            case MESSAGE_TOO_LARGE:
            case RECORD_LIST_TOO_LARGE:
                return GroupError.INVALID_COMMIT_OFFSET_SIZE;
            default:
                return GroupError.NOT_COORDINATOR;
        }
    }

    /** The wire error of a group coordinator's answer; each {@link GroupError} is named as its Kafka error. */
    static Errors forGroup(GroupError error) {
        return Errors.valueOf(error.name());
    }

    /**
     * The wire error of a transaction coordinator's answer; each {@link TxnError} is named as its Kafka error.
     * PRODUCER_FENCED is INVALID_PRODUCER_EPOCH to a request version older than it (InitProducerId v3,
     * AddPartitionsToTxn/AddOffsetsToTxn/EndTxn v1, TxnOffsetCommit v2), as Kafka answers such clients.
     */
    static Errors forTxn(TxnError error, boolean clientKnowsProducerFenced) {
        if (error == TxnError.PRODUCER_FENCED && !clientKnowsProducerFenced) {
            return Errors.INVALID_PRODUCER_EPOCH;
        }
        return Errors.valueOf(error.name());
    }

    static Errors forRole(PartitionRoleException e) {
        switch (e.reason()) {
            case FENCED_EPOCH:
                return Errors.FENCED_LEADER_EPOCH;
            case UNKNOWN_EPOCH:
                return Errors.UNKNOWN_LEADER_EPOCH;
            case NOT_ENOUGH_REPLICAS:
                return Errors.NOT_ENOUGH_REPLICAS;
            case OFFSET_OUT_OF_RANGE:
                return Errors.OFFSET_OUT_OF_RANGE;
            case HIGH_WATERMARK_BEHIND_EPOCH_START:
                return Errors.OFFSET_NOT_AVAILABLE;
            default:
                return Errors.NOT_LEADER_OR_FOLLOWER;
        }
    }

    /** Leadership and epoch fencing of a request naming {@code requestEpoch} (-1: any epoch). */
    static Errors checkLeaderEpoch(int requestEpoch, Partition partition) {
        try {
            partition.checkLeader(requestEpoch);
            return Errors.NONE;
        } catch (PartitionRoleException e) {
            return forRole(e);
        }
    }
}
