package dev.strait.testkit.nemesis;

/**
 * The workload: by default ({@link Kind#IDEMPOTENT}, {@link Workload}) idempotent {@code acks=all} producers writing
 * numbered records round-robin to every partition of one topic at a fixed total rate, and a consumer group committing
 * what it read after every poll. {@link Kind#TXN} ({@link TxnWorkload}) runs transactional producers and
 * {@code read_committed} consumers instead: the producer count, rate and timeouts mean the same, {@code consumers} is
 * the number of {@code read_committed} readers.
 *
 * @param topic             the workload topic (replication factor 3, min.insync.replicas 2)
 * @param partitions        its partitions
 * @param producers         producer threads, each with its own idempotent producer
 * @param recordsPerSecond  total produce rate
 * @param consumers         members of the consumer group
 * @param requestTimeoutMs  the producers' {@code request.timeout.ms}: shorter than the faults, so they retry into them
 * @param deliveryTimeoutMs the producers' {@code delivery.timeout.ms}
 * @param kind              which workload
 */
public record WorkloadSpec(
        String topic,
        int partitions,
        int producers,
        int recordsPerSecond,
        int consumers,
        long requestTimeoutMs,
        long deliveryTimeoutMs,
        Kind kind) {

    /** Which workload runs. */
    public enum Kind {
        /** {@link Workload}: idempotent producers and a consumer group. */
        IDEMPOTENT,
        /** {@link TxnWorkload}: transactional producers (some transactions aborted) and read_committed consumers. */
        TXN;

        public String flag() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }

        /** Parses {@code idempotent} or {@code txn}; anything else is a one-line error. */
        public static Kind parse(String value) {
            for (Kind kind : values()) {
                if (kind.flag().equals(value.trim().toLowerCase(java.util.Locale.ROOT))) {
                    return kind;
                }
            }
            throw new IllegalArgumentException("unknown workload '" + value + "': expected idempotent or txn");
        }
    }

    /** The idempotent workload. */
    public WorkloadSpec(
            String topic,
            int partitions,
            int producers,
            int recordsPerSecond,
            int consumers,
            long requestTimeoutMs,
            long deliveryTimeoutMs) {
        this(
                topic,
                partitions,
                producers,
                recordsPerSecond,
                consumers,
                requestTimeoutMs,
                deliveryTimeoutMs,
                Kind.IDEMPOTENT);
    }

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

    /**
     * The transactional workload's defaults: 3 transactional producers writing 150 records/s in all (each transaction
     * 2 records to each of 3 of the 4 partitions), 2 read_committed readers.
     */
    public static WorkloadSpec txnDefaults() {
        return new WorkloadSpec("nemesis", 4, 3, 150, 2, 3_000, 60_000, Kind.TXN);
    }

    public WorkloadSpec withPartitions(int p) {
        return new WorkloadSpec(
                topic, p, producers, recordsPerSecond, consumers, requestTimeoutMs, deliveryTimeoutMs, kind);
    }

    public WorkloadSpec withRate(int rate) {
        return new WorkloadSpec(
                topic, partitions, producers, rate, consumers, requestTimeoutMs, deliveryTimeoutMs, kind);
    }
}
