package dev.strait.mirror.engine;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Makes sure each target topic exists before the first record is sent to it, and knows its partition
 * count. Creating topics ahead of the producer avoids the metadata stalls and idempotent-sequence errors
 * that auto-creation under a running producer invites.
 *
 * <p>Thread-safe: streams call {@link #ensure} concurrently; each topic is resolved once (one caller does
 * the admin calls, the others wait for its result). A failed resolution is forgotten, so a later call retries.
 */
public final class TargetTopics {
    private static final Logger LOGGER = LoggerFactory.getLogger(TargetTopics.class);
    private static final long ADMIN_TIMEOUT_MS = 60_000;
    private static final long WRITABLE_POLL_MS = 50;
    /** Topic settings copied from a source topic when the mirror creates its target; others keep the target's defaults. */
    private static final Set<String> COPIED_CONFIGS = Set.of(
        "cleanup.policy", "retention.ms", "retention.bytes", "max.message.bytes", "message.timestamp.type",
        "min.compaction.lag.ms", "max.compaction.lag.ms", "delete.retention.ms", "compression.type");

    /** What the mirror needs to know of a target topic. Immutable. */
    public record TargetTopic(String name, int partitions, int maxMessageBytes) {
    }

    private final Admin sourceAdmin;
    private final Admin targetAdmin;
    private final short replicationFactor;
    private final int producerBatchBytes;
    private final Map<String, CompletableFuture<TargetTopic>> topics = new ConcurrentHashMap<>();

    public TargetTopics(Admin sourceAdmin, Admin targetAdmin, short replicationFactor, int producerBatchBytes) {
        this.sourceAdmin = sourceAdmin;
        this.targetAdmin = targetAdmin;
        this.replicationFactor = replicationFactor;
        this.producerBatchBytes = producerBatchBytes;
    }

    /**
     * Creates {@code targetTopic} if it is missing (with the partition count and selected configs of
     * {@code sourceTopic}) and returns what the mirror needs to know of it. Blocks for at most about
     * two admin timeouts.
     */
    public TargetTopic ensure(String sourceTopic, String targetTopic) {
        CompletableFuture<TargetTopic> mine = new CompletableFuture<>();
        CompletableFuture<TargetTopic> existing = topics.putIfAbsent(targetTopic, mine);
        if (existing != null) {
            return await(existing, targetTopic);
        }
        try {
            mine.complete(resolve(sourceTopic, targetTopic));
        } catch (RuntimeException e) {
            topics.remove(targetTopic, mine);
            mine.completeExceptionally(e);
        }
        return await(mine, targetTopic);
    }

    /** Forgets what is known of a target topic, so the next {@link #ensure} looks again (e.g. after it grew). */
    public void refresh(String targetTopic) {
        topics.remove(targetTopic);
    }

    private TargetTopic resolve(String sourceTopic, String targetTopic) {
        int partitions = partitionCount(sourceTopic, targetTopic);
        int maxMessageBytes = maxMessageBytes(targetTopic);
        if (maxMessageBytes < producerBatchBytes) {
            LOGGER.warn("Target topic {} accepts batches of at most {} bytes (max.message.bytes) but the producer's "
                + "batch.size is {}: the producer can retry an oversized batch until delivery.timeout.ms. Set batch.size "
                + "in --producer.config below {}", targetTopic, maxMessageBytes, producerBatchBytes, maxMessageBytes);
        }
        return new TargetTopic(targetTopic, partitions, maxMessageBytes);
    }

