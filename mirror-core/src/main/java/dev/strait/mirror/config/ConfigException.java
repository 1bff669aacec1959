package dev.strait.mirror.config;

import org.jspecify.annotations.Nullable;

/**
 * Bad user input: a flag, a properties file or a setting that cannot work. The message is one line
 * that names the setting and says what to do; callers print it and exit with code 2.
 */
public final class ConfigException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public ConfigException(String message) {
        super(message);
    }

    public ConfigException(@Nullable String message, Throwable cause) {
        super(message, cause);
    }
}
