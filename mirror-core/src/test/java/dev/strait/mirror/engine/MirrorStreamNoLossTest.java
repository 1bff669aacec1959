package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.handler.MessageHandler;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.provenance.Provenance;
import dev.strait.time.ManualTime;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.Future;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.Callback;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.clients.producer.RecordMetadata;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RecordTooLargeException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/**
 * The no-loss rule of one stream on kafka-clients' MockConsumer and MockProducer: whatever order the
 * producer's callbacks arrive in, whenever commits fall between them, and whichever copies fail, no commit
 * passes a source record that has a copy not yet acknowledged, or a failed copy that was not skipped. Each
 * seed is one schedule; a failure names its seed, and the same seed replays it.
 */
class MirrorStreamNoLossTest {
    private static final String TOPIC = "t";
    private static final int PARTITIONS = 3;

    @Test
    void noCommitPassesAnOwedRecordUnderAnyInterleaving() {
        for (long seed = 0; seed < 300; seed++) {
            Schedule schedule = new Schedule(seed);
            schedule.run();
            schedule.assertEverythingOwedIsStillUncommitted();
        }
    }

    /** One randomized run: records, a handler or not, failures or not, callbacks completed in random order. */
    private static final class Schedule {
        private final long seed;
        private final Random random;
        private final ManualTime time = new ManualTime();
        private final boolean abort;
        private final boolean withHandler;
        private final double failureRate;
        private final CheckingConsumer consumer = new CheckingConsumer();
        private final ShuffledProducer producer;
        private final Map<TopicPartition, Integer> sizes = new HashMap<>();
        private MirrorStream stream;
        private final List<String> violations = new ArrayList<>();
        private int commits;
        private boolean ended;

        Schedule(long seed) {
            this.seed = seed;
            this.random = new Random(seed);
            this.abort = random.nextBoolean();
            this.withHandler = random.nextBoolean();
            this.failureRate = random.nextInt(3) == 0 ? 0 : random.nextDouble() * 0.05;
            this.producer = new ShuffledProducer(random);
            producer.shortFlush = random.nextInt(4) == 0;
        }

        void run() {
            Properties c = new Properties();
            c.put("bootstrap.servers", "127.0.0.1:1");
            c.put("group.id", "g");
            Properties p = new Properties();
            p.put("bootstrap.servers", "127.0.0.1:1");
            MirrorConfig.Builder b = MirrorConfig.builder()
                    .consumerConfig(c)
                    .producerConfig(p)
                    .include(TOPIC)
                    .offsetCommitIntervalMs(100)
                    .abortOnSendFailure(abort);
            if (withHandler) {
                b.messageHandler(new ZeroToThreeCopies());
            }
            MirrorConfig settings = b.build();
            RecordRouter.Targets targets = new RecordRouter.Targets() {
                @Override
                public TargetTopics.TargetTopic ensure(String sourceTopic, String targetTopic) {
                    return new TargetTopics.TargetTopic(targetTopic, PARTITIONS, Integer.MAX_VALUE);
                }

                @Override
                public void refresh(String targetTopic) {}
            };
            stream = new MirrorStream(
                    0,
                    settings,
                    consumer,
                    producer,
                    targets,
                    "src-cluster",
                    "dst-cluster",
                    new MirrorMetrics(new MetricRegistry()),
                    time,
                    "earliest",
                    new RecordSizer("none"),
                    AcknowledgementListener.NONE,
                    topic -> null);
            consumer.setMaxPollRecords(1 + random.nextInt(40));
            consumer.schedulePollTask(this::start);
            consumer.schedulePollTask(this::step);
            try {
                stream.run();
                assertThat(ended)
                        .as("seed %d: the stream stopped only when asked", seed)
                        .isTrue();
            } catch (MirrorException e) {
                assertThat(producer.systemicFailures + producer.recordFailures)
                        .as("seed %d: failed without a failure: %s", seed, e)
                        .isPositive();
            }
            assertThat(commits).as("seed %d: commits happened", seed).isPositive();
        }

