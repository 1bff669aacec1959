package dev.strait.mirror.linked;

import dev.strait.time.Time;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Saves the records of a partition's suffix into a topic of their own on the same cluster, before a failback or a
 * promote cuts them from the log: same partition, key, value, headers and timestamp, plus a header naming the
 * offset each record had ({@value #OFFSET_HEADER}). Every data record is saved, aborted ones included (a consumer
 * cannot tell them apart without the markers); the brokers also keep the cut batches byte for byte beside the log.
 */
final class SuffixCopy implements AutoCloseable {
    /** The offset a saved record had in the topic it was cut from, as decimal text. */
    static final String OFFSET_HEADER = "strait.diverged.offset";

    private static final Duration READ_TIMEOUT = Duration.ofSeconds(60);

    private final KafkaConsumer<byte[], byte[]> consumer;
    private final KafkaProducer<byte[], byte[]> producer;
    private final Time time;

    SuffixCopy(Properties client, Time time) {
        Properties c = new Properties();
        c.putAll(client);
        c.remove(ConsumerConfig.GROUP_ID_CONFIG);
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        c.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_uncommitted");
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        this.consumer = new KafkaConsumer<>(c);
        Properties p = new Properties();
        p.putAll(client);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        this.producer = new KafkaProducer<>(p);
        this.time = time;
    }

    /**
     * Copies the records of {@code from} at offsets [{@code start}, {@code end}) to the same partition of
     * {@code sideTopic}, and waits until every one is acknowledged.
     *
     * @return how many records were saved
     * @throws LinkException if the suffix cannot be read or written whole
     */
    long copy(TopicPartition from, long start, long end, String sideTopic) {
        consumer.assign(List.of(from));
        consumer.seek(from, start);
        List<Future<RecordMetadata>> sent = new ArrayList<>();
        long deadline = time.milliseconds() + READ_TIMEOUT.toMillis();
        while (consumer.position(from) < end) {
            for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(200))) {
                if (r.offset() < start || r.offset() >= end) {
                    continue;
                }
                RecordHeaders headers = new RecordHeaders(r.headers().toArray());
                headers.add(OFFSET_HEADER, Long.toString(r.offset()).getBytes(StandardCharsets.UTF_8));
                sent.add(producer.send(
                        new ProducerRecord<>(sideTopic, from.partition(), r.timestamp(), r.key(), r.value(), headers)));
            }
            if (time.milliseconds() > deadline) {
                throw new LinkException("could not read " + from + " up to offset " + end + " within "
                        + READ_TIMEOUT.toSeconds() + " s to save them");
            }
        }
        producer.flush();
        for (Future<RecordMetadata> f : sent) {
            try {
                f.get(60, TimeUnit.SECONDS);
            } catch (ExecutionException | TimeoutException e) {
                throw new LinkException(
                        "saving the records of " + from + " into " + sideTopic + " failed: " + e.getMessage());
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new LinkException("interrupted while saving the records of " + from);
            }
        }
        return sent.size();
    }

    @Override
    public void close() {
        consumer.close(Duration.ofSeconds(5));
        producer.close(Duration.ofSeconds(5));
    }
}
