package dev.strait.broker.group;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The requests and answers of {@link GroupCoordinator}'s API: immutable values, because they cross threads (built on
 * a network handler thread, answered on a shard's loop). Free of kafka-clients' protocol classes; the protocol
 * adapter translates them to and from the wire.
 */
public final class GroupApi {

    private GroupApi() {}

    public record Protocol(String name, byte[] metadata) {}

    public record JoinMember(String memberId, @Nullable String instanceId, byte[] metadata) {}

    public record JoinResult(
            GroupError error,
            int generation,
            @Nullable String protocolType,
            @Nullable String protocolName,
            String leaderId,
            String memberId,
            boolean skipAssignment,
            List<JoinMember> members) {
        static JoinResult error(GroupError error, String memberId) {
            return new JoinResult(error, -1, null, null, "", memberId, false, List.of());
        }
    }

    public record SyncResult(
            GroupError error,
            @Nullable String protocolType,
            @Nullable String protocolName,
            byte[] assignment) {
        static SyncResult error(GroupError error) {
            return new SyncResult(error, null, null, new byte[0]);
        }
    }

    /** A committed offset; a commit timestamp below 0 means "stamp it with the coordinator's clock". */
    public record OffsetAndMetadata(
            long offset, int leaderEpoch, @Nullable String metadata, long commitTimestamp) {}

    public record TopicPartitionKey(String topic, int partition) {}

    public record LeaveMember(String memberId, @Nullable String instanceId) {}

    /** The outcome of a LeaveGroup: an error for the whole request, or NONE and one error per member. */
    public record LeaveResult(GroupError error, List<GroupError> members) {}

    /** An OffsetDelete's answer: an error for the whole group, or NONE and one error per partition asked for. */
    public record OffsetDeleteResult(GroupError error, Map<TopicPartitionKey, GroupError> partitions) {}

    /**
     * The topics a member's metadata of the consumer protocol subscribes to, or empty if it cannot be read; the
     * protocol adapter knows the format.
     */
    @FunctionalInterface
    public interface SubscriptionReader {
        Optional<Set<String>> topics(byte[] metadata);
    }

    /**
     * A group as ListGroups shows it: {@code type} is "classic" or "consumer"; {@code state} is a classic group's
     * (null for a consumer group), {@code stateName} the state's name as Kafka reports it.
     */
    public record GroupListing(
            String groupId, String protocolType, @Nullable GroupState state, String type, String stateName) {
        public GroupListing(String groupId, String protocolType, GroupState state) {
            this(groupId, protocolType, state, "classic", state.kafkaName());
        }
    }

    /**
     * An OffsetFetch's answer: NONE and the committed offsets, or why this node cannot serve them now. {@code unstable}
     * (asked with requireStable only) are the partitions that a transaction has offsets pending for: they are left
     * out of {@code offsets} and answered UNSTABLE_OFFSET_COMMIT, as Kafka, so that the consumer waits for the end of
     * the transaction instead of reading an offset it is about to replace.
     */
    public record FetchResult(
            GroupError error, Map<TopicPartitionKey, OffsetAndMetadata> offsets, Set<TopicPartitionKey> unstable) {
        public FetchResult(GroupError error, Map<TopicPartitionKey, OffsetAndMetadata> offsets) {
            this(error, offsets, Set.of());
        }
    }

    public record MemberDescription(
            String memberId,
            @Nullable String instanceId,
            String clientId,
            String clientHost,
            byte[] metadata,
            byte[] assignment) {}

    public record GroupDescription(
            GroupError error,
            String groupId,
            GroupState state,
            String protocolType,
            String protocolName,
            List<MemberDescription> members) {}
}
