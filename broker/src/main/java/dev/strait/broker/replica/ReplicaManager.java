package dev.strait.broker.replica;

import dev.strait.broker.log.AppendResult;
import dev.strait.broker.log.LogConfig;
import dev.strait.broker.log.OffsetOutOfRangeException;
import dev.strait.broker.log.PartitionLog;
import dev.strait.broker.log.Time;
import dev.strait.broker.metadata.MetadataSource;
import dev.strait.broker.metadata.TopicExistsException;
import dev.strait.broker.metadata.TopicMetadata;
import dev.strait.broker.metadata.UnknownTopicException;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The partitions this node leads (on a single node: all of them), their logs, topic lifecycle and delayed
 * fetches. Topic metadata lives in the {@link MetadataSource}; logs live under one log directory as
 * {@code <topic>-<partition>}.
 *
 * <p>Thread-safe: topic create/delete/config changes are serialized on this object; partition access goes through
 * each {@link Partition}'s lock.
 */
public final class ReplicaManager implements AutoCloseable {

    private static final Logger LOGGER = LoggerFactory.getLogger(ReplicaManager.class);
    private static final Pattern LEGAL_TOPIC = Pattern.compile("[a-zA-Z0-9._-]+");
    private static final int MAX_TOPIC_NAME_LENGTH = 249;

    private final MetadataSource metadata;
    private final Path logDir;
    private final Map<String, String> brokerTopicDefaults;
    private final Time time;
    private final ConcurrentHashMap<TopicPartition, Partition> partitions = new ConcurrentHashMap<>();
    private final DelayedOperationPurgatory fetchPurgatory;

    public ReplicaManager(MetadataSource metadata, Path logDir, Map<String, String> brokerTopicDefaults, Time time,
            ScheduledExecutorService scheduler) {
        this.metadata = metadata;
        this.logDir = logDir;
        this.brokerTopicDefaults = Map.copyOf(brokerTopicDefaults);
        this.time = time;
        this.fetchPurgatory = new DelayedOperationPurgatory(scheduler);
        TopicConfigs.validate(this.brokerTopicDefaults);
    }

    /** Opens (recovering) the logs of every known topic. */
    public synchronized void startup() {
        for (TopicMetadata topic : metadata.topics()) {
            openPartitions(topic);
        }
        LOGGER.info("opened {} partitions of {} topics in {}", partitions.size(), metadata.topics().size(), logDir);
    }

    public MetadataSource metadata() {
        return metadata;
    }

    public DelayedOperationPurgatory fetchPurgatory() {
        return fetchPurgatory;
    }

    public Collection<TopicMetadata> topics() {
        return metadata.topics();
    }

    public Optional<TopicMetadata> topic(String name) {
        return metadata.topic(name);
    }

    public Optional<TopicMetadata> topic(Uuid topicId) {
        return metadata.topic(topicId);
    }

    /** The partitions open now; a snapshot. */
    public List<Partition> partitions() {
        return List.copyOf(partitions.values());
    }

    public Optional<Partition> partition(TopicPartition topicPartition) {
        return Optional.ofNullable(partitions.get(topicPartition));
    }

    /** Effective config of a topic: every supported key. */
    public Map<String, String> effectiveConfigs(TopicMetadata topic) {
        return TopicConfigs.effective(brokerTopicDefaults, topic.configs());
    }

    public Map<String, String> brokerTopicDefaults() {
        return brokerTopicDefaults;
    }

    /**
     * Appends to a partition as leader and completes delayed fetches waiting on it.
     *
     * @throws ProducerStateException   for a duplicate batch or a producer sequence/epoch error
     * @throws UnknownTopicException if this node has no such partition
     */
    public AppendResult appendRecords(TopicPartition topicPartition, ByteBuffer batches,
            List<ProducerBatch> producerBatches) {
        Partition partition = partition(topicPartition)
                .orElseThrow(() -> new UnknownTopicException("unknown partition " + topicPartition));
        AppendResult result = partition.appendAsLeader(batches, producerBatches);
        fetchPurgatory.checkAndComplete(topicPartition);
        return result;
    }

    /**
     * Creates a topic (or only validates the request).
     *
     * @throws IllegalArgumentException for a bad name, partition count or config
     * @throws TopicExistsException     if it exists
     */
    public synchronized TopicMetadata createTopic(String name, int partitionCount, Map<String, String> configs,
            boolean validateOnly) {
        validateTopicName(name);
        if (partitionCount < 1) {
            throw new IllegalArgumentException("number of partitions must be >= 1, got " + partitionCount);
        }
        TopicConfigs.validate(configs);
        if (metadata.topic(name).isPresent()) {
            throw new TopicExistsException(name);
        }
        if (validateOnly) {
            return new TopicMetadata(name, Uuid.ZERO_UUID, partitionCount, configs);
        }
        TopicMetadata topic = metadata.createTopic(name, partitionCount, configs);
        openPartitions(topic);
        LOGGER.info("created topic {} ({}) with {} partitions and configs {}", name, topic.topicId(),
                partitionCount, configs);
        return topic;
    }

    /**
     * Deletes a topic and its logs.
     *
     * @throws UnknownTopicException if there is no such topic
     */
    public synchronized TopicMetadata deleteTopic(String name) {
        TopicMetadata topic = metadata.deleteTopic(name);
        for (int i = 0; i < topic.partitions(); i++) {
            Partition partition = partitions.remove(new TopicPartition(name, i));
            if (partition != null) {
                partition.close();
                deleteRecursively(partition.dir());
                // fetches waiting on the partition can now answer UNKNOWN_TOPIC instead of waiting out max.wait.ms
                fetchPurgatory.checkAndComplete(partition.topicPartition());
            }
        }
        LOGGER.info("deleted topic {} ({})", name, topic.topicId());
        return topic;
    }

