package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.RandomAccessFile;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentSkipListSet;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import java.util.stream.LongStream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The broker as a child JVM ({@link BrokerMain}) killed with SIGKILL: acknowledged acks=all records survive exactly
 * once, and a damaged tail of the active segment is cut off on restart instead of being served.
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class BrokerCrashRecoveryIT {

    private static final Pattern BOUND = Pattern.compile("listener PLAINTEXT bound to /127\\.0\\.0\\.1:(\\d+)");

    @TempDir
    Path dir;

    private final List<Process> processes = new ArrayList<>();
    private int port;

    @AfterEach
    void killBrokers() throws InterruptedException {
        for (Process process : processes) {
            process.destroyForcibly();
            process.waitFor(10, TimeUnit.SECONDS);
        }
    }

    @Test
    void everyAcknowledgedRecordSurvivesASigkillExactlyOnce() throws Exception {
        port = freePort();
        Process broker = launch();
        createTopic("crash");
        Set<Integer> acked = new ConcurrentSkipListSet<>();
        AtomicBoolean stop = new AtomicBoolean();
        KafkaProducer<String, String> producer = KafkaClientsRoundTripIT.producer(
                bootstrap(), Map.of("acks", "all", "linger.ms", "1", "batch.size", "2048"));
        Thread sender = new Thread(
                () -> {
                    try {
                        for (int i = 0; i < 200_000 && !stop.get(); i++) {
                            int n = i;
                            producer.send(new ProducerRecord<>("crash", 0, "k", "record-" + n), (metadata, error) -> {
                                if (error == null) {
                                    acked.add(n);
                                }
                            });
                            if (i % 100 == 99) {
                                Thread.sleep(2);
                            }
                        }
                    } catch (InterruptedException | RuntimeException e) {
                        // the producer was closed under us, or the broker went away
                    }
                },
                "crash-sender");
        sender.start();
        try {
            // When: the broker is killed while acknowledgements are still coming in
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (acked.size() < 2000 && System.nanoTime() < deadline) {
                Thread.sleep(5);
            }
            assertThat(acked.size()).as("records acknowledged before the kill").isGreaterThanOrEqualTo(2000);
            broker.destroyForcibly();
            assertThat(broker.waitFor(20, TimeUnit.SECONDS)).isTrue();
        } finally {
            stop.set(true);
            producer.close(Duration.ZERO);
            sender.join(20_000);
        }
        assertThat(sender.isAlive()).isFalse();
        Set<Integer> acknowledged = Set.copyOf(acked);

        // Then: after a restart on the same port and log dir, every acknowledged record is there exactly once
        launch();
        List<ConsumerRecord<String, String>> records = readAll("crash");
        assertThat(records)
                .extracting(ConsumerRecord::offset)
                .containsExactlyElementsOf(
                        LongStream.range(0, records.size()).boxed().toList());
        List<Integer> numbers = records.stream()
                .map(r -> Integer.parseInt(r.value().substring(7)))
                .toList();
        assertThat(numbers).doesNotHaveDuplicates();
        assertThat(numbers).containsAll(acknowledged);
        // single partition, one producer: the log keeps send order, and nothing was lost in the middle
        assertThat(numbers).isSorted();
        assertThat(numbers)
                .containsExactlyElementsOf(
                        IntStream.range(0, numbers.size()).boxed().toList());

        // and producing continues after the recovered end
        try (KafkaProducer<String, String> again =
                KafkaClientsRoundTripIT.producer(bootstrap(), Map.of("acks", "all"))) {
            long offset = again.send(new ProducerRecord<>("crash", 0, "k", "after-restart"))
                    .get(20, TimeUnit.SECONDS)
                    .offset();
            assertThat(offset).isEqualTo(records.size());
        }
        List<ConsumerRecord<String, String>> all = readAll("crash");
        assertThat(all).hasSize(records.size() + 1);
        assertThat(all.get(all.size() - 1).value()).isEqualTo("after-restart");
    }

    enum Damage {
        TRUNCATE_TAIL,
        OVERWRITE_LAST_BATCH
    }

    @ParameterizedTest
    @EnumSource(Damage.class)
    void aDamagedTailIsCutOffAndNothingCorruptIsServed(Damage damage) throws Exception {
        port = freePort();
        Process broker = launch();
        createTopic("damaged");
        int count = 100;
        try (KafkaProducer<String, String> producer =
                KafkaClientsRoundTripIT.producer(bootstrap(), Map.of("acks", "all"))) {
            for (int i = 0; i < count; i++) {
                // one batch per record: each send waits for its acknowledgement
                producer.send(new ProducerRecord<>("damaged", 0, "k", "value-" + i))
                        .get(20, TimeUnit.SECONDS);
            }
        }
        broker.destroyForcibly();
        assertThat(broker.waitFor(20, TimeUnit.SECONDS)).isTrue();

        // Given: the active segment's last batch is damaged
        Path segment = dir.resolve("logs").resolve("damaged-0").resolve(String.format("%020d.log", 0));
        List<Long> batchStarts = batchStarts(segment);
        assertThat(batchStarts).hasSize(count);
        long lastBatch = batchStarts.get(count - 1);
        long size = Files.size(segment);
        try (FileChannel channel = FileChannel.open(segment, StandardOpenOption.WRITE)) {
            if (damage == Damage.TRUNCATE_TAIL) {
                channel.truncate(size - 3);
            } else {
                // bytes inside the record payload (covered by the batch CRC), not in the header
                channel.write(ByteBuffer.wrap(new byte[] {(byte) 0xde, (byte) 0xad, (byte) 0xbe}), size - 6);
            }
            channel.force(true);
        }
        assertThat(lastBatch).isLessThan(size - 6);

        // Then: everything before the damage is served, nothing corrupt is, and appends land after it
        launch();
        List<ConsumerRecord<String, String>> records = readAll("damaged");
        List<String> expected =
                IntStream.range(0, count - 1).mapToObj(i -> "value-" + i).collect(Collectors.toList());
        assertThat(records).extracting(ConsumerRecord::value).containsExactlyElementsOf(expected);
        try (KafkaProducer<String, String> producer =
                KafkaClientsRoundTripIT.producer(bootstrap(), Map.of("acks", "all"))) {
            long offset = producer.send(new ProducerRecord<>("damaged", 0, "k", "new"))
                    .get(20, TimeUnit.SECONDS)
                    .offset();
            assertThat(offset).isEqualTo(count - 1);
        }
        expected.add("new");
        assertThat(readAll("damaged")).extracting(ConsumerRecord::value).containsExactlyElementsOf(expected);
    }

    /** File positions of the record batches: base offset (8 bytes), then the batch length (4 bytes). */
    private static List<Long> batchStarts(Path segment) throws IOException {
        List<Long> starts = new ArrayList<>();
        try (RandomAccessFile file = new RandomAccessFile(segment.toFile(), "r")) {
            long position = 0;
            while (position + 12 <= file.length() && starts.size() < 100_000) {
                file.seek(position + 8);
                int length = file.readInt();
                if (length <= 0 || position + 12 + length > file.length()) {
                    break;
                }
                starts.add(position);
                position += 12 + length;
            }
        }
        return starts;
    }

    /** Reads the partition from offset 0 to its end offset; a CorruptRecordException fails the test. */
    private List<ConsumerRecord<String, String>> readAll(String topic) {
        TopicPartition tp = new TopicPartition(topic, 0);
        Properties props = KafkaClientsRoundTripIT.consumerProps(bootstrap());
        props.put("check.crcs", "true");
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(List.of(tp));
            long end = consumer.endOffsets(List.of(tp), Duration.ofSeconds(20)).get(tp);
            consumer.seek(tp, 0);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (consumer.position(tp) < end && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
            assertThat(consumer.position(tp))
                    .as("position after reading %s", topic)
                    .isEqualTo(end);
        }
        return records;
    }

    private void createTopic(String topic) throws Exception {
        try (Admin admin = Admin.create(Map.of(
                AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG,
                bootstrap(),
                AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG,
                "20000",
                AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG,
                "10000"))) {
            admin.createTopics(List.of(new NewTopic(topic, 1, (short) 1))).all().get(20, TimeUnit.SECONDS);
        }
    }

    private String bootstrap() {
        return "127.0.0.1:" + port;
    }

    private static int freePort() throws IOException {
        return dev.strait.broker.server.LoopbackPorts.reserve();
    }

    /** Starts BrokerMain on {@link #port} with its log dir under the temp dir, and waits until it is bound. */
    private Process launch() throws Exception {
        Path file = dir.resolve("server.properties");
        Files.writeString(
                file,
                "node.id=0\nlisteners=PLAINTEXT://127.0.0.1:" + port + "\nlog.dirs=" + dir.resolve("logs")
                        + "\nnum.network.threads=2\nnum.io.threads=2\n");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        Process process = new ProcessBuilder(
                        java.toString(),
                        "-Xmx256m",
                        "-XX:+UseSerialGC",
                        "-XX:TieredStopAtLevel=1",
                        "-cp",
                        System.getProperty("java.class.path"),
                        BrokerMain.class.getName(),
                        file.toString())
                .redirectErrorStream(true)
                .start();
        processes.add(process);
        BufferedReader out =
                new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        List<String> seen = Collections.synchronizedList(new ArrayList<>());
        String line;
        // readLine returns null when the process exits; the class timeout bounds a hang
        while ((line = out.readLine()) != null) {
            seen.add(line);
            Matcher m = BOUND.matcher(line);
            if (m.find()) {
                assertThat(Integer.parseInt(m.group(1))).isEqualTo(port);
                Thread drain = new Thread(() -> drain(out, seen), "broker-child-output");
                drain.setDaemon(true);
                drain.start();
                return process;
            }
            System.out.println("[broker] " + line);
        }
        throw new AssertionError("the broker exited without binding; output: " + seen);
    }

    private static void drain(BufferedReader out, List<String> seen) {
        try {
            String line;
            while ((line = out.readLine()) != null) {
                seen.add(line);
                System.out.println("[broker] " + line);
            }
        } catch (IOException e) {
            // process gone
        }
    }
}
