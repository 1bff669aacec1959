package dev.strait.mirror.linked;

import static dev.strait.mirror.linked.LinkedClusters.TIMEOUT_MS;

import dev.strait.mirror.linked.LinkedTopics.Linked;
import dev.strait.mirror.sync.Clusters;
import dev.strait.mirror.sync.SyncMetrics;
import dev.strait.time.Time;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The offset-preserving mirror's topic round: reads the matching source topics and the target's topics of the same
 * names, lets {@link TopicPlan} decide for each, and carries the decision out: creates the mirror topic, grows it
 * after its source, or (when the round syncs configs) copies the source settings that changed; a target topic that
 * is not a mirror of its source is reported, never changed. Publishes the outcome in {@link LinkedTopics}.
 *
 * <p>One topic failing does not stop the round for the others; the round then counts as failed
 * ({@code strait.mirror.sync.mirror-topics.*}, and {@code topic-configs.*} when it synced configs) and the next
 * round tries again. Runs on the loop thread only.
 */
final class MirrorTopicRound {
    /** The mirror's logger: its lines read as they did before the rounds left {@link LinkedMirror}. */
    private static final Logger LOGGER = LoggerFactory.getLogger(LinkedMirror.class);

    private final LinkConfig settings;
    private final LinkedClusters clusters;
    private final LinkedTopics topics;
    private final SyncMetrics topicMetrics;
    private final SyncMetrics configMetrics;
    private final Time time;

    MirrorTopicRound(
            LinkConfig settings,
            LinkedClusters clusters,
            LinkedTopics topics,
            SyncMetrics topicMetrics,
            SyncMetrics configMetrics,
            Time time) {
        this.settings = settings;
        this.clusters = clusters;
        this.topics = topics;
        this.topicMetrics = topicMetrics;
        this.configMetrics = configMetrics;
        this.time = time;
    }

    /** Creates, grows and (with {@code syncConfigs}) updates the mirror topics; reports the topics it skips. */
    void run(boolean syncConfigs) {
        long now = time.milliseconds();
        int changes = 0;
        int configChanges = 0;
        List<String> failed = new ArrayList<>();
        try {
            Admin sourceAdmin = clusters.source();
            Admin targetAdmin = clusters.target();
            Set<String> names =
                    Clusters.get(sourceAdmin.listTopics().names(), TIMEOUT_MS, "list source topics").stream()
                            .filter(t -> settings.topics().matcher(t).matches())
                            .collect(Collectors.toCollection(HashSet::new));
            Map<String, TopicDescription> sources = describe(sourceAdmin, names);
            Set<String> onTarget =
                    new HashSet<>(Clusters.get(targetAdmin.listTopics().names(), TIMEOUT_MS, "list target topics"));
            onTarget.retainAll(sources.keySet());
            Map<String, Integer> targetPartitions = Clusters.partitionCounts(targetAdmin, onTarget, TIMEOUT_MS);
            Map<String, Config> targetConfigs = configs(targetAdmin, targetPartitions.keySet());
            Set<String> needSourceConfigs = new HashSet<>(sources.keySet());
            if (!syncConfigs) {
                needSourceConfigs.removeAll(targetPartitions.keySet());
            }
            Map<String, Config> sourceConfigs = configs(sourceAdmin, needSourceConfigs);
            Map<String, Linked> nowMirrored = new TreeMap<>();
            Map<String, String> nowSkipped = new TreeMap<>();
            for (TopicDescription d : sources.values()) {
                String topic = d.name();
                TopicPlan.Source source = new TopicPlan.Source(
                        topic, d.topicId().toString(), d.partitions().size(), copied(sourceConfigs.get(topic)));
                Integer partitions = targetPartitions.get(topic);
                TopicPlan.Target target =
                        partitions == null ? null : new TopicPlan.Target(partitions, values(targetConfigs.get(topic)));
                TopicPlan.Decision decision = TopicPlan.decide(
                        source, target, settings.source(), settings.topicSync().partitions());
                try {
                    if (decision instanceof TopicPlan.Create create) {
                        create(source, create);
                        changes++;
                        nowMirrored.put(topic, new Linked(source.partitions(), create.partitions()));
                    } else if (decision instanceof TopicPlan.Keep keep) {
                        int targetCount = Objects.requireNonNull(partitions, "a kept topic is on the target");
                        if (keep.growTo() > 0) {
                            targetCount = grow(topic, targetCount, keep.growTo());
                            changes++;
                        }
                        if (!keep.configChanges().isEmpty()) {
                            alter(topic, keep.configChanges());
                            configChanges += keep.configChanges().size();
                        }
                        nowMirrored.put(topic, new Linked(source.partitions(), targetCount));
                    } else if (decision instanceof TopicPlan.Skip skip) {
                        nowSkipped.put(topic, skip.reason());
                        if (!skip.reason().equals(topics.skipped().get(topic))) {
                            LOGGER.warn(
                                    "Not mirroring source topic {} with --offset.preserving: the target's topic {} {}. "
                                            + "It is left alone; delete or rename it on the target to have it mirrored",
                                    topic,
                                    topic,
                                    skip.reason());
                        }
                    }
                } catch (RuntimeException e) {
                    failed.add(topic + ": " + e.getMessage());
                    if (partitions != null && decision instanceof TopicPlan.Keep) {
                        nowMirrored.put(topic, new Linked(source.partitions(), partitions));
                    }
                }
            }
            topics.publish(nowMirrored, nowSkipped);
        } catch (RuntimeException e) {
            failed.add(e.getMessage());
        }
        if (failed.isEmpty()) {
            topicMetrics.succeeded(now, changes);
            if (syncConfigs) {
                configMetrics.succeeded(now, configChanges);
            }
        } else {
            long inARow = topicMetrics.failed();
            if (syncConfigs) {
                configMetrics.failed();
            }
            if (SyncMetrics.worthLogging(inARow)) {
                LOGGER.warn(
                        "Setting up mirror topics failed ({} rounds in a row), tried again in {} ms: {}",
                        inARow,
                        settings.discoveryIntervalMs(),
                        String.join("; ", failed));
            }
        }
    }

