package dev.strait.broker.group;

import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import org.jspecify.annotations.Nullable;

/**
 * The requests and answers of the consumer group protocol (KIP-848) on {@link GroupCoordinator}: immutable values
 * that cross threads, free of kafka-clients' protocol classes. Topics are named here; the protocol adapter maps
 * topic ids to names and back.
 */
public final class ConsumerGroupApi {

    private ConsumerGroupApi() {}

    /** A member's epoch in a heartbeat that leaves the group (a static member's with -2: it comes back). */
    public static final int LEAVE_EPOCH = -1;

    public static final int LEAVE_STATIC_EPOCH = -2;

    /**
     * A ConsumerGroupHeartbeat. Null fields are "unchanged since the last heartbeat" (as on the wire); a joining
     * member (epoch 0) gives its subscription.
     */
    public record Heartbeat(
            String memberId,
            int memberEpoch,
            @Nullable String instanceId,
            @Nullable String rackId,
            int rebalanceTimeoutMs,
            @Nullable List<String> subscribedTopicNames,
            @Nullable String subscribedTopicRegex,
            @Nullable String serverAssignor,
            @Nullable Map<String, SortedSet<Integer>> ownedPartitions,
            String clientId,
            String clientHost) {}

    /**
     * A heartbeat's answer; {@code assignment} is null when the member's assignment did not change (the client keeps
     * the one it has).
     */
    public record HeartbeatResult(
            GroupError error,
            @Nullable String errorMessage,
            String memberId,
            int memberEpoch,
            int heartbeatIntervalMs,
            @Nullable SortedMap<String, SortedSet<Integer>> assignment) {
        static HeartbeatResult error(GroupError error, @Nullable String message, String memberId) {
            return new HeartbeatResult(error, message, memberId, 0, 0, null);
        }
    }

    public record MemberDescription(
            String memberId,
            @Nullable String instanceId,
            @Nullable String rackId,
            int memberEpoch,
            String clientId,
            String clientHost,
            List<String> subscribedTopicNames,
            @Nullable String subscribedTopicRegex,
            SortedMap<String, SortedSet<Integer>> assignment,
            SortedMap<String, SortedSet<Integer>> targetAssignment) {}

    /** A ConsumerGroupDescribe's answer for one group. */
    public record GroupDescription(
            GroupError error,
            @Nullable String errorMessage,
            String groupId,
            String state,
            int groupEpoch,
            int assignmentEpoch,
            String assignor,
            List<MemberDescription> members) {}
}
