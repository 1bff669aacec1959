package dev.strait.broker.metadata;

/** A request named a leader or partition epoch that is no longer current; the caller must refresh and retry. */
public final class StaleEpochException extends RuntimeException {
    public StaleEpochException(String message) {
        super(message);
    }
}
