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
    NOT_COORDINATOR
}
