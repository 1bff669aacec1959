package dev.strait.broker.protocol;

import dev.strait.broker.group.GroupApi.FetchResult;
import dev.strait.broker.group.GroupApi.OffsetAndMetadata;
import dev.strait.broker.group.GroupApi.TopicPartitionKey;
import dev.strait.broker.group.GroupCoordinator;
import dev.strait.broker.group.GroupError;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.message.ConsumerProtocolSubscription;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestPartition;
import org.apache.kafka.common.message.OffsetCommitRequestData.OffsetCommitRequestTopic;
import org.apache.kafka.common.message.OffsetCommitResponseData;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponsePartition;
import org.apache.kafka.common.message.OffsetCommitResponseData.OffsetCommitResponseTopic;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestPartition;
import org.apache.kafka.common.message.OffsetDeleteRequestData.OffsetDeleteRequestTopic;
import org.apache.kafka.common.message.OffsetDeleteResponseData;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponsePartition;
import org.apache.kafka.common.message.OffsetDeleteResponseData.OffsetDeleteResponseTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestGroup;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopic;
import org.apache.kafka.common.message.OffsetFetchRequestData.OffsetFetchRequestTopics;
import org.apache.kafka.common.message.OffsetFetchResponseData;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseGroup;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartition;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponsePartitions;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopic;
import org.apache.kafka.common.message.OffsetFetchResponseData.OffsetFetchResponseTopics;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AbstractResponse;
import org.apache.kafka.common.requests.OffsetCommitRequest;
import org.apache.kafka.common.requests.OffsetCommitResponse;
import org.apache.kafka.common.requests.OffsetDeleteRequest;
import org.apache.kafka.common.requests.OffsetDeleteResponse;
import org.apache.kafka.common.requests.OffsetFetchRequest;
import org.apache.kafka.common.requests.OffsetFetchResponse;
import org.apache.kafka.common.requests.RequestContext;
import org.jspecify.annotations.Nullable;

/**
 * A group's committed offsets on the wire (OffsetCommit, OffsetFetch, OffsetDelete), translated to
 * {@link GroupCoordinator} calls. {@link GroupHandler} has already checked the group ACL and that this node
 * coordinates the groups; the topic ACLs are checked here, against the context each call is given. Every answer
 * goes to {@code respond} from the loop thread of a group's shard.
 */
final class GroupOffsetsHandler {

    /** The number of partitions of a topic, 0 if it does not exist. */
    @FunctionalInterface
    interface PartitionCounts {
        int of(String topic);
    }

    private final GroupCoordinator coordinator;
    private final RequestAuthorizer authorizer;
    private final PartitionCounts partitionCounts;

    /** @param partitionCounts the topics that exist, for OffsetDelete's UNKNOWN_TOPIC_OR_PARTITION */
    GroupOffsetsHandler(GroupCoordinator coordinator, RequestAuthorizer authorizer, PartitionCounts partitionCounts) {
        this.coordinator = coordinator;
        this.authorizer = authorizer;
        this.partitionCounts = partitionCounts;
    }

