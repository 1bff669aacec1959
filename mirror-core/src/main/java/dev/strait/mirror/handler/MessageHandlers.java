package dev.strait.mirror.handler;

import dev.strait.settings.ConfigException;
import org.jspecify.annotations.Nullable;

/**
 * Creates the message handler a setting names. The mirror and the lag monitor's audit load it the same way:
 * the audit runs the mirror's handler on each source record to know what the target should hold.
 */
public final class MessageHandlers {
    private MessageHandlers() {}

    /**
     * @param setting the setting's name as the user wrote it ({@code --message.handler} or {@code message.handler}),
     *                for the error messages
     * @throws ConfigException when the class is missing, cannot be created, is not a handler, or refuses its args
     */
    public static MessageHandler load(String className, @Nullable String args, String setting) {
        Object instance;
        try {
            instance = Class.forName(className.trim()).getDeclaredConstructor().newInstance();
        } catch (ClassNotFoundException e) {
            throw new ConfigException(setting + " class " + className + " is not on the class path "
                    + "(put its jar in STRAIT_CLASSPATH)");
        } catch (ReflectiveOperationException | LinkageError e) {
            throw new ConfigException(setting + " class " + className + " cannot be created: " + e
                    + " (it needs a public no-argument constructor)");
        }
        if (!(instance instanceof MessageHandler handler)) {
            throw new ConfigException(
                    setting + " class " + className + " does not implement " + MessageHandler.class.getName());
        }
        try {
            handler.configure(args);
        } catch (RuntimeException e) {
            throw new ConfigException(setting + " " + className + " rejected " + setting + ".args: " + e.getMessage());
        }
        return handler;
    }
}
