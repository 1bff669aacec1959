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

/**
 * Security for a test's {@link KafkaCluster}: one SASL_SSL client listener with SCRAM-SHA-512, Kafka's
 * {@code StandardAuthorizer} with {@code allow.everyone.if.no.acl.found=false}, an admin super user, and
 * further SCRAM users created at format time (as {@code kafka-storage format --add-scram} does).
 *
 * <p>The broker's certificate is made by the JDK's keytool in a temporary directory when the cluster is
 * created, valid for two days and for 127.0.0.1 only: nothing that expires is committed. The controller
 * listener stays PLAINTEXT on loopback; its principal (ANONYMOUS) is a super user, as Kafka's docs ask for
 * the controller's principal.
 */
public final class KafkaSecurity {
    public static final String MECHANISM = "SCRAM-SHA-512";
    private static final String STORE_PASSWORD = "strait-test-store";

    private final String adminUser;
    private final String adminPassword;
    private final Map<String, String> users;
    private Path keystore;
    private Path truststore;

    private KafkaSecurity(String adminUser, String adminPassword, Map<String, String> users) {
        this.adminUser = adminUser;
        this.adminPassword = adminPassword;
        this.users = Map.copyOf(users);
    }

    /** An admin super user and further SCRAM-SHA-512 users (name to password), which get no ACLs. */
    public static KafkaSecurity saslSsl(String adminUser, String adminPassword, Map<String, String> users) {
        return new KafkaSecurity(adminUser, adminPassword, users);
    }

    /** Makes the key store and trust store in {@code dir} (once per cluster). */
    void prepare(Path dir) {
        try {
            Files.createDirectories(dir);
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
                    keystore.toString(),
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
                    keystore.toString(),
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
                    truststore.toString(),
                    "-storetype",
                    "PKCS12",
                    "-storepass",
                    STORE_PASSWORD);
        } catch (IOException e) {
            throw new UncheckedIOException("could not make test certificates in " + dir, e);
        }
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

    /** The node's listener and security settings; {@code brokerPort}/{@code controllerPort} on 127.0.0.1. */
    Map<String, String> serverProperties(int brokerPort, int controllerPort) {
        Map<String, String> p = new LinkedHashMap<>();
        p.put("listeners", "SASL_SSL://127.0.0.1:" + brokerPort + ",CONTROLLER://127.0.0.1:" + controllerPort);
        p.put("advertised.listeners", "SASL_SSL://127.0.0.1:" + brokerPort);
        p.put("inter.broker.listener.name", "SASL_SSL");
        p.put("listener.security.protocol.map", "SASL_SSL:SASL_SSL,CONTROLLER:PLAINTEXT");
        p.put("sasl.enabled.mechanisms", MECHANISM);
        p.put("sasl.mechanism.inter.broker.protocol", MECHANISM);
        p.put("listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config", jaas(adminUser, adminPassword));
        p.put("ssl.keystore.location", keystore.toString());
        p.put("ssl.keystore.type", "PKCS12");
        p.put("ssl.keystore.password", STORE_PASSWORD);
        p.put("ssl.key.password", STORE_PASSWORD);
        p.put("ssl.truststore.location", truststore.toString());
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
        props.put("ssl.truststore.location", truststore.toString());
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
}
