package dev.strait.mirror.engine;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.errors.SecurityDisabledException;
import org.apache.kafka.common.errors.UnsupportedVersionException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the consumers' ACLs of mirrored topics in step on the target: the ordinary mirror's and the offset-preserving
 * mirror's ACL sync. Off for the rest of the run once a cluster says it has no authorizer. One caller thread.
 */
public final class TopicAclSync {
    private static final Logger LOGGER = LoggerFactory.getLogger(TopicAclSync.class);

    private final Admin sourceAdmin;
    private final Admin targetAdmin;
    private final long adminTimeoutMs;
    private volatile boolean unavailable;

    public TopicAclSync(Admin sourceAdmin, Admin targetAdmin, long adminTimeoutMs) {
        this.sourceAdmin = sourceAdmin;
        this.targetAdmin = targetAdmin;
        this.adminTimeoutMs = adminTimeoutMs;
    }

    /** False once a cluster answered that it has no authorizer or does not serve ACLs. */
    public boolean available() {
        return !unavailable;
    }

    /**
     * Creates on the target the READ and DESCRIBE ACLs of each source topic (literal and prefixed ones that match
     * it) as literal ACLs of its target topic, where missing; ACLs only on the target are left alone.
     *
     * @param pairs target topic to source topic
     * @return the ACLs created
     */
    public long sync(Map<String, String> pairs) {
        Set<AclBinding> wanted = new HashSet<>();
        Set<AclBinding> present = new HashSet<>();
        try {
            for (Map.Entry<String, String> p : pairs.entrySet()) {
                for (AclBinding b : acls(sourceAdmin, p.getValue(), PatternType.MATCH)) {
                    wanted.addAll(targetAcls(b, p.getKey()));
                }
                present.addAll(acls(targetAdmin, p.getKey(), PatternType.LITERAL));
            }
        } catch (SecurityDisabledException | UnsupportedVersionException e) {
            unavailable = true;
            LOGGER.warn(
                    "ACL sync is on but a cluster has no authorizer or does not support ACLs ({}); ACL sync is off "
                            + "for this run",
                    e.getMessage());
            return 0;
        }
        wanted.removeAll(present);
        if (wanted.isEmpty()) {
            return 0;
        }
        try {
            targetAdmin.createAcls(wanted).all().get(adminTimeoutMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new MirrorException(
                    "could not create ACLs on the target: " + MirrorException.causeMessage(e)
                            + "; the mirror's target principal needs ALTER on the cluster",
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MirrorException("interrupted creating ACLs on the target", e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new MirrorException("timed out creating ACLs on the target", e);
        }
        LOGGER.info("Created {} ACLs on the target as on the source: {}", wanted.size(), wanted);
        return wanted.size();
    }

    /** A source ACL that applies to a mirrored topic, as literal ACLs on its target topic (READ and DESCRIBE only). */
    public static List<AclBinding> targetAcls(AclBinding source, String targetTopic) {
        AccessControlEntry e = source.entry();
        List<AclOperation> ops = switch (e.operation()) {
            case READ -> List.of(AclOperation.READ);
            case DESCRIBE -> List.of(AclOperation.DESCRIBE);
            case ALL -> List.of(AclOperation.READ, AclOperation.DESCRIBE);
            default -> List.of();
        };
        ResourcePattern pattern = new ResourcePattern(ResourceType.TOPIC, targetTopic, PatternType.LITERAL);
        List<AclBinding> out = new ArrayList<>();
        for (AclOperation op : ops) {
            out.add(new AclBinding(pattern, new AccessControlEntry(e.principal(), e.host(), op, e.permissionType())));
        }
        return out;
    }

    private Collection<AclBinding> acls(Admin admin, String topic, PatternType type) {
        AclBindingFilter filter = new AclBindingFilter(
                new ResourcePatternFilter(ResourceType.TOPIC, topic, type), AccessControlEntryFilter.ANY);
        try {
            return admin.describeAcls(filter).values().get(adminTimeoutMs, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof SecurityDisabledException) {
                throw (SecurityDisabledException) e.getCause();
            }
            if (e.getCause() instanceof UnsupportedVersionException) {
                throw (UnsupportedVersionException) e.getCause();
            }
            throw new MirrorException(
                    "could not describe ACLs of topic " + topic + ": "
                            + MirrorException.causeMessage(e)
                            + "; the mirror's principals need DESCRIBE on the cluster",
                    e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MirrorException("interrupted describing ACLs", e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new MirrorException("timed out describing ACLs of topic " + topic, e);
        }
    }
}
