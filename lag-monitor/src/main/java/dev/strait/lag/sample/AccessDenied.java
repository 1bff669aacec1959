package dev.strait.lag.sample;

import java.util.TreeSet;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.jspecify.annotations.Nullable;

/**
 * One line for a cluster refusing the lag monitor's principal: which cluster, which operation on which
 * resource, and the grant that fixes it. Kafka's own messages name neither the operation nor, for groups, the
 * group. Stateless.
 */
public final class AccessDenied {
    private AccessDenied() {}

    /** The authorization failure in {@code e}'s causes, or null. */
    public static @Nullable AuthorizationException find(Throwable e) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof AuthorizationException a) {
                return a;
            }
        }
        return null;
    }

    /**
     * @param cluster   "source" or "target": also the prefix of the settings that name the principal
     * @param operation the ACL operation needed, e.g. "READ"
     * @param resource  the resource when the exception does not name it, e.g. "group mirror" or "topic orders"
     */
    public static String message(AuthorizationException denied, String cluster, String operation, String resource) {
        String what = resource;
        if (denied instanceof TopicAuthorizationException t
                && !t.unauthorizedTopics().isEmpty()) {
            what = "topic " + String.join(", ", new TreeSet<>(t.unauthorizedTopics()));
        } else if (denied instanceof GroupAuthorizationException g && g.groupId() != null) {
            what = "group " + g.groupId();
        }
        String[] kindAndName = what.split(" ", 2);
        String name = kindAndName.length == 2 ? kindAndName[1].split(",")[0] : "<name>";
        String op = operation.charAt(0) + operation.substring(1).toLowerCase(java.util.Locale.ROOT);
        return "the " + cluster + " cluster denied the lag monitor's principal (" + cluster + ". settings) " + operation
                + " on " + what + " (" + denied.getClass().getSimpleName()
                + "): grant it (kafka-acls --bootstrap-server <"
                + cluster + "> --add --allow-principal User:<lag-monitor> --operation " + op + " --" + kindAndName[0]
                + " "
                + name + ")";
    }
}
