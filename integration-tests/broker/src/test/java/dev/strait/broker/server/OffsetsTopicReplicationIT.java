package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Issue 11, defect 7: {@code __consumer_offsets} gets {@code offsets.topic.replication.factor} replicas, not
 * {@code default.replication.factor} ones, so losing one broker does not lose the groups' committed offsets.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class OffsetsTopicReplicationIT {

    @Test
    void theOffsetsTopicOfAThreeNodeClusterHasThreeReplicasWhateverTheTopicDefault() throws Exception {
        // Given: ordinary topics default to one replica
        try (EmbeddedCluster cluster = EmbeddedCluster.builder()
                        .nodes(3)
                        .brokerConfig("default.replication.factor", "1")
                        .brokerConfig("offsets.topic.num.partitions", "3")
                        .start();
                Admin admin = admin(cluster)) {
            // When: the brokers create the offsets topic
            TopicDescription offsets = awaitTopic(admin, "__consumer_offsets");

            // Then
            assertThat(offsets.partitions()).hasSize(3);
            for (TopicPartitionInfo partition : offsets.partitions()) {
                assertThat(partition.replicas()).as("replicas of %s", partition).hasSize(3);
            }
        }
    }

    private static TopicDescription awaitTopic(Admin admin, String topic) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
        while (true) {
            try {
                return admin.describeTopics(Set.of(topic))
                        .allTopicNames()
                        .get(10, TimeUnit.SECONDS)
                        .get(topic);
            } catch (ExecutionException e) {
                if (!(e.getCause() instanceof UnknownTopicOrPartitionException) || System.nanoTime() > deadline) {
                    throw e;
                }
            }
            Thread.sleep(100);
        }
    }

    private static Admin admin(EmbeddedCluster cluster) {
        Properties props = new Properties();
        props.putAll(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()));
        return Admin.create(props);
    }
}