        private void start() {
            List<TopicPartition> tps = new ArrayList<>();
            Map<TopicPartition, Long> begin = new HashMap<>();
            for (int i = 0; i < PARTITIONS; i++) {
                TopicPartition tp = new TopicPartition(TOPIC, i);
                tps.add(tp);
                begin.put(tp, 0L);
            }
            consumer.updateBeginningOffsets(begin);
            consumer.rebalance(tps);
            for (TopicPartition tp : tps) {
                int n = random.nextInt(150);
                sizes.put(tp, n);
                for (int o = 0; o < n; o++) {
                    consumer.addRecord(new ConsumerRecord<>(
                            TOPIC,
                            tp.partition(),
                            o,
                            1_700_000_000_000L + o,
                            org.apache.kafka.common.record.TimestampType.CREATE_TIME,
                            2,
                            2,
                            ("k" + o).getBytes(StandardCharsets.UTF_8),
                            ("v" + o).getBytes(StandardCharsets.UTF_8),
                            new RecordHeaders(),
                            java.util.Optional.of(0)));
                }
            }
        }

        /** One poll's worth of the world moving: some callbacks complete, time passes; reschedules itself. */
        private void step() {
            int completions = random.nextInt(6);
            for (int i = 0; i < completions; i++) {
                producer.completeOne(failureRate);
            }
            time.sleep(random.nextInt(60));
            boolean fed = consumer.allFed();
            if (fed && producer.pendingCount() == 0 && random.nextInt(4) == 0
                    || stream.state() != MirrorStream.State.RUNNING) {
                ended = true;
                stream.requestStop();
                return;
            }
            consumer.schedulePollTask(this::step);
        }

        /** Checked at every commit, by {@link CheckingConsumer}. */
        void check(Map<TopicPartition, OffsetAndMetadata> offsets) {
            // Recorded, not thrown: the stream would catch an AssertionError thrown from inside its commit.
            commits++;
            offsets.forEach((tp, om) -> {
                Long owed = producer.lowestOwed(tp, abort);
                if (owed != null && om.offset() > owed) {
                    violations.add(
                            "seed " + seed + ": commit " + om.offset() + " of " + tp + " passes owed source offset "
                                    + owed + " (abort " + abort + ", handler " + withHandler + ")");
                }
                if (om.offset() > sizes.getOrDefault(tp, 0)) {
                    violations.add("seed " + seed + ": commit " + om.offset() + " of " + tp + " past what was polled");
                }
            });
        }

        void assertEverythingOwedIsStillUncommitted() {
            assertThat(violations).isEmpty();
            // Once every copy is acknowledged and nothing failed, the final commit covers every record.
            if (producer.systemicFailures == 0 && producer.recordFailures == 0 && producer.pendingCount() == 0) {
                sizes.forEach((tp, n) -> {
                    OffsetAndMetadata om = consumer.lastCommitted.get(tp);
                    assertThat(om == null ? 0 : om.offset())
                            .as("seed %d: final commit of %s", seed, tp)
                            .isEqualTo((long) n);
                });
            }
        }

        /** MockConsumer that checks the invariant at every commit. */
        private final class CheckingConsumer extends MockConsumer<byte[], byte[]> {
            final Map<TopicPartition, OffsetAndMetadata> lastCommitted = new HashMap<>();

            CheckingConsumer() {
                super("earliest");
            }

            @Override
            public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
                check(offsets);
                lastCommitted.putAll(offsets);
                super.commitSync(offsets);
            }

            @Override
            public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
                commitSync(offsets);
            }

