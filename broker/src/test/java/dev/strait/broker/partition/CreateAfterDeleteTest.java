package dev.strait.broker.partition;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.strait.broker.metadata.FileMetadataSource;
import dev.strait.broker.metadata.MetadataSource;
import dev.strait.broker.metadata.TopicExistsException;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.time.Time;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.common.Uuid;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A topic deleted and created again through a node whose view has not applied the delete yet (a replicated cluster:
 * the controller committed the delete, another node already shows the topic gone). The create is the metadata
 * source's to decide, not the lagging view's. ci-14 saw MirrorEngineOnCompanionClusterIT fail on this.
 */
class CreateAfterDeleteTest {
    @TempDir
    Path root;

    private final ScheduledExecutorService scheduler = Executors.newSingleThreadScheduledExecutor();

    @AfterEach
    void stop() {
        scheduler.shutdownNow();
    }

    @Test
    void aCreateIsDecidedByTheMetadataSourceNotByAViewThatStillShowsTheDeletedTopic() throws Exception {
        // Given: the source holds no topic t, but this node's view still shows the deleted one
        try (FileMetadataSource file = FileMetadataSource.open(root.resolve("meta"))) {
            AtomicBoolean stale = new AtomicBoolean(true);
            TopicMetadata deleted = new TopicMetadata("t", Uuid.randomUuid(), 1, Map.of());
            MetadataSource lagging = lagging(file, deleted, stale);
            try (ReplicaManager node =
                    new ReplicaManager(lagging, root.resolve("logs"), Map.of(), Time.SYSTEM, scheduler)) {
                node.startup();

                // When: a client creates t again; Then: created (it was refused "already exists" before)
                TopicMetadata created = node.createTopic("t", 1, Map.of(), false);
                assertThat(created.topicId()).isNotEqualTo(deleted.topicId());

                // And: a validate-only create can only ask this node's view, which now shows the new t
                assertThatThrownBy(() -> node.createTopic("t", 1, Map.of(), true))
                        .isInstanceOf(TopicExistsException.class);
            }
        }
    }

    /** {@code source}, but answering {@code topic(name)} with {@code deleted} until a topic is created through it. */
    private static MetadataSource lagging(MetadataSource source, TopicMetadata deleted, AtomicBoolean stale) {
        return (MetadataSource) Proxy.newProxyInstance(
                MetadataSource.class.getClassLoader(), new Class<?>[] {MetadataSource.class}, (proxy, method, args) -> {
                    if (method.getName().equals("createTopic")) {
                        stale.set(false);
                    }
                    if (stale.get()
                            && method.getName().equals("topic")
                            && args != null
                            && deleted.name().equals(args[0])) {
                        return Optional.of(deleted);
                    }
                    try {
                        return method.invoke(source, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });
    }
}
