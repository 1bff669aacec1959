package dev.strait.cli;

import dev.strait.time.Time;
import java.nio.charset.StandardCharsets;
import java.util.BitSet;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * The demo's steady, bounded load: keyed records with headers, round-robin over the demo topics, at a fixed
 * rate until stopped. Every record carries its sequence number (header {@value #SEQ_HEADER}); the load
 * remembers which ones the source acknowledged, so the verdict can name each acknowledged record the target
 * lacks instead of comparing counts (where one extra record would hide one lost).
 */
final class DemoLoad implements AutoCloseable {
    static final String SEQ_HEADER = "seq";

    private final KafkaProducer<byte[], byte[]> producer;
    private final List<String> topics;
    private final int recordsPerSecond;
    private final Time time;
    private final Thread thread;
    private final AtomicLong acked = new AtomicLong();
    private final AtomicLong failed = new AtomicLong();
    private final BitSet ackedSeqs = new BitSet();
    private volatile boolean running = true;

    /** {@code client}: the source's connection and security settings. */
    DemoLoad(Properties client, List<String> topics, int recordsPerSecond, Time time) {
        Properties p = new Properties();
        p.putAll(client);
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "10");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "300000");
        this.producer = new KafkaProducer<>(p, new ByteArraySerializer(), new ByteArraySerializer());
        this.topics = topics;
        this.recordsPerSecond = recordsPerSecond;
        this.time = time;
        this.thread = new Thread(this::run, "strait-demo-load");
        thread.setDaemon(true);
    }

    void start() {
        thread.start();
    }

    private void run() {
        long startNanos = time.nanoseconds();
        long n = 0;
        while (running) {
            String topic = topics.get((int) (n % topics.size()));
            RecordHeaders headers = new RecordHeaders();
            headers.add("source", "strait-demo".getBytes(StandardCharsets.UTF_8));
            headers.add(SEQ_HEADER, Long.toString(n).getBytes(StandardCharsets.UTF_8));
            byte[] key = ("customer-" + (n % 997)).getBytes(StandardCharsets.UTF_8);
            byte[] value = ("{\"order\":" + n + ",\"amount\":" + (n * 37 % 10_000) / 100.0 + "}")
                    .getBytes(StandardCharsets.UTF_8);
            int seq = (int) n;
            producer.send(new ProducerRecord<>(topic, null, time.milliseconds(), key, value, headers), (md, e) -> {
                if (e == null) {
                    acked.incrementAndGet();
                    synchronized (ackedSeqs) {
                        ackedSeqs.set(seq);
                    }
                } else {
                    failed.incrementAndGet();
                }
            });
            n++;
            long dueNanos = startNanos + 1_000_000_000L * n / recordsPerSecond;
            long waitMs = (dueNanos - time.nanoseconds()) / 1_000_000;
            if (waitMs > 0) {
                time.sleep(waitMs);
            }
        }
    }

    long acked() {
        return acked.get();
    }

    long failed() {
        return failed.get();
    }

    /** The sequence numbers the source acknowledged (a copy). */
    BitSet ackedSeqs() {
        synchronized (ackedSeqs) {
            return (BitSet) ackedSeqs.clone();
        }
    }

    /** The sequence number a record of this load carries, or -1. */
    static long seqOf(org.apache.kafka.common.header.Headers headers) {
        var h = headers.lastHeader(SEQ_HEADER);
        if (h == null) {
            return -1;
        }
        try {
            return Long.parseLong(new String(h.value(), StandardCharsets.UTF_8));
        } catch (NumberFormatException e) {
            return -1;
        }
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
