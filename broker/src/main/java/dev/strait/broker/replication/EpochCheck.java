package dev.strait.broker.replication;

/** How a request's leader epoch compares with this replica's (Kafka's epoch fencing). */
public enum EpochCheck {
    OK,
    /** This replica does not lead the partition. */
    NOT_LEADER,
    /** The requester is behind: it has not seen the current leader epoch (FENCED_LEADER_EPOCH). */
    FENCED,
    /** The requester is ahead: this replica has not learned the newer epoch yet (UNKNOWN_LEADER_EPOCH). */
    UNKNOWN_EPOCH
}