    private void create(TopicPlan.Source source, TopicPlan.Create create) {
        short rf = settings.replicationFactor();
        NewTopic topic = new NewTopic(
                        source.name(), Optional.of(create.partitions()), rf < 0 ? Optional.empty() : Optional.of(rf))
                .configs(create.configs());
        try {
            clusters.target().createTopics(List.of(topic)).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            LOGGER.info(
                    "Created mirror topic {} with {} partitions, copying source topic id {} (configs {})",
                    source.name(),
                    create.partitions(),
                    source.topicId(),
                    create.configs());
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new LinkException(
                        "could not create mirror topic " + source.name() + ": "
                                + (e.getCause() == null ? e : e.getCause()).getMessage(),
                        e.getCause());
            }
            // Created by someone else meanwhile: the next round looks at what it is.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LinkException("interrupted", e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new LinkException("timed out creating mirror topic " + source.name(), e);
        }
    }

    private int grow(String topic, int from, int to) {
        try {
            clusters.target()
                    .createPartitions(Map.of(topic, NewPartitions.increaseTo(to)))
                    .all()
                    .get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
            LOGGER.info("Grew mirror topic {} from {} to {} partitions, as its source grew", topic, from, to);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof InvalidPartitionsException)) {
                throw new LinkException(
                        "could not grow mirror topic " + topic + " from " + from + " to " + to + " partitions: "
                                + (e.getCause() == null ? e : e.getCause()).getMessage(),
                        e.getCause());
            }
            // Grown by someone else meanwhile.
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LinkException("interrupted", e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new LinkException("timed out growing mirror topic " + topic, e);
        }
        return to;
    }

    private void alter(String topic, Map<String, String> changes) {
        List<AlterConfigOp> ops = new ArrayList<>();
        changes.forEach((k, v) -> ops.add(new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
        Clusters.get(
                clusters.target()
                        .incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic), ops))
                        .all(),
                TIMEOUT_MS,
                "set " + changes.keySet() + " on mirror topic " + topic);
        LOGGER.info("Synced settings {} of source topic {} to its mirror topic", changes, topic);
    }

    private static Map<String, TopicDescription> describe(Admin admin, Collection<String> topics) {
        Map<String, TopicDescription> out = new HashMap<>();
        if (topics.isEmpty()) {
            return out;
        }
        admin.describeTopics(topics).topicNameValues().forEach((name, future) -> {
            try {
                out.put(name, future.get(TIMEOUT_MS, TimeUnit.MILLISECONDS));
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException)) {
                    throw new LinkException("could not describe topic " + name + ": " + e.getCause(), e.getCause());
                }
                // Deleted since it was listed.
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LinkException("interrupted", e);
            } catch (java.util.concurrent.TimeoutException e) {
                throw new LinkException("timed out describing topic " + name, e);
            }
        });
        return out;
    }

    private static Map<String, Config> configs(Admin admin, Collection<String> topics) {
        Map<String, Config> out = new HashMap<>();
        if (topics.isEmpty()) {
            return out;
        }
        List<ConfigResource> resources = topics.stream()
                .map(t -> new ConfigResource(ConfigResource.Type.TOPIC, t))
                .toList();
        Clusters.get(admin.describeConfigs(resources).all(), TIMEOUT_MS, "read topic configs")
                .forEach((r, c) -> out.put(r.name(), c));
        return out;
    }

    /** The settings made on a source topic that the ordinary mirror's filter lets through. */
    private Map<String, String> copied(@Nullable Config config) {
        Map<String, String> out = new HashMap<>();
        if (config == null) {
            return out;
        }
        for (ConfigEntry e : config.entries()) {
            if (e.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG
                    && e.value() != null
                    && settings.topicSync().filter().copies(e.name())) {
                out.put(e.name(), e.value());
            }
        }
        return out;
    }

    private static Map<String, String> values(@Nullable Config config) {
        Map<String, String> out = new HashMap<>();
        if (config != null) {
            for (ConfigEntry e : config.entries()) {
                if (e.value() != null) {
                    out.put(e.name(), e.value());
                }
            }
        }
        return out;
    }
}
