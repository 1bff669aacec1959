package dev.strait.mirror.failover;

import java.util.Collection;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Supplier;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.jspecify.annotations.Nullable;

/**
 * The one line a failback prints when a cluster refuses one of its steps. Kafka's authorization errors name
 * neither the cluster nor the grant that is missing ("Topic authorization failed."), and a failback works on both
 * clusters with two principals, so each step says which cluster, which operation on which resource, and the
 * {@code kafka-acls} call that grants it. Stateless.
 */
final class Denial {
    private Denial() {}

    /** The authorization failure in {@code e}'s cause chain, or null. */
    static @Nullable AuthorizationException find(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof AuthorizationException denied) {
                return denied;
            }
            if (t.getCause() == t) {
                break;
            }
        }
        return null;
    }

    /**
     * {@code cluster} ("source" or "target") denied {@code operation} (Kafka's ACL operation, e.g. READ) on the
     * {@code kind} ("topic" or "group") {@code names}; a topic refusal that names its topics wins over them.
     */
    static String line(
            String cluster, AuthorizationException denied, String operation, String kind, Collection<String> names) {
        Set<String> resources = new TreeSet<>(names);
        if (denied instanceof TopicAuthorizationException t
                && kind.equals("topic")
                && !t.unauthorizedTopics().isEmpty()) {
            resources = new TreeSet<>(t.unauthorizedTopics());
        }
        String first =
                resources.isEmpty() ? "<" + kind + ">" : resources.iterator().next();
        String op = operation.charAt(0)
                + operation.substring(1).toLowerCase(Locale.ROOT).replace("_c", "C");
        return "the " + cluster + " cluster denied the principal of the " + cluster + ". settings " + operation + " on "
                + kind + " " + String.join(", ", resources) + " ("
                + denied.getClass().getSimpleName()
                + "): grant it (kafka-acls --bootstrap-server <" + cluster
                + "> --add --allow-principal User:<failback> "
                + "--operation " + op + " --" + kind + " " + first + ")";
    }

    /** Runs {@code step}, a step on {@code cluster}; a refusal comes out as {@link #translate} makes it. */
    static <T> T guard(String cluster, String operation, String kind, Collection<String> names, Supplier<T> step) {
        try {
            return step.get();
        } catch (RuntimeException e) {
            throw translate(e, cluster, operation, kind, names);
        }
    }

    /** A {@link FailoverException} with {@link #line} when {@code e} is an authorization failure, else {@code e}. */
    static RuntimeException translate(
            RuntimeException e, String cluster, String operation, String kind, Collection<String> names) {
        AuthorizationException denied = find(e);
        return denied == null ? e : new FailoverException(line(cluster, denied, operation, kind, names), e);
    }
}
