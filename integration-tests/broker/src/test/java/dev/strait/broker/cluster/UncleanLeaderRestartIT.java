package dev.strait.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 22, defect 1, the measured schedule on three companion nodes (separate JVMs): a topic with one partition,
 * replication factor 2 and {@code min.insync.replicas=2}; an idempotent acks=all producer. The follower B is
 * frozen (SIGSTOP) until the leader A has shrunk the ISR to {A}; then A loses power: SIGKILL, and its unsynced
 * writes are gone (its partition log is cut to nothing and its checkpoints' claims with it). A restarts, B runs on.
 *
 * <p>Before: A registered again, led the partition in a new epoch with an empty log, and B truncated to it: every
 * acknowledged record was lost. Kafka 4.1 (KIP-966) elects B from the eligible leader replicas and A follows.
 */
class UncleanLeaderRestartIT {

    private static final String TOPIC = "elr";
    private static final int RECORDS = 500;

    private static Map<String, String> fast(Path bootId) {
        return Map.of(
                "strait.boot.id.file", bootId.toString(),
                "broker.session.timeout.ms", "3000",
                "broker.heartbeat.interval.ms", "500",
                "replica.lag.time.max.ms", "2000",
                "replica.fetch.wait.max.ms", "100");
    }

    @Test
    @Timeout(value = 5, unit = TimeUnit.MINUTES)
    void everyAcknowledgedRecordSurvivesTheLastIsrMemberLosingPower(@TempDir Path machine) throws Exception {
        // The nodes' boot id: a power loss reboots the machine, which a test without a reboot shows by changing it.
        Path bootId = machine.resolve("boot_id");
        Files.writeString(bootId, "boot-1");
        try (ProcessCluster cluster = ProcessCluster.start(3, fast(bootId));
                Admin admin = cluster.admin()) {
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 2).configs(Map.of("min.insync.replicas", "2"))))
                    .all()
                    .get(30, TimeUnit.SECONDS);
            TopicPartitionInfo initial = await(
                    cluster,
                    admin,
                    "both replicas in sync",
                    p -> p.leader() != null && p.isr().size() == 2);
            int a = initial.leader().id();
            int b = initial.replicas().stream()
                    .mapToInt(Node::id)
                    .filter(id -> id != a)
                    .findFirst()
                    .orElseThrow();

            TreeMap<Long, String> acknowledged = new TreeMap<>();
            try (KafkaProducer<byte[], byte[]> producer = producer(cluster)) {
                for (int n = 0; n < RECORDS; n++) {
                    String value = "record-" + n;
                    RecordMetadata metadata;
                    try {
                        metadata = producer.send(
                                        new ProducerRecord<>(TOPIC, 0, null, value.getBytes(StandardCharsets.UTF_8)))
                                .get(60, TimeUnit.SECONDS);
                    } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                        throw new AssertionError(
                                "record " + n + " was not acknowledged with both replicas up; the partition now: "
                                        + cluster.describe(admin, TOPIC, 0)
                                        + cluster.logLines(60, TOPIC + "-0", "fenc", "regist"),
                                e);
                    }
                    acknowledged.put(metadata.offset(), value);
                }
            }
            assertThat(acknowledged).hasSize(RECORDS);

            // B hangs: A shrinks the ISR to itself once B lags for replica.lag.time.max.ms.
            cluster.pause(b);
            TopicPartitionInfo shrunk = await(
                    cluster,
                    admin,
                    "the ISR shrunk to the leader " + a,
                    p -> p.leader() != null && p.leader().id() == a && p.isr().size() == 1);
            // KIP-966: B left the ISR while it was below min.insync.replicas, so it is an eligible leader replica
            // (DescribeTopicPartitions shows it).
            assertThat(shrunk.elr()).extracting(Node::id).containsExactly(b);

            // A loses power: what it had not synced is gone, here all of its partition log.
            cluster.kill(a);
            loseUnsyncedWrites(cluster.partitionDir(a, TOPIC, 0));
            Files.writeString(bootId, "boot-2");
            cluster.restart(a);
            cluster.unpause(b);

            TopicPartitionInfo after = await(
                    cluster,
                    admin,
                    "a leader and both replicas in sync again",
                    p -> p.leader() != null && p.isr().size() == 2);
            System.out.printf("before: leader %d ISR [%d, %d]; after: %s%n", a, a, b, after);

            TreeMap<Long, String> read = readAll(cluster, acknowledged.lastKey() + 1);
            assertThat(read)
                    .as("every acknowledged record, once, at its offset, in order (leader now %s)", after.leader())
                    .containsAllEntriesOf(acknowledged);
            assertThat(read.values().stream().distinct().count())
                    .as("no record twice")
                    .isEqualTo(read.size());
        }
    }

    /** The partition log as a power loss leaves it when nothing was fsynced: empty, claims of checkpoints gone. */
    private static void loseUnsyncedWrites(Path dir) throws Exception {
        try (Stream<Path> files = Files.list(dir)) {
            for (Path file : files.toList()) {
                String name = file.getFileName().toString();
                if (name.endsWith(".log")) {
                    try (var channel =
                            java.nio.channels.FileChannel.open(file, java.nio.file.StandardOpenOption.WRITE)) {
                        channel.truncate(0);
                    }
                } else if (name.endsWith(".index")
                        || name.endsWith(".timeindex")
                        || name.equals("leader-epoch-checkpoint")
                        || name.equals("log-state-checkpoint")
                        || name.equals(".clean-shutdown")) {
                    Files.delete(file);
                }
            }
        }
    }

    private static TopicPartitionInfo await(
            ProcessCluster cluster, Admin admin, String what, java.util.function.Predicate<TopicPartitionInfo> done)
            throws InterruptedException {
        AtomicReference<Object> last = new AtomicReference<>("nothing yet");
        AtomicReference<TopicPartitionInfo> found = new AtomicReference<>();
        awaitCondition(what, Duration.ofSeconds(90), last, () -> {
            try {
                TopicPartitionInfo p = cluster.describe(admin, TOPIC, 0);
                last.set(p);
                if (done.test(p)) {
                    found.set(p);
                    return true;
                }
                return false;
            } catch (Exception e) {
                last.set(e);
                return false;
            }
        });
        return found.get();
    }

    private static KafkaProducer<byte[], byte[]> producer(ProcessCluster cluster) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "0");
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Every record from offset 0 until {@code end} is reached (bounded), by offset. */
    private static TreeMap<Long, String> readAll(ProcessCluster cluster, long end) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        TreeMap<Long, String> out = new TreeMap<>();
        List<Long> order = new ArrayList<>();
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (consumer.position(tp, Duration.ofSeconds(10)) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    out.put(r.offset(), new String(r.value(), StandardCharsets.UTF_8));
                    order.add(r.offset());
                }
            }
        }
        for (int i = 1; i < order.size(); i++) {
            assertThat(order.get(i)).as("offsets read in order").isGreaterThan(order.get(i - 1));
        }
        return out;
    }

    private static void awaitCondition(
            String what, Duration timeout, AtomicReference<Object> last, BooleanSupplier condition)
            throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError(
                        "timed out after " + timeout + " waiting for: " + what + " (last seen: " + last.get() + ")");
            }
            Thread.sleep(100);
        }
    }
}
