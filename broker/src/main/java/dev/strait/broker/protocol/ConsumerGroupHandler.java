package dev.strait.broker.protocol;

import dev.strait.broker.group.ConsumerGroupApi;
import dev.strait.broker.group.ConsumerGroupApi.GroupDescription;
import dev.strait.broker.group.ConsumerGroupApi.Heartbeat;
import dev.strait.broker.group.ConsumerGroupApi.HeartbeatResult;
import dev.strait.broker.group.GroupCoordinator;
import dev.strait.broker.group.GroupError;
import dev.strait.broker.metadata.TopicMetadata;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData;
import org.apache.kafka.common.message.ConsumerGroupDescribeResponseData.DescribedGroup;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatRequestData;
import org.apache.kafka.common.message.ConsumerGroupHeartbeatResponseData;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.ConsumerGroupDescribeRequest;
import org.apache.kafka.common.requests.ConsumerGroupDescribeResponse;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatRequest;
import org.apache.kafka.common.requests.ConsumerGroupHeartbeatResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.jspecify.annotations.Nullable;

/**
 * The consumer group protocol (KIP-848) on the wire: ConsumerGroupHeartbeat (v0-1) and ConsumerGroupDescribe (v0-1),
 * translated to {@link GroupCoordinator} calls. The coordinator names topics; the wire carries topic ids, mapped
 * here with the metadata as it is when the request arrives (a partition of a topic this node does not know is
 * dropped from what a member says it owns). Answers come from the coordinator's callback, on the group's shard
 * loop, once what the heartbeat changed is durable.
 */
final class ConsumerGroupHandler {

    private final GroupCoordinator coordinator;
    private final RequestAuthorizer authorizer;
    private final Supplier<Collection<TopicMetadata>> topics;

    ConsumerGroupHandler(
            GroupCoordinator coordinator, RequestAuthorizer authorizer, Supplier<Collection<TopicMetadata>> topics) {
        this.coordinator = coordinator;
        this.authorizer = authorizer;
        this.topics = topics;
    }

    void handleConsumerGroupHeartbeatRequest(
            RequestContext context, ConsumerGroupHeartbeatRequest request, Consumer<AbstractResponse> respond) {
        ConsumerGroupHeartbeatRequestData data = request.data();
        Map<String, Integer> partitions = new HashMap<>();
        Map<Uuid, String> names = new HashMap<>();
        Map<String, Uuid> ids = new HashMap<>();
        for (TopicMetadata topic : topics.get()) {
            partitions.put(topic.name(), topic.partitions());
            names.put(topic.topicId(), topic.name());
            ids.put(topic.name(), topic.topicId());
        }
        // v0: the coordinator chooses the member id of a joining member; v1 clients choose their own (KIP-1082).
        String memberId = data.memberId() == null || data.memberId().isEmpty() && data.memberEpoch() == 0
                ? Uuid.randomUuid().toString()
                : data.memberId();
        Heartbeat heartbeat = new Heartbeat(
                memberId,
                data.memberEpoch(),
                data.instanceId(),
                data.rackId(),
                data.rebalanceTimeoutMs(),
                data.subscribedTopicNames(),
                context.apiVersion() >= 1 ? data.subscribedTopicRegex() : null,
                data.serverAssignor(),
                owned(data.topicPartitions(), names),
                context.clientId(),
                context.clientAddress.toString());
        coordinator.consumerGroupHeartbeat(data.groupId(), heartbeat, partitions, result -> {
            respond.accept(new ConsumerGroupHeartbeatResponse(response(result, ids)));
        });
    }

    private static @Nullable Map<String, SortedSet<Integer>> owned(
            @Nullable List<ConsumerGroupHeartbeatRequestData.TopicPartitions> owned, Map<Uuid, String> names) {
        if (owned == null) {
            return null;
        }
        Map<String, SortedSet<Integer>> byName = new TreeMap<>();
        for (ConsumerGroupHeartbeatRequestData.TopicPartitions topic : owned) {
            String name = names.get(topic.topicId());
            if (name != null && !topic.partitions().isEmpty()) {
                byName.computeIfAbsent(name, n -> new TreeSet<>()).addAll(topic.partitions());
            }
        }
        return byName;
    }

