package dev.strait.testkit.nemesis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.jspecify.annotations.Nullable;

/**
 * The final read of a run: every partition from its start up to the end offset it had when the read began (for a
 * read_committed consumer, its last stable offset), record by record into the partition's list.
 */
final class ReadToEnd {

    private ReadToEnd() {}

    /**
     * @param consumer a fresh consumer of the isolation level wanted, not yet assigned
     * @return null when every partition was read to its end within {@code timeout}, else those end offsets
     */
    static @Nullable Map<TopicPartition, Long> read(
            KafkaConsumer<byte[], byte[]> consumer,
            List<TopicPartition> partitions,
            Duration timeout,
            Map<Integer, List<Checker.LogRecord>> out) {
        long deadline = System.nanoTime() + timeout.toNanos();
        consumer.assign(partitions);
        consumer.seekToBeginning(partitions);
        Map<TopicPartition, Long> end = new HashMap<>(consumer.endOffsets(partitions, Duration.ofSeconds(60)));
        while (System.nanoTime() < deadline) {
            boolean done = true;
            for (TopicPartition tp : partitions) {
                if (consumer.position(tp, Duration.ofSeconds(30)) < Objects.requireNonNull(end.get(tp), "end")) {
                    done = false;
                }
            }
            if (done) {
                return null;
            }
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                if (r.offset() < Objects.requireNonNull(end.get(new TopicPartition(r.topic(), r.partition())), "end")) {
                    Objects.requireNonNull(out.get(r.partition()), "partition")
                            .add(new Checker.LogRecord(r.offset(), new String(r.value(), StandardCharsets.UTF_8)));
                }
            }
        }
        return end;
    }
}
