package dev.strait.mirror.linked;

import org.jspecify.annotations.Nullable;

/** The offset-preserving mirror or a mirror-topic promotion could not go on: a cluster unreachable or an admin call failed. */
public final class LinkException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LinkException(String message) {
        super(message);
    }

    public LinkException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }
}
