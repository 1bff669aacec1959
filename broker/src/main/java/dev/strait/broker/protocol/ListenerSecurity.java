package dev.strait.broker.protocol;

import dev.strait.broker.network.TlsEngineFactory;
import dev.strait.broker.security.ScramCredentialStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.Principal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLPeerUnverifiedException;
import javax.net.ssl.SSLSession;
import javax.security.auth.callback.Callback;
import javax.security.auth.callback.CallbackHandler;
import javax.security.auth.callback.NameCallback;
import javax.security.auth.callback.UnsupportedCallbackException;
import javax.security.auth.login.AppConfigurationEntry;
import javax.security.auth.x500.X500Principal;
import javax.security.sasl.SaslServer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.SslConfigs;
import org.apache.kafka.common.config.internals.BrokerSecurityConfigs;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.common.network.ConnectionMode;
import org.apache.kafka.common.network.ListenerName;
import org.apache.kafka.common.security.JaasContext;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.apache.kafka.common.security.auth.SecurityProtocol;
import org.apache.kafka.common.security.plain.PlainAuthenticateCallback;
import org.apache.kafka.common.security.plain.internals.PlainSaslServer;
import org.apache.kafka.common.security.scram.ScramCredentialCallback;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;
import org.apache.kafka.common.security.scram.internals.ScramSaslServer;
import org.apache.kafka.common.security.ssl.DefaultSslEngineFactory;
import org.apache.kafka.common.security.ssl.SslFactory;
import org.apache.kafka.common.security.ssl.SslPrincipalMapper;
import org.jspecify.annotations.Nullable;

/**
 * How one listener secures its connections, from Kafka's settings: the security protocol mapped to the
 * listener ({@code listener.security.protocol.map}); for SSL and SASL_SSL the TLS engines from Kafka's own
 * {@link SslFactory} over {@code ssl.*} ({@code ssl.keystore.*}, {@code ssl.key.password},
 * {@code ssl.truststore.*}, {@code ssl.client.auth}, protocols, cipher suites), each overridable per listener as
 * {@code listener.name.<name>.ssl.*}; for SASL the mechanisms ({@code sasl.enabled.mechanisms}, overridable the
 * same way) with kafka-clients' SASL servers: PLAIN checking the {@code user_<name>="<password>"} options of
 * {@code listener.name.<name>.plain.sasl.jaas.config}, SCRAM-SHA-256/512 against the credentials in the cluster
 * metadata. Principals: SASL's authorization id as {@code User:<id>}; over SSL the client certificate's subject
 * through {@code ssl.principal.mapping.rules}, {@code User:ANONYMOUS} without one.
 *
 * <p>Immutable and thread-safe once built (the SASL servers it makes are per connection).
 */
public final class ListenerSecurity {

    static final List<String> SUPPORTED_MECHANISMS = List.of("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512");

    private final String listenerName;
    private final SecurityProtocol protocol;
    private final List<String> mechanisms;
    private final Map<String, String> plainUsers;
    // Null where the listener does not use them (no SCRAM, no SSL).
    private final @Nullable ScramCredentialStore scramCredentials;
    private final @Nullable SslPrincipalMapper principalMapper;
    private final @Nullable SslFactory sslFactory;
    private final Map<String, Object> clientSideSsl;

    private ListenerSecurity(
            String listenerName,
            SecurityProtocol protocol,
            List<String> mechanisms,
            Map<String, String> plainUsers,
            @Nullable ScramCredentialStore scramCredentials,
            @Nullable SslPrincipalMapper principalMapper,
            @Nullable SslFactory sslFactory,
            Map<String, Object> clientSideSsl) {
        this.listenerName = listenerName;
        this.protocol = protocol;
        this.mechanisms = mechanisms;
        this.plainUsers = plainUsers;
        this.scramCredentials = scramCredentials;
        this.principalMapper = principalMapper;
        this.sslFactory = sslFactory;
        this.clientSideSsl = clientSideSsl;
    }

    /** A PLAINTEXT listener: no TLS, no SASL, everyone is {@code User:ANONYMOUS}. */
    public static ListenerSecurity plaintext(String listenerName) {
        return new ListenerSecurity(
                listenerName, SecurityProtocol.PLAINTEXT, List.of(), Map.of(), null, null, null, Map.of());
    }

