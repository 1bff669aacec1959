package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.clients.admin.NewPartitionReassignment;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.PartitionReassignment;
import org.apache.kafka.clients.admin.TopicDescription;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.errors.InvalidReplicaAssignmentException;
import org.apache.kafka.common.errors.NoReassignmentInProgressException;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignablePartition;
import org.apache.kafka.common.message.AlterPartitionReassignmentsRequestData.ReassignableTopic;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsRequest;
import org.apache.kafka.common.requests.AlterPartitionReassignmentsResponse;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Partition reassignment (KIP-455) on three nodes, as {@code Admin.alterPartitionReassignments} and
 * {@code kafka-reassign-partitions} drive it: a partition of replication factor 2 moves from {0, 1} to {1, 2} and
 * then to {2, 0} while an idempotent acks=all producer writes to it; while a move waits for its added replica,
 * ListPartitionReassignments and DescribeTopicPartitions show the union with the adding and removing replicas, and
 * the move survives a restart of every live node (a controller failover); once the added replica is in sync the
 * move completes, the removed replica deletes its copy, and every acknowledged record is read back once, in order,
 * at its offset, from each new replica alone. Bad inputs get Kafka's errors.
 */
@Timeout(value = 300, unit = TimeUnit.SECONDS)
class PartitionReassignmentIT {

    private static final long TIMEOUT_S = 60;
    private static final int MAX_RECORDS = 40_000;
    private static final String REASSIGN = "org.apache.kafka.tools.reassign.ReassignPartitionsCommand";

    @TempDir
    Path dir;

