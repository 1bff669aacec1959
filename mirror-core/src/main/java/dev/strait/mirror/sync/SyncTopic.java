package dev.strait.mirror.sync;

import dev.strait.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jspecify.annotations.Nullable;

/**
 * The sync topic on the target: a compacted one-partition topic that holds the offset map, the groups' last
 * committed source offsets and failover markers ({@link SyncRecords}). Written by the mirror and by
 * {@code strait failover}, read by both, so a failover works with the source unreachable.
 *
 * <p>Not thread-safe: one owner (the sync loop, or a command) uses it.
 */
public final class SyncTopic implements AutoCloseable {
    /** Room for the offset map of a hash-mode partition; the writer's max.request.size matches. */
    static final int MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

    private static final long TIMEOUT_MS = 60_000;

    private final String name;
    private final Properties targetClient;
    private final Time time;
    // Opened on first use; null until then (and the tail again while the topic is missing).
    private @Nullable KafkaProducer<byte[], byte[]> producer;
    private @Nullable KafkaConsumer<byte[], byte[]> tail;

    public SyncTopic(String name, Properties targetClient, Time time) {
        this.name = name;
        this.targetClient = targetClient;
        this.time = time;
    }

    public String name() {
        return name;
    }

    /** Creates the topic when it is missing (compacted, one partition). */
    public void ensure(Admin targetAdmin, short replicationFactor) {
        NewTopic topic = new NewTopic(
                        name, Optional.of(1), replicationFactor < 0 ? Optional.empty() : Optional.of(replicationFactor))
                .configs(Map.of("cleanup.policy", "compact", "max.message.bytes", String.valueOf(MAX_MESSAGE_BYTES)));
        try {
            targetAdmin.createTopics(List.of(topic)).all().get(TIMEOUT_MS, TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            if (!(e.getCause() instanceof TopicExistsException)) {
                throw new SyncException(
                        "could not create the sync topic " + name + " on the target: "
                                + (e.getCause() == null ? e : e.getCause()).getMessage()
                                + "; create it (compacted, 1 partition) or grant CREATE",
                        e.getCause());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new SyncException("interrupted creating the sync topic " + name, e);
        } catch (java.util.concurrent.TimeoutException e) {
            throw new SyncException("timed out creating the sync topic " + name, e);
        }
    }

    /** Sends one record; returns a future completed when the target acknowledged it. */
    public Future<?> write(byte[] key, byte @Nullable [] value) {
        return producer().send(new ProducerRecord<>(name, 0, key, value));
    }

    /** Waits for every record sent so far. */
    public void flush() {
        if (producer != null) {
            producer.flush();
        }
    }

    private KafkaProducer<byte[], byte[]> producer() {
        if (producer == null) {
            Properties props = clientProps(ProducerConfig.configNames());
            props.put(ProducerConfig.ACKS_CONFIG, "all");
            props.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
            props.put(ProducerConfig.MAX_REQUEST_SIZE_CONFIG, String.valueOf(MAX_MESSAGE_BYTES - 1024));
            props.put(ProducerConfig.COMPRESSION_TYPE_CONFIG, "lz4");
            props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
            props.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, String.valueOf(TIMEOUT_MS));
            props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, String.valueOf(TIMEOUT_MS));
            props.put(ProducerConfig.CLIENT_ID_CONFIG, "strait-sync-writer");
            producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
        }
        return producer;
    }

    private Properties clientProps(java.util.Set<String> known) {
        Properties props = new Properties();
        for (String n : targetClient.stringPropertyNames()) {
            if (known.contains(n) && !n.equals("client.id")) {
                props.put(n, targetClient.getProperty(n));
            }
        }
        return props;
    }

    /** Everything the topic holds now, latest value per key (tombstones remove). */
    public Map<String, ConsumerRecord<byte[], byte[]>> readAll() {
        Map<String, ConsumerRecord<byte[], byte[]>> latest = new HashMap<>();
        for (ConsumerRecord<byte[], byte[]> r : readNew()) {
            String k = new String(r.key() == null ? new byte[0] : r.key(), java.nio.charset.StandardCharsets.UTF_8);
            if (r.value() == null) {
                latest.remove(k);
            } else {
                latest.put(k, r);
            }
        }
        return latest;
    }

    /**
     * The records written since the last call (all of them on the first), up to the end offset seen when the
     * call started. A missing topic reads as empty.
     */
    public List<ConsumerRecord<byte[], byte[]>> readNew() {
        TopicPartition tp = new TopicPartition(name, 0);
        List<ConsumerRecord<byte[], byte[]>> out = new ArrayList<>();
        if (tail == null) {
            Properties props = clientProps(ConsumerConfig.configNames());
            props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            props.put(ConsumerConfig.MAX_PARTITION_FETCH_BYTES_CONFIG, String.valueOf(MAX_MESSAGE_BYTES));
            props.put(ConsumerConfig.FETCH_MAX_BYTES_CONFIG, String.valueOf(MAX_MESSAGE_BYTES));
            props.put(ConsumerConfig.CLIENT_ID_CONFIG, "strait-sync-reader");
            props.remove(ConsumerConfig.GROUP_ID_CONFIG);
            tail = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
            if (tail.partitionsFor(name, Duration.ofMillis(TIMEOUT_MS)).isEmpty()) {
                tail.close();
                tail = null;
                return out;
            }
            tail.assign(List.of(tp));
            tail.seekToBeginning(List.of(tp));
        }
        long end = Objects.requireNonNull(
                tail.endOffsets(List.of(tp), Duration.ofMillis(TIMEOUT_MS)).get(tp),
                "endOffsets answers for the partition it was asked");
        long deadline = time.milliseconds() + TIMEOUT_MS;
        while (tail.position(tp, Duration.ofMillis(TIMEOUT_MS)) < end) {
            if (time.milliseconds() > deadline) {
                throw new SyncException("reading the sync topic " + name + " did not reach offset " + end + " within "
                        + TIMEOUT_MS + " ms");
            }
            for (ConsumerRecord<byte[], byte[]> r : tail.poll(Duration.ofMillis(200))) {
                if (r.offset() < end) {
                    out.add(r);
                }
            }
        }
        return out;
    }

    @Override
    public void close() {
        if (producer != null) {
            producer.close(Duration.ofSeconds(30));
        }
        if (tail != null) {
            tail.close(Duration.ofSeconds(5));
        }
    }
}
