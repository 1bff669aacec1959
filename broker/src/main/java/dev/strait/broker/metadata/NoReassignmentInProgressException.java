package dev.strait.broker.metadata;

/** A cancel of a partition reassignment (KIP-455) for a partition that is not being reassigned. */
public final class NoReassignmentInProgressException extends RuntimeException {
    public NoReassignmentInProgressException(String message) {
        super(message);
    }
}
