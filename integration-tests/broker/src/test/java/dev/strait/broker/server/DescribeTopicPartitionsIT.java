package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeTopicsOptions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * DescribeTopicPartitions (API key 75): kafka-clients' Admin describes topics with it when the broker advertises
 * it, paging with cursors; every partition comes back once, with its ELR and last known ELR.
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class DescribeTopicPartitionsIT {

    @Test
    void theAdminPagesThroughEveryPartitionAndSeesTheElrFields() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(1).start();
                Admin admin = Admin.create(Map.of(
                        AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                        cluster.bootstrapServers(),
                        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                        "15000",
                        AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                        "10000"))) {
            admin.createTopics(List.of(
                            new NewTopic("alpha", 3, (short) 1),
                            new NewTopic("beta", 2, (short) 1),
                            new NewTopic("gamma", 1, (short) 1)))
                    .all()
                    .get(30, TimeUnit.SECONDS);

            Map<String, TopicDescription> described = admin.describeTopics(
                            List.of("gamma", "alpha", "beta"),
                            new DescribeTopicsOptions().partitionSizeLimitPerResponse(2))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS);

            assertThat(described).containsOnlyKeys("alpha", "beta", "gamma");
            assertThat(described.get("alpha").partitions())
                    .extracting(TopicPartitionInfo::partition)
                    .containsExactly(0, 1, 2);
            assertThat(described.get("beta").partitions())
                    .extracting(TopicPartitionInfo::partition)
                    .containsExactly(0, 1);
            TopicPartitionInfo gamma = described.get("gamma").partitions().get(0);
            assertThat(gamma.leader()).isNotNull();
            assertThat(gamma.elr())
                    .as("answered by DescribeTopicPartitions, not Metadata")
                    .isEmpty();
            assertThat(gamma.lastKnownElr()).isEmpty();

            assertThatThrownBy(() -> admin.describeTopics(List.of("missing"))
                            .allTopicNames()
                            .get(30, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class)
                    .hasCauseInstanceOf(UnknownTopicOrPartitionException.class);
        }
    }
}