    /**
     * Replaces a topic's config overrides (or only validates them) and applies them to its logs.
     *
     * @throws UnknownTopicException    if there is no such topic
     * @throws IllegalArgumentException for a bad config
     */
    public synchronized TopicMetadata replaceTopicConfigs(String name, Map<String, String> overrides,
            boolean validateOnly) {
        TopicMetadata topic = metadata.topic(name)
                .orElseThrow(() -> new UnknownTopicException("unknown topic '" + name + "'"));
        TopicConfigs.validate(overrides);
        if (validateOnly) {
            return topic.withConfigs(overrides);
        }
        TopicMetadata updated = metadata.replaceConfigs(name, overrides);
        LogConfig logConfig = logConfigFor(updated);
        for (int i = 0; i < updated.partitions(); i++) {
            partition(new TopicPartition(name, i)).ifPresent(p -> p.updateConfig(logConfig));
        }
        return updated;
    }

    /**
     * Raises a topic's partition count (or only validates the request) and opens the new partitions' logs, which
     * start empty at offset 0 with the topic's config, like the existing ones did.
     *
     * @throws UnknownTopicException    if there is no such topic
     * @throws IllegalArgumentException if {@code newCount} is not above the current count
     */
    public synchronized TopicMetadata createPartitions(String name, int newCount, boolean validateOnly) {
        TopicMetadata topic = metadata.topic(name)
                .orElseThrow(() -> new UnknownTopicException("unknown topic '" + name + "'"));
        if (newCount <= topic.partitions()) {
            throw new IllegalArgumentException("Topic currently has " + topic.partitions()
                    + " partitions, which is higher than the requested " + newCount + ".");
        }
        if (validateOnly) {
            return topic.withPartitions(newCount);
        }
        // Metadata first: if opening a log fails, the restart opens it from the metadata instead of forgetting it.
        TopicMetadata updated = metadata.increasePartitions(name, newCount);
        openPartitions(updated, topic.partitions());
        LOGGER.info("topic {} now has {} partitions (was {})", name, newCount, topic.partitions());
        return updated;
    }

    /**
     * DeleteRecords: moves a partition's log start offset up to {@code offset} (-1: the high watermark), durably,
     * and deletes the segments wholly below it. Fetches waiting on the partition are re-checked, since reads below
     * the new start now fail.
     *
     * @return the new log start offset (the low watermark)
     * @throws UnknownTopicException         if this node has no such partition
     * @throws OffsetOutOfRangeException     if {@code offset} is negative (other than -1) or above the high watermark
     * @throws DeleteRecordsRefusedException if the topic's cleanup.policy does not include delete
     */
    public long deleteRecords(TopicPartition topicPartition, long offset) {
        Partition partition = partition(topicPartition)
                .orElseThrow(() -> new UnknownTopicException("unknown partition " + topicPartition));
        TopicMetadata topic = metadata.topic(topicPartition.topic())
                .orElseThrow(() -> new UnknownTopicException("unknown partition " + topicPartition));
        if (!logConfigFor(topic).cleanupPolicy().delete()) {
            throw new DeleteRecordsRefusedException("Records of partition " + topicPartition
                    + " can not be deleted due to the configured policy");
        }
        long lowWatermark = partition.deleteRecordsBefore(offset);
        fetchPurgatory.checkAndComplete(topicPartition);
        return lowWatermark;
    }

    /** Applies retention to every partition; called periodically. */
    public void deleteSegmentsForRetention() {
        for (Partition partition : partitions.values()) {
            try {
                partition.deleteSegmentsForRetention();
            } catch (RuntimeException e) {
                LOGGER.warn("retention failed for {}: {}", partition.topicPartition(), e.toString());
            }
        }
    }

    /** The log config in effect for a topic: built-in defaults, broker defaults, topic overrides. */
    public LogConfig logConfigFor(TopicMetadata topic) {
        return TopicConfigs.toLogConfig(effectiveConfigs(topic));
    }

    private void openPartitions(TopicMetadata topic) {
        openPartitions(topic, 0);
    }

    private void openPartitions(TopicMetadata topic, int firstPartition) {
        LogConfig logConfig = logConfigFor(topic);
        for (int i = firstPartition; i < topic.partitions(); i++) {
            TopicPartition tp = new TopicPartition(topic.name(), i);
            PartitionLog log = PartitionLog.open(logDir.resolve(topic.name() + "-" + i), logConfig, time);
            partitions.put(tp, new Partition(tp, log));
        }
    }

    private static void validateTopicName(String name) {
        if (name == null || name.isEmpty() || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("topic name '" + name + "' is illegal");
        }
        if (name.length() > MAX_TOPIC_NAME_LENGTH) {
            throw new IllegalArgumentException("topic name is longer than " + MAX_TOPIC_NAME_LENGTH + " characters");
        }
        if (!LEGAL_TOPIC.matcher(name).matches()) {
            throw new IllegalArgumentException("topic name '" + name
                    + "' may only contain ASCII letters, digits, '.', '_' and '-'");
        }
    }

    private static void deleteRecursively(Path dir) {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> paths = Files.walk(dir)) {
            List<Path> all = new ArrayList<>(paths.sorted(Comparator.reverseOrder()).toList());
            for (Path path : all) {
                Files.deleteIfExists(path);
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot delete " + dir, e);
        }
    }

    @Override
    public synchronized void close() {
        for (Partition partition : partitions.values()) {
            try {
                partition.close();
            } catch (RuntimeException e) {
                LOGGER.warn("closing {} failed: {}", partition.topicPartition(), e.toString());
            }
        }
        partitions.clear();
    }
}