    private static ConsumerGroupHeartbeatResponseData response(HeartbeatResult result, Map<String, Uuid> ids) {
        ConsumerGroupHeartbeatResponseData response = new ConsumerGroupHeartbeatResponseData()
                .setErrorCode(ApiErrors.forGroup(result.error()).code())
                .setErrorMessage(result.errorMessage())
                .setMemberId(result.memberId())
                .setMemberEpoch(result.memberEpoch())
                .setHeartbeatIntervalMs(result.heartbeatIntervalMs());
        SortedMap<String, SortedSet<Integer>> assignment = result.assignment();
        if (result.error() == GroupError.NONE && assignment != null) {
            List<ConsumerGroupHeartbeatResponseData.TopicPartitions> assigned = new ArrayList<>();
            assignment.forEach((topic, partitions) -> {
                Uuid id = ids.get(topic);
                if (id != null) {
                    assigned.add(new ConsumerGroupHeartbeatResponseData.TopicPartitions()
                            .setTopicId(id)
                            .setPartitions(new ArrayList<>(partitions)));
                }
            });
            response.setAssignment(new ConsumerGroupHeartbeatResponseData.Assignment().setTopicPartitions(assigned));
        }
        return response;
    }

    void handleConsumerGroupDescribeRequest(
            RequestContext context, ConsumerGroupDescribeRequest request, Consumer<AbstractResponse> respond) {
        List<String> groupIds = request.data().groupIds();
        if (groupIds.isEmpty()) {
            respond.accept(new ConsumerGroupDescribeResponse(new ConsumerGroupDescribeResponseData()));
            return;
        }
        Map<String, Uuid> ids = new HashMap<>();
        topics.get().forEach(t -> ids.put(t.name(), t.topicId()));
        AnswerSlots<DescribedGroup> answers = new AnswerSlots<>(groupIds.size(), all -> {
            ConsumerGroupDescribeResponseData response = new ConsumerGroupDescribeResponseData();
            response.groups().addAll(all);
            respond.accept(new ConsumerGroupDescribeResponse(response));
        });
        for (int i = 0; i < groupIds.size(); i++) {
            String groupId = groupIds.get(i);
            int index = i;
            if (!authorizer.group(context, AclOperation.DESCRIBE, groupId)) {
                answers.fill(
                        index,
                        new DescribedGroup()
                                .setGroupId(groupId)
                                .setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()));
                continue;
            }
            coordinator.describeConsumerGroup(
                    groupId, description -> answers.fill(index, describedGroup(description, ids, context)));
        }
    }

    private DescribedGroup describedGroup(GroupDescription description, Map<String, Uuid> ids, RequestContext context) {
        DescribedGroup group = new DescribedGroup()
                .setGroupId(description.groupId())
                .setErrorCode(ApiErrors.forGroup(description.error()).code())
                .setErrorMessage(description.errorMessage());
        if (description.error() != GroupError.NONE) {
            return group;
        }
        group.setGroupState(description.state())
                .setGroupEpoch(description.groupEpoch())
                .setAssignmentEpoch(description.assignmentEpoch())
                .setAssignorName(description.assignor());
        for (ConsumerGroupApi.MemberDescription member : description.members()) {
            group.members()
                    .add(new ConsumerGroupDescribeResponseData.Member()
                            .setMemberId(member.memberId())
                            .setInstanceId(member.instanceId())
                            .setRackId(member.rackId())
                            .setMemberEpoch(member.memberEpoch())
                            .setClientId(member.clientId())
                            .setClientHost(member.clientHost())
                            .setSubscribedTopicNames(member.subscribedTopicNames())
                            .setSubscribedTopicRegex(member.subscribedTopicRegex())
                            .setAssignment(assignment(member.assignment(), ids, context))
                            .setTargetAssignment(assignment(member.targetAssignment(), ids, context))
                            // 1 = the consumer protocol (0 would be a classic member of a consumer group).
                            .setMemberType((byte) 1));
        }
        return group;
    }

    /** An assignment on the wire; topics the principal may not describe are left out. */
    private ConsumerGroupDescribeResponseData.Assignment assignment(
            SortedMap<String, SortedSet<Integer>> assignment, Map<String, Uuid> ids, RequestContext context) {
        List<ConsumerGroupDescribeResponseData.TopicPartitions> topicPartitions = new ArrayList<>();
        assignment.forEach((topic, partitions) -> {
            Uuid id = ids.get(topic);
            if (id != null && authorizer.topic(context, AclOperation.DESCRIBE, topic)) {
                topicPartitions.add(new ConsumerGroupDescribeResponseData.TopicPartitions()
                        .setTopicId(id)
                        .setTopicName(topic)
                        .setPartitions(new ArrayList<>(partitions)));
            }
        });
        return new ConsumerGroupDescribeResponseData.Assignment().setTopicPartitions(topicPartitions);
    }
}
