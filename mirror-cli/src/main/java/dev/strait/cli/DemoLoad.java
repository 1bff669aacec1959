package dev.strait.cli;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The demo's steady, bounded load: keyed records with headers, round-robin over the demo topics, at a fixed
 * rate until stopped. Counts what the source acknowledged: the figure the verdict checks the target against.
 */
final class DemoLoad implements AutoCloseable {
    private final KafkaProducer<byte[], byte[]> producer;
    private final List<String> topics;
    private final int recordsPerSecond;
    private final Thread thread;
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private volatile boolean running = true;

    DemoLoad(String bootstrap, List<String> topics, int recordsPerSecond) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "10");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "300000");
        this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        this.topics = topics;
        this.recordsPerSecond = recordsPerSecond;
        this.thread = new Thread(this::run, "strait-demo-load");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void run() {
        long start = System.nanoTime();
        long n = 0;
        while (running) {
            String topic = topics.get((int) (n % topics.size()));
            RecordHeaders headers = new RecordHeaders();
            headers.add("source", "strait-demo".getBytes(StandardCharsets.UTF_8));
            headers.add("seq", Long.toString(n).getBytes(StandardCharsets.UTF_8));
            byte[] key = ("customer-" + (n % 997)).getBytes(StandardCharsets.UTF_8);
            byte[] value = ("{\"order\":" + n + ",\"amount\":" + (n * 37 % 10_000) / 100.0 + "}")
                .getBytes(StandardCharsets.UTF_8);
            producer.send(new ProducerRecord<>(topic, null, System.currentTimeMillis(), key, value, headers), (md, e) -> {
                if (e == null) {
                    acked.incrementAndGet();
                } else {
                    failed.incrementAndGet();
                }
            });
            n++;
            long dueNanos = start + TimeUnit.SECONDS.toNanos(1) * n / recordsPerSecond;
            long waitNanos = dueNanos - System.nanoTime();
            if (waitNanos > 0) {
                try {
                    TimeUnit.NANOSECONDS.sleep(waitNanos);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    long acked() {
        return acked.get();
    }

    long failed() {
        return failed.get();
    }

    /** Stops producing and waits until every record sent was acknowledged or failed. */
    void stop() throws InterruptedException {
        running = false;
        thread.join(10_000);
        producer.flush();
    }

    @Override
    public void close() throws InterruptedException {
        stop();
        producer.close();
    }
}