            boolean allFed() {
                for (TopicPartition tp : sizes.keySet()) {
                    if (!assignment().contains(tp) || position(tp) < sizes.get(tp)) {
                        return false;
                    }
                }
                return true;
            }
        }
    }

    /**
     * A MockProducer whose callbacks are held back and completed in random order, each with success, a
     * record-level error (too large) or a systemic one (delivery timeout); flush() completes them all, in
     * random order.
     */
    private static final class ShuffledProducer extends MockProducer<byte[], byte[]> {
        private record Pending(
                ProducerRecord<byte[], byte[]> record,
                Callback callback,
                RecordMetadata metadata,
                TopicPartition source,
                long sourceOffset) {}

        private final Random random;
        private final List<Pending> pending = new ArrayList<>();
        /** Per source partition: source offset -> copies owed (pending, or failed and not skippable). */
        private final Map<TopicPartition, TreeMap<Long, Integer>> owed = new HashMap<>();

        private final Map<TopicPartition, TreeMap<Long, Integer>> failedRecordLevel = new HashMap<>();
        int systemicFailures;
        int recordFailures;

        ShuffledProducer(Random random) {
            super(true, null, new ByteArraySerializer(), new ByteArraySerializer());
            this.random = random;
        }

        @Override
        public synchronized Future<RecordMetadata> send(ProducerRecord<byte[], byte[]> record, Callback callback) {
            Future<RecordMetadata> f = super.send(record, null);
            RecordMetadata md;
            try {
                md = f.get();
            } catch (Exception e) {
                throw new IllegalStateException(e);
            }
            Provenance p = Provenance.from(record.headers());
            TopicPartition source = new TopicPartition(p.topic(), p.partition());
            owed.computeIfAbsent(source, k -> new TreeMap<>()).merge(p.offset(), 1, Integer::sum);
            pending.add(new Pending(record, callback, md, source, p.offset()));
            return f;
        }

        /** When set, flush() returns with some sends still in flight (as if interrupted): the tracker must hold. */
        boolean shortFlush;

        @Override
        public synchronized void flush() {
            int n = shortFlush ? random.nextInt(pending.size() + 1) : pending.size();
            for (int i = 0; i < n; i++) {
                completeOne(0);
            }
        }

        int pendingCount() {
            return pending.size();
        }

        void completeOne(double failureRate) {
            if (pending.isEmpty()) {
                return;
            }
            Pending p = pending.remove(random.nextInt(pending.size()));
            TreeMap<Long, Integer> o = owed.get(p.source());
            if (random.nextDouble() < failureRate) {
                boolean recordLevel = random.nextBoolean();
                if (recordLevel) {
                    recordFailures++;
                    // Owed still, unless the stream skips record-level failures (abort off): see lowestOwed.
                    failedRecordLevel
                            .computeIfAbsent(p.source(), k -> new TreeMap<>())
                            .merge(p.sourceOffset(), 1, Integer::sum);
                    o.computeIfPresent(p.sourceOffset(), (k, n) -> n == 1 ? null : n - 1);
                    p.callback().onCompletion(null, new RecordTooLargeException("too large"));
                } else {
                    systemicFailures++;
                    // A systemic failure is never skipped: its record stays owed for ever.
                    p.callback().onCompletion(null, new TimeoutException("delivery timed out"));
                }
                return;
            }
            o.computeIfPresent(p.sourceOffset(), (k, n) -> n == 1 ? null : n - 1);
            p.callback().onCompletion(p.metadata(), null);
        }

        /** The lowest source offset of {@code tp} that a commit must not pass, or null. */
        Long lowestOwed(TopicPartition tp, boolean abort) {
            Long lowest = null;
            TreeMap<Long, Integer> o = owed.get(tp);
            if (o != null && !o.isEmpty()) {
                lowest = o.firstKey();
            }
            TreeMap<Long, Integer> f = failedRecordLevel.get(tp);
            if (abort && f != null && !f.isEmpty()) {
                lowest = lowest == null ? f.firstKey() : Math.min(lowest, f.firstKey());
            }
            return lowest;
        }
    }

    /** A handler that turns each record into zero to three copies, each with its own headers. */
    public static final class ZeroToThreeCopies implements MessageHandler {
        @Override
        public List<ProducerRecord<byte[], byte[]>> handle(ConsumerRecord<byte[], byte[]> record) {
            int n = (int) (record.offset() * 7 % 4);
            List<ProducerRecord<byte[], byte[]>> out = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                out.add(new ProducerRecord<>(
                        record.topic(), null, record.timestamp(), record.key(), record.value(), new RecordHeaders()));
            }
            return out;
        }
    }
}
