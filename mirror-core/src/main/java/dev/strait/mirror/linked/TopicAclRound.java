package dev.strait.mirror.linked;

import dev.strait.mirror.engine.TopicAclSync;
import dev.strait.mirror.sync.SyncMetrics;
import dev.strait.time.Time;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The offset-preserving mirror's ACL round ({@code --sync.topic.acls=true}): the consumers' READ and DESCRIBE ACLs
 * of each mirror topic, as on the source, through the ordinary mirror's {@link TopicAclSync}. A mirror topic has its
 * source's name, so each topic is paired with itself. A failed round is counted ({@code strait.mirror.sync.acls.*})
 * and tried again at the next config sync. Runs on the loop thread only.
 */
final class TopicAclRound {
    /** The mirror's logger: its lines read as they did before the rounds left {@link LinkedMirror}. */
    private static final Logger LOGGER = LoggerFactory.getLogger(LinkedMirror.class);

    private final LinkConfig settings;
    private final TopicAclSync acls;
    private final SyncMetrics metrics;
    private final Time time;

    TopicAclRound(LinkConfig settings, LinkedClusters clusters, SyncMetrics metrics, Time time) {
        this.settings = settings;
        this.acls = new TopicAclSync(clusters.source(), clusters.target(), LinkedClusters.TIMEOUT_MS);
        this.metrics = metrics;
        this.time = time;
    }

    /** Syncs the ACLs of these mirror topics, unless ACL sync is off or a cluster has no authorizer. */
    void run(Set<String> mirrorTopics) {
        if (!settings.topicSync().acls() || !acls.available()) {
            return;
        }
        long now = time.milliseconds();
        Map<String, String> pairs = new TreeMap<>();
        mirrorTopics.forEach(topic -> pairs.put(topic, topic));
        if (pairs.isEmpty()) {
            return;
        }
        try {
            metrics.succeeded(now, acls.sync(pairs));
        } catch (RuntimeException e) {
            long inARow = metrics.failed();
            if (SyncMetrics.worthLogging(inARow)) {
                LOGGER.warn("ACL sync failed ({} rounds in a row): {}", inARow, e.getMessage());
            }
        }
    }
}
