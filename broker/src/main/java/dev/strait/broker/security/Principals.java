package dev.strait.broker.security;

import java.util.LinkedHashSet;
import java.util.Set;
import org.apache.kafka.common.security.auth.KafkaPrincipal;
import org.jspecify.annotations.Nullable;

/** Kafka's textual principals, {@code Type:name} (e.g. {@code User:alice}), as ACLs and {@code super.users} name them. */
public final class Principals {

    private Principals() {}

    /** @throws IllegalArgumentException for text without a {@code Type:} prefix */
    public static KafkaPrincipal parse(String text) {
        int colon = text == null ? -1 : text.indexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("principal '" + text + "' must look like User:<name>");
        }
        return new KafkaPrincipal(text.substring(0, colon), text.substring(colon + 1));
    }

    /** {@code super.users}: principals separated by semicolons, e.g. {@code User:admin;User:broker}. */
    public static Set<KafkaPrincipal> parseList(@Nullable String value) {
        Set<KafkaPrincipal> principals = new LinkedHashSet<>();
        if (value != null) {
            for (String part : value.split(";")) {
                if (!part.isBlank()) {
                    principals.add(parse(part.trim()));
                }
            }
        }
        return principals;
    }
}