    /** OffsetCommit: answered once the commit is durable (or failed); the coordinator stamps the commit time. */
    void handleOffsetCommitRequest(
            RequestContext context, OffsetCommitRequest request, Consumer<AbstractResponse> respond) {
        var data = request.data();
        Map<TopicPartitionKey, OffsetAndMetadata> offsets = new LinkedHashMap<>();
        Set<String> refusedTopics = new HashSet<>();
        for (OffsetCommitRequestTopic topic : data.topics()) {
            if (!authorizer.topic(context, AclOperation.READ, topic.name())) {
                refusedTopics.add(topic.name()); // answered TOPIC_AUTHORIZATION_FAILED; the others commit
                continue;
            }
            for (OffsetCommitRequestPartition partition : topic.partitions()) {
                offsets.put(
                        new TopicPartitionKey(topic.name(), partition.partitionIndex()),
                        new OffsetAndMetadata(
                                partition.committedOffset(),
                                partition.committedLeaderEpoch(),
                                partition.committedMetadata(),
                                -1));
            }
        }
        coordinator.commitOffsets(
                data.groupId(),
                data.memberId(),
                data.groupInstanceId(),
                data.generationIdOrMemberEpoch(),
                offsets,
                error -> {
                    OffsetCommitResponseData response = new OffsetCommitResponseData();
                    for (OffsetCommitRequestTopic topic : data.topics()) {
                        OffsetCommitResponseTopic topicResponse = new OffsetCommitResponseTopic().setName(topic.name());
                        Errors topicError = refusedTopics.contains(topic.name())
                                ? Errors.TOPIC_AUTHORIZATION_FAILED
                                : ApiErrors.forGroup(error);
                        for (OffsetCommitRequestPartition partition : topic.partitions()) {
                            topicResponse
                                    .partitions()
                                    .add(new OffsetCommitResponsePartition()
                                            .setPartitionIndex(partition.partitionIndex())
                                            .setErrorCode(topicError.code()));
                        }
                        response.topics().add(topicResponse);
                    }
                    respond.accept(new OffsetCommitResponse(response));
                });
    }

    /**
     * OffsetDelete, as Kafka's: partitions of topics the principal may not READ are TOPIC_AUTHORIZATION_FAILED and
     * those that do not exist UNKNOWN_TOPIC_OR_PARTITION; the coordinator deletes the others unless the group's
     * members subscribe to their topic, and answers once the deletion is durable. A group-level error (unknown
     * group, a non-empty group of another protocol than the consumer's) is the whole response's error.
     */
    void handleOffsetDeleteRequest(
            RequestContext context, OffsetDeleteRequest request, Consumer<AbstractResponse> respond) {
        var data = request.data();
        Map<TopicPartitionKey, Errors> refused = new LinkedHashMap<>();
        List<TopicPartitionKey> asked = new ArrayList<>();
        for (OffsetDeleteRequestTopic topic : data.topics()) {
            boolean allowed = authorizer.topic(context, AclOperation.READ, topic.name());
            int partitions = allowed ? partitionCounts.of(topic.name()) : 0;
            for (OffsetDeleteRequestPartition partition : topic.partitions()) {
                TopicPartitionKey tp = new TopicPartitionKey(topic.name(), partition.partitionIndex());
                if (!allowed) {
                    refused.put(tp, Errors.TOPIC_AUTHORIZATION_FAILED);
                } else if (partition.partitionIndex() < 0 || partition.partitionIndex() >= partitions) {
                    refused.put(tp, Errors.UNKNOWN_TOPIC_OR_PARTITION);
                } else {
                    asked.add(tp);
                }
            }
        }
        coordinator.deleteOffsets(data.groupId(), asked, GroupOffsetsHandler::subscribedTopics, result -> {
            if (result.error() != GroupError.NONE) {
                respond.accept(request.getErrorResponse(
                        0, ApiErrors.forGroup(result.error()).exception()));
                return;
            }
            OffsetDeleteResponseData response = new OffsetDeleteResponseData().setErrorCode(Errors.NONE.code());
            for (OffsetDeleteRequestTopic topic : data.topics()) {
                OffsetDeleteResponseTopic topicResponse = response.topics().find(topic.name());
                if (topicResponse == null) {
                    topicResponse = new OffsetDeleteResponseTopic().setName(topic.name());
                    response.topics().add(topicResponse);
                }
                for (OffsetDeleteRequestPartition partition : topic.partitions()) {
                    TopicPartitionKey tp = new TopicPartitionKey(topic.name(), partition.partitionIndex());
                    Errors error = refused.containsKey(tp)
                            ? refused.get(tp)
                            : ApiErrors.forGroup(result.partitions().getOrDefault(tp, GroupError.NONE));
                    if (topicResponse.partitions().find(partition.partitionIndex()) == null) {
                        topicResponse
                                .partitions()
                                .add(new OffsetDeleteResponsePartition()
                                        .setPartitionIndex(partition.partitionIndex())
                                        .setErrorCode(error.code()));
                    }
                }
            }
            respond.accept(new OffsetDeleteResponse(response));
        });
    }

