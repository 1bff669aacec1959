package dev.strait.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.TopicPartitionInfo;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Three companion nodes as separate JVMs, a topic with replication factor 3 and min.insync.replicas=2, and an
 * idempotent acks=all producer writing numbered records while the partition's leader is killed with SIGKILL (or
 * stopped with SIGTERM) and restarted, round after round. At the end a consumer must find every acknowledged
 * record exactly once and in order, and the three replicas' logs must be byte for byte the same.
 */
class ReplicatedClusterFaultIT {
    private static final String TOPIC = "numbered";
    private static final int ROUNDS = 5;

    private static final Map<String, String> FAST_FAILOVER = Map.of(
            "min.insync.replicas", "2",
            "broker.session.timeout.ms", "3000",
            "broker.heartbeat.interval.ms", "500",
            "replica.lag.time.max.ms", "5000",
            "replica.fetch.wait.max.ms", "100");

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void leaderKilledFiveTimesLosesNoAcknowledgedRecord() throws Exception {
        runRounds(true);
    }

    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void leaderStoppedPolitelyFiveTimesGivesTheProducerNoErrors() throws Exception {
        Outcome outcome = runRounds(false);
        assertThat(outcome.failedSends())
                .as("controlled shutdown: only retriable errors, which the producer retries")
                .isZero();
    }

    record Outcome(long acked, long failedSends) {}

    private Outcome runRounds(boolean kill) throws Exception {
        long started = System.nanoTime();
        try (ProcessCluster cluster = ProcessCluster.start(3, FAST_FAILOVER);
                Admin admin = cluster.admin()) {
            System.out.printf("cluster of 3 up in %d ms%n", (System.nanoTime() - started) / 1_000_000);
            admin.createTopics(List.of(new NewTopic(TOPIC, 1, (short) 3))).all().get(30, TimeUnit.SECONDS);
            awaitFullIsr(cluster, admin);

            Set<Long> acked = new ConcurrentSkipListSet<>();
            AtomicLong failed = new AtomicLong();
            AtomicReference<Exception> lastFailure = new AtomicReference<>();
            try (KafkaProducer<byte[], byte[]> producer = producer(cluster)) {
                Thread writer = new Thread(
                        () -> {
                            for (long n = 0;
                                    n < 1_000_000 && !Thread.currentThread().isInterrupted();
                                    n++) {
                                long number = n;
                                producer.send(
                                        new ProducerRecord<>(
                                                TOPIC,
                                                0,
                                                null,
                                                Long.toString(number).getBytes(StandardCharsets.UTF_8)),
                                        (metadata, e) -> {
                                            if (e == null) {
                                                acked.add(number);
                                            } else {
                                                failed.incrementAndGet();
                                                lastFailure.set(e);
                                            }
                                        });
                                try {
                                    Thread.sleep(n % 50 == 0 ? 1 : 0);
                                } catch (InterruptedException e) {
                                    return;
                                }
                            }
                        },
                        "numbered-writer");
                writer.start();
                try {
                    for (int round = 1; round <= ROUNDS; round++) {
                        long before = acked.size();
                        await(
                                "records acknowledged before round " + round,
                                Duration.ofSeconds(60),
                                () -> acked.size() >= before + 2_000);
                        int leader = cluster.describe(admin, TOPIC, 0).leader().id();
                        long faultAt = System.nanoTime();
                        if (kill) {
                            cluster.kill(leader);
                        } else {
                            cluster.stop(leader);
                        }
                        long atFault = acked.size();
                        await(
                                "a new leader takes writes after round " + round,
                                Duration.ofSeconds(60),
                                () -> acked.size() >= atFault + 2_000);
                        long failoverMs = (System.nanoTime() - faultAt) / 1_000_000;
                        cluster.restart(leader);
                        long restartAt = System.nanoTime();
                        awaitFullIsr(cluster, admin);
                        System.out.printf(
                                "round %d: leader %d %s; 2,000 more acknowledged %d ms after the fault;"
                                        + " back in the ISR %d ms after restart; %d acknowledged so far%n",
                                round,
                                leader,
                                kill ? "killed" : "stopped",
                                failoverMs,
                                (System.nanoTime() - restartAt) / 1_000_000,
                                acked.size());
                    }
                } finally {
                    writer.interrupt();
                    writer.join(30_000);
                    producer.flush();
                }
            }

            System.out.printf("rounds done at %d ms%n", (System.nanoTime() - started) / 1_000_000);
            List<Long> read = readAll(cluster);
            System.out.printf("read back at %d ms%n", (System.nanoTime() - started) / 1_000_000);
            // Counted by hand: AssertJ's duplicate and order checks are quadratic on half a million elements.
            Set<Long> distinct = new java.util.HashSet<>(read);
            long missing = acked.stream().filter(n -> !distinct.contains(n)).count();
            long outOfOrder = 0;
            for (int i = 1; i < read.size(); i++) {
                if (read.get(i) <= read.get(i - 1)) {
                    outOfOrder++;
                }
            }
            assertThat(missing).as("acknowledged records missing").isZero();
            assertThat(read.size() - distinct.size()).as("records read twice").isZero();
            assertThat(outOfOrder).as("records out of the order produced").isZero();
            awaitFullIsr(cluster, admin);
            await("replicas identical: " + logSizes(cluster), Duration.ofSeconds(60), () -> sameLogs(cluster));
            System.out.printf(
                    "logs identical at %d ms: %s%n", (System.nanoTime() - started) / 1_000_000, logSizes(cluster));
            System.out.printf(
                    "%s: %d acknowledged, %d read, %d failed sends (last: %s)%n",
                    kill ? "SIGKILL" : "SIGTERM", acked.size(), read.size(), failed.get(), lastFailure.get());
            return new Outcome(acked.size(), failed.get());
        }
    }

