package dev.strait.mirror.engine;

import org.jspecify.annotations.Nullable;

/** A failure that stops the mirror; the message says what happened and what to do about it. */
public class MirrorException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MirrorException(String message) {
        super(message);
    }

    public MirrorException(String message, @Nullable Throwable cause) {
        super(message, cause);
    }

    /** The message of what failed in {@code e}: its cause's (a Kafka future's error), or its own if it has none. */
    static @Nullable String causeMessage(java.util.concurrent.ExecutionException e) {
        Throwable cause = e.getCause();
        return (cause == null ? e : cause).getMessage();
    }
}
