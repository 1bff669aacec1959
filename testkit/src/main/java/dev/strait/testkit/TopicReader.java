package dev.strait.testkit;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/** Reads a whole topic, partition by partition, up to the end offsets seen when reading starts. */
public final class TopicReader {
    private TopicReader() {}

    public static Map<Integer, List<ConsumerRecord<byte[], byte[]>>> readAll(String bootstrap, String topic) {
        return readAll(Map.of(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), topic);
    }

    /** {@code client}: bootstrap.servers and any security settings of the cluster. */
    public static Map<Integer, List<ConsumerRecord<byte[], byte[]>>> readAll(Map<String, ?> client, String topic) {
        String bootstrap = String.valueOf(client.get(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG));
        Properties props = new Properties();
        props.putAll(client);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer())) {
            List<PartitionInfo> infos = consumer.partitionsFor(topic, Duration.ofSeconds(30));
            if (infos == null || infos.isEmpty()) {
                throw new IllegalStateException("topic " + topic + " not found at " + bootstrap);
            }
            List<TopicPartition> parts = infos.stream()
                    .map(i -> new TopicPartition(topic, i.partition()))
                    .collect(Collectors.toList());
            consumer.assign(parts);
            consumer.seekToBeginning(parts);
            Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(parts, Duration.ofSeconds(30)));
            Map<Integer, List<ConsumerRecord<byte[], byte[]>>> out = new TreeMap<>();
            parts.forEach(tp -> out.put(tp.partition(), new ArrayList<>()));
            long deadline = System.nanoTime() + Duration.ofSeconds(120).toNanos();
            while (!done(consumer, end)) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("reading " + topic + " did not reach " + end + " in 120 s");
                }
                for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                    if (r.offset()
                            < Objects.requireNonNull(end.get(new TopicPartition(r.topic(), r.partition())), "end")) {
                        Objects.requireNonNull(out.get(r.partition()), "partition")
                                .add(r);
                    }
                }
            }
            return out;
        }
    }

    private static boolean done(KafkaConsumer<?, ?> consumer, Map<TopicPartition, Long> end) {
        for (Map.Entry<TopicPartition, Long> e : end.entrySet()) {
            if (consumer.position(e.getKey()) < e.getValue()) {
                return false;
            }
        }
        return true;
    }

    public static long count(Map<Integer, List<ConsumerRecord<byte[], byte[]>>> records) {
        return records.values().stream().mapToLong(List::size).sum();
    }
}
