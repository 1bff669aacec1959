package dev.strait.mirror.linked;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * The admin reads and writes that failover and failback of mirror topics share, each bounded in time and turned
 * into a {@link LinkException} that names the cluster's answer.
 */
final class MirrorTopicAdmin {
    private static final long TIMEOUT_S = 30;

    private MirrorTopicAdmin() {}

    /** Every topic matching the pattern whose configs name a source, with its configs, by name. */
    static Map<String, Config> mirrorTopics(Admin admin, Pattern topics, String cluster) {
        try {
            List<ConfigResource> resources = new ArrayList<>();
            for (String name : admin.listTopics().names().get(TIMEOUT_S, TimeUnit.SECONDS)) {
                if (topics.matcher(name).matches()) {
                    resources.add(new ConfigResource(ConfigResource.Type.TOPIC, name));
                }
            }
            Map<String, Config> mirrors = new TreeMap<>();
            if (resources.isEmpty()) {
                return mirrors;
            }
            for (Map.Entry<ConfigResource, Config> e : admin.describeConfigs(resources)
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS)
                    .entrySet()) {
                Config config = e.getValue();
                if (!value(config, MirrorTopicConfigs.SOURCE_BOOTSTRAP_SERVERS).isEmpty()
                        || !value(config, MirrorTopicConfigs.LINK).isEmpty()) {
                    mirrors.put(e.getKey().name(), config);
                }
            }
            return mirrors;
        } catch (ExecutionException | TimeoutException e) {
            throw new LinkException("the " + cluster + " cluster did not list its mirror topics: " + rootMessage(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LinkException("interrupted while listing mirror topics");
        }
    }

    /** A topic's description; empty if the cluster has no such topic. */
    static Optional<TopicDescription> describe(Admin admin, String topic, String cluster) {
        try {
            return Optional.of(Objects.requireNonNull(
                    admin.describeTopics(List.of(topic))
                            .allTopicNames()
                            .get(TIMEOUT_S, TimeUnit.SECONDS)
                            .get(topic),
                    "describeTopics answers for the topic it was asked"));
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return Optional.empty();
            }
            throw new LinkException("cannot describe " + topic + " on the " + cluster + " cluster: " + rootMessage(e));
        } catch (TimeoutException e) {
            throw new LinkException("cannot describe " + topic + " on the " + cluster + " cluster: " + rootMessage(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LinkException("interrupted while describing " + topic);
        }
    }

    /** A topic's configs (its overrides and defaults as the cluster reports them). */
    static Config configs(Admin admin, String topic, String cluster) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, topic);
        try {
            return Objects.requireNonNull(
                    admin.describeConfigs(List.of(resource))
                            .all()
                            .get(TIMEOUT_S, TimeUnit.SECONDS)
                            .get(resource),
                    "configs of " + topic);
        } catch (ExecutionException | TimeoutException e) {
            throw new LinkException(
                    "cannot read the configs of " + topic + " on the " + cluster + " cluster: " + rootMessage(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LinkException("interrupted while reading the configs of " + topic);
        }
    }

    /** The partitions of a topic that exists. */
    static List<TopicPartition> partitionsOf(Admin admin, String topic, String cluster) {
        TopicDescription description = describe(admin, topic, cluster)
                .orElseThrow(() -> new LinkException("the " + cluster + " cluster has no topic " + topic));
        List<TopicPartition> partitions = new ArrayList<>();
        description.partitions().forEach(p -> partitions.add(new TopicPartition(topic, p.partition())));
        return partitions;
    }

    /** Sets (a value) or deletes (null) topic configs, as one incremental change. */
    static void alter(Admin admin, String topic, Map<String, String> changes, String what) {
        List<AlterConfigOp> ops = new ArrayList<>();
        new TreeMap<>(changes)
                .forEach((k, v) -> ops.add(
                        v == null
                                ? new AlterConfigOp(new ConfigEntry(k, ""), AlterConfigOp.OpType.DELETE)
                                : new AlterConfigOp(new ConfigEntry(k, v), AlterConfigOp.OpType.SET)));
        try {
            admin.incrementalAlterConfigs(Map.of(new ConfigResource(ConfigResource.Type.TOPIC, topic), ops))
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
        } catch (ExecutionException | TimeoutException e) {
            throw new LinkException("cannot " + what + " " + topic + ": " + rootMessage(e));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new LinkException("interrupted while trying to " + what + " " + topic);
        }
    }

    /** The offset read for {@code key}: the maps {@link #offsets} returns hold every partition asked. */
    static <K> long offsetOf(Map<K, Long> offsets, K key) {
        Long offset = offsets.get(key);
        if (offset == null) {
            throw new IllegalStateException("no offset was read for " + key);
        }
        return offset;
    }

    /** Each partition's offset per the spec; -1 for a partition that answered an error. */
    static Map<TopicPartition, Long> offsets(
            Admin admin, Collection<TopicPartition> partitions, OffsetSpec spec, boolean readCommitted) {
        Map<TopicPartition, OffsetSpec> request = new HashMap<>();
        partitions.forEach(tp -> request.put(tp, spec));
        ListOffsetsOptions options =
                new ListOffsetsOptions(readCommitted ? IsolationLevel.READ_COMMITTED : IsolationLevel.READ_UNCOMMITTED);
        Map<TopicPartition, Long> result = new HashMap<>();
        var answer = admin.listOffsets(request, options);
        for (TopicPartition tp : partitions) {
            try {
                result.put(
                        tp,
                        answer.partitionResult(tp)
                                .get(TIMEOUT_S, TimeUnit.SECONDS)
                                .offset());
            } catch (ExecutionException e) {
                result.put(tp, -1L);
            } catch (TimeoutException e) {
                throw new LinkException("no offsets for " + tp + " within " + TIMEOUT_S + " s");
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LinkException("interrupted while reading offsets");
            }
        }
        return result;
    }

    static String value(Config config, String name) {
        ConfigEntry entry = config.get(name);
        return entry == null || entry.value() == null ? "" : entry.value().trim();
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() == null ? t.toString() : t.getMessage();
    }
}
