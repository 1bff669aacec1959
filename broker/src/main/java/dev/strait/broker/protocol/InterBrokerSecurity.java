package dev.strait.broker.protocol;

import java.io.IOException;
import java.net.Socket;
import java.security.NoSuchAlgorithmException;
import java.util.Map;
import java.util.Objects;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLSocket;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.PasswordCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.sasl.Sasl;
import javax.security.sasl.SaslClient;
import javax.security.sasl.SaslException;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.network.ConnectionMode;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.security.scram.ScramExtensionsCallback;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramSaslClient;
import org.apache.kafka.common.security.ssl.DefaultSslEngineFactory;
import org.apache.kafka.common.security.ssl.SslFactory;
import org.jspecify.annotations.Nullable;

/**
 * How this broker connects to another broker's inter-broker listener (its replica fetchers), as a Kafka broker
 * does: over TLS with the listener's own {@code ssl.*} stores in client mode (its key store answers a
 * {@code ssl.client.auth=required} peer; {@code ssl.endpoint.identification.algorithm} applies), and with SASL
 * {@code sasl.mechanism.inter.broker.protocol} using the {@code username} and {@code password} of the listener's
 * JAAS entry for that mechanism.
 */
public final class InterBrokerSecurity {

    static final InterBrokerSecurity PLAINTEXT =
            new InterBrokerSecurity(SecurityProtocol.PLAINTEXT, null, null, null, null);

    private final SecurityProtocol protocol;
    /** Null unless the inter-broker listener speaks SSL. */
    private final @Nullable SslFactory sslFactory;
    /** The SASL mechanism and its credentials; null unless the inter-broker listener speaks SASL. */
    private final @Nullable String mechanism;

    private final @Nullable String username;
    private final @Nullable String password;

    private InterBrokerSecurity(
            SecurityProtocol protocol,
            @Nullable SslFactory sslFactory,
            @Nullable String mechanism,
            @Nullable String username,
            @Nullable String password) {
        this.protocol = protocol;
        this.sslFactory = sslFactory;
        this.mechanism = mechanism;
        this.username = username;
        this.password = password;
    }

    /**
     * @param listener  the inter-broker listener
     * @param mechanism {@code sasl.mechanism.inter.broker.protocol} (for a SASL listener)
     * @throws IllegalArgumentException naming the missing setting
     */
    public static InterBrokerSecurity create(
            ListenerSecurity listener, @Nullable String mechanism, Map<String, String> props) {
        SslFactory ssl = null;
        if (listener.usesTls()) {
            ssl = new SslFactory(ConnectionMode.CLIENT, null, false);
            try {
                ssl.configure(listener.resolvedSslValues());
            } catch (KafkaException e) {
                throw new IllegalArgumentException(
                        "inter-broker TLS on listener " + listener.listenerName() + " rejected: " + e.getMessage());
            }
        }
        if (!listener.usesSasl()) {
            return new InterBrokerSecurity(listener.protocol(), ssl, null, null, null);
        }
        if (mechanism == null || mechanism.isBlank()) {
            throw new IllegalArgumentException("listener " + listener.listenerName() + " carries inter-broker traffic "
                    + "over SASL: set sasl.mechanism.inter.broker.protocol to one of " + listener.mechanisms());
        }
        String chosen = mechanism.trim().toUpperCase(java.util.Locale.ROOT);
        if (!listener.mechanisms().contains(chosen)) {
            throw new IllegalArgumentException("sasl.mechanism.inter.broker.protocol " + chosen
                    + " is not among the listener's sasl.enabled.mechanisms " + listener.mechanisms());
        }
        String[] credentials = ListenerSecurity.clientCredentials(listener.listenerName(), chosen, props)
                .orElseThrow(() -> new IllegalArgumentException("inter-broker SASL " + chosen + ": the JAAS entry "
                        + "listener.name." + listener.listenerName().toLowerCase(java.util.Locale.ROOT) + "."
                        + chosen.toLowerCase(java.util.Locale.ROOT) + ".sasl.jaas.config needs username=\"...\" "
                        + "password=\"...\" (this broker's own credentials)"));
        return new InterBrokerSecurity(listener.protocol(), ssl, chosen, credentials[0], credentials[1]);
    }

