package dev.strait.broker.server;

import dev.strait.settings.ConfigException;
import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs one broker: {@code BrokerMain server.properties}. Bad input (no or unreadable file, bad config) is one line
 * on stderr and exit code 2, as for every Strait command; a start-up failure is exit code 1, and so is a fatal
 * error in one of the broker's background loops (logged, and named in one line on stderr): the node stops rather
 * than serve from state that no longer follows the cluster.
 */
public final class BrokerMain {

    private BrokerMain() {}

    public static void main(String[] args) {
        if (args.length != 1) {
            System.err.println("usage: BrokerMain <server.properties>");
            System.exit(2);
        }
        AtomicReference<String> fatal = new AtomicReference<>();
        CountDownLatch stop = new CountDownLatch(1);
        BrokerServer server;
        try {
            Properties props = new Properties();
            try (Reader reader = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8)) {
                props.load(reader);
            }
            server = new BrokerServer(BrokerConfig.from(props), (what, cause) -> {
                fatal.compareAndSet(null, what + ": " + cause);
                stop.countDown();
            });
        } catch (IOException e) {
            System.err.println("cannot read " + args[0] + ": " + e);
            System.exit(2);
            return;
        } catch (ConfigException e) {
            System.err.println(e.getMessage());
            System.exit(2);
            return;
        }
        Runtime.getRuntime().addShutdownHook(new Thread(server::close, "strait-shutdown"));
        try {
            server.start();
        } catch (RuntimeException e) {
            if (fatal.get() == null) {
                System.err.println("broker failed to start: " + e.getMessage()
                        + (e.getCause() == null ? "" : ": " + e.getCause()));
                System.exit(1);
            }
        }
        try {
            stop.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        System.err.println("broker stopped after a fatal error in the " + fatal.get() + " (details in the log)");
        System.exit(1);
    }
}
