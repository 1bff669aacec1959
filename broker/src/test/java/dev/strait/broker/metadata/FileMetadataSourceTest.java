package dev.strait.broker.metadata;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileMetadataSourceTest {

    @TempDir
    Path dir;

    @Test
    void topicsClusterIdAndProducerIdsSurviveReopening() {
        // Given
        String clusterId;
        TopicMetadata created;
        long firstBlock;
        try (FileMetadataSource source = FileMetadataSource.open(dir)) {
            clusterId = source.clusterId();
            created = source.createTopic("a.b", 3, Map.of("retention.ms", "1000"));
            source.createTopic("gone", 1, Map.of());
            source.deleteTopic("gone");
            source.replaceConfigs("a.b", Map.of("retention.ms", "2000", "cleanup.policy", "delete"));
            firstBlock = source.allocateProducerIds(1000);
        }

        // When
        try (FileMetadataSource reopened = FileMetadataSource.open(dir)) {
            // Then
            assertThat(reopened.clusterId()).isEqualTo(clusterId);
            assertThat(reopened.topics()).hasSize(1);
            TopicMetadata topic = reopened.topic("a.b").orElseThrow();
            assertThat(topic.topicId()).isEqualTo(created.topicId());
            assertThat(reopened.topic(created.topicId())).contains(topic);
            assertThat(topic.partitions()).isEqualTo(3);
            assertThat(topic.configs()).isEqualTo(Map.of("retention.ms", "2000", "cleanup.policy", "delete"));
            assertThat(reopened.allocateProducerIds(1000)).isEqualTo(firstBlock + 1000);
        }
    }

    @Test
    void duplicatesAndUnknownTopicsAreRefused() {
        try (FileMetadataSource source = FileMetadataSource.open(dir)) {
            source.createTopic("t", 1, Map.of());
            assertThatThrownBy(() -> source.createTopic("t", 2, Map.of())).isInstanceOf(TopicExistsException.class);
            assertThatThrownBy(() -> source.deleteTopic("u")).isInstanceOf(UnknownTopicException.class);
            assertThatThrownBy(() -> source.replaceConfigs("u", Map.of())).isInstanceOf(UnknownTopicException.class);
        }
    }

    @Test
    void partitionCountIncreasesDurablyAndNeverDecreases() {
        // Given
        try (FileMetadataSource source = FileMetadataSource.open(dir)) {
            source.createTopic("grow", 2, Map.of("retention.ms", "1000"));

            // When
            TopicMetadata grown = source.increasePartitions("grow", 5);

            // Then
            assertThat(grown.partitions()).isEqualTo(5);
            assertThatThrownBy(() -> source.increasePartitions("grow", 5))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessageContaining("not be an increase");
            assertThatThrownBy(() -> source.increasePartitions("nope", 3)).isInstanceOf(UnknownTopicException.class);
        }
        try (FileMetadataSource reopened = FileMetadataSource.open(dir)) {
            TopicMetadata topic = reopened.topic("grow").orElseThrow();
            assertThat(topic.partitions()).isEqualTo(5);
            assertThat(topic.configs()).isEqualTo(Map.of("retention.ms", "1000"));
        }
    }
}
