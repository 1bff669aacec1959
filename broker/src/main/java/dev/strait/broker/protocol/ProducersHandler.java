package dev.strait.broker.protocol;

import dev.strait.broker.partition.Partition;
import dev.strait.broker.partition.ReplicaManager;
import java.util.Optional;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeProducersRequestData;
import org.apache.kafka.common.message.DescribeProducersResponseData;
import org.apache.kafka.common.message.DescribeProducersResponseData.PartitionResponse;
import org.apache.kafka.common.message.DescribeProducersResponseData.ProducerState;
import org.apache.kafka.common.message.DescribeProducersResponseData.TopicResponse;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.DescribeProducersRequest;
import org.apache.kafka.common.requests.DescribeProducersResponse;
import org.apache.kafka.common.requests.RequestContext;

/**
 * DescribeProducers ({@code kafka-transactions describe-producers}, {@code Admin.describeProducers}): the idempotent
 * and transactional producers a partition leader holds state for, with their epochs, last sequences and the start
 * of an open transaction. On a mirror topic these are the source's producers, copied with their batches. The
 * last timestamp and coordinator epoch are not kept here and are answered -1.
 */
final class ProducersHandler {
    private final ReplicaManager replicaManager;
    private final RequestAuthorizer authorizer;

    ProducersHandler(ReplicaManager replicaManager, RequestAuthorizer authorizer) {
        this.replicaManager = replicaManager;
        this.authorizer = authorizer;
    }

    DescribeProducersResponse handle(RequestContext context, DescribeProducersRequest request) {
        DescribeProducersResponseData data = new DescribeProducersResponseData();
        for (DescribeProducersRequestData.TopicRequest topic : request.data().topics()) {
            TopicResponse topicResponse = new TopicResponse().setName(topic.name());
            // As Kafka: READ on the topic.
            boolean authorized = authorizer.topic(context, AclOperation.READ, topic.name());
            for (int index : topic.partitionIndexes()) {
                PartitionResponse partition = new PartitionResponse().setPartitionIndex(index);
                if (!authorized) {
                    partition.setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code());
                } else {
                    describe(new TopicPartition(topic.name(), index), partition);
                }
                topicResponse.partitions().add(partition);
            }
            data.topics().add(topicResponse);
        }
        return new DescribeProducersResponse(data);
    }

    private void describe(TopicPartition tp, PartitionResponse response) {
        Optional<Partition> partition = replicaManager.partition(tp);
        if (partition.isEmpty()) {
            Errors error = replicaManager.topic(tp.topic()).isPresent()
                    ? Errors.NOT_LEADER_OR_FOLLOWER
                    : Errors.UNKNOWN_TOPIC_OR_PARTITION;
            response.setErrorCode(error.code());
            return;
        }
        if (!partition.get().isLeader()) {
            response.setErrorCode(Errors.NOT_LEADER_OR_FOLLOWER.code());
            return;
        }
        for (Partition.ProducerView p : partition.get().producers()) {
            response.activeProducers()
                    .add(new ProducerState()
                            .setProducerId(p.producerId())
                            .setProducerEpoch(p.epoch())
                            .setLastSequence(p.lastSequence())
                            .setLastTimestamp(-1)
                            .setCoordinatorEpoch(-1)
                            .setCurrentTxnStartOffset(p.openTransactionFirstOffset()));
        }
        response.setErrorCode(Errors.NONE.code());
    }
}
