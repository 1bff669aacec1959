package dev.strait.broker.log;

/** A read asked for an offset below the log start offset or above the log end offset (OFFSET_OUT_OF_RANGE). */
public final class OffsetOutOfRangeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public OffsetOutOfRangeException(String message) {
        super(message);
    }
}
