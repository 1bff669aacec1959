package dev.strait.mirror.failover;

import dev.strait.mirror.provenance.Provenance;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.List;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

/**
 * Counts the source records of a partition that are not on the target yet (from the mirror's frontier to the
 * source's end), as a consumer reads them (committed transactions only), leaving out those the mirror never
 * copies (copies of the target's own records, dropped by loop prevention), and finds the age of the oldest.
 * Reads at most {@code maxRecords} per partition. Not thread-safe.
 */
final class SourceTail implements AutoCloseable {
    private final KafkaConsumer<byte[], byte[]> consumer;
    private final String targetCluster;
    private final Time time;
    private final long maxRecords;

    /** What is missing on the target of one source partition. */
    record Missing(long records, boolean atLeast, double oldestAgeSeconds) {}

    SourceTail(Properties sourceClient, String targetCluster, Time time, long maxRecords) {
        Properties props = new Properties();
        for (String name : sourceClient.stringPropertyNames()) {
            if (ConsumerConfig.configNames().contains(name)) {
                props.put(name, sourceClient.getProperty(name));
            }
        }
        props.remove(ConsumerConfig.GROUP_ID_CONFIG);
        props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        props.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        props.put(ConsumerConfig.CLIENT_ID_CONFIG, "strait-failover-source-reader");
        this.consumer = new KafkaConsumer<>(props, new ByteArrayDeserializer(), new ByteArrayDeserializer());
        this.targetCluster = targetCluster;
        this.time = time;
        this.maxRecords = maxRecords;
    }

    Missing missing(TopicPartition tp, long from, long end) {
        if (from >= end) {
            return new Missing(0, false, -1);
        }
        consumer.assign(List.of(tp));
        consumer.seek(tp, from);
        long count = 0;
        long oldest = Long.MAX_VALUE;
        long deadline = time.milliseconds() + Connections.TIMEOUT_MS;
        long position = from;
        while (position < end && count < maxRecords && time.milliseconds() < deadline) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                if (r.offset() >= end) {
                    continue;
                }
                byte[] header = r.headers().lastHeader(Provenance.HEADER) == null
                        ? null
                        : r.headers().lastHeader(Provenance.HEADER).value();
                if (targetCluster.equals(Provenance.originOf(header))) {
                    continue;
                }
                count++;
                oldest = Math.min(oldest, r.timestamp());
            }
            position = consumer.position(tp, Duration.ofMillis(Connections.TIMEOUT_MS));
        }
        boolean atLeast = position < end;
        double age = oldest == Long.MAX_VALUE ? -1 : Math.max(0, time.milliseconds() - oldest) / 1000.0;
        return new Missing(count, atLeast, age);
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(2));
    }
}
