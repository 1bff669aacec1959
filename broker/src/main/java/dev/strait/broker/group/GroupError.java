package dev.strait.broker.group;

/** Errors the coordinator returns; names equal kafka-clients' {@code Errors} constants (mapped by name). */
public enum GroupError {
    NONE,
    UNKNOWN_MEMBER_ID,
    ILLEGAL_GENERATION,
    REBALANCE_IN_PROGRESS,
    MEMBER_ID_REQUIRED,
    INCONSISTENT_GROUP_PROTOCOL,
    GROUP_ID_NOT_FOUND,
    NON_EMPTY_GROUP,
    COORDINATOR_NOT_AVAILABLE,
    INVALID_GROUP_ID,
    FENCED_INSTANCE_ID,
    INVALID_SESSION_TIMEOUT,
    UNKNOWN_SERVER_ERROR,
    INVALID_COMMIT_OFFSET_SIZE,
    /** OffsetDelete: the group's active members subscribe to the partition's topic. */
    GROUP_SUBSCRIBED_TO_TOPIC,
    /** This node is taking over the group's offsets partition and replays it; the client retries. */
    COORDINATOR_LOAD_IN_PROGRESS,
    /** This node no longer coordinates the group (its offsets partition moved); the client looks it up again. */
    NOT_COORDINATOR,
    /** ConsumerGroupHeartbeat: the member's epoch is not one the coordinator accepts; it rejoins with epoch 0. */
    FENCED_MEMBER_EPOCH,
    /** OffsetCommit / OffsetFetch of a consumer group member: its epoch is not the member's current one. */
    STALE_MEMBER_EPOCH,
    /** ConsumerGroupHeartbeat: another member still uses the static member's instance id. */
    UNRELEASED_INSTANCE_ID,
    /** ConsumerGroupHeartbeat: the server assignor named is not one this coordinator has. */
    UNSUPPORTED_ASSIGNOR,
    /** ConsumerGroupHeartbeat: the subscribed regex does not compile. */
    INVALID_REGULAR_EXPRESSION,
    INVALID_REQUEST,
    /** TxnOffsetCommit: a newer epoch of the producer wrote to the offsets partition; the producer is fenced. */
    INVALID_PRODUCER_EPOCH
}
