package dev.strait.broker.log;

import java.io.IOException;
import org.jspecify.annotations.Nullable;

/**
 * An I/O error hit a partition log (KAFKA_STORAGE_ERROR). The log that raised it is marked offline and fails
 * every later call fast: after a failed write we no longer know what is on disk, so only a reopen (which runs
 * recovery) can make it usable again.
 */
public final class LogStorageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LogStorageException(String message, @Nullable IOException cause) {
        super(message, cause);
    }

    public LogStorageException(String message) {
        super(message);
    }
}
