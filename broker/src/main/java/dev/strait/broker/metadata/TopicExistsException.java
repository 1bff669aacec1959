package dev.strait.broker.metadata;

/** A topic of that name already exists. */
public final class TopicExistsException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public TopicExistsException(String topic) {
        super("topic '" + topic + "' already exists");
    }
}
