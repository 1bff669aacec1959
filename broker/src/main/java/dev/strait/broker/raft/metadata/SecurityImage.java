package dev.strait.broker.raft.metadata;

import dev.strait.broker.raft.metadata.MetadataRecord.Acl;
import dev.strait.broker.raft.metadata.MetadataRecord.ScramCredential;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.Objects;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The security part of the cluster metadata: the ACLs and the SCRAM credentials, as of some offset. Immutable;
 * a change returns a new value whose changed collection is a new instance (readers cache what they derive from
 * it by identity) while the unchanged one is shared. Both collections are sorted by every field, so equal
 * images iterate, and serialize, identically on every node.
 */
public final class SecurityImage {

    /** ACLs have set semantics; this total order over all fields only fixes the iteration order. */
    static final Comparator<Acl> ACL_ORDER = Comparator.comparing(Acl::resourceType)
            .thenComparing(Acl::resourceName)
            .thenComparing(Acl::patternType)
            .thenComparing(Acl::principal)
            .thenComparing(Acl::host)
            .thenComparing(Acl::operation)
            .thenComparing(Acl::permissionType);

    /** (Declared after the order it sorts by: static fields initialise in order.) */
    public static final SecurityImage EMPTY = new SecurityImage(
            Collections.unmodifiableSortedSet(new TreeSet<>(ACL_ORDER)), Collections.emptySortedMap());

    /** Which credential: a user and a mechanism code; ordered by user, then mechanism. */
    public record ScramKey(String user, byte mechanism) implements Comparable<ScramKey> {
        public ScramKey {
            Objects.requireNonNull(user, "user");
        }

        @Override
        public int compareTo(ScramKey other) {
            int byUser = user.compareTo(other.user);
            return byUser != 0 ? byUser : Byte.compare(mechanism, other.mechanism);
        }
    }

    private final SortedSet<Acl> acls;
    private final SortedMap<ScramKey, ScramCredential> scramCredentials;

    private SecurityImage(SortedSet<Acl> acls, SortedMap<ScramKey, ScramCredential> scramCredentials) {
        this.acls = acls;
        this.scramCredentials = scramCredentials;
    }

    public SortedSet<Acl> acls() {
        return acls;
    }

    /** One credential per user and mechanism, ordered by user then mechanism. */
    public Collection<ScramCredential> scramCredentials() {
        return scramCredentials.values();
    }

    /** The image with {@code acl} added ({@code add}) or removed; this same image if nothing changes. */
    SecurityImage withAcl(Acl acl, boolean add) {
        if (acls.contains(acl) == add) {
            return this;
        }
        TreeSet<Acl> copy = new TreeSet<>(ACL_ORDER);
        copy.addAll(acls);
        if (add) {
            copy.add(acl);
        } else {
            copy.remove(acl);
        }
        return new SecurityImage(Collections.unmodifiableSortedSet(copy), scramCredentials);
    }

    /** The image with this credential set (replacing the user's credential for the same mechanism). */
    SecurityImage withScram(ScramCredential credential) {
        ScramKey key = new ScramKey(credential.user(), credential.mechanism());
        if (credential.equals(scramCredentials.get(key))) {
            return this;
        }
        TreeMap<ScramKey, ScramCredential> copy = new TreeMap<>(scramCredentials);
        copy.put(key, credential);
        return new SecurityImage(acls, Collections.unmodifiableSortedMap(copy));
    }

    SecurityImage withoutScram(String user, byte mechanism) {
        ScramKey key = new ScramKey(user, mechanism);
        if (!scramCredentials.containsKey(key)) {
            return this;
        }
        TreeMap<ScramKey, ScramCredential> copy = new TreeMap<>(scramCredentials);
        copy.remove(key);
        return new SecurityImage(acls, Collections.unmodifiableSortedMap(copy));
    }

    /** The image holding exactly these (a snapshot's contents); a duplicate is refused, as replay cannot make one. */
    static SecurityImage of(Collection<Acl> acls, Collection<ScramCredential> credentials) {
        TreeSet<Acl> aclSet = new TreeSet<>(ACL_ORDER);
        for (Acl acl : acls) {
            if (!aclSet.add(acl)) {
                throw new IllegalArgumentException("ACL " + acl + " appears twice");
            }
        }
        TreeMap<ScramKey, ScramCredential> scram = new TreeMap<>();
        for (ScramCredential credential : credentials) {
            if (scram.put(new ScramKey(credential.user(), credential.mechanism()), credential) != null) {
                throw new IllegalArgumentException("SCRAM credential " + credential + " appears twice");
            }
        }
        if (aclSet.isEmpty() && scram.isEmpty()) {
            return EMPTY;
        }
        return new SecurityImage(Collections.unmodifiableSortedSet(aclSet), Collections.unmodifiableSortedMap(scram));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SecurityImage other
                && acls.equals(other.acls)
                && scramCredentials.equals(other.scramCredentials);
    }

    @Override
    public int hashCode() {
        return Objects.hash(acls, scramCredentials);
    }

    /** Counts only: credentials must not reach logs, and ACL lists get long. */
    @Override
    public String toString() {
        return "security(" + acls.size() + " ACLs, " + scramCredentials.size() + " SCRAM credentials)";
    }
}
