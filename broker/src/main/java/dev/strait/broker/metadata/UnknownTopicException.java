package dev.strait.broker.metadata;

/** No topic (or partition) of that name or id exists. */
public final class UnknownTopicException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public UnknownTopicException(String message) {
        super(message);
    }
}
