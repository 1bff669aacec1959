package dev.strait.testkit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.jspecify.annotations.Nullable;

/**
 * Security for a test's {@link KafkaCluster}: one SASL_SSL client listener with SCRAM-SHA-512, Kafka's
 * {@code StandardAuthorizer} with {@code allow.everyone.if.no.acl.found=false}, an admin super user, and
 * further SCRAM users created at format time (as {@code kafka-storage format --add-scram} does).
 *
 * <p>The broker's certificate is made by the JDK's keytool in a temporary directory when the cluster is
 * created, valid for two days and for 127.0.0.1 only: nothing that expires is committed. The controller
 * listener stays PLAINTEXT on loopback; its principal (ANONYMOUS) is a super user, as Kafka's docs ask for
 * the controller's principal.
 *
 * <p>{@link #withMtlsClients} adds an SSL listener with {@code ssl.client.auth=required}: each named client gets a
 * self-signed certificate with subject {@code CN=<name>} that the broker trusts, so Kafka's default principal
 * mapping makes it {@code User:CN=<name>} ({@link #mtlsPrincipal}); an extra certificate the broker does not trust
 * shows what an unknown client gets.
 */
public final class KafkaSecurity {
    public static final String MECHANISM = "SCRAM-SHA-512";
    private static final String STORE_PASSWORD = "strait-test-store";

    private final String adminUser;
    private final String adminPassword;
    private final Map<String, String> users;
    private final List<String> mtlsClients;
    private @Nullable Path dir;
    private @Nullable Path keystore;
    private @Nullable Path truststore;

    private KafkaSecurity(String adminUser, String adminPassword, Map<String, String> users, List<String> mtlsClients) {
        this.adminUser = adminUser;
        this.adminPassword = adminPassword;
        this.users = Map.copyOf(users);
        this.mtlsClients = List.copyOf(mtlsClients);
    }

    /** An admin super user and further SCRAM-SHA-512 users (name to password), which get no ACLs. */
    public static KafkaSecurity saslSsl(String adminUser, String adminPassword, Map<String, String> users) {
        return new KafkaSecurity(adminUser, adminPassword, users, List.of());
    }

    /** The same, plus an SSL listener requiring client certificates, and one certificate for each of {@code clients}. */
    public KafkaSecurity withMtlsClients(String... clients) {
        return new KafkaSecurity(adminUser, adminPassword, users, List.of(clients));
    }

    boolean mtls() {
        return !mtlsClients.isEmpty();
    }

    /** The principal Kafka's default SSL principal mapping gives {@code client}'s certificate. */
    public static String mtlsPrincipal(String client) {
        return "User:CN=" + client;
    }

    /** A name whose certificate {@link #prepare} makes but the broker does not trust. */
    public static final String UNTRUSTED_CLIENT = "strait-untrusted";

