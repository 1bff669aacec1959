package dev.strait.broker.protocol;

import dev.strait.broker.metadata.MetadataSource;
import dev.strait.broker.security.AclAuthorizer;
import dev.strait.broker.security.Principals;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import javax.net.ssl.SSLSession;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.jspecify.annotations.Nullable;

/**
 * Who may speak on a controller listener over mutual TLS, by Kafka's rule for controller requests: with an
 * authorizer configured, the principal of the peer's certificate ({@code ssl.principal.mapping.rules} apply) must
 * be a super user or hold CLUSTER_ACTION on the cluster. A peer that may not is disconnected before it can vote,
 * replicate metadata or ask the controller for anything (topics, ACLs, SCRAM credentials).
 *
 * <p>The ACLs are the node's own metadata, which the controller wire itself brings: until {@link #bind} gives
 * them, and while they are still loading, only super users pass, as Kafka's early-start controller listener. So
 * give the nodes' certificates {@code super.users}, as Kafka recommends.
 */
public final class ControllerPeerCheck {

    private final String listenerName;
    private final ListenerSecurity listener;
    private final Set<KafkaPrincipal> superUsers;
    private final Map<String, String> props;
    private final boolean authorizerConfigured;
    private volatile Supplier<AclAuthorizer> authorizer = () -> null;

    private ControllerPeerCheck(String listenerName, ListenerSecurity listener, Map<String, String> props) {
        this.listenerName = listenerName;
        this.listener = listener;
        this.props = Map.copyOf(props);
        this.superUsers = Principals.parseList(props.get("super.users"));
        this.authorizerConfigured =
                !props.getOrDefault("authorizer.class.name", "").isBlank();
    }

    /**
     * @throws IllegalArgumentException naming the setting that is missing or wrong
     */
    public static ControllerPeerCheck create(String listenerName, Map<String, String> props) {
        ListenerSecurity listener =
                ListenerSecurity.create(listenerName, "SSL", props, (user, mechanism) -> Optional.empty());
        return new ControllerPeerCheck(listenerName, listener, props);
    }

    /** From now on, principals holding CLUSTER_ACTION in {@code metadata}'s ACLs pass too. */
    public void bind(MetadataSource metadata) {
        authorizer = BrokerSecurity.authorizer(props, metadata);
    }

    /** Null if the peer may speak; otherwise why not, for the log. */
    public @Nullable String refusal(SSLSession session, String host) {
        if (!authorizerConfigured) {
            return null;
        }
        KafkaPrincipal principal;
        try {
            principal = listener.transportPrincipal(Optional.of(session));
        } catch (IllegalStateException e) {
            return e.getMessage();
        }
        if (superUsers.contains(principal)) {
            return null;
        }
        if (principal.equals(KafkaPrincipal.ANONYMOUS)) {
            return "the peer showed no certificate, so it has no principal to authorize: set "
                    + "listener.name." + listenerName.toLowerCase(java.util.Locale.ROOT) + ".ssl.client.auth=required "
                    + "on every node (mutual TLS), with certificates whose principals are in super.users";
        }
        AclAuthorizer current = authorizer.get();
        if (current != null
                && current.authorize(
                        principal,
                        host,
                        AclOperation.CLUSTER_ACTION,
                        ResourceType.CLUSTER,
                        RequestAuthorizer.CLUSTER_NAME)) {
            return null;
        }
        return principal + " is not in super.users and has no CLUSTER_ACTION on the cluster; grant it (kafka-acls "
                + "--add --allow-principal " + principal + " --operation ClusterAction --cluster) or add it to "
                + "super.users (listener " + listenerName + ")";
    }
}
