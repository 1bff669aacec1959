package dev.strait.broker.metadata;

/** A topic was asked for more replicas than the cluster has brokers, or fewer than one. */
public final class InvalidReplicationFactorException extends RuntimeException {
    public InvalidReplicationFactorException(String message) {
        super(message);
    }
}
