package dev.strait.testkit.nemesis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Properties;
import java.util.Random;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.ListOffsetsOptions;
import org.apache.kafka.clients.admin.ListOffsetsResult;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.IsolationLevel;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.InterruptException;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.jspecify.annotations.Nullable;

/**
 * The transactional workload ({@link WorkloadSpec.Kind#TXN}), recorded in a {@link TxnHistory} (transactions and
 * live reads) and a {@link History} (sends, failures, and each record of a committed transaction as acknowledged, so
 * the run's liveness checks work as for the idempotent workload):
 * <ul>
 *   <li>{@code producers} transactional producers ({@code transactional.id} {@code nemesis-txn-<k>}, {@code acks=all},
 *       idempotent), each writing transactions one after another, paced to the spec's rate: a transaction writes
 *       {@value #RECORDS_PER_PARTITION} numbered records to each of {@value #PARTITIONS_PER_TXN} partitions drawn
 *       from the seed, then commits, or aborts ({@value #ABORT_PERCENT}% drawn from the seed, and always when a send
 *       failed). A commit that throws leaves the outcome unknown: the producer is closed and a new one with the same
 *       transactional id calls {@code initTransactions}, which completes or aborts what was pending. At most
 *       {@value #MAX_TXNS_PER_PRODUCER} transactions per producer; on {@link #stop()} each finishes the transaction
 *       it is in.</li>
 *   <li>{@code consumers} read_committed readers, each assigned every partition from the beginning (no group), that
 *       read until the producers have stopped; a reader that fails is replaced and resumes where it was.</li>
 * </ul>
 * {@link #finalRead} reads every partition from the beginning to its end after healing, in either isolation level.
 */
public final class TxnWorkload implements AutoCloseable {
    static final int PARTITIONS_PER_TXN = 3;
    static final int RECORDS_PER_PARTITION = 2;
    static final int ABORT_PERCENT = 20;
    static final long MAX_TXNS_PER_PRODUCER = 100_000;
    /** The producers' {@code transaction.timeout.ms}: a transaction a dead producer left open is aborted after it. */
    static final int TRANSACTION_TIMEOUT_MS = 20_000;

    private final WorkloadSpec spec;
    private final String bootstrap;
    private final History history;
    private final TxnHistory txns;
    private final EventLog events;
    private final long seed;
    private final AtomicBoolean stopping = new AtomicBoolean();
    private final AtomicBoolean readersStopping = new AtomicBoolean();
    private final List<Thread> producerThreads = new ArrayList<>();
    private final List<Thread> readerThreads = new ArrayList<>();
    private final List<KafkaConsumer<byte[], byte[]>> liveReaders = new ArrayList<>();
    /** Liveness failures: sends the client never completed, producers that did not finish after stop. */
    private final java.util.concurrent.ConcurrentLinkedDeque<String> stuck =
            new java.util.concurrent.ConcurrentLinkedDeque<>();

    public TxnWorkload(
            WorkloadSpec spec, String bootstrap, History history, TxnHistory txns, EventLog events, long seed) {
        this.spec = spec;
        this.bootstrap = bootstrap;
        this.history = history;
        this.txns = txns;
        this.events = events;
        this.seed = seed;
    }

    public void start() {
        int perTxn = Math.min(PARTITIONS_PER_TXN, spec.partitions()) * RECORDS_PER_PARTITION;
        double txnsPerSecond = Math.max(0.2, spec.recordsPerSecond() / (double) spec.producers() / perTxn);
        for (int w = 1; w <= spec.producers(); w++) {
            int worker = w;
            Thread t = new Thread(() -> produce(worker, txnsPerSecond), "nemesis-txn-producer-" + w);
            t.setDaemon(true);
            producerThreads.add(t);
            t.start();
        }
        for (int c = 1; c <= spec.consumers(); c++) {
            int reader = c;
            Thread t = new Thread(() -> read(reader), "nemesis-txn-reader-" + c);
            t.setDaemon(true);
            readerThreads.add(t);
            t.start();
        }
    }

