package dev.strait.broker.log;

/**
 * A call on a log that was closed: its partition was deleted or moved off this broker while a caller still
 * held it (a fetch in flight, a request being answered). The caller's work on that partition is moot, not a
 * fault of the broker.
 */
public final class LogClosedException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public LogClosedException(String message) {
        super(message);
    }
}
