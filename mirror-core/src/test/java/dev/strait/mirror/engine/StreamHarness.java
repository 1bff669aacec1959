package dev.strait.mirror.engine;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.time.ManualTime;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.RebalanceInProgressException;
import org.apache.kafka.common.header.internals.RecordHeaders;
import org.apache.kafka.common.record.TimestampType;
import org.apache.kafka.common.serialization.ByteArraySerializer;

/**
 * One {@link MirrorStream} on kafka-clients' MockConsumer and MockProducer with a manual clock, for tests of one
 * stream's edges. The producer does not complete sends by itself unless asked to.
 */
final class StreamHarness {
    static final String TOPIC = "t";

    final ManualTime time = new ManualTime();
    final RecordingConsumer consumer = new RecordingConsumer();
    final MockProducer<byte[], byte[]> producer;
    final MirrorMetrics metrics = new MirrorMetrics(new MetricRegistry());
    final MirrorStream stream;

    StreamHarness(boolean autoComplete, RecordRouter.Targets targets, Consumer<MirrorConfig.Builder> tune) {
        this(autoComplete, targets, new Properties(), tune);
    }

    StreamHarness(
            boolean autoComplete,
            RecordRouter.Targets targets,
            Properties consumerExtra,
            Consumer<MirrorConfig.Builder> tune) {
        producer = new MockProducer<>(autoComplete, null, new ByteArraySerializer(), new ByteArraySerializer());
        Properties c = new Properties();
        c.put("bootstrap.servers", "127.0.0.1:1");
        c.put("group.id", "g");
        c.putAll(consumerExtra);
        Properties p = new Properties();
        p.put("bootstrap.servers", "127.0.0.1:1");
        MirrorConfig.Builder b = MirrorConfig.builder()
                .consumerConfig(c)
                .producerConfig(p)
                .include(TOPIC)
                .offsetCommitIntervalMs(600_000);
        tune.accept(b);
        stream = new MirrorStream(
                0,
                b.build(),
                consumer,
                producer,
                targets,
                "src",
                "dst",
                metrics,
                time,
                "earliest",
                new RecordSizer("none"),
                AcknowledgementListener.NONE,
                topic -> null);
    }

    /**
     * A MockConsumer that keeps the last offset committed per partition, readable after the stream closed it, and
     * can be put in the middle of a rebalance: commits are refused as Kafka's client refuses them then, until the
     * next poll completes it.
     */
    static final class RecordingConsumer extends MockConsumer<byte[], byte[]> {
        final Map<TopicPartition, OffsetAndMetadata> lastCommitted = new ConcurrentHashMap<>();
        volatile boolean rebalancing;

        RecordingConsumer() {
            super("earliest");
        }

        @Override
        public synchronized ConsumerRecords<byte[], byte[]> poll(Duration timeout) {
            rebalancing = false;
            return super.poll(timeout);
        }

        @Override
        public synchronized void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets) {
            if (rebalancing) {
                throw new RebalanceInProgressException("the group is rebalancing (test)");
            }
            lastCommitted.putAll(offsets);
            super.commitSync(offsets);
        }

        @Override
        public void commitSync(Map<TopicPartition, OffsetAndMetadata> offsets, Duration timeout) {
            commitSync(offsets);
        }
    }

    /** Targets of {@code partitions} partitions that accept records of any size. */
    static RecordRouter.Targets unlimited(int partitions) {
        return new RecordRouter.Targets() {
            @Override
            public TargetTopics.TargetTopic ensure(String sourceTopic, String targetTopic) {
                return new TargetTopics.TargetTopic(targetTopic, partitions, Integer.MAX_VALUE);
            }

            @Override
            public void refresh(String targetTopic) {}
        };
    }

    static ConsumerRecord<byte[], byte[]> record(int partition, long offset, int valueBytes, int leaderEpoch) {
        byte[] value = new byte[valueBytes];
        java.util.Arrays.fill(value, (byte) 'v');
        return new ConsumerRecord<>(
                TOPIC,
                partition,
                offset,
                1_700_000_000_000L + offset,
                TimestampType.CREATE_TIME,
                2,
                valueBytes,
                ("k" + offset).getBytes(StandardCharsets.UTF_8),
                value,
                new RecordHeaders(),
                Optional.of(leaderEpoch));
    }
}
