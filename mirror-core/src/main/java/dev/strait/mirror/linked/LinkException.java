package dev.strait.mirror.linked;

/** The offset-preserving mirror could not start: a cluster unreachable or an admin call failed. */
public final class LinkException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public LinkException(String message, Throwable cause) {
        super(message, cause);
    }
}
