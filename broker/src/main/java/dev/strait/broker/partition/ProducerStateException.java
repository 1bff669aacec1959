package dev.strait.broker.partition;

/** A produce batch was refused by the producer state checks (nothing was appended). */
public final class ProducerStateException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** What the check found. */
    public enum Reason {
        OUT_OF_ORDER_SEQUENCE,
        INVALID_PRODUCER_EPOCH
    }

    private final Reason reason;

    ProducerStateException(Reason reason, String message) {
        super(message);
        this.reason = reason;
    }

    public Reason reason() {
        return reason;
    }
}
