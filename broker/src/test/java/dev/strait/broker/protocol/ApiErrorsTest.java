package dev.strait.broker.protocol;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.group.GroupError;
import dev.strait.broker.log.CorruptRecordException;
import dev.strait.broker.log.LogStorageException;
import dev.strait.broker.log.OffsetOutOfRangeException;
import dev.strait.broker.log.RecordBatchTooLargeException;
import dev.strait.broker.metadata.InvalidReplicationFactorException;
import dev.strait.broker.metadata.TopicExistsException;
import dev.strait.broker.metadata.UnknownTopicException;
import dev.strait.broker.partition.PartitionRoleException;
import dev.strait.broker.txn.TxnError;
import java.io.IOException;
import org.apache.kafka.common.InvalidRecordException;
import org.apache.kafka.common.protocol.Errors;
import org.junit.jupiter.api.Test;

/** The one mapping from the broker's exceptions to Kafka error codes. */
class ApiErrorsTest {

    @Test
    void expectedFailuresMapToKafkasCodes() {
        assertThat(ApiErrors.forException(
                        new PartitionRoleException(PartitionRoleException.Reason.FENCED_EPOCH, "old")))
                .isEqualTo(Errors.FENCED_LEADER_EPOCH);
        assertThat(ApiErrors.forException(
                        new PartitionRoleException(PartitionRoleException.Reason.NOT_A_REPLICA, "no")))
                .isEqualTo(Errors.NOT_LEADER_OR_FOLLOWER);
        assertThat(ApiErrors.forException(new PartitionRoleException(
                        PartitionRoleException.Reason.HIGH_WATERMARK_BEHIND_EPOCH_START, "lagging")))
                .isEqualTo(Errors.OFFSET_NOT_AVAILABLE);
        assertThat(ApiErrors.forException(new UnknownTopicException("t"))).isEqualTo(Errors.UNKNOWN_TOPIC_OR_PARTITION);
        assertThat(ApiErrors.forException(new CorruptRecordException("crc"))).isEqualTo(Errors.CORRUPT_MESSAGE);
        assertThat(ApiErrors.forException(new RecordBatchTooLargeException("big")))
                .isEqualTo(Errors.MESSAGE_TOO_LARGE);
        assertThat(ApiErrors.forException(new OffsetOutOfRangeException("far"))).isEqualTo(Errors.OFFSET_OUT_OF_RANGE);
        assertThat(ApiErrors.forException(new TopicExistsException("t"))).isEqualTo(Errors.TOPIC_ALREADY_EXISTS);
        assertThat(ApiErrors.forException(new InvalidReplicationFactorException("3 > 1")))
                .isEqualTo(Errors.INVALID_REPLICATION_FACTOR);
        assertThat(ApiErrors.forException(new LogStorageException("disk", new IOException("gone"))))
                .isEqualTo(Errors.KAFKA_STORAGE_ERROR);
        assertThat(ApiErrors.forException(new InvalidRecordException("no key"))).isEqualTo(Errors.INVALID_RECORD);
        assertThat(ApiErrors.forException(new IllegalArgumentException("bad"), Errors.INVALID_CONFIG))
                .as("bad input means what the request says it means")
                .isEqualTo(Errors.INVALID_CONFIG);
        assertThat(ApiErrors.forException(new IllegalArgumentException("bad"))).isEqualTo(Errors.INVALID_REQUEST);
    }

    @Test
    void aBugIsRethrownSoTheRequestFailsAsAWhole() {
        IllegalStateException bug = new IllegalStateException("unreachable");
        assertThatThrownBy(() -> ApiErrors.forException(bug)).isSameAs(bug);
    }

    @Test
    void aFailedCoordinatorWriteTellsTheClientWhereToRetry() {
        assertThat(ApiErrors.forCoordinatorWrite(Errors.NOT_ENOUGH_REPLICAS))
                .isEqualTo(GroupError.COORDINATOR_NOT_AVAILABLE);
        assertThat(ApiErrors.forCoordinatorWrite(Errors.NOT_LEADER_OR_FOLLOWER)).isEqualTo(GroupError.NOT_COORDINATOR);
        assertThat(ApiErrors.forCoordinatorWrite(Errors.KAFKA_STORAGE_ERROR)).isEqualTo(GroupError.NOT_COORDINATOR);
        assertThat(ApiErrors.forCoordinatorWrite(Errors.MESSAGE_TOO_LARGE))
                .isEqualTo(GroupError.INVALID_COMMIT_OFFSET_SIZE);
    }

    @Test
    void everyTransactionCoordinatorAnswerHasItsKafkaCode() {
        for (TxnError error : TxnError.values()) {
            assertThat(ApiErrors.forTxn(error, true).name()).isEqualTo(error.name());
        }
        assertThat(ApiErrors.forTxn(TxnError.PRODUCER_FENCED, false)).isEqualTo(Errors.INVALID_PRODUCER_EPOCH);
        assertThat(ApiErrors.forTxn(TxnError.INVALID_TXN_STATE, false)).isEqualTo(Errors.INVALID_TXN_STATE);
    }
}
