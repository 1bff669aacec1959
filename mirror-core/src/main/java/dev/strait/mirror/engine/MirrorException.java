package dev.strait.mirror.engine;

/** A failure that stops the mirror; the message says what happened and what to do about it. */
public class MirrorException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MirrorException(String message) {
        super(message);
    }

    public MirrorException(String message, Throwable cause) {
        super(message, cause);
    }
}
