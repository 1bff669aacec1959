package dev.strait.settings;

import org.jspecify.annotations.Nullable;

/**
 * Bad user input: a setting in a properties file, a flag or an environment variable that cannot work. The message is
 * one line that names the setting and says what is allowed; callers print it (never a stack trace) and exit with
 * code 2. The one such exception of every module.
 */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Why the value was refused, without the name and value; null when built from a whole message. */
    private final @Nullable String reason;

    /** Kafka's wording: "Invalid value {@code value} for configuration {@code name}: {@code reason}". */
    public ConfigException(String name, @Nullable Object value, String reason) {
        super("Invalid value " + value + " for configuration " + name + ": " + reason);
        this.reason = reason;
    }

    public ConfigException(String message) {
        super(message);
        this.reason = null;
    }

    public ConfigException(@Nullable String message, Throwable cause) {
        super(message, cause);
        this.reason = null;
    }

    /**
     * Why the value was refused, for a caller that names the setting itself (a broker default standing for a topic
     * config); the whole message when there is no separate reason.
     */
    public String reason() {
        return reason != null ? reason : String.valueOf(getMessage());
    }
}
