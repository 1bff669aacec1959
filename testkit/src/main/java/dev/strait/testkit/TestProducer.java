package dev.strait.testkit;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * Produces deterministic test records: key {@code k-<n>}, a value that names topic, partition and n,
 * two headers and a distinct timestamp, so a copy can be compared field by field with its original.
 */
public final class TestProducer implements AutoCloseable {
    private final KafkaProducer<byte[], byte[]> producer;
    /**
     * Timestamps start at this producer's creation: brokers that keep their default time retention (7 days), as
     * the compose stacks' Apache Kafka does, delete records stamped years ago within a minute of their arrival.
     */
    private final long baseTs = System.currentTimeMillis();

    public TestProducer(String bootstrap) {
        this(Map.of(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap));
    }

    /** {@code client}: bootstrap.servers and any security settings of the cluster. */
    public TestProducer(Map<String, ?> client) {
        Properties props = new Properties();
        props.putAll(client);
        props.put(ProducerConfig.ACKS_CONFIG, "all");
        props.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        props.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "60000");
        props.put(ProducerConfig.BATCH_SIZE_CONFIG, "65536");
        producer = new KafkaProducer<>(props, new ByteArraySerializer(), new ByteArraySerializer());
    }

    /** Sends {@code perPartition} records to each of {@code partitions} partitions and waits for all acks. */
    public void produce(String topic, int partitions, int perPartition) {
        produce(topic, partitions, 0, perPartition);
    }

    public void produce(String topic, int partitions, int from, int perPartition) {
        java.util.concurrent.atomic.AtomicReference<Exception> failed =
                new java.util.concurrent.atomic.AtomicReference<>();
        for (int n = from; n < from + perPartition && failed.get() == null; n++) {
            for (int p = 0; p < partitions; p++) {
                producer.send(record(topic, p, n, baseTs + n, 64), (md, e) -> {
                    if (e != null) {
                        failed.compareAndSet(null, e);
                    }
                });
            }
        }
        producer.flush();
        if (failed.get() != null) {
            throw new IllegalStateException(
                    "producing test records to " + topic + " failed: " + failed.get(), failed.get());
        }
    }

    public static ProducerRecord<byte[], byte[]> record(String topic, int partition, long n, long ts, int valueSize) {
        RecordHeaders headers = new RecordHeaders();
        headers.add("trace", ("t-" + n).getBytes(StandardCharsets.UTF_8));
        headers.add("part", new byte[] {(byte) partition});
        StringBuilder value = new StringBuilder(topic)
                .append('/')
                .append(partition)
                .append('/')
                .append(n)
                .append('/');
        while (value.length() < valueSize) {
            value.append((char) ('a' + (value.length() % 26)));
        }
        byte[] key = n % 10 == 9 ? null : ("k-" + n).getBytes(StandardCharsets.UTF_8);
        return new ProducerRecord<>(
                topic, partition, ts, key, value.toString().getBytes(StandardCharsets.UTF_8), headers);
    }

    public void send(ProducerRecord<byte[], byte[]> record) {
        try {
            producer.send(record).get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("send failed: " + e, e);
        }
    }

    public KafkaProducer<byte[], byte[]> raw() {
        return producer;
    }

    @Override
    public void close() {
        producer.close();
    }
}
