package dev.strait.broker.server;

import dev.strait.broker.security.TestPki;
import java.util.HashMap;
import java.util.Map;

/**
 * Broker and client settings of a secured companion cluster, with Kafka's names: a SASL_SSL client listener
 * (PLAIN for the admin, the broker itself and kcat; SCRAM for users made with Kafka's tools), the test CA's
 * certificates, Kafka's StandardAuthorizer with {@code User:admin} and {@code User:broker} as super users.
 */
final class SecureConfigs {

    static final String ADMIN_PASSWORD = "admin-secret";
    static final String BROKER_PASSWORD = "broker-secret";
    static final String BOOTSTRAP_SCRAM_USER = "ops";
    static final String BOOTSTRAP_SCRAM_PASSWORD = "ops-secret";

    private SecureConfigs() {}

    /** The broker settings; {@code extraPlainUsers} adds {@code user_<name>="<password>"} entries. */
    static Map<String, String> saslSslBroker(Map<String, String> extraPlainUsers) {
        TestPki pki = TestPki.get();
        Map<String, String> props = new HashMap<>(pki.sslConfigs("", "broker"));
        props.put("listener.security.protocol.map", "SASL_SSL:SASL_SSL,CONTROLLER:SSL");
        props.put("sasl.enabled.mechanisms", "PLAIN,SCRAM-SHA-256,SCRAM-SHA-512");
        props.put("sasl.mechanism.inter.broker.protocol", "PLAIN");
        StringBuilder users =
                new StringBuilder("user_admin=\"" + ADMIN_PASSWORD + "\" user_broker=\"" + BROKER_PASSWORD + "\"");
        extraPlainUsers.forEach((user, password) -> users.append(" user_")
                .append(user)
                .append("=\"")
                .append(password)
                .append('"'));
        props.put(
                "listener.name.sasl_ssl.plain.sasl.jaas.config",
                "org.apache.kafka.common.security.plain.PlainLoginModule required username=\"broker\" password=\""
                        + BROKER_PASSWORD + "\" " + users + ";");
        props.put("authorizer.class.name", "org.apache.kafka.metadata.authorizer.StandardAuthorizer");
        props.put("super.users", "User:admin;User:broker");
        props.put(
                "strait.bootstrap.scram.credentials",
                "SCRAM-SHA-512=[name=" + BOOTSTRAP_SCRAM_USER + ",password=" + BOOTSTRAP_SCRAM_PASSWORD + "]");
        // The controller wire: mutual TLS with the same certificates, whose subject CN=broker,O=... maps to the
        // super user User:broker (a controller peer must be a super user or hold CLUSTER_ACTION).
        props.put("listener.name.controller.ssl.client.auth", "required");
        props.put("listener.name.controller.ssl.principal.mapping.rules", "RULE:^CN=([^,]*),.*$/$1/,DEFAULT");
        return props;
    }

    static EmbeddedCluster.Builder saslSslCluster(int nodes, Map<String, String> extraPlainUsers) {
        EmbeddedCluster.Builder builder = EmbeddedCluster.builder().nodes(nodes).clientListener("SASL_SSL");
        saslSslBroker(extraPlainUsers).forEach(builder::brokerConfig);
        return builder;
    }

    /** A kafka-clients config authenticating with {@code mechanism} over TLS. */
    static Map<String, Object> client(String bootstrap, String mechanism, String user, String password) {
        Map<String, Object> props = new HashMap<>(TestPki.get().trustConfigs(""));
        props.put("bootstrap.servers", bootstrap);
        props.put("security.protocol", "SASL_SSL");
        props.put("sasl.mechanism", mechanism);
        String module = mechanism.equals("PLAIN")
                ? "org.apache.kafka.common.security.plain.PlainLoginModule"
                : "org.apache.kafka.common.security.scram.ScramLoginModule";
        props.put("sasl.jaas.config", module + " required username=\"" + user + "\" password=\"" + password + "\";");
        return props;
    }

    static Map<String, Object> admin(String bootstrap) {
        return client(bootstrap, "PLAIN", "admin", ADMIN_PASSWORD);
    }

    /** The same settings as a properties file body, for Kafka's tools' --command-config. */
    static String asProperties(Map<String, Object> props) {
        StringBuilder text = new StringBuilder();
        new HashMap<>(props)
                .forEach((k, v) -> text.append(k)
                        .append('=')
                        .append(String.valueOf(v).replace("\\", "\\\\"))
                        .append('\n'));
        return text.toString();
    }
}
