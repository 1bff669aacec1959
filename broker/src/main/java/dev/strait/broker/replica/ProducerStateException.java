package dev.strait.broker.replica;

/** A produce batch was refused by the producer state checks, or is a duplicate of an appended batch. */
public final class ProducerStateException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** What the check found. */
    public enum Reason {
        /** Same producer, epoch and sequences as a recently appended batch: answer with its offset. */
        DUPLICATE,
        OUT_OF_ORDER_SEQUENCE,
        INVALID_PRODUCER_EPOCH
    }

    private final Reason reason;
    private final long duplicateFirstOffset;

    ProducerStateException(Reason reason, String message, long duplicateFirstOffset) {
        super(message);
        this.reason = reason;
        this.duplicateFirstOffset = duplicateFirstOffset;
    }

    public Reason reason() {
        return reason;
    }

    /** For {@link Reason#DUPLICATE}: the offset the original batch was appended at; else -1. */
    public long duplicateFirstOffset() {
        return duplicateFirstOffset;
    }
}
