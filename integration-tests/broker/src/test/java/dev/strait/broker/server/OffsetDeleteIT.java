package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.GroupIdNotFoundException;
import org.apache.kafka.common.errors.GroupSubscribedToTopicException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * OffsetDelete with the unmodified kafka-clients 4.1.1 Admin and kafka-consumer-groups --delete-offsets: offsets of
 * an Empty group are deleted and stay deleted when the coordinator restarts; an active consumer's subscribed topics
 * are refused (GROUP_SUBSCRIBED_TO_TOPIC) while its other offsets go; an unknown group is GROUP_ID_NOT_FOUND.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class OffsetDeleteIT {

    private static final long TIMEOUT_S = 30;
    private static final String GROUPS = "org.apache.kafka.tools.consumer.group.ConsumerGroupCommand";

    @TempDir
    Path dir;

    @Test
    void theOffsetsOfAnEmptyGroupAreDeletedAndStayDeletedAfterTheCoordinatorRestarts() throws Exception {
        TopicPartition a0 = new TopicPartition("od-a", 0);
        TopicPartition a1 = new TopicPartition("od-a", 1);
        TopicPartition b0 = new TopicPartition("od-b", 0);
        try (EmbeddedCluster cluster = EmbeddedCluster.builder().start()) {
            try (Admin admin = admin(cluster)) {
                admin.createTopics(List.of(new NewTopic("od-a", 2, (short) 1), new NewTopic("od-b", 1, (short) 1)))
                        .all()
                        .get(TIMEOUT_S, TimeUnit.SECONDS);
                admin.alterConsumerGroupOffsets(
                                "od-empty",
                                Map.of(
                                        a0, new OffsetAndMetadata(0),
                                        a1, new OffsetAndMetadata(0),
                                        b0, new OffsetAndMetadata(0)))
                        .all()
                        .get(TIMEOUT_S, TimeUnit.SECONDS);

                admin.deleteConsumerGroupOffsets("od-empty", Set.of(a0, a1))
                        .all()
                        .get(TIMEOUT_S, TimeUnit.SECONDS);

                assertThat(committed(admin, "od-empty")).containsOnlyKeys(b0);
                assertThatThrownBy(() -> admin.deleteConsumerGroupOffsets("od-nobody", Set.of(a0))
                                .all()
                                .get(TIMEOUT_S, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .hasCauseInstanceOf(GroupIdNotFoundException.class);
            }

            cluster.restart();

            try (Admin admin = admin(cluster)) {
                assertThat(committed(admin, "od-empty"))
                        .as("the tombstones were replayed")
                        .containsOnlyKeys(b0);
            }
        }
    }

    @Test
    void anActiveConsumerKeepsItsSubscribedTopicsOffsetsAndTheToolDeletesTheOthers() throws Exception {
        TopicPartition live = new TopicPartition("od-live", 0);
        TopicPartition old = new TopicPartition("od-old", 0);
        try (EmbeddedCluster cluster = EmbeddedCluster.builder()
                        .brokerConfig("group.initial.rebalance.delay.ms", "0")
                        .start();
                Admin admin = admin(cluster)) {
            admin.createTopics(List.of(new NewTopic("od-live", 1, (short) 1), new NewTopic("od-old", 1, (short) 1)))
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
            try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps(cluster, "od-active"))) {
                consumer.subscribe(List.of("od-live"));
                long deadline =
                        System.nanoTime() + Duration.ofSeconds(TIMEOUT_S).toNanos();
                while (consumer.assignment().isEmpty()) {
                    assertThat(System.nanoTime()).as("assigned in time").isLessThan(deadline);
                    consumer.poll(Duration.ofMillis(100));
                }
                consumer.commitSync(Map.of(live, new OffsetAndMetadata(0), old, new OffsetAndMetadata(0)));

                var refused = admin.deleteConsumerGroupOffsets("od-active", Set.of(live));
                assertThatThrownBy(() -> refused.partitionResult(live).get(TIMEOUT_S, TimeUnit.SECONDS))
                        .isInstanceOf(ExecutionException.class)
                        .hasCauseInstanceOf(GroupSubscribedToTopicException.class);

                KafkaTool.Result tool = KafkaTool.run(
                        dir,
                        GROUPS,
                        null,
                        "--bootstrap-server",
                        cluster.bootstrapServers(),
                        "--delete-offsets",
                        "--group",
                        "od-active",
                        "--topic",
                        "od-old");
                assertThat(tool.exitCode()).as(tool.toString()).isZero();
                assertThat(tool.stdout()).as(tool.toString()).contains("od-old").contains("Successful");

                assertThat(committed(admin, "od-active")).containsOnlyKeys(live);
            }
        }
    }

    private static Map<TopicPartition, OffsetAndMetadata> committed(Admin admin, String group) throws Exception {
        return admin.listConsumerGroupOffsets(group)
                .partitionsToOffsetAndMetadata()
                .get(TIMEOUT_S, TimeUnit.SECONDS);
    }

    private static Properties consumerProps(EmbeddedCluster cluster, String group) {
        Properties props = KafkaClientsRoundTripIT.consumerProps(cluster.bootstrapServers());
        props.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "500");
        return props;
    }

    private static Admin admin(EmbeddedCluster cluster) {
        return Admin.create(Map.of("bootstrap.servers", cluster.bootstrapServers()));
    }
}
