package dev.strait.testkit;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsResult.ListOffsetsResultInfo;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.UnknownTopicOrPartitionException;

/**
 * A cluster a test talks to over the wire, whatever runs it: Apache Kafka ({@link KafkaCluster}) or Strait's
 * companion broker ({@link CompanionCluster}). Everything here goes through the Admin client, so a helper
 * behaves the same against both kinds and a suite can be run against either.
 */
public interface TestCluster extends AutoCloseable {

    /** What runs a cluster; a suite parameterised by kind runs once per value. */
    enum Kind {
        /** Apache Kafka 4.1.1, one node per child JVM. */
        KAFKA(1),
        /** One companion broker node. */
        COMPANION(1),
        /** Three companion nodes in one quorum, topics replicated three times, min.insync.replicas=2. */
        COMPANION_CLUSTER(3);

        private final int nodes;

        Kind(int nodes) {
            this.nodes = nodes;
        }

        public int nodes() {
            return nodes;
        }

        public TestCluster start(String name) {
            return this == KAFKA ? KafkaCluster.start(name, nodes) : CompanionCluster.start(name, nodes);
        }
    }

    String name();

    Kind kind();

    /** {@code host:port,...} for {@code bootstrap.servers}. */
    String bootstrapServers();

    int size();

    /** Stops every node politely; {@link #restartAll()} brings them back on the same ports with their data. */
    void stopAll();

    void restartAll();

    /** Stops node {@code index} (0-based) at once, as a crash would. */
    void killNode(int index);

    /** Starts node {@code index} (0-based) again, on its old address with its data. */
    void restartNode(int index);

    @Override
    void close();

    /** Client properties that reach this cluster. */
    default Properties clientProperties() {
        Properties props = new Properties();
        props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
        return props;
    }

    default Admin admin() {
        Properties props = clientProperties();
        props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "60000");
        return Admin.create(props);
    }

    /** Sum of the log end offsets of a topic's partitions (0 if it does not exist yet). */
    default long endOffsetSum(String topic) {
        try (Admin admin = admin()) {
            var desc = admin.describeTopics(List.of(topic))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(topic);
            Map<TopicPartition, OffsetSpec> specs = new LinkedHashMap<>();
            Objects.requireNonNull(desc, topic)
                    .partitions()
                    .forEach(p -> specs.put(new TopicPartition(topic, p.partition()), OffsetSpec.latest()));
            return admin.listOffsets(specs).all().get(30, TimeUnit.SECONDS).values().stream()
                    .mapToLong(ListOffsetsResultInfo::offset)
                    .sum();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof UnknownTopicOrPartitionException) {
                return 0;
            }
            throw new IllegalStateException("could not read end offsets of " + topic + " on " + name(), e);
        } catch (Exception e) {
            throw new IllegalStateException("could not read end offsets of " + topic + " on " + name(), e);
        }
    }

    /** Committed offsets of a consumer group, by partition number, for one topic. */
    default Map<Integer, Long> committedOffsets(String groupId, String topic) {
        try (Admin admin = admin()) {
            Map<Integer, Long> out = new TreeMap<>();
            admin.listConsumerGroupOffsets(groupId)
                    .partitionsToOffsetAndMetadata()
                    .get(30, TimeUnit.SECONDS)
                    .forEach((tp, om) -> {
                        if (tp.topic().equals(topic) && om != null) {
                            out.put(tp.partition(), om.offset());
                        }
                    });
            return out;
        } catch (Exception e) {
            throw new IllegalStateException("could not read offsets of group " + groupId + " on " + name(), e);
        }
    }

    default void createTopic(String topic, int partitions) {
        createTopic(topic, partitions, Map.of());
    }

    /** Creates a topic (replication factor min(nodes, 3)) and waits until every partition takes writes. */
    default void createTopic(String topic, int partitions, Map<String, String> configs) {
        short rf = (short) Math.min(size(), 3);
        try (Admin admin = admin()) {
            admin.createTopics(List.of(new NewTopic(topic, partitions, rf).configs(configs)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
            awaitWritable(admin, topic, partitions);
        } catch (Exception e) {
            throw new IllegalStateException("could not create topic " + topic + " on " + name(), e);
        }
    }

    /**
     * Waits until every partition's leader answers ListOffsets: a broker can show a new topic in its
     * metadata a moment before the partition exists in its log manager, and an idempotent producer that
     * writes in that window can stall on OUT_OF_ORDER_SEQUENCE_NUMBER.
     */
    static void awaitWritable(Admin admin, String topic, int partitions) throws InterruptedException {
        Map<TopicPartition, OffsetSpec> specs = new LinkedHashMap<>();
        for (int p = 0; p < partitions; p++) {
            specs.put(new TopicPartition(topic, p), OffsetSpec.latest());
        }
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (true) {
            try {
                admin.listOffsets(specs).all().get(10, TimeUnit.SECONDS);
                return;
            } catch (Exception e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("topic " + topic + " did not become writable", e);
                }
                Thread.sleep(50);
            }
        }
    }
}