    /**
     * A client's security from Kafka client settings, as a mirror topic's source link gives them:
     * {@code security.protocol}, the client {@code ssl.*} settings, {@code sasl.mechanism} (PLAIN, SCRAM-SHA-256 or
     * SCRAM-SHA-512) and a {@code sasl.jaas.config} with {@code username} and {@code password}.
     *
     * @param what names the settings in messages, e.g. "mirror link dc1"
     * @throws IllegalArgumentException naming the setting that is missing or wrong
     */
    public static InterBrokerSecurity forClient(String what, Map<String, String> props) {
        SecurityProtocol protocol;
        try {
            protocol = SecurityProtocol.forName(
                    props.getOrDefault("security.protocol", "PLAINTEXT").trim().toUpperCase(java.util.Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(what + ": security.protocol '" + props.get("security.protocol")
                    + "' is not one of PLAINTEXT, SSL, SASL_PLAINTEXT, SASL_SSL");
        }
        SslFactory ssl = null;
        if (protocol == SecurityProtocol.SSL || protocol == SecurityProtocol.SASL_SSL) {
            org.apache.kafka.common.config.ConfigDef def = new org.apache.kafka.common.config.ConfigDef();
            org.apache.kafka.common.config.SslConfigs.addClientSslSupport(def);
            Map<String, String> sslProps = new java.util.HashMap<>();
            props.forEach((k, v) -> {
                if (k.startsWith("ssl.")) {
                    sslProps.put(k, v);
                }
            });
            ssl = new SslFactory(ConnectionMode.CLIENT, null, false);
            try {
                ssl.configure(new org.apache.kafka.common.config.AbstractConfig(def, sslProps, false).values());
            } catch (KafkaException e) {
                throw new IllegalArgumentException(what + ": TLS settings rejected: " + e.getMessage());
            }
        }
        if (protocol == SecurityProtocol.PLAINTEXT || protocol == SecurityProtocol.SSL) {
            return new InterBrokerSecurity(protocol, ssl, null, null, null);
        }
        String mechanism = props.getOrDefault("sasl.mechanism", "").trim().toUpperCase(java.util.Locale.ROOT);
        if (!java.util.Set.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512").contains(mechanism)) {
            throw new IllegalArgumentException(what + ": sasl.mechanism must be PLAIN, SCRAM-SHA-256 or SCRAM-SHA-512"
                    + (mechanism.isEmpty() ? "" : ", not " + mechanism));
        }
        String jaas = props.get("sasl.jaas.config");
        String[] credentials = jaas == null ? null : jaasCredentials(jaas);
        if (credentials == null) {
            throw new IllegalArgumentException(what + ": sasl.jaas.config needs username=\"...\" password=\"...\"");
        }
        return new InterBrokerSecurity(protocol, ssl, mechanism, credentials[0], credentials[1]);
    }

    /** The username and password of a client JAAS line, or null. */
    private static String @Nullable [] jaasCredentials(String jaas) {
        java.util.regex.Matcher user =
                java.util.regex.Pattern.compile("username\\s*=\\s*\"([^\"]*)\"").matcher(jaas);
        java.util.regex.Matcher password =
                java.util.regex.Pattern.compile("password\\s*=\\s*\"([^\"]*)\"").matcher(jaas);
        return user.find() && password.find() ? new String[] {user.group(1), password.group(1)} : null;
    }

    boolean usesSasl() {
        return mechanism != null;
    }

    @Nullable
    String mechanism() {
        return mechanism;
    }

    /** The connected socket, with TLS negotiated over it when the listener speaks TLS. */
    Socket wrap(Socket socket, String host, int port) throws IOException {
        if (sslFactory == null) {
            return socket;
        }
        SSLEngine template = sslFactory.createSslEngine(host, port);
        SSLContext context = ((DefaultSslEngineFactory) sslFactory.sslEngineFactory()).sslContext();
        SSLSocket tls = (SSLSocket) context.getSocketFactory().createSocket(socket, host, port, true);
        tls.setUseClientMode(true);
        tls.setSSLParameters(template.getSSLParameters());
        tls.startHandshake();
        return tls;
    }

    SaslClient newSaslClient() throws SaslException {
        CallbackHandler callbacks = this::handle;
        String mechanism = Objects.requireNonNull(this.mechanism, "only a SASL listener makes SASL clients");
        if (mechanism.equals("PLAIN")) {
            SaslClient client =
                    Sasl.createSaslClient(new String[] {"PLAIN"}, null, "kafka", "broker", Map.of(), callbacks);
            if (client == null) {
                throw new SaslException("the JDK offers no PLAIN SASL client");
            }
            return client;
        }
        try {
            return new ScramSaslClient(ScramMechanism.forMechanismName(mechanism), callbacks);
        } catch (NoSuchAlgorithmException e) {
            throw new SaslException("the JDK lacks the hash of " + mechanism, e);
        }
    }

    private void handle(Callback[] callbacks) throws UnsupportedCallbackException {
        for (Callback callback : callbacks) {
            if (callback instanceof NameCallback name) {
                name.setName(username);
            } else if (callback instanceof PasswordCallback secret) {
                secret.setPassword(Objects.requireNonNull(password, "a SASL listener has credentials")
                        .toCharArray());
            } else if (!(callback instanceof ScramExtensionsCallback)) {
                throw new UnsupportedCallbackException(callback);
            }
        }
    }

    @Override
    public String toString() {
        return "InterBrokerSecurity(" + protocol + (mechanism == null ? "" : ", " + mechanism + " as " + username)
                + ")";
    }
}
