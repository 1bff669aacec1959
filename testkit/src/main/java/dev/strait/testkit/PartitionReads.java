package dev.strait.testkit;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * One partition as a test compares it between two clusters: its end and stable offsets, and every record a
 * consumer of an isolation level reads, as {@code "offset:value"} ({@code "null"} for a tombstone).
 */
public final class PartitionReads {
    private PartitionReads() {}

    /** The end offset (the high watermark); -1 while the partition does not answer. */
    public static long end(Admin admin, TopicPartition tp) {
        return latest(admin, tp, IsolationLevel.READ_UNCOMMITTED);
    }

    /** The last stable offset (the end a read_committed consumer sees); -1 while the partition does not answer. */
    public static long stableEnd(Admin admin, TopicPartition tp) {
        return latest(admin, tp, IsolationLevel.READ_COMMITTED);
    }

    private static long latest(Admin admin, TopicPartition tp, IsolationLevel isolation) {
        try {
            return admin.listOffsets(Map.of(tp, OffsetSpec.latest()), new ListOffsetsOptions(isolation))
                    .partitionResult(tp)
                    .get(30, TimeUnit.SECONDS)
                    .offset();
        } catch (ExecutionException | TimeoutException e) {
            return -1;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    /** Every record from the start to the end the consumer sees, read by a consumer with {@code clientProps}. */
    public static List<String> records(Properties clientProps, TopicPartition tp, String isolationLevel) {
        Properties props = new Properties();
        props.putAll(clientProps);
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, isolationLevel);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        List<String> records = new ArrayList<>();
        try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(props)) {
            consumer.assign(List.of(tp));
            consumer.seekToBeginning(List.of(tp));
            long end = Objects.requireNonNull(consumer.endOffsets(List.of(tp)).get(tp), "end offset");
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (consumer.position(tp) < end && System.nanoTime() < deadline) {
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    records.add(r.offset() + ":"
                            + (r.value() == null ? "null" : new String(r.value(), StandardCharsets.UTF_8)));
                }
            }
            if (consumer.position(tp) < end) {
                throw new AssertionError(
                        "read " + tp + " only to " + consumer.position(tp) + " of " + end + " in 60 s");
            }
        }
        return records;
    }

    /** As {@link #records(Properties, TopicPartition, String)} for an unsecured cluster. */
    public static List<String> records(String bootstrapServers, TopicPartition tp, String isolationLevel) {
        Properties props = new Properties();
        props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
        return records(props, tp, isolationLevel);
    }
}