    /** Makes the key store and trust store in {@code dir} (once per cluster). */
    void prepare(Path dir) {
        try {
            Files.createDirectories(dir);
            this.dir = dir;
            keystore = dir.resolve("broker.p12");
            truststore = dir.resolve("truststore.p12");
            Path cert = dir.resolve("broker.crt");
            keytool(
                    "-genkeypair",
                    "-alias",
                    "broker",
                    "-keyalg",
                    "EC",
                    "-groupname",
                    "secp256r1",
                    "-dname",
                    "CN=localhost",
                    "-ext",
                    "SAN=ip:127.0.0.1,dns:localhost",
                    "-validity",
                    "2",
                    "-keystore",
                    prepared(keystore).toString(),
                    "-storetype",
                    "PKCS12",
                    "-storepass",
                    STORE_PASSWORD,
                    "-keypass",
                    STORE_PASSWORD);
            keytool(
                    "-exportcert",
                    "-rfc",
                    "-alias",
                    "broker",
                    "-keystore",
                    prepared(keystore).toString(),
                    "-storepass",
                    STORE_PASSWORD,
                    "-file",
                    cert.toString());
            keytool(
                    "-importcert",
                    "-noprompt",
                    "-alias",
                    "broker",
                    "-file",
                    cert.toString(),
                    "-keystore",
                    prepared(truststore).toString(),
                    "-storetype",
                    "PKCS12",
                    "-storepass",
                    STORE_PASSWORD);
            if (mtls()) {
                for (String client : mtlsClients) {
                    Path clientCert = clientKeyStore(client, dir);
                    // The broker trusts each client's self-signed certificate (it shares the listener trust store).
                    keytool(
                            "-importcert",
                            "-noprompt",
                            "-alias",
                            "client-" + client,
                            "-file",
                            clientCert.toString(),
                            "-keystore",
                            prepared(truststore).toString(),
                            "-storetype",
                            "PKCS12",
                            "-storepass",
                            STORE_PASSWORD);
                }
                clientKeyStore(UNTRUSTED_CLIENT, dir);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("could not make test certificates in " + dir, e);
        }
    }

    /** Makes {@code <client>.p12} holding a self-signed key for {@code CN=<client>}; returns its certificate file. */
    private static Path clientKeyStore(String client, Path dir) throws IOException {
        Path store = prepared(dir).resolve(client + ".p12");
        Path cert = dir.resolve(client + ".crt");
        keytool(
                "-genkeypair",
                "-alias",
                client,
                "-keyalg",
                "EC",
                "-groupname",
                "secp256r1",
                "-dname",
                "CN=" + client,
                "-validity",
                "2",
                "-keystore",
                store.toString(),
                "-storetype",
                "PKCS12",
                "-storepass",
                STORE_PASSWORD,
                "-keypass",
                STORE_PASSWORD);
        keytool(
                "-exportcert",
                "-rfc",
                "-alias",
                client,
                "-keystore",
                store.toString(),
                "-storepass",
                STORE_PASSWORD,
                "-file",
                cert.toString());
        return cert;
    }

    private static void keytool(String... args) throws IOException {
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
        cmd.addAll(List.of(args));
        Process process = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            String out = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(60, TimeUnit.SECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IOException("keytool " + args[0] + " failed: " + out.trim());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IOException("interrupted while running keytool", e);
        }
    }

    /**
     * The node's listener and security settings; {@code brokerPort}/{@code controllerPort} on 127.0.0.1, and
     * {@code sslPort} for the mTLS listener when there is one.
     */
    Map<String, String> serverProperties(int brokerPort, int sslPort, int controllerPort) {
        Map<String, String> p = new LinkedHashMap<>();
        String ssl = mtls() ? ",SSL://127.0.0.1:" + sslPort : "";
        p.put("listeners", "SASL_SSL://127.0.0.1:" + brokerPort + ssl + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "SASL_SSL://127.0.0.1:" + brokerPort + ssl);
        p.put("inter.broker.listener.name", "SASL_SSL");
        p.put(
                "listener.security.protocol.map",
                "SASL_SSL:SASL_SSL," + (mtls() ? "SSL:SSL," : "") + "CONTROLLER:PLAINTEXT");
        if (mtls()) {
            p.put("listener.name.ssl.ssl.client.auth", "required");
        }
        p.put("sasl.enabled.mechanisms", MECHANISM);
        p.put("sasl.mechanism.inter.broker.protocol", MECHANISM);
        p.put("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config", jaas(adminUser, adminPassword));
        p.put("ssl.keystore.location", prepared(keystore).toString());
        p.put("ssl.keystore.type", "PKCS12");
        p.put("ssl.keystore.password", STORE_PASSWORD);
        p.put("ssl.key.password", STORE_PASSWORD);
        p.put("ssl.truststore.location", prepared(truststore).toString());
        p.put("ssl.truststore.type", "PKCS12");
        p.put("ssl.truststore.password", STORE_PASSWORD);
        p.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        p.put("allow.everyone.if.no.acl.found", "false");
        p.put("super.users", "User:" + adminUser + ";User:ANONYMOUS");
        return p;
    }

    /** Arguments for {@code kafka-storage format} that create every SCRAM user. */
    List<String> formatArguments() {
        List<String> args = new ArrayList<>();
        Map<String, String> all = new LinkedHashMap<>();
        all.put(adminUser, adminPassword);
        all.putAll(users);
        all.forEach((user, password) -> {
            args.add("--add-scram");
            args.add(MECHANISM + "=[name=" + user + ",password=" + password + "]");
        });
        return args;
    }

    /** Client settings (TLS trust and SCRAM login) for {@code user}; add {@code bootstrap.servers}. */
    public Properties clientProperties(String user, String password) {
        Properties props = new Properties();
        props.put("security.protocol", "SASL_SSL");
        props.put("sasl.mechanism", MECHANISM);
        props.put("sasl.jaas.config", jaas(user, password));
        props.put("ssl.truststore.location", prepared(truststore).toString());
        props.put("ssl.truststore.type", "PKCS12");
        props.put("ssl.truststore.password", STORE_PASSWORD);
        return props;
    }

    /** Client settings for the SSL listener with {@code client}'s certificate; add {@code bootstrap.servers}. */
    Properties mtlsClientProperties(String client) {
        if (!mtls()) {
            throw new IllegalStateException("no mTLS listener: use withMtlsClients");
        }
        if (!client.equals(UNTRUSTED_CLIENT) && !mtlsClients.contains(client)) {
            throw new IllegalArgumentException("no certificate for " + client + "; known: " + mtlsClients);
        }
        Properties props = new Properties();
        props.put("security.protocol", "SSL");
        props.put(
                "ssl.keystore.location", prepared(dir).resolve(client + ".p12").toString());
        props.put("ssl.keystore.type", "PKCS12");
        props.put("ssl.keystore.password", STORE_PASSWORD);
        props.put("ssl.key.password", STORE_PASSWORD);
        props.put("ssl.truststore.location", prepared(truststore).toString());
        props.put("ssl.truststore.type", "PKCS12");
        props.put("ssl.truststore.password", STORE_PASSWORD);
        return props;
    }

    Properties adminClientProperties() {
        return clientProperties(adminUser, adminPassword);
    }

    private static String jaas(String user, String password) {
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\""
                + password + "\";";
    }

    /** A path written by {@link #prepare}: the material exists only after it. */
    private static Path prepared(@Nullable Path path) {
        if (path == null) {
            throw new IllegalStateException("the TLS material is not written yet: prepare the security first");
        }
        return path;
    }
}
