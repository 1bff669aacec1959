package dev.strait.broker.log;

/**
 * A record batch failed validation (bad magic, length, CRC or offsets). Maps to Kafka's CORRUPT_MESSAGE
 * when raised on the produce path; during recovery it marks the start of a tail to truncate.
 */
public final class CorruptRecordException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public CorruptRecordException(String message) {
        super(message);
    }
}
