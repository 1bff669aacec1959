package dev.strait.broker.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/** The unmodified kafka-clients 4.1.1 producer and consumer against a one-node {@link EmbeddedCluster}. */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class KafkaClientsRoundTripIT {

    private static final int RECORDS = 40;
    private static final Duration WAIT = Duration.ofSeconds(20);
    private static EmbeddedCluster cluster;
    private static Admin admin;

    @BeforeAll
    static void startCluster() {
        cluster = EmbeddedCluster.builder().nodes(1).start();
        admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, cluster.bootstrapServers()));
    }

    @AfterAll
    static void stopCluster() {
        if (admin != null) {
            admin.close(Duration.ofSeconds(5));
        }
        if (cluster != null) {
            cluster.close();
        }
    }

    static Stream<Arguments> producerSettings() {
        List<Arguments> settings = new ArrayList<>();
        for (String compression : List.of("none", "gzip", "snappy", "lz4", "zstd")) {
            settings.add(Arguments.of("0", compression, false));
            settings.add(Arguments.of("1", compression, false));
            settings.add(Arguments.of("all", compression, false));
            settings.add(Arguments.of("all", compression, true));
        }
        return settings.stream();
    }

    @ParameterizedTest(name = "acks={0} compression={1} idempotence={2}")
    @MethodSource("producerSettings")
    void producedRecordsAreConsumedInOrderWithAllTheirParts(String acks, String compression, boolean idempotence)
            throws Exception {
        // Given
        String topic = "round-trip-" + acks + "-" + compression + "-" + idempotence;
        createTopic(topic, 1);
        long baseTimestamp = System.currentTimeMillis() - 60_000;

        // When
        try (KafkaProducer<String, String> producer = producer(Map.of(
                ProducerConfig.ACKS_CONFIG,
                acks,
                ProducerConfig.COMPRESSION_TYPE_CONFIG,
                compression,
                ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG,
                Boolean.toString(idempotence)))) {
            List<Future<RecordMetadata>> sends = new ArrayList<>();
            for (int i = 0; i < RECORDS; i++) {
                RecordHeaders headers = new RecordHeaders();
                headers.add("h", ("header-" + i).getBytes(StandardCharsets.UTF_8));
                sends.add(producer.send(
                        new ProducerRecord<>(topic, 0, baseTimestamp + i, "key-" + i, "value-" + i, headers)));
            }
            producer.flush();
            for (int i = 0; i < RECORDS; i++) {
                RecordMetadata metadata = sends.get(i).get(20, TimeUnit.SECONDS);
                if (!acks.equals("0")) {
                    assertThat(metadata.offset()).isEqualTo(i);
                }
            }
        }

        // Then
        List<ConsumerRecord<String, String>> records = consumeFromStart(new TopicPartition(topic, 0), RECORDS);
        assertThat(records).hasSize(RECORDS);
        for (int i = 0; i < RECORDS; i++) {
            ConsumerRecord<String, String> record = records.get(i);
            assertThat(record.offset()).isEqualTo(i);
            assertThat(record.key()).isEqualTo("key-" + i);
            assertThat(record.value()).isEqualTo("value-" + i);
            assertThat(record.timestamp()).isEqualTo(baseTimestamp + i);
            assertThat(new String(record.headers().lastHeader("h").value(), StandardCharsets.UTF_8))
                    .isEqualTo("header-" + i);
        }
    }

    @Test
    void smallFetchSizesStillReadEverythingAcrossPartitions() throws Exception {
        // Given: records larger than max.partition.fetch.bytes, in three partitions
        String topic = "small-fetches";
        createTopic(topic, 3);
        String value = "x".repeat(700);
        try (KafkaProducer<String, String> producer = producer(Map.of(ProducerConfig.BATCH_SIZE_CONFIG, "2000"))) {
            for (int i = 0; i < 90; i++) {
                producer.send(new ProducerRecord<>(topic, i % 3, "k" + i, value + i));
            }
            producer.flush();
        }
        Properties props = consumerProps();
        props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, "500");
        props.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, "1500");

        // When
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props)) {
            List<TopicPartition> partitions =
                    List.of(new TopicPartition(topic, 0), new TopicPartition(topic, 1), new TopicPartition(topic, 2));
            consumer.assign(partitions);
            consumer.seekToBeginning(partitions);
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (records.size() < 90 && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }

        // Then: each partition in order, nothing missing or repeated
        assertThat(records).hasSize(90);
        for (int p = 0; p < 3; p++) {
            int partition = p;
            assertThat(records.stream().filter(r -> r.partition() == partition).map(ConsumerRecord::offset))
                    .containsExactlyElementsOf(
                            java.util.stream.LongStream.range(0, 30).boxed().toList());
        }
    }

    @Test
    void aConsumerWaitingOnAnEmptyPartitionGetsARecordProducedLater() throws Exception {
        // Given: a fetch wait (30 s) far longer than the test waits for the record (10 s), so the record can only
        // arrive in time if the append completes the waiting fetch
        String topic = "delayed-fetch";
        createTopic(topic, 1);
        TopicPartition tp = new TopicPartition(topic, 0);
        Properties props = consumerProps();
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "30000");
        props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "45000");
        KafkaConsumer<String, String> consumer = new KafkaConsumer<>(props);
        try {
            consumer.assign(List.of(tp));
            consumer.seek(tp, 0);
            assertThat(consumer.poll(Duration.ofMillis(1500))).isEmpty();
            CompletableFuture<Void> produced = CompletableFuture.runAsync(() -> {
                sleep(500);
                try (KafkaProducer<String, String> producer = producer(Map.of())) {
                    producer.send(new ProducerRecord<>(topic, 0, "k", "late")).get(10, TimeUnit.SECONDS);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });

            // When
            List<ConsumerRecord<String, String>> received = new ArrayList<>();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (received.isEmpty() && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(received::add);
            }

            // Then
            produced.get(10, TimeUnit.SECONDS);
            assertThat(received).extracting(ConsumerRecord::value).containsExactly("late");
        } finally {
            // the next fetch is parked for 30 s; do not wait for it
            consumer.close(CloseOptions.timeout(Duration.ofMillis(500)));
        }
    }

    static void createTopic(String topic, int partitions) throws Exception {
        admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)))
                .all()
                .get(20, TimeUnit.SECONDS);
    }

    static KafkaProducer<String, String> producer(Map<String, String> overrides) {
        return producer(cluster.bootstrapServers(), overrides);
    }

    static KafkaProducer<String, String> producer(String bootstrap, Map<String, String> overrides) {
        Properties props = new Properties();
        props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "15000");
        props.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, "10000");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "20000");
        props.putAll(overrides);
        return new KafkaProducer<>(props);
    }

    private static Properties consumerProps() {
        return consumerProps(cluster.bootstrapServers());
    }

    static Properties consumerProps(String bootstrap) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.FETCH_MAX_WAIT_MS_CONFIG, "200");
        props.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "20000");
        props.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "15000");
        return props;
    }

    private static List<ConsumerRecord<String, String>> consumeFromStart(TopicPartition tp, int expected) {
        return consumeFromStart(cluster.bootstrapServers(), tp, expected);
    }

    static List<ConsumerRecord<String, String>> consumeFromStart(String bootstrap, TopicPartition tp, int expected) {
        List<ConsumerRecord<String, String>> records = new ArrayList<>();
        try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(consumerProps(bootstrap))) {
            consumer.assign(List.of(tp));
            consumer.seek(tp, 0);
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (records.size() < expected && System.nanoTime() < deadline) {
                consumer.poll(Duration.ofMillis(200)).forEach(records::add);
            }
        }
        return records;
    }

    private static void sleep(long ms) {
        try {
            Thread.sleep(ms);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
