package dev.strait.broker.protocol;

import dev.strait.broker.metadata.BrokerRegistration;
import dev.strait.broker.metadata.PartitionState;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.partition.ReplicaManager;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.DescribeTopicPartitionsRequestData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponsePartition;
import org.apache.kafka.common.message.DescribeTopicPartitionsResponseData.DescribeTopicPartitionsResponseTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.DescribeTopicPartitionsRequest;
import org.apache.kafka.common.requests.DescribeTopicPartitionsResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.apache.kafka.common.resource.ResourceType;

/**
 * DescribeTopicPartitions (API key 75, KIP-966): what Metadata says of topics, plus each partition's eligible
 * leader replicas and last known ELR, paged. Topics come in name order; at most {@code responsePartitionLimit}
 * partitions (and never more than {@value #MAX_PARTITIONS}, Kafka's default
 * {@code max.request.partition.size.limit}) per answer, and a {@code nextCursor} says where the next request
 * starts. No topics named means every topic the caller may describe; a named topic the caller may not describe
 * comes back with TOPIC_AUTHORIZATION_FAILED, an unknown one with UNKNOWN_TOPIC_OR_PARTITION.
 */
final class DescribeTopicPartitionsHandler {

    static final int MAX_PARTITIONS = 2000;

    private final ReplicaManager replicaManager;
    private final RequestAuthorizer authorizer;

    DescribeTopicPartitionsHandler(ReplicaManager replicaManager, RequestAuthorizer authorizer) {
        this.replicaManager = replicaManager;
        this.authorizer = authorizer;
    }

    AbstractResponse handle(RequestContext context, DescribeTopicPartitionsRequest request) {
        DescribeTopicPartitionsRequestData data = request.data();
        DescribeTopicPartitionsRequestData.Cursor cursor = data.cursor();
        String fromTopic = cursor == null ? null : cursor.topicName();
        int fromPartition = cursor == null ? 0 : Math.max(0, cursor.partitionIndex());
        // Name order, as Kafka pages: the cursor is a (topic, partition) position in it.
        TreeMap<String, Optional<TopicMetadata>> topics = new TreeMap<>();
        boolean all = data.topics().isEmpty();
        if (all) {
            for (TopicMetadata topic : replicaManager.topics()) {
                if (authorizer.topic(context, AclOperation.DESCRIBE, topic.name())) {
                    topics.put(topic.name(), Optional.of(topic));
                }
            }
        } else {
            for (DescribeTopicPartitionsRequestData.TopicRequest requested : data.topics()) {
                topics.put(requested.name(), replicaManager.topic(requested.name()));
            }
        }
        DescribeTopicPartitionsResponseData response = new DescribeTopicPartitionsResponseData();
        if (fromTopic != null && !all && !topics.containsKey(fromTopic)) {
            // Kafka refuses a cursor outside the requested topics rather than guess where to start.
            DescribeTopicPartitionsResponseTopic refused = new DescribeTopicPartitionsResponseTopic()
                    .setName(fromTopic)
                    .setTopicId(Uuid.ZERO_UUID)
                    .setErrorCode(Errors.INVALID_REQUEST.code());
            response.topics().add(refused);
            return new DescribeTopicPartitionsResponse(response);
        }
        int limit = data.responsePartitionLimit() <= 0
                ? MAX_PARTITIONS
                : Math.min(data.responsePartitionLimit(), MAX_PARTITIONS);
        Set<Integer> live = liveBrokers();
        int left = limit;
        for (var entry : (fromTopic == null ? topics : topics.tailMap(fromTopic, true)).entrySet()) {
            String name = entry.getKey();
            int first = name.equals(fromTopic) ? fromPartition : 0;
            DescribeTopicPartitionsResponseTopic topic = new DescribeTopicPartitionsResponseTopic()
                    .setName(name)
                    .setIsInternal(MetadataHandler.isInternal(name));
            if (!all && !authorizer.topic(context, AclOperation.DESCRIBE, name)) {
                response.topics()
                        .add(topic.setTopicId(Uuid.ZERO_UUID).setErrorCode(Errors.TOPIC_AUTHORIZATION_FAILED.code()));
                continue;
            }
            if (entry.getValue().isEmpty()) {
                response.topics()
                        .add(topic.setTopicId(Uuid.ZERO_UUID).setErrorCode(Errors.UNKNOWN_TOPIC_OR_PARTITION.code()));
                continue;
            }
            if (left == 0) {
                response.setNextCursor(new DescribeTopicPartitionsResponseData.Cursor()
                        .setTopicName(name)
                        .setPartitionIndex(first));
                break;
            }
            TopicMetadata metadata = entry.getValue().get();
            topic.setTopicId(metadata.topicId())
                    .setErrorCode(Errors.NONE.code())
                    .setTopicAuthorizedOperations(authorizer.authorizedOperations(context, ResourceType.TOPIC, name));
            int p = first;
            for (; p < metadata.partitions() && left > 0; p++, left--) {
                topic.partitions().add(partition(metadata.topicId(), p, live));
            }
            response.topics().add(topic);
            if (p < metadata.partitions()) {
                response.setNextCursor(new DescribeTopicPartitionsResponseData.Cursor()
                        .setTopicName(name)
                        .setPartitionIndex(p));
                break;
            }
        }
        return new DescribeTopicPartitionsResponse(response);
    }

    private DescribeTopicPartitionsResponsePartition partition(Uuid topicId, int index, Set<Integer> live) {
        DescribeTopicPartitionsResponsePartition partition =
                new DescribeTopicPartitionsResponsePartition().setPartitionIndex(index);
        Optional<PartitionState> state = replicaManager.metadata().partitionState(topicId, index);
        if (state.isEmpty()) {
            return partition
                    .setErrorCode(Errors.LEADER_NOT_AVAILABLE.code())
                    .setLeaderId(-1)
                    .setLeaderEpoch(-1);
        }
        PartitionState p = state.get();
        List<Integer> offline = new ArrayList<>();
        for (int replica : p.replicas()) {
            if (!live.contains(replica)) {
                offline.add(replica);
            }
        }
        boolean leaderLive = p.hasLeader() && live.contains(p.leader());
        return partition
                .setErrorCode(Errors.NONE.code())
                .setLeaderId(leaderLive ? p.leader() : -1)
                .setLeaderEpoch(p.leaderEpoch())
                .setReplicaNodes(p.replicas())
                .setIsrNodes(p.isr())
                .setEligibleLeaderReplicas(p.elr())
                .setLastKnownElr(p.lastKnownElr())
                .setOfflineReplicas(offline);
    }

    private Set<Integer> liveBrokers() {
        Set<Integer> live = new HashSet<>();
        for (BrokerRegistration broker : replicaManager.metadata().brokers()) {
            if (!broker.fenced()) {
                live.add(broker.id());
            }
        }
        return live;
    }
}
