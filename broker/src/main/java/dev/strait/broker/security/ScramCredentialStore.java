package dev.strait.broker.security;

import java.util.Optional;
import org.apache.kafka.common.security.scram.ScramCredential;

/** Where a SCRAM server looks up a user's credential: the cluster metadata's current image. Thread-safe. */
@FunctionalInterface
public interface ScramCredentialStore {

    /** @param mechanism {@code SCRAM-SHA-256} or {@code SCRAM-SHA-512} */
    Optional<ScramCredential> credential(String user, String mechanism);
}
