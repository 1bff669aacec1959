package dev.strait.cli;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Sends every log line of this process to a file instead of the terminal: the demo's terminal shows its
 * live lines and verdict alone, while the embedded brokers and clients log hundreds of lines.
 */
final class DemoLogs {
    private DemoLogs() {}

    /** Redirects the logs to {@code file} and returns it; leaves logging alone when logback is not the backend. */
    static Path toFile(Path file) {
        if (!(LoggerFactory.getILoggerFactory() instanceof LoggerContext ctx)) {
            return file;
        }
        PatternLayoutEncoder encoder = new PatternLayoutEncoder();
        encoder.setContext(ctx);
        encoder.setPattern("%d{yyyy-MM-dd'T'HH:mm:ss.SSSXXX} %-5level [%thread] %logger{0} - %msg%n");
        encoder.start();
        FileAppender<ILoggingEvent> appender = new FileAppender<>();
        appender.setContext(ctx);
        appender.setName("demo-file");
        appender.setFile(file.toString());
        appender.setAppend(true);
        appender.setEncoder(encoder);
        appender.start();
        ch.qos.logback.classic.Logger root = ctx.getLogger(Logger.ROOT_LOGGER_NAME);
        root.detachAndStopAllAppenders();
        root.addAppender(appender);
        // The file has room for what the terminal had not: the clients' own lines too.
        ctx.getLogger("org.apache.kafka").setLevel(Level.INFO);
        return file;
    }
}
