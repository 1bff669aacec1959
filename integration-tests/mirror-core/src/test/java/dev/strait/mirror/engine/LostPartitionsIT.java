package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.handler.MessageHandler;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.mirror.provenance.Provenance;
import dev.strait.testkit.KafkaCluster;
import dev.strait.testkit.SharedClusters;
import dev.strait.testkit.TestProducer;
import dev.strait.testkit.TopicReader;
import dev.strait.time.Await;
import dev.strait.time.Time;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.junit.jupiter.api.Test;

/**
 * D7 on Apache Kafka 4.1.1: two mirror processes in one group. The first is held up inside a poll (its handler
 * blocks) past max.poll.interval.ms, so its consumer leaves the group and the second takes the partition over and
 * copies it again from the last commit. When the first wakes up it must not hand the rest of its poll to the
 * producer: those copies would land after the second's, out of order. On the target the source offsets go back
 * once (the second process starting over), never twice.
 */
class LostPartitionsIT {
    private static final int RECORDS = 2_000;
    private static final long HELD_AT = 300;

    /** Copies each record as is; on the first sight of offset {@code holdAt} it blocks until released. */
    private static final class HoldingHandler implements MessageHandler {
        final long holdAt;
        final CountDownLatch holding = new CountDownLatch(1);
        final CountDownLatch release = new CountDownLatch(1);
        final AtomicBoolean held = new AtomicBoolean();

        HoldingHandler(long holdAt) {
            this.holdAt = holdAt;
        }

        @Override
        public List<ProducerRecord<byte[], byte[]>> handle(ConsumerRecord<byte[], byte[]> r) {
            if (r.offset() == holdAt && held.compareAndSet(false, true)) {
                holding.countDown();
                try {
                    release.await(120, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return List.of(new ProducerRecord<>(r.topic(), null, r.timestamp(), r.key(), r.value(), r.headers()));
        }
    }

    private static MirrorConfig settings(String topic, MessageHandler handler) {
        Properties consumer = new Properties();
        consumer.put("bootstrap.servers", SharedClusters.source().bootstrapServers());
        consumer.put("group.id", "m-lost");
        consumer.put("metadata.max.age.ms", "1000");
        consumer.put("max.poll.interval.ms", "6000");
        consumer.put("session.timeout.ms", "6000");
        consumer.put("heartbeat.interval.ms", "1000");
        Properties producer = new Properties();
        producer.put("bootstrap.servers", SharedClusters.target().bootstrapServers());
        return MirrorConfig.builder()
                .consumerConfig(consumer)
                .producerConfig(producer)
                .include(topic)
                // No commit before the take-over: the second process starts over from offset 0.
                .offsetCommitIntervalMs(600_000)
                .messageHandler(handler)
                .build();
    }

    @Test
    void aProcessHeldUpPastItsPollIntervalLandsNoCopyAfterTheNewOwnersCopies() throws Exception {
        // Given: 2,000 records, and a first mirror process held up on record 300 of its first poll
        KafkaCluster source = SharedClusters.source();
        KafkaCluster target = SharedClusters.target();
        String topic = "lost.orders";
        source.createTopic(topic, 1);
        try (TestProducer producer = new TestProducer(source.bootstrapServers())) {
            producer.produce(topic, 1, RECORDS);
        }
        HoldingHandler holding = new HoldingHandler(HELD_AT);
        MirrorEngine first = start(settings(topic, holding));
        MirrorEngine second = null;
        try {
            assertThat(holding.holding.await(60, TimeUnit.SECONDS))
                    .as("the first process reached record 300")
                    .isTrue();
            Await.until(
                    "records 0..299 on the target",
                    Duration.ofSeconds(60),
                    () -> target.endOffsetSum(topic) >= HELD_AT);

            // When: a second process joins; the group waits for the first (max.poll.interval.ms), drops it and gives
            // the partition to the second, which copies every record again; then the first wakes up
            second = start(settings(topic, new HoldingHandler(-1)));
            Await.until(
                    "the second process copied all 2,000 records",
                    Duration.ofSeconds(90),
                    () -> target.endOffsetSum(topic) >= HELD_AT + RECORDS);
            holding.release.countDown();
            // The first finishes (or stops) handing its poll over, polls again, learns it lost the partition and
            // rejoins; stopping both then flushes whatever it handed over.
            Await.until(
                    "the first process rejoined the group",
                    Duration.ofSeconds(60),
                    () -> members(source, "m-lost") == 2);
        } finally {
            holding.release.countDown();
            if (second != null) {
                MirrorFixture.stop(second);
            }
            MirrorFixture.stop(first);
        }

        // Then: source offsets on the target go back exactly once (where the second process started over)
        List<Long> offsets = new ArrayList<>();
        for (ConsumerRecord<byte[], byte[]> copy :
                TopicReader.readAll(target.bootstrapServers(), topic).get(0)) {
            offsets.add(Provenance.from(copy.headers()).offset());
        }
        List<String> goingBack = new ArrayList<>();
        for (int i = 1; i < offsets.size(); i++) {
            if (offsets.get(i) <= offsets.get(i - 1)) {
                goingBack.add("at target offset " + i + ": " + offsets.get(i - 1) + " then " + offsets.get(i));
            }
        }
        assertThat(goingBack).as("places where the source offsets go back").hasSize(1);
        assertThat(offsets.stream().distinct().count())
                .as("every source record copied")
                .isEqualTo(RECORDS);
        assertThat(offsets.get(offsets.size() - 1)).isEqualTo(RECORDS - 1L);
    }

    private static int members(KafkaCluster cluster, String group) {
        try (Admin admin = cluster.admin()) {
            return admin.describeConsumerGroups(List.of(group))
                    .all()
                    .get(30, TimeUnit.SECONDS)
                    .get(group)
                    .members()
                    .size();
        } catch (Exception e) {
            return -1;
        }
    }

    private static MirrorEngine start(MirrorConfig settings) {
        MirrorEngine engine = new MirrorEngine(settings, new MirrorMetrics(new MetricRegistry()), Time.SYSTEM);
        engine.start();
        return engine;
    }
}
