package dev.strait.broker.metadata;

import java.util.Arrays;
import java.util.Objects;

/**
 * A user's SCRAM credential for one mechanism as the cluster metadata stores it (RFC 5802's salt, stored key,
 * server key and iteration count; never the password). {@code mechanism} is Kafka's code: 1 SCRAM-SHA-256,
 * 2 SCRAM-SHA-512.
 */
public final class ScramCredentialEntry {

    /** Which credential: a user and a mechanism code. */
    public record Id(String user, byte mechanism) {
        public Id {
            Objects.requireNonNull(user, "user");
        }
    }

    private final String user;
    private final byte mechanism;
    private final byte[] salt;
    private final byte[] storedKey;
    private final byte[] serverKey;
    private final int iterations;

    public ScramCredentialEntry(
            String user, byte mechanism, byte[] salt, byte[] storedKey, byte[] serverKey, int iterations) {
        this.user = Objects.requireNonNull(user, "user");
        this.mechanism = mechanism;
        this.salt = salt.clone();
        this.storedKey = storedKey.clone();
        this.serverKey = serverKey.clone();
        this.iterations = iterations;
    }

    public Id id() {
        return new Id(user, mechanism);
    }

    public String user() {
        return user;
    }

    public byte mechanism() {
        return mechanism;
    }

    public byte[] salt() {
        return salt.clone();
    }

    public byte[] storedKey() {
        return storedKey.clone();
    }

    public byte[] serverKey() {
        return serverKey.clone();
    }

    public int iterations() {
        return iterations;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ScramCredentialEntry other
                && user.equals(other.user)
                && mechanism == other.mechanism
                && iterations == other.iterations
                && Arrays.equals(salt, other.salt)
                && Arrays.equals(storedKey, other.storedKey)
                && Arrays.equals(serverKey, other.serverKey);
    }

    @Override
    public int hashCode() {
        return Objects.hash(user, mechanism, iterations, Arrays.hashCode(salt));
    }

    /** No key material: these land in logs. */
    @Override
    public String toString() {
        return "ScramCredential(" + user + ", mechanism " + mechanism + ", " + iterations + " iterations)";
    }
}
