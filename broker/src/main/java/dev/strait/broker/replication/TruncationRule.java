package dev.strait.broker.replication;

/**
 * Where a replica that becomes a follower cuts its log before fetching. Only {@link #LEADER_EPOCH} is safe;
 * {@link #HIGH_WATERMARK} is Kafka's behaviour before KIP-101 and exists so the tests can show the records it
 * loses and the logs it lets diverge.
 */
public enum TruncationRule {
    /** Ask the leader where the follower's latest epoch ended (OffsetForLeaderEpoch) and truncate there. */
    LEADER_EPOCH,
    /** Truncate to the local high watermark at once. Loses acknowledged records; never use it in a broker. */
    HIGH_WATERMARK
}
