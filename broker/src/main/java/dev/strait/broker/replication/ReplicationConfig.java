package dev.strait.broker.replication;

/**
 * Settings of one partition's replication, by their Kafka names: {@code replica.lag.time.max.ms} and
 * {@code min.insync.replicas}.
 */
public record ReplicationConfig(long replicaLagTimeMaxMs, int minInsyncReplicas, TruncationRule truncationRule) {

    public static final long DEFAULT_REPLICA_LAG_TIME_MAX_MS = 30_000;

    public ReplicationConfig {
        if (replicaLagTimeMaxMs <= 0) {
            throw new IllegalArgumentException("replica.lag.time.max.ms must be positive, got " + replicaLagTimeMaxMs);
        }
        if (minInsyncReplicas < 1) {
            throw new IllegalArgumentException("min.insync.replicas must be at least 1, got " + minInsyncReplicas);
        }
    }

    public static ReplicationConfig defaults(int minInsyncReplicas) {
        return new ReplicationConfig(DEFAULT_REPLICA_LAG_TIME_MAX_MS, minInsyncReplicas, TruncationRule.LEADER_EPOCH);
    }
}
