package dev.strait.broker.metadata;

/** A topic's replicas placed by hand name an unknown broker, a broker twice, or partitions of unequal sizes. */
public final class InvalidReplicaAssignmentException extends RuntimeException {
    public InvalidReplicaAssignmentException(String message) {
        super(message);
    }
}
