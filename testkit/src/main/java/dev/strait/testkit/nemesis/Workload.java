package dev.strait.testkit.nemesis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ListConsumerGroupOffsetsOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.jspecify.annotations.Nullable;

/**
 * Runs the {@link WorkloadSpec} against a cluster and records everything in a {@link History}: producer threads
 * (numbered records, paced), consumer group members (commit after every poll), and a poller that reads the group's
 * committed offsets back every second. Every loop stops on {@link #stop()}, bounded in time.
 */
public final class Workload implements AutoCloseable {
    static final String GROUP = "nemesis-group";

    private final WorkloadSpec spec;
    private final String bootstrap;
    private final History history;
    private final EventLog events;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final AtomicBoolean consumersStopping = new AtomicBoolean();
    /** Set by a callback that saw a non-retriable error: such a producer may be in a fatal state. */
    private final Map<Integer, AtomicBoolean> replaceProducer = new java.util.concurrent.ConcurrentHashMap<>();

    private final List<Thread> producerThreads = new ArrayList<>();
    private final List<Thread> consumerThreads = new ArrayList<>();
    private final List<KafkaConsumer<byte[], byte[]>> liveConsumers = new ArrayList<>();
    private @Nullable Thread poller;

    public Workload(WorkloadSpec spec, String bootstrap, History history, EventLog events) {
        this.spec = spec;
        this.bootstrap = bootstrap;
        this.history = history;
        this.events = events;
    }

    public void start(Admin admin) {
        long perProducer = Math.max(1, spec.recordsPerSecond() / spec.producers());
        for (int w = 1; w <= spec.producers(); w++) {
            int worker = w;
            Thread t = new Thread(() -> produce(worker, perProducer), "nemesis-producer-" + w);
            t.setDaemon(true);
            producerThreads.add(t);
            t.start();
        }
        for (int c = 1; c <= spec.consumers(); c++) {
            int member = c;
            Thread t = new Thread(() -> consume(member), "nemesis-consumer-" + c);
            t.setDaemon(true);
            consumerThreads.add(t);
            t.start();
        }
        if (spec.consumers() > 0) {
            poller = new Thread(() -> pollCommitted(admin), "nemesis-offset-poller");
            poller.setDaemon(true);
            poller.start();
        }
    }

    private Properties producerProps(String clientId) {
        return producerProps(bootstrap, clientId, spec);
    }

