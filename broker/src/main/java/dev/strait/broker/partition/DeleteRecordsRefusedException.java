package dev.strait.broker.partition;

/** DeleteRecords is not allowed on this partition (its cleanup.policy lacks {@code delete}, as in Kafka). */
public final class DeleteRecordsRefusedException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public DeleteRecordsRefusedException(String message) {
        super(message);
    }
}
