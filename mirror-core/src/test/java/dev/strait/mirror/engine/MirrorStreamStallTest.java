package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import com.codahale.metrics.MetricRegistry;
import dev.strait.mirror.config.MirrorConfig;
import dev.strait.mirror.metrics.MirrorMetrics;
import dev.strait.time.ManualTime;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.MockConsumer;
import org.apache.kafka.clients.producer.MockProducer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.junit.jupiter.api.Test;

/** A stream whose copies the target never acknowledges says how long it has been stuck; one that moves says 0. */
class MirrorStreamStallTest {
    @Test
    void aStreamWithCopiesInFlightAndNoAcknowledgementReportsHowLongItHasBeenStuck() {
        ManualTime time = new ManualTime();
        MockConsumer<byte[], byte[]> consumer = new MockConsumer<>("earliest");
        // autoComplete=false: the target takes the records and never answers
        MockProducer<byte[], byte[]> producer =
                new MockProducer<>(false, null, new ByteArraySerializer(), new ByteArraySerializer());
        Properties c = new Properties();
        c.put("bootstrap.servers", "127.0.0.1:1");
        c.put("group.id", "g");
        Properties p = new Properties();
        p.put("bootstrap.servers", "127.0.0.1:1");
        MirrorConfig settings = MirrorConfig.builder()
                .consumerConfig(c)
                .producerConfig(p)
                .include("t")
                .offsetCommitIntervalMs(600_000)
                .build();
        RecordRouter.Targets targets = new RecordRouter.Targets() {
            @Override
            public TargetTopics.TargetTopic ensure(String sourceTopic, String targetTopic) {
                return new TargetTopics.TargetTopic(targetTopic, 1, Integer.MAX_VALUE);
            }

            @Override
            public void refresh(String targetTopic) {}
        };
        MirrorStream stream = new MirrorStream(
                0,
                settings,
                consumer,
                producer,
                targets,
                "src",
                "dst",
                new MirrorMetrics(new MetricRegistry()),
                time,
                "earliest",
                new RecordSizer("none"),
                AcknowledgementListener.NONE,
                topic -> null);
        TopicPartition tp = new TopicPartition("t", 0);
        List<Long> stalls = new ArrayList<>();
        consumer.schedulePollTask(() -> {
            consumer.updateBeginningOffsets(Map.of(tp, 0L));
            consumer.rebalance(List.of(tp));
            for (int o = 0; o < 10; o++) {
                consumer.addRecord(new ConsumerRecord<>(
                        "t",
                        0,
                        o,
                        ("k" + o).getBytes(StandardCharsets.UTF_8),
                        ("v" + o).getBytes(StandardCharsets.UTF_8)));
            }
        });
        for (int i = 0; i < 5; i++) {
            consumer.schedulePollTask(() -> {
                time.advance(30_000);
                stalls.add(stream.stalledForMs(time.milliseconds()));
            });
        }
        consumer.schedulePollTask(() -> {
            producer.flush();
            stalls.add(stream.stalledForMs(time.milliseconds()));
            stream.requestStop();
        });

        stream.run();

        assertThat(stalls.subList(1, 5))
                .as("stuck for ever longer while nothing is acknowledged")
                .isSorted()
                .allSatisfy(ms -> assertThat(ms).isPositive());
        assertThat(stalls.get(4)).isGreaterThanOrEqualTo(120_000);
        assertThat(stalls.get(5)).as("acknowledged: moving again").isZero();
    }
}
