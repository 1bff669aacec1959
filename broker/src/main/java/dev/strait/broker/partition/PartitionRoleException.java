package dev.strait.broker.partition;

/**
 * A request that needs this node to lead a partition (or to lead it in a given epoch, or with enough in-sync
 * replicas) met a partition in another state. The protocol adapter maps the reason to a Kafka error code.
 */
public final class PartitionRoleException extends RuntimeException {

    public enum Reason {
        /** This node does not lead the partition (NOT_LEADER_OR_FOLLOWER). */
        NOT_LEADER,
        /** The request's leader epoch is older than the current one (FENCED_LEADER_EPOCH). */
        FENCED_EPOCH,
        /** The request's leader epoch is newer than this node knows (UNKNOWN_LEADER_EPOCH). */
        UNKNOWN_EPOCH,
        /** acks=all and the ISR is below min.insync.replicas, nothing appended (NOT_ENOUGH_REPLICAS). */
        NOT_ENOUGH_REPLICAS,
        /** A follower fetched from an offset the leader cannot serve (OFFSET_OUT_OF_RANGE). */
        OFFSET_OUT_OF_RANGE,
        /** The fetching node is not a replica of the partition (NOT_LEADER_OR_FOLLOWER for it). */
        NOT_A_REPLICA,
        /**
         * A new leader's high watermark is still below the start offset of its epoch, so its committed end is not
         * known yet (OFFSET_NOT_AVAILABLE, which clients retry; KIP-207).
         */
        HIGH_WATERMARK_BEHIND_EPOCH_START
    }

    private final Reason reason;

    public PartitionRoleException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
