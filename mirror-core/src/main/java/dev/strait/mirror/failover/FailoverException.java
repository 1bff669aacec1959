package dev.strait.mirror.failover;

import org.jspecify.annotations.Nullable;

/** A failover or failback step that cannot go on; the message says why and what to check. */
public final class FailoverException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public FailoverException(String message) {
        super(message);
    }

    public FailoverException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
