package dev.strait.mirror.engine;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.junit.jupiter.api.Test;

/**
 * A stream stopped while its group rebalances (another mirror process joining or leaving at that moment) cannot
 * commit until the rebalance completes: Kafka's client refuses the commit (RebalanceInProgressException). Closing
 * then would leave everything since the last commit to be copied again by the partitions' next owner. The stream
 * completes the rebalance first, taking no records, and commits what it copied.
 */
class MirrorStreamStopDuringRebalanceTest {
    @Test
    void aStreamStoppedInTheMiddleOfARebalanceStillCommitsWhatItCopied() {
        // Given: ten records copied, nothing committed yet (the commit interval is long)
        StreamHarness h = new StreamHarness(
                true,
                StreamHarness.unlimited(1),
                b -> b.messageHandler(
                        r -> List.of(new ProducerRecord<>(r.topic(), null, r.timestamp(), r.key(), r.value()))));
        TopicPartition tp = new TopicPartition(StreamHarness.TOPIC, 0);
        h.consumer.schedulePollTask(() -> {
            h.consumer.updateBeginningOffsets(Map.of(tp, 0L));
            h.consumer.rebalance(List.of(tp));
            for (int o = 0; o < 10; o++) {
                h.consumer.addRecord(StreamHarness.record(0, o, 10, 0));
            }
        });
        // When: a rebalance begins and the stream is stopped before it polls again
        h.consumer.schedulePollTask(() -> {
            h.consumer.rebalancing = true;
            h.stream.requestStop();
        });

        h.stream.run();

        // Then: all ten were copied once and committed
        assertThat(h.producer.history()).hasSize(10);
        assertThat(h.consumer.lastCommitted.get(tp)).isNotNull();
        assertThat(h.consumer.lastCommitted.get(tp).offset()).isEqualTo(10);
    }
}
