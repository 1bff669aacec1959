package dev.strait.broker.log;

import java.io.IOException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one I/O boundary of a {@link PartitionLog}: an {@link IOException} from any storage action becomes a
 * {@link LogStorageException} and takes the log offline, and from then on every call fails fast before it touches a
 * file, as it does once the log is closed. It exists so that this rule is written once instead of at each of the
 * log's file operations; reopening the log is the only way back.
 *
 * <p>Not thread-safe: guarded by the owner's lock, as the log is.
 */
final class IoBoundary {

    /** A storage action that may fail with an I/O error. */
    @FunctionalInterface
    interface IoAction<T> {
        T run() throws IOException;
    }

    /** A storage action with no result that may fail with an I/O error. */
    @FunctionalInterface
    interface IoStep {
        void run() throws IOException;
    }

    // The log's own category: "the log is now offline" is the line operators alert on.
    private static final Logger LOGGER = LoggerFactory.getLogger(PartitionLog.class);

    private final String logPrefix;
    private boolean offline;
    private boolean closed;

    IoBoundary(String logPrefix) {
        this.logPrefix = logPrefix;
    }

    /**
     * @throws LogStorageException if an I/O error took the log offline
     * @throws LogClosedException  if the log was closed
     */
    void ensureUsable() {
        if (offline) {
            throw new LogStorageException(logPrefix + "the log is offline after an I/O error; reopen it to recover");
        }
        if (closed) {
            throw new LogClosedException(logPrefix + "the log is closed");
        }
    }

    /** Runs {@code body}; an I/O error takes the log offline and is rethrown as {@link LogStorageException}. */
    <T> T run(String action, IoAction<T> body) {
        try {
            return body.run();
        } catch (IOException e) {
            throw wentOffline(action, e);
        }
    }

    /** Runs {@code body}, which has no result, as {@link #run(String, IoAction)} does. */
    void run(String action, IoStep body) {
        try {
            body.run();
        } catch (IOException e) {
            throw wentOffline(action, e);
        }
    }

    /** Takes the log offline after {@code action} failed with {@code e}; returns the exception to throw. */
    private LogStorageException wentOffline(String action, IOException e) {
        offline = true;
        LOGGER.error("{}{} failed; the log is now offline", logPrefix, action, e);
        return new LogStorageException(logPrefix + action + " failed; the log is offline until reopened", e);
    }

    boolean offline() {
        return offline;
    }

    boolean closed() {
        return closed;
    }

    /** The log's files are closed; every later call fails with {@link LogClosedException} (unless offline). */
    void markClosed() {
        closed = true;
    }
}
