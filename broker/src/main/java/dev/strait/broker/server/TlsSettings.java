package dev.strait.broker.server;

import static dev.strait.settings.Setting.ofClass;
import static dev.strait.settings.Setting.ofList;
import static dev.strait.settings.Setting.ofPassword;
import static dev.strait.settings.Setting.ofString;

import dev.strait.broker.server.BrokerSettings.Group;
import dev.strait.settings.Setting;
import dev.strait.settings.Setting.Scope;
import java.util.List;

/**
 * The settings of {@link Group#TLS} in the table {@link BrokerSettings} gathers: Kafka's ssl.* settings, each also
 * per listener. Each is declared once, with its default, what it allows and its documentation.
 */
public final class TlsSettings {

    public static final Setting<String> SSL_KEYSTORE_LOCATION = ofString(
                    "ssl.keystore.location",
                    null,
                    Group.TLS,
                    "The key store with this node's key and certificate; required on a TLS listener.")
            .in(Scope.LISTENER);

    public static final Setting<String> SSL_KEYSTORE_PASSWORD = ofPassword(
                    "ssl.keystore.password", null, Group.TLS, "The key store's password.")
            .in(Scope.LISTENER);

    public static final Setting<String> SSL_KEYSTORE_TYPE = ofString(
                    "ssl.keystore.type", "JKS", Group.TLS, "The key store's format: JKS, PKCS12 or PEM.")
            .in(Scope.LISTENER);

    public static final Setting<String> SSL_KEY_PASSWORD = ofPassword(
                    "ssl.key.password", null, Group.TLS, "The password of the key in the key store.")
            .in(Scope.LISTENER);

    public static final Setting<String> SSL_KEYSTORE_KEY = ofPassword(
                    "ssl.keystore.key",
                    null,
                    Group.TLS,
                    "The private key in PEM, inline, instead of ssl.keystore.location (with"
                            + " ssl.keystore.type=PEM).")
            .in(Scope.LISTENER);

    public static final Setting<String> SSL_KEYSTORE_CERTIFICATE_CHAIN = ofPassword(
                    "ssl.keystore.certificate.chain",
                    null,
                    Group.TLS,
                    "The certificate chain of ssl.keystore.key in PEM, inline.")
            .in(Scope.LISTENER);

    public static final Setting<String> SSL_TRUSTSTORE_LOCATION = ofString(
                    "ssl.truststore.location",
                    null,
                    Group.TLS,
                    "The trust store with the certificate authorities this node trusts: clients' and peers'"
                            + " certificates with ssl.client.auth, and the leaders' when a follower fetches"
                            + " over TLS.")
            .in(Scope.LISTENER);

    public static final Setting<String> SSL_TRUSTSTORE_PASSWORD = ofPassword(
                    "ssl.truststore.password", null, Group.TLS, "The trust store's password.")
            .in(Scope.LISTENER);

    public static final Setting<String> SSL_TRUSTSTORE_TYPE = ofString(
                    "ssl.truststore.type", "JKS", Group.TLS, "The trust store's format: JKS, PKCS12 or PEM.")
            .in(Scope.LISTENER);

    public static final Setting<String> SSL_TRUSTSTORE_CERTIFICATES = ofPassword(
                    "ssl.truststore.certificates",
                    null,
                    Group.TLS,
                    "Trusted certificates in PEM, inline, instead of ssl.truststore.location (with"
                            + " ssl.truststore.type=PEM).")
            .in(Scope.LISTENER);

    public static final Setting<String> SSL_CLIENT_AUTH = ofString(
                    "ssl.client.auth",
                    "none",
                    Group.TLS,
                    "Whether a TLS client must present a certificate (required), may (requested) or is not"
                            + " asked (none). On the controller listener, required makes each peer known by"
                            + " its certificate, whose principal must be a super user.")
            .oneOf("required", "requested", "none")
            .in(Scope.LISTENER);

