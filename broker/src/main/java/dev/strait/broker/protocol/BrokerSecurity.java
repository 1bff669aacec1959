package dev.strait.broker.protocol;

import dev.strait.broker.metadata.AclEntry;
import dev.strait.broker.metadata.MetadataSource;
import dev.strait.broker.network.TlsEngineFactory;
import dev.strait.broker.security.AclAuthorizer;
import dev.strait.broker.security.Principals;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.jspecify.annotations.Nullable;

/**
 * A broker's security, from Kafka's settings: each listener's {@link ListenerSecurity} and the authorizer
 * ({@code authorizer.class.name} naming Kafka's {@code StandardAuthorizer}, {@code super.users},
 * {@code allow.everyone.if.no.acl.found}) over the ACLs in the cluster metadata. The authorizer follows the
 * metadata: it is rebuilt when the ACL collection the metadata returns changes.
 */
public final class BrokerSecurity {

    /** Our own name for the same authorizer, also accepted. */
    public static final String STRAIT_AUTHORIZER = AclAuthorizer.class.getName();

    private final Map<String, ListenerSecurity> listeners;
    private final Supplier<AclAuthorizer> authorizer;

    private BrokerSecurity(Map<String, ListenerSecurity> listeners, Supplier<AclAuthorizer> authorizer) {
        this.listeners = Map.copyOf(listeners);
        this.authorizer = authorizer;
    }

    /** Plain TCP everywhere, no authorizer: what a broker without security settings runs. */
    public static BrokerSecurity none() {
        return new BrokerSecurity(Map.of(), () -> null);
    }

    /**
     * @param listenerProtocols each listener's name and its security protocol (from
     *                          {@code listener.security.protocol.map})
     * @throws IllegalArgumentException naming a missing or wrong setting
     */
    public static BrokerSecurity create(
            Map<String, String> props, Map<String, String> listenerProtocols, MetadataSource metadata) {
        Map<String, ListenerSecurity> listeners = new LinkedHashMap<>();
        for (Map.Entry<String, String> listener : listenerProtocols.entrySet()) {
            listeners.put(
                    listener.getKey(),
                    ListenerSecurity.create(
                            listener.getKey(),
                            listener.getValue(),
                            props,
                            (user, mechanism) ->
                                    SecurityAdminHandler.lookup(metadata.scramCredentials(), user, mechanism)));
        }
        return new BrokerSecurity(listeners, authorizer(props, metadata));
    }

    static Supplier<AclAuthorizer> authorizer(Map<String, String> props, MetadataSource metadata) {
        String className = props.getOrDefault("authorizer.class.name", "").trim();
        if (className.isEmpty()) {
            return () -> null;
        }
        if (!className.equals(AclAuthorizer.KAFKA_STANDARD_AUTHORIZER) && !className.equals(STRAIT_AUTHORIZER)) {
            throw new IllegalArgumentException("authorizer.class.name: " + className + " is not supported; use "
                    + AclAuthorizer.KAFKA_STANDARD_AUTHORIZER + " (ACLs kept in the cluster metadata)");
        }
        Set<KafkaPrincipal> superUsers = Principals.parseList(props.get("super.users"));
        String allowValue = props.getOrDefault("allow.everyone.if.no.acl.found", "false")
                .trim()
                .toLowerCase(Locale.ROOT);
        if (!allowValue.equals("true") && !allowValue.equals("false")) {
            throw new IllegalArgumentException(
                    "allow.everyone.if.no.acl.found: expected true or false, got " + allowValue);
        }
        AclAuthorizer empty = new AclAuthorizer(superUsers, Boolean.parseBoolean(allowValue), java.util.List.of());
        return new Supplier<>() {
            private volatile Cached cached = new Cached(null, empty);

            @Override
            public AclAuthorizer get() {
                Cached seen = cached;
                Collection<AclEntry> acls = metadata.acls();
                if (acls == seen.source()) {
                    return seen.authorizer();
                }
                // Two threads may both rebuild after a change; they build the same thing.
                Cached fresh = new Cached(acls, empty.withAcls(SecurityAdminHandler.bindings(acls)));
                cached = fresh;
                return fresh.authorizer();
            }
        };
    }

    /** An authorizer and the ACL collection it was built from. */
    /** {@code source}: the ACL set the authorizer was built from; null before the first. */
    private record Cached(@Nullable Collection<AclEntry> source, AclAuthorizer authorizer) {}

    /** The security of a listener; a listener not configured here is PLAINTEXT. */
    public ListenerSecurity listener(String name) {
        ListenerSecurity security = listeners.get(name);
        return security != null ? security : ListenerSecurity.plaintext(name);
    }

    /** The TLS engines of a listener, or null if it speaks no TLS. */
    public @Nullable TlsEngineFactory tlsEngines(String listener) {
        return listener(listener).tlsEngines();
    }

    public boolean authorizerEnabled() {
        return authorizer.get() != null;
    }

    Supplier<AclAuthorizer> authorizer() {
        return authorizer;
    }
}
