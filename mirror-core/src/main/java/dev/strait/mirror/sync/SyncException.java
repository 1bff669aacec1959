package dev.strait.mirror.sync;

import org.jspecify.annotations.Nullable;

/** A sync step that failed; the message says what to check. The mirror logs it and retries next round. */
public final class SyncException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public SyncException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    public SyncException(String message) {
        super(message);
    }
}
