package dev.strait.broker.txn;

/**
 * A record of {@code __transaction_state} that cannot be read: truncated, trailing bytes, an unknown version or
 * state, a field out of range. Loading a shard stops at it rather than guess.
 */
public final class CorruptTransactionRecordException extends IllegalArgumentException {
    private static final long serialVersionUID = 1L;

    public CorruptTransactionRecordException(String message) {
        super(message);
    }

    public CorruptTransactionRecordException(String message, Throwable cause) {
        super(message, cause);
    }
}
