package dev.strait.broker.metadata;

import java.util.Collection;
import java.util.Map;
import java.util.Optional;
import org.apache.kafka.common.Uuid;

/**
 * Durable cluster metadata: the cluster id and the topics. Today a small file per broker
 * ({@link FileMetadataSource}); a Raft quorum will replace it, so callers must not assume a local file.
 *
 * <p>Implementations are thread-safe; every mutation is durable when the method returns.
 */
public interface MetadataSource extends AutoCloseable {

    String clusterId();

    Collection<TopicMetadata> topics();

    Optional<TopicMetadata> topic(String name);

    Optional<TopicMetadata> topic(Uuid topicId);

    /**
     * Adds a topic with a fresh id.
     *
     * @throws TopicExistsException if a topic of that name exists
     */
    TopicMetadata createTopic(String name, int partitions, Map<String, String> configs);

    /**
     * Removes a topic.
     *
     * @throws UnknownTopicException if there is none of that name
     */
    TopicMetadata deleteTopic(String name);

    /**
     * Replaces a topic's config overrides.
     *
     * @throws UnknownTopicException if there is none of that name
     */
    TopicMetadata replaceConfigs(String name, Map<String, String> configs);

    /**
     * Raises a topic's partition count; existing partitions keep their numbers.
     *
     * @throws UnknownTopicException    if there is none of that name
     * @throws IllegalArgumentException if {@code newCount} is not above the current count
     */
    TopicMetadata increasePartitions(String name, int newCount);

    /**
     * Reserves {@code count} producer ids that were never handed out before, also across restarts.
     *
     * @return the first id of the block
     */
    long allocateProducerIds(int count);

    @Override
    void close();
}
