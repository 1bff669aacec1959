package dev.strait.broker.metadata;

import java.util.Map;
import java.util.Objects;
import org.apache.kafka.common.Uuid;

/**
 * A topic as the cluster metadata knows it. Immutable.
 *
 * @param name       topic name
 * @param topicId    stable id (Produce v13 and Fetch v13+ address topics by it)
 * @param partitions partition count
 * @param configs    topic-level overrides only (Kafka names); defaults come from the broker config
 */
public record TopicMetadata(String name, Uuid topicId, int partitions, Map<String, String> configs) {

    public TopicMetadata {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(topicId, "topicId");
        if (partitions < 1) {
            throw new IllegalArgumentException("partitions must be >= 1, got " + partitions);
        }
        configs = Map.copyOf(configs);
    }

    public TopicMetadata withConfigs(Map<String, String> newConfigs) {
        return new TopicMetadata(name, topicId, partitions, newConfigs);
    }

    public TopicMetadata withPartitions(int newPartitions) {
        return new TopicMetadata(name, topicId, newPartitions, configs);
    }
}
