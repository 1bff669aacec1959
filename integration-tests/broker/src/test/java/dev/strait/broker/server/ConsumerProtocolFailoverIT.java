package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ConsumerGroupDescription;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A consumer group of the KIP-848 protocol survives the loss of its coordinator: on a three-node cluster the node
 * leading the group's {@code __consumer_offsets} partition stops or is killed; another node loads the group from the partition
 * and the members carry on with the same epoch, the same assignment and their committed offsets. Before issue 24 the
 * broker did not serve ConsumerGroupHeartbeat.
 */
@Timeout(value = 240, unit = TimeUnit.SECONDS)
class ConsumerProtocolFailoverIT {

    @ParameterizedTest(name = "coordinator {0}")
    @ValueSource(strings = {"stopped", "killed"})
    void theGroupKeepsItsEpochAssignmentAndOffsetsWhenTheCoordinatorGoes(String how) throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder()
                        .nodes(3)
                        .brokerConfig("offsets.topic.num.partitions", "3")
                        .brokerConfig("group.consumer.heartbeat.interval.ms", "500")
                        .start();
                Admin admin =
                        Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()))) {
            // Given: two members share a six-partition topic and consumed and committed everything
            String bootstrap = cluster.bootstrapServers();
            String topic = "kip848-failover";
            String group = "kip848-failover-group-" + how;
            ConsumerProtocolGroupIT.createTopic(admin, topic, 6, (short) 3);
            ConsumerProtocolGroupIT.produce(bootstrap, topic, 6, "a-", 60);
            ConsumerProtocolGroupIT.Ownership ownership = new ConsumerProtocolGroupIT.Ownership();
            Set<String> consumed = ConcurrentHashMap.newKeySet();
            List<KafkaConsumer<String, String>> consumers = new ArrayList<>();
            try {
                for (String name : List.of("f1", "f2")) {
                    KafkaConsumer<String, String> consumer = ConsumerProtocolGroupIT.consumer(bootstrap, group, name);
                    consumer.subscribe(List.of(topic), ownership.listener(name));
                    consumers.add(consumer);
                }
                ConsumerProtocolGroupIT.pollUntil(
                        consumers,
                        consumed,
                        () -> consumed.size() >= 60
                                && ownership.of("f1").size() == 3
                                && ownership.of("f2").size() == 3);
                ConsumerGroupDescription before = describe(admin, group);
                Map<String, Set<TopicPartition>> assignmentBefore =
                        new HashMap<>(Map.of("f1", ownership.of("f1"), "f2", ownership.of("f2")));

                // When: the coordinator's node stops (a controlled shutdown) or is killed (a crash)
                if (how.equals("killed")) {
                    cluster.kill(before.coordinator().id());
                } else {
                    cluster.stop(before.coordinator().id());
                }
                ConsumerProtocolGroupIT.produce(bootstrap, topic, 6, "b-", 30);
                ConsumerProtocolGroupIT.pollUntil(consumers, consumed, () -> consumed.size() >= 90);

                // Then
                ConsumerGroupDescription after = describe(admin, group);
                assertThat(after.coordinator().id())
                        .isNotEqualTo(before.coordinator().id());
                assertThat(after.groupEpoch()).isEqualTo(before.groupEpoch());
                assertThat(ownership.of("f1")).isEqualTo(assignmentBefore.get("f1"));
                assertThat(ownership.of("f2")).isEqualTo(assignmentBefore.get("f2"));
                assertThat(ownership.violations).isEmpty();
                Map<TopicPartition, OffsetAndMetadata> committed = admin.listConsumerGroupOffsets(group)
                        .partitionsToOffsetAndMetadata()
                        .get(30, TimeUnit.SECONDS);
                assertThat(committed).hasSize(6);
                committed.values().forEach(o -> assertThat(o.offset()).isEqualTo(15));
            } finally {
                consumers.forEach(c -> c.close(Duration.ofSeconds(5)));
            }
        }
    }

    private static ConsumerGroupDescription describe(Admin admin, String group) throws Exception {
        return admin.describeConsumerGroups(List.of(group))
                .describedGroups()
                .get(group)
                .get(30, TimeUnit.SECONDS);
    }
}
