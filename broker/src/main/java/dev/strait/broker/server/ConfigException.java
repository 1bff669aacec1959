package dev.strait.broker.server;

/** A bad broker configuration; the message is one line naming the setting. */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    public ConfigException(String name, Object value, String reason) {
        super("Invalid value " + value + " for configuration " + name + ": " + reason);
    }

    public ConfigException(String message) {
        super(message);
    }
}
