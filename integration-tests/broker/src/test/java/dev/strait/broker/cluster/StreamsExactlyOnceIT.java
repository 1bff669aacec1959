package dev.strait.broker.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import dev.strait.broker.server.StreamsCountingApp;
import dev.strait.time.Await;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * A Kafka Streams 4.1.1 application with {@code exactly_once_v2} ({@link StreamsCountingApp}, a child JVM) on a
 * three-node companion cluster of separate JVMs ({@link ProcessCluster}) keeps exact counts through a SIGKILL of the
 * application and a SIGKILL of a partition leader's node: read_committed, each key's counts in the output are exactly 1, 2, ..., n, n being how often
 * the key was written, so no input record was counted twice or lost. Streams' exactly-once needs transactions,
 * TxnOffsetCommit and read_committed fetches, all of which the broker refused before issue 24.
 */
@Timeout(value = 360, unit = TimeUnit.SECONDS)
class StreamsExactlyOnceIT {

    private static final String INPUT = "words";
    private static final String OUTPUT = "counts";
    private static final int PARTITIONS = 3;
    private static final int KEYS = 12;

    @TempDir
    Path dir;

    private ProcessCluster cluster;
    private Process app;

    @AfterEach
    void stop() {
        if (app != null) {
            app.destroyForcibly();
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    private Admin admin() {
        return cluster.admin();
    }

    private Process startApp(String name) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Path state = Files.createDirectories(dir.resolve("state-" + name));
        Path log = dir.resolve("app-" + name + ".log");
        return new ProcessBuilder(
                        java.toString(),
                        "-Xmx256m",
                        "-XX:+UseSerialGC",
                        "-cp",
                        System.getProperty("java.class.path"),
                        StreamsCountingApp.class.getName(),
                        cluster.bootstrapServers(),
                        "eos-counter",
                        INPUT,
                        OUTPUT,
                        state.toString())
                .redirectErrorStream(true)
                .redirectOutput(log.toFile())
                .start();
    }

    @Test
    void countsStayExactThroughAnApplicationKillAndALeaderCrash() throws Exception {
        cluster = ProcessCluster.start(
                3,
                Map.of(
                        "min.insync.replicas", "2",
                        "broker.session.timeout.ms", "3000",
                        "broker.heartbeat.interval.ms", "500",
                        "group.initial.rebalance.delay.ms", "0"));
        try (Admin admin = admin()) {
            admin.createTopics(List.of(
                            new NewTopic(INPUT, PARTITIONS, (short) 3), new NewTopic(OUTPUT, PARTITIONS, (short) 3)))
                    .all()
                    .get(60, TimeUnit.SECONDS);
        }
        Map<String, Integer> written = new HashMap<>();
        try (KafkaProducer<String, String> producer = inputProducer()) {
            write(producer, 0, 600, written);
            app = startApp("a");
            Await.until("the first instance counted something", Duration.ofSeconds(90), () -> outputCount() > 100);
            write(producer, 600, 1200, written);
            // SIGKILL: its open transaction is aborted, its work since the last commit done again by the next one.
            app.destroyForcibly().waitFor(30, TimeUnit.SECONDS);
            app = startApp("b");
            write(producer, 1200, 1500, written);
            int leader = leaderOf(new TopicPartition(INPUT, 0));
            cluster.kill(leader);
            write(producer, 1500, 2100, written);
            cluster.restart(leader);
            write(producer, 2100, 2400, written);
        }
        int total = written.values().stream().mapToInt(Integer::intValue).sum();
        Await.until(
                "the output holds a count for every input record",
                Duration.ofSeconds(150),
                () -> outputCount() >= total);
        Map<String, List<Long>> counts = readOutput();
        for (Map.Entry<String, Integer> key : written.entrySet()) {
            List<Long> expected = IntStream.rangeClosed(1, key.getValue())
                    .mapToObj(Long::valueOf)
                    .toList();
            assertThat(counts.get(key.getKey()))
                    .as("counts of %s", key.getKey())
                    .isEqualTo(expected);
        }
        assertThat(counts.keySet()).isEqualTo(written.keySet());
    }

    private KafkaProducer<String, String> inputProducer() {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, true);
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 120_000);
        return new KafkaProducer<>(props, new StringSerializer(), new StringSerializer());
    }

    private static void write(KafkaProducer<String, String> producer, int from, int to, Map<String, Integer> written)
            throws Exception {
        List<java.util.concurrent.Future<?>> sent = new ArrayList<>();
        for (int i = from; i < to; i++) {
            String key = "k" + (i % KEYS);
            sent.add(producer.send(new ProducerRecord<>(INPUT, key, "v" + i)));
            written.merge(key, 1, Integer::sum);
        }
        producer.flush();
        for (java.util.concurrent.Future<?> one : sent) {
            one.get(120, TimeUnit.SECONDS); // every input record acknowledged, so each must be counted once
        }
    }

    private int leaderOf(TopicPartition tp) throws Exception {
        try (Admin admin = admin()) {
            return admin.describeTopics(List.of(tp.topic()))
                    .allTopicNames()
                    .get(30, TimeUnit.SECONDS)
                    .get(tp.topic())
                    .partitions()
                    .get(tp.partition())
                    .leader()
                    .id();
        }
    }

    private int outputCount() {
        return readOutput().values().stream().mapToInt(List::size).sum();
    }

    /** Each key's counts in the output, read_committed, in offset order. */
    private Map<String, List<Long>> readOutput() {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers());
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        Map<String, List<Long>> counts = new HashMap<>();
        List<TopicPartition> partitions = IntStream.range(0, PARTITIONS)
                .mapToObj(p -> new TopicPartition(OUTPUT, p))
                .toList();
        try (KafkaConsumer<String, Long> consumer =
                new KafkaConsumer<>(props, new StringDeserializer(), new LongDeserializer())) {
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            Map<TopicPartition, Long> ends = consumer.endOffsets(partitions, Duration.ofSeconds(30));
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (partitions.stream().anyMatch(tp -> consumer.position(tp) < ends.get(tp))
                    && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, Long> r : consumer.poll(Duration.ofMillis(200))) {
                    counts.computeIfAbsent(r.key(), k -> new ArrayList<>()).add(r.value());
                }
            }
        }
        return counts;
    }
}
