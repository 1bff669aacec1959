package dev.strait.broker.protocol;

import dev.strait.broker.metadata.MetadataSource;
import dev.strait.broker.metadata.ScramCredentialEntry;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.security.scram.ScramCredential;
import org.apache.kafka.common.security.scram.internals.ScramFormatter;
import org.apache.kafka.common.security.scram.internals.ScramMechanism;

/**
 * The bootstrap users of {@code strait.bootstrap.scram.credentials}, in the syntax of Kafka's
 * {@code kafka-storage format --add-scram}: {@code SCRAM-SHA-512=[name=admin,password=admin-secret]}, several
 * separated by {@code ;}, optionally with {@code iterations=N} (default 4096). Each is written to the cluster
 * metadata only if that user has no credential of that mechanism yet.
 */
public final class ScramBootstrap {

    public static final String CONFIG = "strait.bootstrap.scram.credentials";
    private static final int DEFAULT_ITERATIONS = 4096;
    private static final Pattern ENTRY = Pattern.compile("\\s*(SCRAM-SHA-256|SCRAM-SHA-512)\\s*=\\s*\\[(.*)]\\s*");

    private record User(ScramMechanism mechanism, String name, String password, int iterations) {}

    private final List<User> users;

    private ScramBootstrap(List<User> users) {
        this.users = users;
    }

    /** @throws IllegalArgumentException with what is wrong (never the password) */
    public static ScramBootstrap parse(String value) {
        List<User> users = new ArrayList<>();
        for (String part : value.split(";")) {
            if (part.isBlank()) {
                continue;
            }
            Matcher m = ENTRY.matcher(part);
            if (!m.matches()) {
                throw new IllegalArgumentException("expected SCRAM-SHA-256=[name=<user>,password=<password>] or "
                        + "SCRAM-SHA-512=[...], separated by ';'");
            }
            Map<String, String> fields = fields(m.group(2));
            String name = fields.get("name");
            String password = fields.get("password");
            if (name == null || name.isEmpty() || password == null || password.isEmpty()) {
                throw new IllegalArgumentException(m.group(1) + " entry needs name=... and password=...");
            }
            ScramMechanism mechanism = ScramMechanism.forMechanismName(m.group(1));
            int iterations = DEFAULT_ITERATIONS;
            if (fields.containsKey("iterations")) {
                try {
                    iterations = Integer.parseInt(fields.get("iterations"));
                } catch (NumberFormatException e) {
                    throw new IllegalArgumentException("iterations of " + name + " is not a number");
                }
            }
            if (iterations < mechanism.minIterations() || iterations > mechanism.maxIterations()) {
                throw new IllegalArgumentException("iterations of " + name + " must be within ["
                        + mechanism.minIterations() + ", " + mechanism.maxIterations() + "]");
            }
            users.add(new User(mechanism, name, password, iterations));
        }
        return new ScramBootstrap(List.copyOf(users));
    }

    /** {@code key=value,key="value, with comma"} */
    private static Map<String, String> fields(String text) {
        Map<String, String> fields = new LinkedHashMap<>();
        int i = 0;
        while (i < text.length()) {
            int eq = text.indexOf('=', i);
            if (eq < 0) {
                throw new IllegalArgumentException("expected key=value inside [...]");
            }
            String key = text.substring(i, eq).trim();
            int start = eq + 1;
            String val;
            if (start < text.length() && text.charAt(start) == '"') {
                int close = text.indexOf('"', start + 1);
                if (close < 0) {
                    throw new IllegalArgumentException("unclosed quote in the value of " + key);
                }
                val = text.substring(start + 1, close);
                int comma = text.indexOf(',', close);
                i = comma < 0 ? text.length() : comma + 1;
            } else {
                int comma = text.indexOf(',', start);
                int end = comma < 0 ? text.length() : comma;
                val = text.substring(start, end).trim();
                i = end + 1;
            }
            fields.put(key, val);
        }
        return fields;
    }

    /**
     * Writes the credentials of users that have none of the mechanism yet, once the metadata has caught up.
     *
     * @return how many were written
     */
    public int apply(MetadataSource metadata) {
        if (!metadata.caughtUp()) {
            // An image not yet caught up is empty: every user would look missing and lose a changed password.
            throw new IllegalStateException("the metadata has not caught up with the quorum yet");
        }
        Set<ScramCredentialEntry.Id> existing = new HashSet<>();
        for (ScramCredentialEntry credential : metadata.scramCredentials()) {
            existing.add(credential.id());
        }
        List<ScramCredentialEntry> missing = new ArrayList<>();
        for (User user : users) {
            if (existing.contains(
                    new ScramCredentialEntry.Id(user.name(), user.mechanism().type()))) {
                continue;
            }
            try {
                ScramCredential credential =
                        new ScramFormatter(user.mechanism()).generateCredential(user.password(), user.iterations());
                missing.add(new ScramCredentialEntry(
                        user.name(),
                        user.mechanism().type(),
                        credential.salt(),
                        credential.storedKey(),
                        credential.serverKey(),
                        credential.iterations()));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException(
                        "the JDK lacks " + user.mechanism().hashAlgorithm(), e);
            }
        }
        if (!missing.isEmpty()) {
            metadata.alterScramCredentials(missing, List.of());
        }
        return missing.size();
    }
}