    /**
     * The security of {@code listenerName} speaking {@code protocol}, from the broker's settings.
     *
     * @throws IllegalArgumentException naming the setting that is missing or wrong
     */
    public static ListenerSecurity create(
            String listenerName,
            String protocol,
            Map<String, String> brokerProps,
            ScramCredentialStore scramCredentials) {
        SecurityProtocol securityProtocol;
        try {
            securityProtocol = SecurityProtocol.forName(protocol.toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("listener " + listenerName + ": unknown security protocol " + protocol
                    + " (PLAINTEXT, SSL, SASL_PLAINTEXT or SASL_SSL)");
        }
        if (securityProtocol == SecurityProtocol.PLAINTEXT) {
            return plaintext(listenerName);
        }
        ListenerName name = ListenerName.normalised(listenerName);
        AbstractConfig config;
        try {
            config = new AbstractConfig(securityConfigDef(), brokerProps, false);
        } catch (org.apache.kafka.common.config.ConfigException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
        Map<String, Object> values = config.valuesWithPrefixOverride(name.configPrefix());
        SslPrincipalMapper mapper = SslPrincipalMapper.fromRules(
                (String) values.get(BrokerSecurityConfigs.SSL_PRINCIPAL_MAPPING_RULES_CONFIG));
        SslFactory sslFactory = null;
        if (securityProtocol == SecurityProtocol.SSL || securityProtocol == SecurityProtocol.SASL_SSL) {
            if (values.get(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG) == null) {
                throw new IllegalArgumentException("listener " + listenerName + " (" + securityProtocol
                        + ") needs a key store: set ssl.keystore.location (or " + name.configPrefix()
                        + "ssl.keystore.location), ssl.keystore.password and ssl.key.password");
            }
            sslFactory = new SslFactory(ConnectionMode.SERVER, null, false);
            try {
                sslFactory.configure(values);
            } catch (KafkaException e) {
                throw new IllegalArgumentException(
                        "listener " + listenerName + ": TLS settings rejected: " + rootMessage(e));
            }
        }
        List<String> mechanisms = List.of();
        Map<String, String> plainUsers = Map.of();
        if (securityProtocol == SecurityProtocol.SASL_PLAINTEXT || securityProtocol == SecurityProtocol.SASL_SSL) {
            mechanisms = mechanisms(listenerName, brokerProps, name);
            if (mechanisms.contains("PLAIN")) {
                plainUsers = plainUsers(name, brokerProps);
            }
        }
        return new ListenerSecurity(
                listenerName, securityProtocol, mechanisms, plainUsers, scramCredentials, mapper, sslFactory, values);
    }

    /** A listener's TLS as JDK objects for blocking sockets (the controller wire), both sides. */
    public record SocketTls(
            SSLContext serverContext,
            SSLParameters serverParameters,
            SSLContext clientContext,
            SSLParameters clientParameters) {}

    /**
     * The TLS of {@code listenerName} from Kafka's {@code ssl.*} settings (with its {@code listener.name.<name>.}
     * overrides), through Kafka's own SslFactory so that every setting means what it means in Kafka.
     *
     * @throws IllegalArgumentException naming what is missing or rejected
     */
    public static SocketTls socketTls(String listenerName, Map<String, String> brokerProps) {
        ListenerName name = ListenerName.normalised(listenerName);
        Map<String, Object> values;
        try {
            values = new AbstractConfig(securityConfigDef(), brokerProps, false)
                    .valuesWithPrefixOverride(name.configPrefix());
        } catch (org.apache.kafka.common.config.ConfigException e) {
            throw new IllegalArgumentException(e.getMessage());
        }
        if (values.get(SslConfigs.SSL_KEYSTORE_LOCATION_CONFIG) == null) {
            throw new IllegalArgumentException("listener " + listenerName + " (SSL) needs a key store: set "
                    + name.configPrefix() + "ssl.keystore.location (or ssl.keystore.location), its password and "
                    + "ssl.key.password");
        }
        try {
            SslFactory server = new SslFactory(ConnectionMode.SERVER, null, false);
            server.configure(values);
            SslFactory client = new SslFactory(ConnectionMode.CLIENT, null, false);
            client.configure(values);
            SSLParameters serverParameters =
                    server.createSslEngine("localhost", 0).getSSLParameters();
            SSLParameters clientParameters =
                    client.createSslEngine("localhost", 0).getSSLParameters();
            clientParameters.setServerNames(null); // each socket names its own peer
            return new SocketTls(
                    ((DefaultSslEngineFactory) server.sslEngineFactory()).sslContext(),
                    serverParameters,
                    ((DefaultSslEngineFactory) client.sslEngineFactory()).sslContext(),
                    clientParameters);
        } catch (KafkaException e) {
            throw new IllegalArgumentException(
                    "listener " + listenerName + ": TLS settings rejected: " + rootMessage(e));
        }
    }

    private static ConfigDef securityConfigDef() {
        ConfigDef def = new ConfigDef();
        SslConfigs.addClientSslSupport(def);
        def.define(
                BrokerSecurityConfigs.SSL_CLIENT_AUTH_CONFIG,
                ConfigDef.Type.STRING,
                BrokerSecurityConfigs.SSL_CLIENT_AUTH_DEFAULT,
                ConfigDef.ValidString.in("required", "requested", "none"),
                ConfigDef.Importance.MEDIUM,
                BrokerSecurityConfigs.SSL_CLIENT_AUTH_DOC);
        def.define(
                BrokerSecurityConfigs.SSL_PRINCIPAL_MAPPING_RULES_CONFIG,
                ConfigDef.Type.STRING,
                BrokerSecurityConfigs.DEFAULT_SSL_PRINCIPAL_MAPPING_RULES,
                ConfigDef.Importance.LOW,
                BrokerSecurityConfigs.SSL_PRINCIPAL_MAPPING_RULES_DOC);
        return def;
    }

    private static List<String> mechanisms(String listenerName, Map<String, String> props, ListenerName name) {
        String value = props.get(name.configPrefix() + "sasl.enabled.mechanisms");
        if (value == null) {
            value = props.get("sasl.enabled.mechanisms");
        }
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("listener " + listenerName + " uses SASL: set sasl.enabled.mechanisms"
                    + " to some of " + String.join(", ", SUPPORTED_MECHANISMS)
                    + " (Kafka's default, GSSAPI, is not supported)");
        }
        List<String> result = new ArrayList<>();
        for (String part : value.split(",")) {
            String mechanism = part.trim().toUpperCase(Locale.ROOT);
            if (mechanism.isEmpty()) {
                continue;
            }
            if (!SUPPORTED_MECHANISMS.contains(mechanism)) {
                throw new IllegalArgumentException("sasl.enabled.mechanisms: " + mechanism + " is not supported ("
                        + String.join(", ", SUPPORTED_MECHANISMS) + " are)");
            }
            result.add(mechanism);
        }
        return List.copyOf(result);
    }

    /** The {@code user_<name>="<password>"} options of the listener's PLAIN JAAS entry, as Kafka reads them. */
    private static Map<String, String> plainUsers(ListenerName name, Map<String, String> props) {
        String key = name.saslMechanismConfigPrefix("PLAIN") + "sasl.jaas.config";
        Map<String, Object> jaas = new HashMap<>();
        if (props.get(key) != null) {
            // JaasContext reads the listener's settings with the listener prefix already stripped.
            jaas.put("plain.sasl.jaas.config", new Password(props.get(key)));
        }
        List<AppConfigurationEntry> entries;
        try {
            entries = JaasContext.loadServerContext(name, "PLAIN", jaas).configurationEntries();
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("PLAIN on listener " + name.value() + " needs " + key
                    + "=\"org.apache.kafka.common.security.plain.PlainLoginModule required user_<name>=\\\"<password>\\\""
                    + " ...;\": " + rootMessage(e));
        }
        Map<String, String> users = new LinkedHashMap<>();
        for (AppConfigurationEntry entry : entries) {
            for (Map.Entry<String, ?> option : entry.getOptions().entrySet()) {
                if (option.getKey().startsWith("user_") && option.getValue() instanceof String password) {
                    users.put(option.getKey().substring("user_".length()), password);
                }
            }
        }
        return Map.copyOf(users);
    }

    /**
     * The {@code username} and {@code password} options of the listener's JAAS entry for {@code mechanism}: what
     * this broker authenticates with when it connects to another broker (Kafka's inter-broker credentials).
     */
    public static Optional<String[]> clientCredentials(
            String listenerName, String mechanism, Map<String, String> props) {
        ListenerName name = ListenerName.normalised(listenerName);
        String key = name.saslMechanismConfigPrefix(mechanism) + "sasl.jaas.config";
        if (props.get(key) == null) {
            return Optional.empty();
        }
        Map<String, Object> jaas =
                Map.of(mechanism.toLowerCase(Locale.ROOT) + ".sasl.jaas.config", new Password(props.get(key)));
        for (AppConfigurationEntry entry :
                JaasContext.loadServerContext(name, mechanism, jaas).configurationEntries()) {
            Object user = entry.getOptions().get("username");
            Object password = entry.getOptions().get("password");
            if (user instanceof String u && password instanceof String p) {
                return Optional.of(new String[] {u, p});
            }
        }
        return Optional.empty();
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t == e ? String.valueOf(e.getMessage()) : e.getMessage() + ": " + t.getMessage();
    }

    public String listenerName() {
        return listenerName;
    }

    public SecurityProtocol protocol() {
        return protocol;
    }

    public boolean usesSasl() {
        return protocol == SecurityProtocol.SASL_PLAINTEXT || protocol == SecurityProtocol.SASL_SSL;
    }

    public boolean usesTls() {
        return sslFactory != null;
    }

    public List<String> mechanisms() {
        return mechanisms;
    }

    /** The TLS engines of this listener's connections; null if it speaks no TLS. */
    public @Nullable TlsEngineFactory tlsEngines() {
        if (sslFactory == null) {
            return null;
        }
        SslFactory factory = sslFactory;
        return factory::createSslEngine;
    }

    /** The listener's resolved {@code ssl.*} values (prefix overrides applied), for an inter-broker client. */
    Map<String, Object> resolvedSslValues() {
        return clientSideSsl;
    }

    /** The principal of a connection that does not authenticate with SASL: from its certificate, if any. */
    KafkaPrincipal transportPrincipal(Optional<SSLSession> session) {
        if (session.isEmpty()) {
            return KafkaPrincipal.ANONYMOUS;
        }
        Principal peer;
        try {
            peer = session.get().getPeerPrincipal();
        } catch (SSLPeerUnverifiedException e) {
            return KafkaPrincipal.ANONYMOUS;
        }
        if (!(peer instanceof X500Principal)) {
            return new KafkaPrincipal(KafkaPrincipal.USER_TYPE, peer.getName());
        }
        try {
            SslPrincipalMapper mapper =
                    Objects.requireNonNull(principalMapper, "a listener with TLS sessions has a principal mapper");
            return new KafkaPrincipal(KafkaPrincipal.USER_TYPE, mapper.getName(peer.getName()));
        } catch (IOException e) {
            throw new IllegalStateException("ssl.principal.mapping.rules do not map " + peer.getName(), e);
        }
    }

    /** A new SASL server for one connection's exchange. */
    SaslServer newSaslServer(String mechanism) {
        if (mechanism.equals("PLAIN")) {
            return new PlainSaslServer(this::handlePlainCallbacks);
        }
        try {
            return new ScramSaslServer(ScramMechanism.forMechanismName(mechanism), Map.of(), scramCallbacks(mechanism));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK lacks the hash of " + mechanism, e);
        }
    }

    private void handlePlainCallbacks(Callback[] callbacks) throws UnsupportedCallbackException {
        String user = null;
        for (Callback callback : callbacks) {
            if (callback instanceof NameCallback name) {
                user = name.getDefaultName();
            } else if (callback instanceof PlainAuthenticateCallback plain) {
                String expected = user == null ? null : plainUsers.get(user);
                plain.authenticated(expected != null
                        && MessageDigest.isEqual(
                                expected.getBytes(StandardCharsets.UTF_8),
                                new String(plain.password()).getBytes(StandardCharsets.UTF_8)));
            } else {
                throw new UnsupportedCallbackException(callback);
            }
        }
    }

    private CallbackHandler scramCallbacks(String mechanism) {
        return callbacks -> {
            String user = null;
            for (Callback callback : callbacks) {
                if (callback instanceof NameCallback name) {
                    user = name.getDefaultName();
                } else if (callback instanceof ScramCredentialCallback scram) {
                    scram.scramCredential(
                            user == null || scramCredentials == null
                                    ? null
                                    : scramCredentials
                                            .credential(user, mechanism)
                                            .orElse(null));
                } else {
                    // delegation tokens (tokenauth) are not supported
                    throw new UnsupportedCallbackException(callback);
                }
            }
        };
    }
}