    private int maxMessageBytes(String targetTopic) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, targetTopic);
        try {
            ConfigEntry entry = targetAdmin.describeConfigs(List.of(resource)).all()
                .get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS).get(resource).get("max.message.bytes");
            return entry == null || entry.value() == null ? Integer.MAX_VALUE : Integer.parseInt(entry.value());
        } catch (Exception e) {
            LOGGER.warn("Could not read max.message.bytes of target topic {} ({}); oversized records will be reported "
                + "by the target instead", targetTopic, e.toString());
            return Integer.MAX_VALUE;
        }
    }

    private int partitionCount(String sourceTopic, String targetTopic) {
        Optional<Integer> existing = describe(targetAdmin, targetTopic);
        if (existing.isPresent()) {
            return existing.get();
        }
        int partitions = describe(sourceAdmin, sourceTopic).orElseThrow(() -> new MirrorException(
            "source topic " + sourceTopic + " vanished while the mirror was creating its target " + targetTopic));
        Map<String, String> configs = sourceConfigs(sourceTopic);
        NewTopic topic = new NewTopic(targetTopic, Optional.of(partitions),
            replicationFactor < 0 ? Optional.empty() : Optional.of(replicationFactor)).configs(configs);
        try {
            targetAdmin.createTopics(List.of(topic)).all().get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
            LOGGER.info("Created target topic {} with {} partitions (replication factor {}, configs {})",
                targetTopic, partitions, replicationFactor < 0 ? "broker default" : replicationFactor, configs);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new MirrorException("could not create target topic " + targetTopic + ": " + e.getCause().getMessage()
                    + "; create it on the target cluster or give the mirror's producer principal CREATE rights", e.getCause());
            }
        } catch (Exception e) {
            throw new MirrorException("could not create target topic " + targetTopic + ": " + e, e);
        }
        // Another mirror instance may have created it first with a different count: read back the truth.
        int actual = describe(targetAdmin, targetTopic).orElse(partitions);
        awaitWritable(targetTopic, actual);
        return actual;
    }

    /**
     * Waits until every partition's leader serves the new topic. A broker lists a new topic in its
     * metadata a moment before the partition exists in its log; an idempotent producer that writes in that
     * window gets NOT_LEADER_OR_FOLLOWER and then can stall on OUT_OF_ORDER_SEQUENCE_NUMBER retries.
     */
    private void awaitWritable(String topic, int partitions) {
        Map<TopicPartition, OffsetSpec> specs = new HashMap<>();
        for (int p = 0; p < partitions; p++) {
            specs.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(ADMIN_TIMEOUT_MS);
        Exception last = null;
        while (System.nanoTime() < deadline) {
            try {
                targetAdmin.listOffsets(specs).all().get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
                return;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new MirrorException("interrupted while waiting for target topic " + topic, e);
            } catch (Exception e) {
                last = e;
                sleepQuietly(WRITABLE_POLL_MS);
            }
        }
        throw new MirrorException("target topic " + topic + " was created but its partitions did not come online within "
            + ADMIN_TIMEOUT_MS + " ms: " + last, last);
    }

    private static void sleepQuietly(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private Map<String, String> sourceConfigs(String sourceTopic) {
        ConfigResource resource = new ConfigResource(ConfigResource.Type.TOPIC, sourceTopic);
        Map<String, String> out = new HashMap<>();
        try {
            Config config = sourceAdmin.describeConfigs(List.of(resource)).all()
                .get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS).get(resource);
            for (ConfigEntry entry : config.entries()) {
                if (entry.source() == ConfigEntry.ConfigSource.DYNAMIC_TOPIC_CONFIG && COPIED_CONFIGS.contains(entry.name())) {
                    out.put(entry.name(), entry.value());
                }
            }
        } catch (Exception e) {
            LOGGER.warn("Could not read configs of source topic {} ({}); the target topic gets the target's defaults",
                sourceTopic, e.toString());
        }
        return out;
    }

    private static Optional<Integer> describe(Admin admin, String topic) {
        try {
            TopicDescription d = admin.describeTopics(List.of(topic)).allTopicNames()
                .get(ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS).get(topic);
            return Optional.of(d.partitions().size());
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return Optional.empty();
            }
            throw new MirrorException("could not describe topic " + topic + ": " + e.getCause(), e.getCause());
        } catch (Exception e) {
            throw new MirrorException("could not describe topic " + topic + ": " + e, e);
        }
    }

    private static TargetTopic await(CompletableFuture<TargetTopic> f, String topic) {
        try {
            return f.get(3 * ADMIN_TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (e.getCause() instanceof MirrorException) {
                throw (MirrorException) e.getCause();
            }
            throw new MirrorException("could not prepare target topic " + topic + ": " + e.getCause(), e.getCause());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new MirrorException("interrupted while preparing target topic " + topic, e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new MirrorException("timed out preparing target topic " + topic, e);
        }
    }
}
