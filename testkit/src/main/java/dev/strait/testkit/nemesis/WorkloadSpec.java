package dev.strait.testkit.nemesis;

/**
 * The workload: idempotent {@code acks=all} producers writing numbered records round-robin to every partition of
 * one topic at a fixed total rate, and a consumer group committing what it read after every poll.
 *
 * @param topic             the workload topic (replication factor 3, min.insync.replicas 2)
 * @param partitions        its partitions
 * @param producers         producer threads, each with its own idempotent producer
 * @param recordsPerSecond  total produce rate
 * @param consumers         members of the consumer group
 * @param requestTimeoutMs  the producers' {@code request.timeout.ms}: shorter than the faults, so they retry into them
 * @param deliveryTimeoutMs the producers' {@code delivery.timeout.ms}
 */
public record WorkloadSpec(
        String topic,
        int partitions,
        int producers,
        int recordsPerSecond,
        int consumers,
        long requestTimeoutMs,
        long deliveryTimeoutMs) {
    public WorkloadSpec {
        if (partitions < 1 || producers < 1 || recordsPerSecond < 1 || consumers < 0) {
            throw new IllegalArgumentException("workload: partitions, producers and rate must be positive");
        }
        if (deliveryTimeoutMs < requestTimeoutMs + 100) {
            throw new IllegalArgumentException("delivery.timeout.ms must exceed request.timeout.ms");
        }
    }

    public static WorkloadSpec defaults() {
        return new WorkloadSpec("nemesis", 4, 2, 400, 2, 3_000, 60_000);
    }

    public WorkloadSpec withPartitions(int p) {
        return new WorkloadSpec(topic, p, producers, recordsPerSecond, consumers, requestTimeoutMs, deliveryTimeoutMs);
    }

    public WorkloadSpec withRate(int rate) {
        return new WorkloadSpec(topic, partitions, producers, rate, consumers, requestTimeoutMs, deliveryTimeoutMs);
    }
}
