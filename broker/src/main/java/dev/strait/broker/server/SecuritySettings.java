package dev.strait.broker.server;

import static dev.strait.settings.Setting.ofBoolean;
import static dev.strait.settings.Setting.ofClass;
import static dev.strait.settings.Setting.ofList;
import static dev.strait.settings.Setting.ofPassword;
import static dev.strait.settings.Setting.ofString;

import dev.strait.broker.protocol.ScramBootstrap;
import dev.strait.broker.server.BrokerSettings.Group;
import dev.strait.settings.Setting;
import dev.strait.settings.Setting.Scope;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * The settings of {@link Group#SECURITY} in the table {@link BrokerSettings} gathers: listeners' security protocols,
 * the inter-broker listener, SASL and authorization. Each is declared once, with its default, what it allows and its
 * documentation.
 */
public final class SecuritySettings {

    /** Kafka's authorizer, which this broker implements over the ACLs in its metadata. */
    static final String KAFKA_STANDARD_AUTHORIZER = "org.apache.kafka.metadata.authorizer.StandardAuthorizer";
    /** The same authorizer under its own class name (a literal, so that rendering the docs loads no Kafka class). */
    static final String STRAIT_AUTHORIZER = "dev.strait.broker.security.AclAuthorizer";

    public static final Setting<List<String>> LISTENER_SECURITY_PROTOCOL_MAP = ofList(
                    "listener.security.protocol.map",
                    null,
                    Group.SECURITY,
                    "Each listener's security protocol, as NAME:PROTOCOL, comma separated; protocols are"
                            + " PLAINTEXT, SSL, SASL_PLAINTEXT and SASL_SSL. The controller listener speaks"
                            + " PLAINTEXT or SSL (mutual TLS with ssl.client.auth=required); SASL on the"
                            + " controller wire is not supported. Once the map is set, or any listener is"
                            + " secured, it must name the controller listener.")
            .defaultIs("a listener named after a protocol speaks it; the controller listener PLAINTEXT")
            .example("SASL_SSL:SASL_SSL,CONTROLLER:SSL");

    public static final Setting<String> INTER_BROKER_LISTENER_NAME = ofString(
                    "inter.broker.listener.name",
                    null,
                    Group.SECURITY,
                    "The broker listener replica fetchers and other broker-to-broker clients connect to,"
                            + " with that listener's credentials; set this or security.inter.broker.protocol,"
                            + " not both.")
            .defaultIs("the only broker listener, else the one named PLAINTEXT");

    public static final Setting<String> SECURITY_INTER_BROKER_PROTOCOL = ofString(
                    "security.inter.broker.protocol",
                    null,
                    Group.SECURITY,
                    "The security protocol replica fetchers speak: picks the broker listener named like"
                            + " it, else the one broker listener speaking it.")
            .oneOf("PLAINTEXT", "SSL", "SASL_PLAINTEXT", "SASL_SSL")
            .anyCase()
            .defaultIs("the inter-broker listener's");

    public static final Setting<List<String>> SASL_ENABLED_MECHANISMS = ofList(
                    "sasl.enabled.mechanisms",
                    null,
                    Group.SECURITY,
                    "The SASL mechanisms a SASL listener offers; required there (Kafka's default, GSSAPI, is"
                            + " not supported). PLAIN checks the user_<name>=\"<password>\" options of the"
                            + " listener's JAAS entry; SCRAM checks the credentials in the cluster metadata"
                            + " (kafka-configs --alter --add-config SCRAM-SHA-512=[password=...]). Per"
                            + " listener as listener.name.<listener>.sasl.enabled.mechanisms.")
            .oneOf("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
            .anyCase()
            .in(Scope.LISTENER)
            .example("SCRAM-SHA-512");

    public static final Setting<String> SASL_MECHANISM_INTER_BROKER_PROTOCOL = ofString(
                    "sasl.mechanism.inter.broker.protocol",
                    null,
                    Group.SECURITY,
                    "The mechanism a replica fetcher authenticates with over a SASL listener, as the"
                            + " username and password of the listener's JAAS entry for it; required when"
                            + " the inter-broker listener uses SASL, and one of its sasl.enabled.mechanisms.")
            .oneOf("PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-512")
            .anyCase()
            .example("SCRAM-SHA-512");

    public static final Setting<String> SASL_JAAS_CONFIG = ofPassword(
                    "sasl.jaas.config",
                    null,
                    Group.SECURITY,
                    "A listener's JAAS entry for one mechanism, only as"
                            + " listener.name.<listener>.<mechanism>.sasl.jaas.config (mechanism in lower"
                            + " case, e.g. listener.name.sasl_ssl.scram-sha-512.sasl.jaas.config). PLAIN's"
                            + " lists the users as user_<name>=\"<password>\"; its username and password are"
                            + " what this broker's replica fetchers authenticate with.")
            .in(Scope.LISTENER_MECHANISM);

    public static final Setting<String> STRAIT_BOOTSTRAP_SCRAM_CREDENTIALS = ofPassword(
                    "strait.bootstrap.scram.credentials",
                    null,
                    Group.SECURITY,
                    "SCRAM users to create when the cluster's metadata first accepts writes, as kafka-storage"
                            + " format --add-scram would: MECHANISM=[name=<user>,password=<password>],"
                            + " separated by ';'. A user who already has a credential of that mechanism is"
                            + " left alone, so a password changed later stays changed.")
            .checked(SecuritySettings::scramRefusal)
            .example("SCRAM-SHA-512=[name=admin,password=admin-secret]");

    public static final Setting<String> AUTHORIZER_CLASS_NAME = ofClass(
                    "authorizer.class.name",
                    "",
                    Group.SECURITY,
                    "Empty: every request is allowed. Kafka's StandardAuthorizer: requests are checked"
                            + " against the ACLs in the cluster metadata (kafka-acls), with super.users"
                            + " allowed everything.")
            .oneOf("", KAFKA_STANDARD_AUTHORIZER, STRAIT_AUTHORIZER)
            .example(KAFKA_STANDARD_AUTHORIZER);

    public static final Setting<String> SUPER_USERS = ofString(
                    "super.users",
                    null,
                    Group.SECURITY,
                    "Principals allowed everything by the authorizer, as User:<name>, separated by ';'."
                            + " Replica fetchers and controller peers authenticate as such a principal (or"
                            + " one granted CLUSTER_ACTION).")
            .example("User:admin;User:broker");

    public static final Setting<Boolean> ALLOW_EVERYONE_IF_NO_ACL_FOUND = ofBoolean(
            "allow.everyone.if.no.acl.found",
            "false",
            Group.SECURITY,
            "Whether the authorizer allows a request on a resource that no ACL matches.");

    /** Why {@code strait.bootstrap.scram.credentials} is refused (never with a password), or null. */
    private static @Nullable String scramRefusal(String value) {
        try {
            ScramBootstrap.parse(value);
            return null;
        } catch (IllegalArgumentException e) {
            return e.getMessage();
        }
    }

    /** This group's settings, in the order of the documentation. */
    static final List<Setting<?>> ALL = List.of(
            LISTENER_SECURITY_PROTOCOL_MAP,
            INTER_BROKER_LISTENER_NAME,
            SECURITY_INTER_BROKER_PROTOCOL,
            SASL_ENABLED_MECHANISMS,
            SASL_MECHANISM_INTER_BROKER_PROTOCOL,
            SASL_JAAS_CONFIG,
            STRAIT_BOOTSTRAP_SCRAM_CREDENTIALS,
            AUTHORIZER_CLASS_NAME,
            SUPER_USERS,
            ALLOW_EVERYONE_IF_NO_ACL_FOUND);

    private SecuritySettings() {}
}