    /**
     * What the coordinator says of a transactional id whose send is stuck, for the anomaly's text (the only part of a
     * failed run a build's summary shows): which node coordinates it, in what state, over which partitions.
     */
    private String coordinatorView(String transactionalId) {
        Properties p = new Properties();
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, "3000");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "6000");
        try (Admin admin = Admin.create(p)) {
            var d = admin.describeTransactions(List.of(transactionalId))
                    .description(transactionalId)
                    .get(8, TimeUnit.SECONDS);
            return String.format(
                    java.util.Locale.ROOT,
                    "coordinator %d says %s, producer %d epoch %d, partitions %s, started %s",
                    d.coordinatorId(),
                    d.state(),
                    d.producerId(),
                    d.producerEpoch(),
                    d.topicPartitions(),
                    d.transactionStartTimeMs().isPresent()
                            ? (System.currentTimeMillis()
                                                    - d.transactionStartTimeMs().getAsLong())
                                            / 1000 + " s ago"
                            : "never");
        } catch (ExecutionException e) {
            return "its coordinator does not describe it: " + Objects.requireNonNullElse(e.getCause(), e);
        } catch (TimeoutException | RuntimeException e) {
            return "its coordinator does not describe it: " + e;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted while describing it";
        }
    }

    private Properties producerProps(String transactionalId, int generation) {
        Properties p = Workload.producerProps(bootstrap, transactionalId + "." + generation, spec);
        p.put(ProducerConfig.TRANSACTIONAL_ID_CONFIG, transactionalId);
        p.put(ProducerConfig.TRANSACTION_TIMEOUT_CONFIG, Integer.toString(TRANSACTION_TIMEOUT_MS));
        // Bounds initTransactions, commitTransaction and abortTransaction: a commit that takes longer is unknown.
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
        return p;
    }

    private void produce(int worker, double txnsPerSecond) {
        Random random = new Random(seed * 1_000_003L + worker);
        String producerTag = "t" + worker;
        String transactionalId = "nemesis-txn-" + worker;
        long intervalNanos = (long) (1_000_000_000L / txnsPerSecond);
        int generation = 0;
        KafkaProducer<byte[], byte[]> producer = null;
        long next = System.nanoTime();
        long number = 0;
        List<Integer> all = new ArrayList<>();
        for (int p = 0; p < spec.partitions(); p++) {
            all.add(p);
        }
        try {
            while (!stopping.get() && number < MAX_TXNS_PER_PRODUCER) {
                if (producer == null) {
                    producer = new KafkaProducer<>(producerProps(transactionalId, generation++));
                    try {
                        producer.initTransactions();
                    } catch (InterruptException e) {
                        break;
                    } catch (KafkaException e) {
                        history.failed(e);
                        close(producer);
                        producer = null;
                        NemesisCluster.sleep(1_000);
                        continue;
                    }
                }
                long now = System.nanoTime();
                if (now < next) {
                    LockSupport.parkNanos(next - now);
                    continue;
                }
                next = Math.max(next + intervalNanos, now - 1_000_000_000L); // after a stall: no burst beyond 1 s
                Collections.shuffle(all, random);
                List<Integer> layout = new ArrayList<>();
                for (int p : all.subList(0, Math.min(PARTITIONS_PER_TXN, all.size()))) {
                    for (int i = 0; i < RECORDS_PER_PARTITION; i++) {
                        layout.add(p);
                    }
                }
                boolean abort = random.nextInt(100) < ABORT_PERCENT;
                long txn = number++;
                txns.begun(producerTag, txn, layout);
                if (!transact(producer, transactionalId, producerTag, generation - 1, txn, layout, abort)) {
                    close(producer);
                    producer = null;
                }
            }
        } catch (InterruptException e) {
            // stopping
        } catch (RuntimeException e) {
            events.log("txn producer " + producerTag + " died: " + e);
            throw e;
        } finally {
            if (producer != null) {
                close(producer);
            }
        }
    }

    /**
     * Runs one transaction and records its outcome; false when the producer must be replaced (a step threw).
     */
    private boolean transact(
            KafkaProducer<byte[], byte[]> producer,
            String transactionalId,
            String tag,
            int generation,
            long txn,
            List<Integer> layout,
            boolean abort) {
        List<Future<RecordMetadata>> sends = new ArrayList<>();
        try {
            producer.beginTransaction();
            for (int i = 0; i < layout.size(); i++) {
                int partition = layout.get(i);
                byte[] value = TxnHistory.value(tag, txn, partition, i).getBytes(StandardCharsets.UTF_8);
                sends.add(producer.send(new ProducerRecord<>(spec.topic(), partition, null, value)));
                history.sent();
            }
            List<RecordMetadata> written = new ArrayList<>();
            boolean allWritten = true;
            // One deadline for all: the client completes every send within delivery.timeout.ms, or should.
            long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(spec.deliveryTimeoutMs() + 5_000);
            for (int i = 0; i < sends.size(); i++) {
                try {
                    written.add(sends.get(i).get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
                } catch (ExecutionException e) {
                    history.failed(Objects.requireNonNullElse(e.getCause(), e));
                    allWritten = false;
                } catch (TimeoutException e) {
                    history.failed(e);
                    allWritten = false;
                    stuck.add(String.format(
                            java.util.Locale.ROOT,
                            "producer %s (generation %d): send of %s to p%d neither acknowledged nor failed %d ms"
                                    + " after it was sent (delivery.timeout.ms %d) at %.1f s; %s",
                            tag,
                            generation,
                            TxnHistory.value(tag, txn, layout.get(i), i),
                            layout.get(i),
                            spec.deliveryTimeoutMs() + 5_000,
                            spec.deliveryTimeoutMs(),
                            (System.nanoTime() - events.startNanos()) / 1e9,
                            coordinatorView(transactionalId)));
                    events.log("txn producer " + tag + ": " + stuck.peekLast());
                    break;
                }
            }
            if (abort || !allWritten) {
                if (!allWritten) {
                    events.log("txn producer " + tag + ": a send of transaction " + txn + " failed; aborting it");
                }
                producer.abortTransaction();
                txns.ended(tag, txn, TxnHistory.Outcome.ABORTED);
                return true;
            }
            try {
                producer.commitTransaction();
            } catch (InterruptException e) {
                txns.ended(tag, txn, TxnHistory.Outcome.UNKNOWN);
                throw e;
            } catch (KafkaException | IllegalStateException e) {
                // It may have committed or not: a new producer's initTransactions settles it, all or nothing.
                txns.ended(tag, txn, TxnHistory.Outcome.UNKNOWN);
                history.failed(e);
                events.log("txn producer " + tag + ": commit of transaction " + txn + " threw " + e
                        + "; outcome unknown, replacing the producer");
                return false;
            }
            txns.ended(tag, txn, TxnHistory.Outcome.COMMITTED);
            for (int i = 0; i < written.size(); i++) {
                history.acked(tag + "." + txn, layout.get(i), i, written.get(i).offset());
            }
            return true;
        } catch (InterruptedException e) {
            // never committed: the next producer's initTransactions (or the transaction timeout) aborts it
            txns.ended(tag, txn, TxnHistory.Outcome.ABORTED);
            Thread.currentThread().interrupt();
            throw new InterruptException(e);
        } catch (InterruptException e) {
            txns.ended(tag, txn, TxnHistory.Outcome.ABORTED);
            throw e;
        } catch (KafkaException | IllegalStateException e) {
            // Before any commit was asked for: the transaction can only abort (here, or by the next
            // initTransactions, or by the coordinator's timeout).
            txns.ended(tag, txn, TxnHistory.Outcome.ABORTED);
            history.failed(e);
            events.log("txn producer " + tag + ": transaction " + txn + " failed before its commit (" + e
                    + "); aborted, replacing the producer");
            return false;
        }
    }

    private static void close(KafkaProducer<byte[], byte[]> producer) {
        try {
            producer.close(Duration.ofSeconds(10));
        } catch (RuntimeException ignored) {
            // closing a failed producer: nothing left to save
        }
    }

    private static Properties readerProps(String bootstrap, String clientId, IsolationLevel isolation) {
        Properties p = new Properties();
        p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId);
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        p.put(
                ConsumerConfig.ISOLATION_LEVEL_CONFIG,
                isolation == IsolationLevel.READ_COMMITTED ? "read_committed" : "read_uncommitted");
        p.put(ConsumerConfig.MAX_POLL_RECORDS_CONFIG, "5000");
        p.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, "5000");
        p.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "10000");
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        return p;
    }

    private static List<TopicPartition> partitions(WorkloadSpec spec) {
        List<TopicPartition> tps = new ArrayList<>();
        for (int i = 0; i < spec.partitions(); i++) {
            tps.add(new TopicPartition(spec.topic(), i));
        }
        return tps;
    }

    private void read(int reader) {
        Map<TopicPartition, Long> positions = new HashMap<>();
        String who = "read_committed reader " + reader;
        while (!readersStopping.get()) {
            KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(
                    readerProps(bootstrap, "nemesis-txn-reader-" + reader, IsolationLevel.READ_COMMITTED));
            synchronized (liveReaders) {
                liveReaders.add(consumer);
            }
            try {
                List<TopicPartition> tps = partitions(spec);
                consumer.assign(tps);
                for (TopicPartition tp : tps) {
                    Long at = positions.get(tp);
                    if (at == null) {
                        consumer.seekToBeginning(List.of(tp));
                    } else {
                        consumer.seek(tp, at);
                    }
                }
                while (!readersStopping.get()) {
                    for (ConsumerRecord<byte[], byte[]> r : consumer.poll(Duration.ofMillis(500))) {
                        txns.read(r.partition(), r.offset(), new String(r.value(), StandardCharsets.UTF_8));
                        positions.put(new TopicPartition(r.topic(), r.partition()), r.offset() + 1);
                    }
                }
            } catch (WakeupException | InterruptException e) {
                break;
            } catch (KafkaException e) {
                events.log(who + " failed (" + e + "); a new one resumes where it was");
                NemesisCluster.sleep(1_000);
            } finally {
                synchronized (liveReaders) {
                    liveReaders.remove(consumer);
                }
                try {
                    consumer.close(Duration.ofSeconds(5));
                } catch (RuntimeException ignored) {
                    // closing after a failure: nothing left to save
                }
            }
        }
    }

    /** Stops the producers (each finishes its transaction, bounded), then the readers. */
    public void stop() {
        stopping.set(true);
        join(producerThreads, 90_000);
        for (Thread t : producerThreads) {
            if (t.isAlive()) {
                StringBuilder where = new StringBuilder();
                for (StackTraceElement frame : t.getStackTrace()) {
                    where.append("\n    at ").append(frame);
                }
                stuck.add(t.getName() + " had not finished its transaction 90 s after the workload stopped");
                events.log(t.getName() + " has not finished its transaction 90 s after stop; it is in" + where);
            }
        }
        readersStopping.set(true);
        synchronized (liveReaders) {
            liveReaders.forEach(KafkaConsumer::wakeup);
        }
        join(readerThreads, 30_000);
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

    /**
     * Liveness failures seen: a send the client neither acknowledged nor failed within its delivery timeout (and 5 s),
     * a producer still in a transaction 90 s after {@link #stop()}.
     */
    public List<String> stuck() {
        return List.copyOf(stuck);
    }

    @Override
    public void close() {
        if (!stopping.get() || !readersStopping.get()) {
            stop();
        }
    }

    /**
     * Waits until every partition's last stable offset reached its high watermark (no transaction open), up to
     * {@code timeout}; returns the partitions where it did not, with both offsets (empty: none).
     */
    static Map<Integer, String> awaitStable(Admin admin, WorkloadSpec spec, Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        Map<Integer, String> open = new HashMap<>();
        do {
            open.clear();
            Map<TopicPartition, OffsetSpec> latest = new HashMap<>();
            for (int p = 0; p < spec.partitions(); p++) {
                latest.put(new TopicPartition(spec.topic(), p), OffsetSpec.latest());
            }
            try {
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> hw = admin.listOffsets(
                                latest, new ListOffsetsOptions(IsolationLevel.READ_UNCOMMITTED))
                        .all()
                        .get(10, TimeUnit.SECONDS);
                Map<TopicPartition, ListOffsetsResult.ListOffsetsResultInfo> lso = admin.listOffsets(
                                latest, new ListOffsetsOptions(IsolationLevel.READ_COMMITTED))
                        .all()
                        .get(10, TimeUnit.SECONDS);
                for (TopicPartition tp : latest.keySet()) {
                    long h = Objects.requireNonNull(hw.get(tp), "hw").offset();
                    long l = Objects.requireNonNull(lso.get(tp), "lso").offset();
                    if (l < h) {
                        open.put(tp.partition(), "last stable offset " + l + " < high watermark " + h);
                    }
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                open.put(-1, "interrupted");
                return open;
            } catch (ExecutionException | TimeoutException | RuntimeException e) {
                open.put(-1, "ListOffsets failed: " + e);
            }
            if (open.isEmpty()) {
                return Map.of();
            }
            NemesisCluster.sleep(1_000);
        } while (System.nanoTime() < deadline);
        return open;
    }

    /**
     * Reads every partition from the start to its end offset (the last stable offset for read_committed) in the
     * given isolation level; null when complete, else what is missing.
     */
    static @Nullable String finalRead(
            String bootstrap,
            WorkloadSpec spec,
            IsolationLevel isolation,
            Duration timeout,
            Map<Integer, List<Checker.LogRecord>> out) {
        List<TopicPartition> partitions = partitions(spec);
        for (TopicPartition tp : partitions) {
            out.put(tp.partition(), new ArrayList<>());
        }
        try (KafkaConsumer<byte[], byte[]> consumer =
                new KafkaConsumer<>(readerProps(bootstrap, "nemesis-final-" + isolation, isolation))) {
            Map<TopicPartition, Long> missed = ReadToEnd.read(consumer, partitions, timeout, out);
            return missed == null
                    ? null
                    : isolation + " read incomplete after " + timeout.toSeconds() + " s: end offsets " + missed;
        } catch (RuntimeException e) {
            return isolation + " read failed: " + e;
        }
    }
}
