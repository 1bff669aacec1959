package dev.strait.settings;

import org.jspecify.annotations.Nullable;

/**
 * Bad user input: a setting in a properties file, a flag or an environment variable that cannot work. The message is
 * one line that names the setting and says what is allowed; callers print it (never a stack trace) and exit with
 * code 2. The one such exception of every module.
 */
public final class ConfigException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    /** Kafka's wording: "Invalid value {@code value} for configuration {@code name}: {@code reason}". */
    public ConfigException(String name, @Nullable Object value, String reason) {
        super("Invalid value " + value + " for configuration " + name + ": " + reason);
    }

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(@Nullable String message, Throwable cause) {
        super(message, cause);
    }
}
