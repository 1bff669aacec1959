package dev.strait.broker.security;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * A throwaway certificate authority for tests, made with the JDK's keytool (child processes) in a temporary
 * directory once per JVM: a CA, a trust store holding it, and PKCS#12 key stores for named identities signed by
 * it (subject {@code CN=<name>,O=Strait Test}, SAN localhost and 127.0.0.1). Valid for two days; nothing is
 * committed, so nothing expires in the repository.
 */
public final class TestPki {

    public static final String PASSWORD = "test-secret";
    private static TestPki instance;

    private final Path dir;
    private final Map<String, Path> keyStores = new HashMap<>();

    private TestPki(Path dir) {
        this.dir = dir;
    }

    /** The JVM's test CA, made on first use. */
    public static synchronized TestPki get() {
        if (instance == null) {
            try {
                Path dir = Files.createTempDirectory("strait-test-pki");
                Runtime.getRuntime().addShutdownHook(new Thread(() -> delete(dir)));
                TestPki pki = new TestPki(dir);
                pki.makeCa();
                instance = pki;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return instance;
    }

    /** The PKCS#12 trust store holding the CA certificate (password {@link #PASSWORD}). */
    public Path trustStore() {
        return dir.resolve("truststore.p12");
    }

    /** A PKCS#12 key store (password {@link #PASSWORD}, key password the same) for {@code name}, made once. */
    public synchronized Path keyStore(String name) {
        return keyStores.computeIfAbsent(name, this::makeIdentity);
    }

    /** The subject Kafka's default principal mapping turns into {@code User:<this>} for {@code name}. */
    public static String subject(String name) {
        return "CN=" + name + ",O=Strait Test";
    }

    /** Kafka's {@code ssl.*} settings of a server (or a client with a key) holding {@code name}'s key. */
    public Map<String, String> sslConfigs(String prefix, String name) {
        Map<String, String> configs = new HashMap<>(trustConfigs(prefix));
        configs.put(prefix + "ssl.keystore.location", keyStore(name).toString());
        configs.put(prefix + "ssl.keystore.password", PASSWORD);
        configs.put(prefix + "ssl.keystore.type", "PKCS12");
        configs.put(prefix + "ssl.key.password", PASSWORD);
        return configs;
    }

    /** Kafka's {@code ssl.truststore.*} settings trusting the CA. */
    public Map<String, String> trustConfigs(String prefix) {
        Map<String, String> configs = new HashMap<>();
        configs.put(prefix + "ssl.truststore.location", trustStore().toString());
        configs.put(prefix + "ssl.truststore.password", PASSWORD);
        configs.put(prefix + "ssl.truststore.type", "PKCS12");
        return configs;
    }

    private void makeCa() {
        keytool(
                "-genkeypair",
                "-alias",
                "ca",
                "-keystore",
                dir.resolve("ca.p12").toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                PASSWORD,
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=Strait Test CA",
                "-validity",
                "2",
                "-ext",
                "bc:c");
        keytool(
                "-exportcert",
                "-rfc",
                "-alias",
                "ca",
                "-keystore",
                dir.resolve("ca.p12").toString(),
                "-storepass",
                PASSWORD,
                "-file",
                dir.resolve("ca.pem").toString());
        keytool(
                "-importcert",
                "-noprompt",
                "-alias",
                "ca",
                "-file",
                dir.resolve("ca.pem").toString(),
                "-keystore",
                trustStore().toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                PASSWORD);
    }

    private Path makeIdentity(String name) {
        Path store = dir.resolve(name + ".p12");
        String file = store.toString();
        keytool(
                "-genkeypair",
                "-alias",
                name,
                "-keystore",
                file,
                "-storetype",
                "PKCS12",
                "-storepass",
                PASSWORD,
                "-keypass",
                PASSWORD,
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                subject(name),
                "-validity",
                "2");
        keytool(
                "-certreq",
                "-alias",
                name,
                "-keystore",
                file,
                "-storepass",
                PASSWORD,
                "-file",
                dir.resolve(name + ".csr").toString());
        keytool(
                "-gencert",
                "-alias",
                "ca",
                "-keystore",
                dir.resolve("ca.p12").toString(),
                "-storepass",
                PASSWORD,
                "-infile",
                dir.resolve(name + ".csr").toString(),
                "-outfile",
                dir.resolve(name + ".pem").toString(),
                "-rfc",
                "-validity",
                "2",
                "-ext",
                "SAN=dns:localhost,ip:127.0.0.1",
                "-ext",
                "KU=digitalSignature",
                "-ext",
                "EKU=serverAuth,clientAuth");
        keytool(
                "-importcert",
                "-noprompt",
                "-alias",
                "ca",
                "-file",
                dir.resolve("ca.pem").toString(),
                "-keystore",
                file,
                "-storepass",
                PASSWORD);
        keytool(
                "-importcert",
                "-alias",
                name,
                "-file",
                dir.resolve(name + ".pem").toString(),
                "-keystore",
                file,
                "-storepass",
                PASSWORD,
                "-keypass",
                PASSWORD);
        return store;
    }

    private void keytool(String... args) {
        Path keytool = Path.of(System.getProperty("java.home"), "bin", "keytool");
        List<String> command = new ArrayList<>(List.of(keytool.toString(), "-J-XX:TieredStopAtLevel=1"));
        command.addAll(List.of(args));
        try {
            Path log = Files.createTempFile(dir, "keytool", ".log");
            Process process = new ProcessBuilder(command)
                    .redirectErrorStream(true)
                    .redirectOutput(log.toFile())
                    .redirectInput(ProcessBuilder.Redirect.from(devNull()))
                    .start();
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("keytool did not finish: " + command);
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException(
                        "keytool failed: " + command + "\n" + Files.readString(log, StandardCharsets.UTF_8));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    private java.io.File devNull() throws IOException {
        Path empty = dir.resolve("empty-input");
        if (!Files.exists(empty)) {
            Files.createFile(empty);
        }
        return empty.toFile();
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
