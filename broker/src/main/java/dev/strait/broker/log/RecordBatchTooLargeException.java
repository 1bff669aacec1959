package dev.strait.broker.log;

/** A batch is larger than the topic's {@code max.message.bytes} (MESSAGE_TOO_LARGE); nothing was appended. */
public final class RecordBatchTooLargeException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public RecordBatchTooLargeException(String message) {
        super(message);
    }
}
