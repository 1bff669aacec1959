package dev.strait.broker.security;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The tests' throwaway certificate authority: one {@link LocalCa} per JVM in a temporary directory (deleted at
 * exit), subjects {@code CN=<name>,O=Strait Test}, valid for two days.
 */
public final class TestPki {

    public static final String PASSWORD = "test-secret";
    private static TestPki instance;

    private final LocalCa ca;

    private TestPki(LocalCa ca) {
        this.ca = ca;
    }

    /** The JVM's test CA, made on first use. */
    public static synchronized TestPki get() {
        if (instance == null) {
            try {
                Path dir = Files.createTempDirectory("strait-test-pki");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
                instance = new TestPki(LocalCa.create(dir, PASSWORD, "Strait Test", java.time.Instant.now(), 2));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return instance;
    }

    /** The PKCS#12 trust store holding the CA certificate (password {@link #PASSWORD}). */
    public Path trustStore() {
        return ca.trustStore();
    }

    /** A PKCS#12 key store (password {@link #PASSWORD}, key password the same) for {@code name}, made once. */
    public Path keyStore(String name) {
        return ca.keyStore(name);
    }

    /** The subject Kafka's default principal mapping turns into {@code User:<this>} for {@code name}. */
    public static String subject(String name) {
        return "CN=" + name + ",O=Strait Test";
    }

    /** Kafka's {@code ssl.*} settings of a server (or a client with a key) holding {@code name}'s key. */
    public Map<String, String> sslConfigs(String prefix, String name) {
        return ca.sslConfigs(prefix, name);
    }

    /** Kafka's {@code ssl.truststore.*} settings trusting the CA. */
    public Map<String, String> trustConfigs(String prefix) {
        return ca.trustConfigs(prefix);
    }

    private static void delete(Path dir) {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            // best effort at exit
        }
    }
}
