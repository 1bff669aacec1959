package dev.strait.canary;

import java.util.Locale;
import org.apache.kafka.common.errors.AuthorizationException;
import org.jspecify.annotations.Nullable;

/** The one line the canary logs when a cluster refuses its principal, with the grant that fixes it. */
final class AccessDenied {
    private AccessDenied() {}

    /**
     * One line for the cluster refusing the canary's principal: the operation, the topic, the grant; null when
     * {@code e} is no authorization failure. Kafka's message names the topic but not the operation.
     */
    static @Nullable String explain(Throwable e, String cluster, String operation, String topic) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (t instanceof AuthorizationException) {
                String op = operation.charAt(0) + operation.substring(1).toLowerCase(Locale.ROOT);
                return "the " + cluster + " cluster denied the canary's principal (" + cluster + ". settings) "
                        + operation
                        + " on topic " + topic + " (" + t.getClass().getSimpleName() + "): grant it (kafka-acls "
                        + "--bootstrap-server <" + cluster + "> --add --allow-principal User:<canary> --operation " + op
                        + " --topic " + topic + ")";
            }
        }
        return null;
    }
}