    public static final Setting<String> SSL_PRINCIPAL_MAPPING_RULES = ofString(
                    "ssl.principal.mapping.rules",
                    "DEFAULT",
                    Group.TLS,
                    "Rules that map a client certificate's subject to the principal's name, as Kafka's (e.g."
                            + " RULE:^CN=([^,]*),.*$/$1/,DEFAULT makes CN=host1,O=example User:host1);"
                            + " DEFAULT keeps the whole subject.")
            .in(Scope.LISTENER);

    public static final Setting<String> SSL_ENDPOINT_IDENTIFICATION_ALGORITHM = ofString(
                    "ssl.endpoint.identification.algorithm",
                    "https",
                    Group.TLS,
                    "How this node, as a TLS client (a follower fetching, a controller peer), checks that"
                            + " the certificate names the host it dialed: https, or empty not to check.")
            .in(Scope.LISTENER);

    public static final Setting<String> SSL_PROTOCOL = ofString(
                    "ssl.protocol", "TLSv1.3", Group.TLS, "The TLS protocol of the SSLContext.")
            .in(Scope.LISTENER);

    public static final Setting<List<String>> SSL_ENABLED_PROTOCOLS = ofList(
                    "ssl.enabled.protocols",
                    "TLSv1.2,TLSv1.3",
                    Group.TLS,
                    "The TLS protocol versions connections may use.")
            .in(Scope.LISTENER);

    public static final Setting<List<String>> SSL_CIPHER_SUITES = ofList(
                    "ssl.cipher.suites", null, Group.TLS, "The cipher suites connections may use.")
            .defaultIs("the JVM's")
            .in(Scope.LISTENER);

    public static final Setting<String> SSL_PROVIDER = ofString(
                    "ssl.provider", null, Group.TLS, "The security provider of the SSLContext.")
            .defaultIs("the JVM's")
            .in(Scope.LISTENER);

    public static final Setting<String> SSL_KEYMANAGER_ALGORITHM = ofString(
                    "ssl.keymanager.algorithm", "SunX509", Group.TLS, "The key manager factory's algorithm.")
            .in(Scope.LISTENER);

    public static final Setting<String> SSL_TRUSTMANAGER_ALGORITHM = ofString(
                    "ssl.trustmanager.algorithm", "PKIX", Group.TLS, "The trust manager factory's algorithm.")
            .in(Scope.LISTENER);

    public static final Setting<String> SSL_SECURE_RANDOM_IMPLEMENTATION = ofString(
                    "ssl.secure.random.implementation", null, Group.TLS, "The SecureRandom algorithm TLS uses.")
            .defaultIs("the JVM's")
            .in(Scope.LISTENER);

    public static final Setting<String> SSL_ENGINE_FACTORY_CLASS = ofClass(
                    "ssl.engine.factory.class",
                    null,
                    Group.TLS,
                    "A class implementing Kafka's SslEngineFactory, to make TLS engines instead of Kafka's"
                            + " default one.")
            .defaultIs("Kafka's DefaultSslEngineFactory")
            .in(Scope.LISTENER);

    /** This group's settings, in the order of the documentation. */
    static final List<Setting<?>> ALL = List.of(
            SSL_KEYSTORE_LOCATION,
            SSL_KEYSTORE_PASSWORD,
            SSL_KEYSTORE_TYPE,
            SSL_KEY_PASSWORD,
            SSL_KEYSTORE_KEY,
            SSL_KEYSTORE_CERTIFICATE_CHAIN,
            SSL_TRUSTSTORE_LOCATION,
            SSL_TRUSTSTORE_PASSWORD,
            SSL_TRUSTSTORE_TYPE,
            SSL_TRUSTSTORE_CERTIFICATES,
            SSL_CLIENT_AUTH,
            SSL_PRINCIPAL_MAPPING_RULES,
            SSL_ENDPOINT_IDENTIFICATION_ALGORITHM,
            SSL_PROTOCOL,
            SSL_ENABLED_PROTOCOLS,
            SSL_CIPHER_SUITES,
            SSL_PROVIDER,
            SSL_KEYMANAGER_ALGORITHM,
            SSL_TRUSTMANAGER_ALGORITHM,
            SSL_SECURE_RANDOM_IMPLEMENTATION,
            SSL_ENGINE_FACTORY_CLASS);

    private TlsSettings() {}
}