    /** The topics of a consumer-protocol subscription (a member's JoinGroup metadata), empty if unreadable. */
    static Optional<Set<String>> subscribedTopics(byte[] metadata) {
        try {
            ByteBuffer buffer = ByteBuffer.wrap(metadata);
            // Later versions only append fields, so a newer client's subscription reads as the newest known one.
            short version = (short) Math.min(buffer.getShort(), ConsumerProtocolSubscription.HIGHEST_SUPPORTED_VERSION);
            if (version < ConsumerProtocolSubscription.LOWEST_SUPPORTED_VERSION) {
                return Optional.empty();
            }
            return Optional.of(
                    Set.copyOf(new ConsumerProtocolSubscription(new ByteBufferAccessor(buffer), version).topics()));
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** OffsetFetch: answered once the shard of every group asked for has read its committed offsets. */
    void handleOffsetFetchRequest(
            RequestContext context, OffsetFetchRequest request, Consumer<AbstractResponse> respond) {
        short version = context.apiVersion();
        var data = request.data();
        if (version < 8) {
            // One group; its errors are the whole response's.
            List<TopicPartitionKey> asked = partitionsAsked(
                    data.topics(), OffsetFetchRequestTopic::name, OffsetFetchRequestTopic::partitionIndexes);
            fetch(data.groupId(), null, -1, asked, version >= 7 && data.requireStable(), fetched -> {
                if (fetched.error() != GroupError.NONE) {
                    respond.accept(request.getErrorResponse(
                            0, ApiErrors.forGroup(fetched.error()).exception()));
                    return;
                }
                OffsetFetchResponseData response = new OffsetFetchResponseData().setErrorCode(Errors.NONE.code());
                visibleOffsets(context, fetched, asked == null)
                        .forEach((topic, partitions) -> response.topics()
                                .add(new OffsetFetchResponseTopic()
                                        .setName(topic)
                                        .setPartitions(partitions.stream()
                                                .map(c -> new OffsetFetchResponsePartition()
                                                        .setPartitionIndex(c.partition())
                                                        .setCommittedOffset(c.offset())
                                                        .setCommittedLeaderEpoch(c.leaderEpoch())
                                                        .setMetadata(c.metadata())
                                                        .setErrorCode(c.error().code()))
                                                .toList())));
                respond.accept(new OffsetFetchResponse(response, version));
            });
            return;
        }
        List<OffsetFetchRequestGroup> groups = data.groups();
        if (groups.isEmpty()) {
            respond.accept(new OffsetFetchResponse(new OffsetFetchResponseData(), version));
            return;
        }
        AnswerSlots<OffsetFetchResponseGroup> answers = new AnswerSlots<>(groups.size(), all -> {
            OffsetFetchResponseData response = new OffsetFetchResponseData();
            response.groups().addAll(all);
            respond.accept(new OffsetFetchResponse(response, version));
        });
        for (int i = 0; i < groups.size(); i++) {
            OffsetFetchRequestGroup group = groups.get(i);
            int index = i;
            OffsetFetchResponseGroup answer = new OffsetFetchResponseGroup().setGroupId(group.groupId());
            if (!authorizer.group(context, AclOperation.DESCRIBE, group.groupId())) {
                answers.fill(index, answer.setErrorCode(Errors.GROUP_AUTHORIZATION_FAILED.code()));
                continue;
            }
            List<TopicPartitionKey> asked = partitionsAsked(
                    group.topics(), OffsetFetchRequestTopics::name, OffsetFetchRequestTopics::partitionIndexes);
            fetch(group.groupId(), group.memberId(), group.memberEpoch(), asked, data.requireStable(), fetched -> {
                answer.setErrorCode(ApiErrors.forGroup(fetched.error()).code());
                if (fetched.error() == GroupError.NONE) {
                    visibleOffsets(context, fetched, asked == null)
                            .forEach((topic, partitions) -> answer.topics()
                                    .add(new OffsetFetchResponseTopics()
                                            .setName(topic)
                                            .setPartitions(partitions.stream()
                                                    .map(c -> new OffsetFetchResponsePartitions()
                                                            .setPartitionIndex(c.partition())
                                                            .setCommittedOffset(c.offset())
                                                            .setCommittedLeaderEpoch(c.leaderEpoch())
                                                            .setMetadata(c.metadata())
                                                            .setErrorCode(
                                                                    c.error().code()))
                                                    .toList())));
                }
                answers.fill(index, answer);
            });
        }
    }

    /** The partitions an OffsetFetch names (its request topics are of a different class per version); null: all. */
    private static <T> @Nullable List<TopicPartitionKey> partitionsAsked(
            List<T> topics, Function<T, String> name, Function<T, List<Integer>> partitions) {
        if (topics == null) {
            return null;
        }
        List<TopicPartitionKey> asked = new ArrayList<>();
        for (T topic : topics) {
            for (int partition : partitions.apply(topic)) {
                asked.add(new TopicPartitionKey(name.apply(topic), partition));
            }
        }
        return asked;
    }

    /** One partition of an OffsetFetch answer, whatever the version's classes. */
    private record FetchedOffset(
            int partition,
            long offset,
            int leaderEpoch,
            @Nullable String metadata,
            Errors error) {}

    /**
     * The fetched offsets by topic, as the principal may see them: asked for all, the topics it may not DESCRIBE are
     * left out; named, their partitions are TOPIC_AUTHORIZATION_FAILED. A partition without a commit is offset -1.
     */
    private Map<String, List<FetchedOffset>> visibleOffsets(RequestContext context, FetchResult fetched, boolean all) {
        Map<String, List<FetchedOffset>> byTopic = new LinkedHashMap<>();
        for (var entry : fetched.offsets().entrySet()) {
            OffsetAndMetadata offset = entry.getValue();
            boolean allowed = authorizer.topic(
                    context, AclOperation.DESCRIBE, entry.getKey().topic());
            if (!allowed && all) {
                continue;
            }
            boolean shown = offset != null && allowed;
            Errors error = !allowed
                    ? Errors.TOPIC_AUTHORIZATION_FAILED
                    : fetched.unstable().contains(entry.getKey()) ? Errors.UNSTABLE_OFFSET_COMMIT : Errors.NONE;
            byTopic.computeIfAbsent(entry.getKey().topic(), t -> new ArrayList<>())
                    .add(new FetchedOffset(
                            entry.getKey().partition(),
                            shown ? offset.offset() : -1,
                            shown ? offset.leaderEpoch() : -1,
                            shown ? offset.metadata() : "",
                            error));
        }
        return byTopic;
    }

    /**
     * Committed offsets, to {@code answer}; requested partitions without a commit map to null, and so do the unstable
     * ones (requireStable, OffsetFetch v7+), which are answered UNSTABLE_OFFSET_COMMIT. OffsetFetch v9+ names the
     * member and its epoch, which a consumer group (KIP-848) validates.
     */
    private void fetch(
            String groupId,
            @Nullable String memberId,
            int memberEpoch,
            @Nullable List<TopicPartitionKey> wanted,
            boolean requireStable,
            Consumer<FetchResult> answer) {
        coordinator.fetchOffsets(groupId, memberId, memberEpoch, wanted, requireStable, fetched -> {
            if (fetched.error() != GroupError.NONE
                    || wanted == null && fetched.unstable().isEmpty()) {
                answer.accept(fetched);
                return;
            }
            Map<TopicPartitionKey, OffsetAndMetadata> result = new LinkedHashMap<>();
            for (TopicPartitionKey tp : wanted == null ? fetched.offsets().keySet() : wanted) {
                result.put(tp, fetched.offsets().get(tp));
            }
            for (TopicPartitionKey tp : fetched.unstable()) {
                result.putIfAbsent(tp, null);
            }
            answer.accept(new FetchResult(GroupError.NONE, result, fetched.unstable()));
        });
    }
}