    private static boolean sameLogs(ProcessCluster cluster) {
        try {
            byte[] first = cluster.logBytes(1, TOPIC, 0);
            return first.length > 0
                    && java.util.Arrays.equals(first, cluster.logBytes(2, TOPIC, 0))
                    && java.util.Arrays.equals(first, cluster.logBytes(3, TOPIC, 0));
        } catch (java.io.IOException e) {
            return false;
        }
    }

    private static String logSizes(ProcessCluster cluster) {
        StringBuilder sb = new StringBuilder();
        for (int id = 1; id <= 3; id++) {
            try {
                byte[] bytes = cluster.logBytes(id, TOPIC, 0);
                sb.append("node ")
                        .append(id)
                        .append(' ')
                        .append(bytes.length)
                        .append(" bytes crc ")
                        .append(Long.toHexString(crc(bytes)))
                        .append("; ");
            } catch (java.io.IOException e) {
                sb.append("node ").append(id).append(' ').append(e).append("; ");
            }
        }
        return sb.toString();
    }

    private static long crc(byte[] bytes) {
        java.util.zip.CRC32 crc = new java.util.zip.CRC32();
        crc.update(bytes);
        return crc.getValue();
    }

    private static void awaitFullIsr(ProcessCluster cluster, Admin admin) throws Exception {
        long start = System.nanoTime();
        AtomicReference<String> last = new AtomicReference<>("nothing yet");
        await("all three replicas in sync (last seen: " + last + ")", Duration.ofSeconds(90), () -> {
            try {
                TopicPartitionInfo p = cluster.describe(admin, TOPIC, 0);
                last.set(p.toString());
                return p.leader() != null && p.isr().size() == 3;
            } catch (Exception e) {
                last.set(e.toString());
                return false;
            }
        });
        long ms = (System.nanoTime() - start) / 1_000_000;
        if (ms > 10_000) {
            System.out.println("full ISR took " + ms + " ms; last seen " + last.get());
        }
    }

    private static KafkaProducer<byte[], byte[]> producer(ProcessCluster cluster) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "60000");
        return new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
    }

    private static List<Long> readAll(ProcessCluster cluster) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        List<Long> out = new ArrayList<>();
        TopicPartition tp = new TopicPartition(TOPIC, 0);
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(p, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), Duration.ofSeconds(30)).get(tp);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(120);
            while (consumer.position(tp) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                    out.add(Long.parseLong(new String(r.value(), StandardCharsets.UTF_8)));
                }
            }
        }
        return out;
    }

    private static void await(String what, Duration timeout, BooleanSupplier condition) throws InterruptedException {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() > deadline) {
                throw new AssertionError("timed out after " + timeout + " waiting for: " + what);
            }
            Thread.sleep(100);
        }
    }
}