    @Test
    void aPartitionMovesTwiceUnderAcksAllLoadAndEveryAcknowledgedRecordLivesOnTheNewReplicas() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(3).start();
                Admin admin = admin(cluster)) {
            // Given a topic of replication factor 2 on {0, 1}, min.insync.replicas 2, and a producer writing to it
            String topic = "moving";
            TopicPartition tp = new TopicPartition(topic, 0);
            admin.createTopics(List.of(
                            new NewTopic(topic, Map.of(0, List.of(0, 1))).configs(Map.of("min.insync.replicas", "2"))))
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
            awaitReplicas(admin, topic, List.of(0, 1));
            Producing producing = new Producing(cluster.bootstrapServers(), topic);
            producing.thread.start();
            try {
                producing.awaitAcked(500);

                // When it moves to {1, 2} while node 2 is down, and every live node restarts mid-move
                cluster.stop(2);
                admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(1, 2)))))
                        .all()
                        .get(TIMEOUT_S, TimeUnit.SECONDS);

                // Then the move is listed and described as running: the union, 2 being added, 0 removed
                PartitionReassignment running = admin.listPartitionReassignments()
                        .reassignments()
                        .get(TIMEOUT_S, TimeUnit.SECONDS)
                        .get(tp);
                assertThat(running).as("the running reassignment of %s", tp).isNotNull();
                assertThat(running.replicas()).containsExactly(1, 2, 0);
                assertThat(running.addingReplicas()).containsExactly(2);
                assertThat(running.removingReplicas()).containsExactly(0);
                assertThat(admin.listPartitionReassignments(Set.of(tp, new TopicPartition("absent", 0)))
                                .reassignments()
                                .get(TIMEOUT_S, TimeUnit.SECONDS))
                        .containsOnlyKeys(tp);
                assertThat(ids(describe(admin, topic).replicas())).containsExactly(1, 2, 0);

                // (a rolling restart of the two live nodes: the active controller is one of them)
                cluster.restart(0);
                cluster.restart(1);
                assertThat(admin.listPartitionReassignments().reassignments().get(TIMEOUT_S, TimeUnit.SECONDS))
                        .as("the reassignment after a restart of every live node")
                        .containsKey(tp);
                cluster.resume(2);
                producing.awaitAcked(producing.acked.size() + 500);

                // And, once node 2 caught up, it completes
                awaitReplicas(admin, topic, List.of(1, 2));
                awaitDeleted(cluster, 0, tp);

                // When it moves on to {2, 0}, with every node up
                admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(2, 0)))))
                        .all()
                        .get(TIMEOUT_S, TimeUnit.SECONDS);

                // Then it completes too
                awaitReplicas(admin, topic, List.of(2, 0));
                awaitDeleted(cluster, 1, tp);
                producing.awaitAcked(producing.acked.size() + 500);
            } finally {
                producing.stop();
            }
            assertThat(producing.failure.get()).as("the producer's first error").isNull();
            assertThat(admin.listPartitionReassignments().reassignments().get(TIMEOUT_S, TimeUnit.SECONDS))
                    .isEmpty();

            // And every acknowledged record is on node 2 alone and on node 0 alone, once, in order, at its offset.
            // With one replica down the ISR is below min.insync.replicas=2, where the high watermark stays (KIP-966)
            // and the last records acknowledged would not be readable yet: read with min.insync.replicas=1.
            admin.incrementalAlterConfigs(Map.of(
                            new ConfigResource(ConfigResource.Type.TOPIC, topic),
                            List.of(new AlterConfigOp(
                                    new ConfigEntry("min.insync.replicas", "1"), AlterConfigOp.OpType.SET))))
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
            for (int down : List.of(0, 2, 1)) {
                awaitReplicas(admin, topic, List.of(2, 0));
                cluster.stop(down);
                try {
                    assertThat(awaitLeader(admin, topic)).isNotEqualTo(down);
                    producing.verifyReadBack(cluster.bootstrapServers(), tp, "with node " + down + " down");
                } finally {
                    cluster.resume(down);
                }
            }
        }
    }

    @Test
    void badReassignmentsGetKafkasErrorsAndKafkasToolExecutesAndVerifiesAPlan() throws Exception {
        try (EmbeddedCluster cluster = EmbeddedCluster.builder().nodes(3).start();
                Admin admin = admin(cluster)) {
            String topic = "planned";
            TopicPartition tp = new TopicPartition(topic, 0);
            admin.createTopics(List.of(new NewTopic(topic, Map.of(0, List.of(0, 1), 1, List.of(1, 2)))))
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
            awaitReplicas(admin, topic, List.of(0, 1));

            Map<String, Map<TopicPartition, Optional<NewPartitionReassignment>>> refused = Map.of(
                    "an unknown broker", Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(0, 7)))),
                    "a broker twice", Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(2, 2)))));
            for (var entry : refused.entrySet()) {
                assertThat(errorOf(admin, entry.getValue()))
                        .as(entry.getKey())
                        .isInstanceOf(InvalidReplicaAssignmentException.class);
            }
            assertThat(errorOf(
                            admin,
                            Map.of(
                                    new TopicPartition(topic, 5),
                                    Optional.of(new NewPartitionReassignment(List.of(0))))))
                    .isInstanceOf(UnknownTopicOrPartitionException.class);
            assertThat(errorOf(
                            admin,
                            Map.of(
                                    new TopicPartition("absent", 0),
                                    Optional.of(new NewPartitionReassignment(List.of(0))))))
                    .isInstanceOf(UnknownTopicOrPartitionException.class);
            assertThat(errorOf(admin, Map.of(tp, Optional.empty())))
                    .isInstanceOf(NoReassignmentInProgressException.class);
            // An empty target, which the Admin does not send
            String[] hostPort = cluster.bootstrapServers().split(",")[0].split(":");
            try (RawKafkaClient raw = new RawKafkaClient(hostPort[0], Integer.parseInt(hostPort[1]))) {
                AlterPartitionReassignmentsRequestData data = new AlterPartitionReassignmentsRequestData();
                data.topics()
                        .add(new ReassignableTopic()
                                .setName(topic)
                                .setPartitions(List.of(new ReassignablePartition()
                                        .setPartitionIndex(0)
                                        .setReplicas(List.of()))));
                AlterPartitionReassignmentsResponse response = (AlterPartitionReassignmentsResponse)
                        raw.call(new AlterPartitionReassignmentsRequest.Builder(data).build((short) 1));
                assertThat(response.data().errorCode()).isZero();
                assertThat(Errors.forCode(response.data()
                                .responses()
                                .get(0)
                                .partitions()
                                .get(0)
                                .errorCode()))
                        .isEqualTo(Errors.INVALID_REPLICA_ASSIGNMENT);
            }
            assertThat(ids(describe(admin, topic).replicas())).containsExactly(0, 1);

            // A move cancelled while it waits for its added replica goes back to the original replicas
            cluster.stop(2);
            admin.alterPartitionReassignments(Map.of(tp, Optional.of(new NewPartitionReassignment(List.of(2, 1)))))
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
            assertThat(admin.listPartitionReassignments().reassignments().get(TIMEOUT_S, TimeUnit.SECONDS))
                    .containsKey(tp);
            admin.alterPartitionReassignments(Map.of(tp, Optional.empty()))
                    .all()
                    .get(TIMEOUT_S, TimeUnit.SECONDS);
            assertThat(admin.listPartitionReassignments().reassignments().get(TIMEOUT_S, TimeUnit.SECONDS))
                    .isEmpty();
            assertThat(ids(describe(admin, topic).replicas())).containsExactlyInAnyOrder(0, 1);
            cluster.resume(2);

            // kafka-reassign-partitions --execute and --verify with a JSON plan
            Path plan = dir.resolve("plan.json");
            Files.writeString(
                    plan,
                    "{\"version\":1,\"partitions\":[{\"topic\":\"planned\",\"partition\":0,\"replicas\":[2,0]},"
                            + "{\"topic\":\"planned\",\"partition\":1,\"replicas\":[0,1]}]}",
                    StandardCharsets.UTF_8);
            KafkaTool.Result execute = KafkaTool.run(
                    dir,
                    REASSIGN,
                    null,
                    "--bootstrap-server",
                    cluster.bootstrapServers(),
                    "--reassignment-json-file",
                    plan.toString(),
                    "--execute");
            assertThat(execute.exitCode()).as(execute.toString()).isZero();
            assertThat(execute.stdout()).as(execute.toString()).contains("Successfully started partition reassignment");
            awaitReplicas(admin, topic, List.of(2, 0));
            KafkaTool.Result verify = KafkaTool.run(
                    dir,
                    REASSIGN,
                    null,
                    "--bootstrap-server",
                    cluster.bootstrapServers(),
                    "--reassignment-json-file",
                    plan.toString(),
                    "--verify");
            assertThat(verify.exitCode()).as(verify.toString()).isZero();
            assertThat(verify.stdout())
                    .as(verify.toString())
                    .contains("Reassignment of partition planned-0 is completed")
                    .contains("Reassignment of partition planned-1 is completed");
            assertThat(ids(describe(admin, topic, 1).replicas())).containsExactly(0, 1);
        }
    }

    // ---------------------------------------------------------------- the producer

    /** An idempotent acks=all producer, bounded in count, writing "v-0", "v-1", ... and keeping what was acked. */
    private static final class Producing {
        final ConcurrentSkipListMap<Long, String> acked = new ConcurrentSkipListMap<>();
        final AtomicBoolean stopped = new AtomicBoolean();
        final java.util.concurrent.atomic.AtomicReference<Exception> failure =
                new java.util.concurrent.atomic.AtomicReference<>();
        final AtomicInteger sent = new AtomicInteger();
        final Thread thread;

        Producing(String bootstrap, String topic) {
            thread = new Thread(() -> run(bootstrap, topic), "reassignment-producer");
        }

        private void run(String bootstrap, String topic) {
            try (KafkaProducer<String, String> producer = KafkaClientsRoundTripIT.producer(
                    bootstrap,
                    Map.of(
                            "acks", "all",
                            "enable.idempotence", "true",
                            "delivery.timeout.ms", "120000",
                            "request.timeout.ms", "10000",
                            "max.block.ms", "60000"))) {
                for (int i = 0; i < MAX_RECORDS && !stopped.get(); i++) {
                    String value = "v-" + i;
                    producer.send(new ProducerRecord<>(topic, 0, null, value), (metadata, error) -> {
                        if (error == null) {
                            acked.put(metadata.offset(), value);
                        } else {
                            failure.compareAndSet(null, error);
                        }
                    });
                    sent.incrementAndGet();
                    if (i % 20 == 19) {
                        Thread.sleep(5); // a steady stream, not a flood
                    }
                }
                producer.flush();
            } catch (Exception e) {
                failure.compareAndSet(null, e);
            }
        }

        void awaitAcked(int count) throws InterruptedException {
            long deadline = System.nanoTime() + Duration.ofSeconds(TIMEOUT_S).toNanos();
            while (acked.size() < Math.min(count, MAX_RECORDS) && System.nanoTime() < deadline) {
                Thread.sleep(50);
            }
            assertThat(acked.size())
                    .as("acknowledged records (first error %s)", failure.get())
                    .isGreaterThanOrEqualTo(Math.min(count, MAX_RECORDS));
        }

        void stop() throws InterruptedException {
            stopped.set(true);
            thread.join(TimeUnit.SECONDS.toMillis(150));
            assertThat(thread.isAlive()).isFalse();
        }

        /** Reads the partition from offset 0 to the last acknowledged one and checks every acked record. */
        void verifyReadBack(String bootstrap, TopicPartition tp, String when) {
            long last = acked.lastKey();
            List<ConsumerRecord<String, String>> records = new ArrayList<>();
            try (KafkaConsumer<String, String> consumer =
                    new KafkaConsumer<>(KafkaClientsRoundTripIT.consumerProps(bootstrap))) {
                consumer.assign(List.of(tp));
                consumer.seek(tp, 0);
                long deadline =
                        System.nanoTime() + Duration.ofSeconds(TIMEOUT_S).toNanos();
                while ((records.isEmpty() || records.get(records.size() - 1).offset() < last)
                        && System.nanoTime() < deadline) {
                    consumer.poll(Duration.ofMillis(200)).forEach(records::add);
                }
            }
            Map<Long, String> byOffset = new java.util.HashMap<>();
            List<String> values = new ArrayList<>();
            for (ConsumerRecord<String, String> record : records) {
                byOffset.put(record.offset(), record.value());
                values.add(record.value());
            }
            assertThat(records).as("records read %s", when).isNotEmpty();
            assertThat(records.get(records.size() - 1).offset())
                    .as("last offset read %s", when)
                    .isGreaterThanOrEqualTo(last);
            for (Map.Entry<Long, String> entry : acked.entrySet()) {
                assertThat(byOffset.get(entry.getKey()))
                        .as("record at offset %d %s", entry.getKey(), when)
                        .isEqualTo(entry.getValue());
            }
            assertThat(values).as("values read %s", when).doesNotHaveDuplicates();
            List<Integer> sequence =
                    values.stream().map(v -> Integer.parseInt(v.substring(2))).toList();
            assertThat(sequence).as("values read %s", when).isSorted();
        }
    }

    // ---------------------------------------------------------------- helpers

    private static Admin admin(EmbeddedCluster cluster) {
        return Admin.create(Map.of(
                "bootstrap.servers", cluster.bootstrapServers(),
                "default.api.timeout.ms", "60000",
                "request.timeout.ms", "10000"));
    }

    private static Throwable errorOf(Admin admin, Map<TopicPartition, Optional<NewPartitionReassignment>> request)
            throws Exception {
        try {
            admin.alterPartitionReassignments(request).all().get(TIMEOUT_S, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        }
    }

    private static List<Integer> ids(List<Node> nodes) {
        return nodes.stream().map(Node::id).toList();
    }

    private static TopicPartitionInfo describe(Admin admin, String topic) throws Exception {
        return describe(admin, topic, 0);
    }

    private static TopicPartitionInfo describe(Admin admin, String topic, int partition) throws Exception {
        TopicDescription description = admin.describeTopics(List.of(topic))
                .allTopicNames()
                .get(TIMEOUT_S, TimeUnit.SECONDS)
                .get(topic);
        return description.partitions().get(partition);
    }

    /** Waits until partition 0 has exactly {@code replicas}, all in sync, a leader and no running reassignment. */
    private static void awaitReplicas(Admin admin, String topic, List<Integer> replicas) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(TIMEOUT_S).toNanos();
        TopicPartitionInfo info = null;
        while (System.nanoTime() < deadline) {
            try {
                info = describe(admin, topic);
                if (ids(info.replicas()).equals(replicas)
                        && info.leader() != null
                        && ids(info.isr()).containsAll(replicas)) {
                    return;
                }
            } catch (ExecutionException e) {
                // a node restarting: ask again
            }
            Thread.sleep(100);
        }
        throw new AssertionError("partition " + topic + "-0 not on " + replicas + " with all in sync within "
                + TIMEOUT_S + " s: " + info);
    }

    private static int awaitLeader(Admin admin, String topic) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(TIMEOUT_S).toNanos();
        while (System.nanoTime() < deadline) {
            try {
                TopicPartitionInfo info = describe(admin, topic);
                if (info.leader() != null && !info.leader().isEmpty()) {
                    return info.leader().id();
                }
            } catch (ExecutionException e) {
                // a node restarting: ask again
            }
            Thread.sleep(100);
        }
        throw new AssertionError("no leader for " + topic + "-0 within " + TIMEOUT_S + " s");
    }

    /** Waits until {@code node} deleted its copy of {@code tp}, which moved off it. */
    private static void awaitDeleted(EmbeddedCluster cluster, int node, TopicPartition tp) throws Exception {
        Path copy = cluster.dataDir().resolve("node-" + node).resolve(tp.topic() + "-" + tp.partition());
        long deadline = System.nanoTime() + Duration.ofSeconds(TIMEOUT_S).toNanos();
        while (Files.exists(copy) && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        assertThat(copy).as("the copy of %s on node %d", tp, node).doesNotExist();
    }
}
