package dev.strait.broker.replication;

/** Whether a partition takes a produce request, and whether a waiting acks=all produce is done. */
public enum ProduceCheck {
    /** Append (for acks=all: accepted, or completed). */
    OK,
    /** This replica is not the leader, or not in the epoch the client saw. */
    NOT_LEADER,
    /** acks=all and the ISR is below min.insync.replicas: refuse before appending. */
    NOT_ENOUGH_REPLICAS,
    /** acks=all, appended, but the ISR fell below min.insync.replicas before the high watermark passed it. */
    NOT_ENOUGH_REPLICAS_AFTER_APPEND,
    /** acks=all and not replicated far enough yet: keep waiting. */
    PENDING
}