    /** An idempotent acks=all producer whose timeouts are the spec's, so it retries into the faults. */
    static Properties producerProps(String bootstrap, String clientId, WorkloadSpec spec) {
        Properties p = new Properties();
        p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, "5");
        p.put(ProducerConfig.RETRIES_CONFIG, Integer.toString(Integer.MAX_VALUE));
        p.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, Long.toString(spec.requestTimeoutMs()));
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, Long.toString(spec.deliveryTimeoutMs()));
        p.put(ProducerConfig.LINGER_MS_CONFIG, "5");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "5000");
        p.put(ProducerConfig.RETRY_BACKOFF_MS_CONFIG, "100");
        p.put(ProducerConfig.RETRY_BACKOFF_MAX_MS_CONFIG, "1000");
        p.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, "5000");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        return p;
    }

    private void produce(int worker, long perSecond) {
        long intervalNanos = 1_000_000_000L / perSecond;
        long[] numbers = new long[spec.partitions()];
        int generation = 0;
        String tag = "w" + worker + "." + generation;
        KafkaProducer<byte[], byte[]> producer = new KafkaProducer<>(producerProps("nemesis-" + tag));
        long next = System.nanoTime();
        long count = 0;
        AtomicBoolean replace = replaceProducer.computeIfAbsent(worker, w -> new AtomicBoolean());
        try {
            while (!stopping.get()) {
                if (replace.getAndSet(false)) {
                    // A fatal producer error: the next generation of this worker carries on, numbered apart.
                    events.log(
                            "producer " + tag + " saw a non-retriable error; starting generation " + (generation + 1));
                    producer.close(Duration.ofSeconds(5));
                    generation++;
                    tag = "w" + worker + "." + generation;
                    producer = new KafkaProducer<>(producerProps("nemesis-" + tag));
                }
                long now = System.nanoTime();
                if (now < next) {
                    LockSupport.parkNanos(next - now);
                    continue;
                }
                next = Math.max(next + intervalNanos, now - 1_000_000_000L); // after a stall: no burst beyond 1 s
                int partition = (int) (count++ % spec.partitions());
                long number = numbers[partition]++;
                String producerTag = tag;
                byte[] value = (producerTag + ":" + partition + ":" + number).getBytes(StandardCharsets.UTF_8);
                try {
                    producer.send(new ProducerRecord<>(spec.topic(), partition, null, value), (metadata, e) -> {
                        if (e == null) {
                            history.acked(producerTag, partition, number, metadata.offset());
                        } else {
                            history.failed(e);
                            if (!(e instanceof RetriableException)) {
                                replace.set(true);
                            }
                        }
                    });
                    history.sent();
                } catch (InterruptException e) {
                    break;
                } catch (RetriableException e) {
                    history.failed(e); // e.g. no metadata within max.block.ms: never sent
                } catch (KafkaException | IllegalStateException e) {
                    history.failed(e);
                    replace.set(true);
                }
            }
        } finally {
            // Bounded: what is not acknowledged by then fails its callback and counts as not acknowledged.
            producer.close(Duration.ofSeconds(30));
        }
    }

    private void consume(int member) {
        while (!consumersStopping.get()) {
            Properties p = new Properties();
            p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
            p.put(ConsumerConfig.GROUP_ID_CONFIG, GROUP);
            p.put(ConsumerConfig.CLIENT_ID_CONFIG, "nemesis-consumer-" + member);
            p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
            p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
            p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "10000");
            p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
            p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
            p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
            p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
            p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
            String who = "consumer " + member;
            KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p);
            synchronized (liveConsumers) {
                liveConsumers.add(consumer);
            }
            try {
                consumer.subscribe(List.of(spec.topic()));
                while (!consumersStopping.get()) {
                    ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(500));
                    Map<TopicPartition, OffsetAndMetadata> commit = new HashMap<>();
                    for (ConsumerRecord<byte[], byte[]> r : records) {
                        history.consumed(r.partition(), r.offset(), new String(r.value(), StandardCharsets.UTF_8));
                        commit.put(new TopicPartition(r.topic(), r.partition()), new OffsetAndMetadata(r.offset() + 1));
                    }
                    if (commit.isEmpty()) {
                        continue;
                    }
                    long start = System.nanoTime();
                    try {
                        consumer.commitSync(commit, Duration.ofSeconds(5));
                        long end = System.nanoTime();
                        commit.forEach((tp, o) -> history.offsetCommitted(tp.partition(), o.offset(), start, end, who));
                    } catch (WakeupException e) {
                        throw e;
                    } catch (KafkaException e) {
                        // Not acknowledged: neither counted nor held against the cluster.
                    }
                }
            } catch (WakeupException | InterruptException e) {
                break;
            } catch (KafkaException e) {
                events.log(who + " failed (" + e + "); a new member replaces it");
                NemesisCluster.sleep(1_000);
            } finally {
                synchronized (liveConsumers) {
                    liveConsumers.remove(consumer);
                }
                try {
                    consumer.close(Duration.ofSeconds(5));
                } catch (RuntimeException ignored) {
                    // closing after a failure: nothing left to save
                }
            }
        }
    }

    private void pollCommitted(Admin admin) {
        while (!consumersStopping.get()) {
            long start = System.nanoTime();
            try {
                Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets(
                                GROUP, new ListConsumerGroupOffsetsOptions())
                        .partitionsToOffsetAndMetadata()
                        .get(5, TimeUnit.SECONDS);
                long end = System.nanoTime();
                offsets.forEach((tp, o) -> {
                    if (o != null && tp.topic().equals(spec.topic())) {
                        history.committedOffsetRead(tp.partition(), o.offset(), start, end);
                    }
                });
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (Exception e) {
                // the coordinator is out of reach: nothing observed
            }
            try {
                Thread.sleep(1_000);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    /** Stops the producers (flushing, bounded), then the consumers and the poller. */
    public void stop() {
        stopping.set(true);
        join(producerThreads, 60_000);
        stopConsumers();
    }

    private void stopConsumers() {
        consumersStopping.set(true);
        synchronized (liveConsumers) {
            liveConsumers.forEach(KafkaConsumer::wakeup);
        }
        join(consumerThreads, 30_000);
        if (poller != null) {
            poller.interrupt();
            join(List.of(poller), 10_000);
        }
    }

    private static void join(List<Thread> threads, long timeoutMs) {
        long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        for (Thread t : threads) {
            try {
                t.join(Math.max(1, (deadline - System.nanoTime()) / 1_000_000L));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    @Override
    public void close() {
        if (!stopping.get() || !consumersStopping.get()) {
            stop();
        }
    }
}
